// The instructor changes the speed of time with the rate selector: the server takes the
// new real-time factor (a number, or "max") and the lab keeps running.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

test('the instructor changes the rate from the UI', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const page = await openPage('instructor');
    await waitUntil('the instructor role and a running lab', () => readUi(page), (u) => u.role === 'instructor' && u.mode === 'running');
    const select = page.locator(byTestId('rate-select'));

    const offered = await select.locator('option').evaluateAll((options) => options.map((o) => o.value));
    assert.deepEqual(offered, ['0.1', '0.25', '0.5', '1', '2', '5', '10', 'max'], 'the rates offered');

    await select.selectOption('2');
    const doubled = await waitUntil('the server to run at rate 2', () => server.lab('demo'), (lab) => lab.rate === 2);
    assert.equal(doubled.mode, 'running', 'changing the rate must not pause the lab');

    await select.selectOption('max');
    await waitUntil('the server to run at rate "max"', () => server.lab('demo'), (lab) => lab.rate === 'max');

    await select.selectOption('0.25');
    const slow = await waitUntil('the server to run at rate 0.25', () => server.lab('demo'), (lab) => lab.rate === 0.25);
    assert.equal(slow.mode, 'running');
    assert.equal(await select.inputValue(), '0.25', 'the selector shows the rate in force');

    // Time still advances, on the page, at the new rate.
    const before = await readUi(page);
    await waitUntil(`sim time to advance past ${before.time} s`, () => readUi(page), (u) => u.time > before.time);

    saveArtifact(artifactName('rate.png'), await page.screenshot());
  });
});
