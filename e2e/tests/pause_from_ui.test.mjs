// The instructor pauses the lab with the play/pause button: the clock stops (on the page
// and on the server), and "step 10" then advances it by exactly ten steps.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { sleep, waitUntil } from '../lib/poll.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

test('the instructor pauses from the UI, then steps exactly 10', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const page = await openPage('instructor');
    // The time controls come with the instructor's tools, a part of the page fetched once
    // the role is known: wait for them, as the instructor would.
    await waitUntil(
      'the instructor role, a running lab and the play/pause button',
      () => readUi(page),
      (u) => u.role === 'instructor' && u.mode === 'running' && u.instructorControls.includes('btn-play-pause'),
    );

    await page.locator(byTestId('btn-play-pause')).click();
    await waitUntil('the page to show the lab paused', () => readUi(page), (u) => u.mode === 'paused');

    // Frames sent just before the pause may still be on their way: wait until the page
    // shows the step the server stopped at, then watch that nothing moves.
    const api = await server.lab('demo');
    assert.equal(api.mode, 'paused', 'the server should say the lab is paused');
    const settled = await waitUntil(`the page to show the server's step ${api.step}`, () => readUi(page), (u) => u.step === api.step);
    await sleep(1500);
    const later = await readUi(page);
    assert.equal(later.time, settled.time, 'sim time moved while the lab was paused');
    assert.equal(later.step, settled.step, 'the step counter moved while the lab was paused');
    const apiLater = await server.lab('demo');
    assert.equal(apiLater.mode, 'paused');
    assert.equal(apiLater.step, settled.step, 'the server and the page disagree on the step while paused');

    // Step exactly 10 from the UI.
    await page.locator(byTestId('step-count')).fill('10');
    await page.locator(byTestId('btn-step')).click();
    const stepped = await waitUntil(
      `the step counter to reach ${settled.step + 10} with the lab paused again`,
      () => readUi(page),
      (u) => u.step >= settled.step + 10 && u.mode === 'paused',
    );
    assert.equal(stepped.step, settled.step + 10, 'step 10 should advance exactly 10 steps');
    const apiStepped = await server.lab('demo');
    assert.equal(apiStepped.mode, 'paused', 'the lab should pause after stepping');
    assert.equal(apiStepped.step, settled.step + 10, 'the server should have advanced exactly 10 steps');
    assert.ok(stepped.time > settled.time, `sim time should advance when stepping (${settled.time} → ${stepped.time})`);
    assert.ok(
      Math.abs(stepped.time - apiStepped.time) < 1e-3,
      `the page's sim time ${stepped.time} differs from the server's ${apiStepped.time}`,
    );

    saveArtifact(artifactName('paused-after-step.png'), await page.screenshot());
  });
});
