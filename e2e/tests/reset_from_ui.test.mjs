// The instructor resets the lab: the world is rebuilt from its scene at step 0, paused,
// and the page shows it (step 0, time 0, the scene drawn again).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

test('the instructor resets the lab from the UI', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const page = await openPage('instructor');
    const bodiesBefore = (await server.lab('demo')).bodies;
    await waitUntil('the lab to have run a while', () => readUi(page), (u) => u.mode === 'running' && u.step > 50);

    // Reset asks first: every robot of the class goes back. "Cancel" changes nothing.
    const asked = [];
    page.once('dialog', (dialog) => { asked.push(dialog.message()); dialog.dismiss(); });
    await page.locator(byTestId('btn-reset')).click();
    await waitUntil('the question to be asked', () => asked.length, (n) => n === 1);
    assert.match(asked[0], /^Reset the lab for everybody\?/);
    const kept = await server.lab('demo');
    assert.ok(kept.mode === 'running' && kept.step > 50, `a cancelled reset changes nothing: ${JSON.stringify(kept)}`);

    page.once('dialog', (dialog) => dialog.accept());
    await page.locator(byTestId('btn-reset')).click();
    const api = await waitUntil(
      'the server to be back at step 0, paused',
      () => server.lab('demo'),
      (lab) => lab.step === 0 && lab.mode === 'paused',
    );
    assert.equal(api.time, 0, 'sim time should be 0 after a reset');
    assert.equal(api.bodies, bodiesBefore, 'a reset rebuilds the same scene');

    const ui = await waitUntil(
      'the page to show step 0, time 0, paused',
      () => readUi(page),
      (u) => u.step === 0 && u.time === 0 && u.mode === 'paused',
    );
    assert.ok(ui.bodies > 20, `the scene should be drawn after a reset, data-bodies=${ui.bodies}`);

    saveArtifact(artifactName('after-reset.png'), await page.screenshot());
  });
});
