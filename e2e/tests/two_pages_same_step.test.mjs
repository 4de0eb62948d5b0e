// Everyone sees the same lab: an instructor and a viewer (another browser context, another
// person) show the same step as the server once the instructor pauses from the UI.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

test('an instructor page and a viewer page show the same step', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const instructor = await openPage('instructor');
    const viewer = await openPage('viewer');

    await waitUntil('the instructor page to show its role', () => readUi(instructor), (u) => u.role === 'instructor');
    const viewerUi = await waitUntil('the viewer page to show its role', () => readUi(viewer), (u) => u.role === 'viewer');
    assert.deepEqual(viewerUi.instructorControls, [], 'a viewer must not get time controls');

    await waitUntil('the instructor page to show a running lab', () => readUi(instructor), (u) => u.mode === 'running');
    await instructor.locator(byTestId('btn-play-pause')).click();

    const api = await waitUntil('the server to say paused', () => server.lab('demo'), (lab) => lab.mode === 'paused');
    for (const [name, page] of [['instructor', instructor], ['viewer', viewer]]) {
      await waitUntil(
        `the ${name} page to show paused at the server's step ${api.step}`,
        () => readUi(page),
        (u) => u.mode === 'paused' && u.step === api.step,
      );
    }
    const [a, b, apiNow] = [await readUi(instructor), await readUi(viewer), await server.lab('demo')];
    assert.equal(apiNow.step, api.step, 'the server moved while paused');
    assert.equal(a.step, b.step, 'the two pages show different steps');
    assert.equal(a.time, b.time, 'the two pages show different sim times');

    // A step from the instructor reaches the viewer too.
    await instructor.locator(byTestId('step-count')).fill('10');
    await instructor.locator(byTestId('btn-step')).click();
    const target = api.step + 10;
    await waitUntil(`the server to reach step ${target}`, () => server.lab('demo'), (lab) => lab.step === target && lab.mode === 'paused');
    for (const [name, page] of [['instructor', instructor], ['viewer', viewer]]) {
      await waitUntil(`the ${name} page to show step ${target}`, () => readUi(page), (u) => u.step === target);
    }

    saveArtifact(artifactName('instructor.png'), await instructor.screenshot());
    saveArtifact(artifactName('viewer.png'), await viewer.screenshot());
  });
});
