// A lab's page downloads only its first wasm module; the parts of the page that are
// not shown at first (a picked robot's sensors, the forms, the instructor's tools) come
// as modules of their own the first time they are shown, compressed and cacheable like
// the first. A part that cannot be fetched says so where it would stand, and the rest
// of the page goes on. The sizes are printed for docs/performance.md, never asserted.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

const FIRST_MODULE = /\/vlab_frontend_bg-[0-9a-f]{16}\.wasm$/;
const PICKED_ROBOT_PART = /\/split_picked_robot-[0-9a-f]{16}\.wasm$/;

/** Every wasm file the page fetched so far: name and bytes on the wire. */
async function wasmFetched(page) {
  return page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((entry) => entry.name.endsWith('.wasm'))
      .map((entry) => ({ name: entry.name, transferSize: entry.transferSize, decodedBodySize: entry.decodedBodySize })),
  );
}

/** Waits for a drawn frame with the scene's bodies. */
async function waitForScene(page) {
  return waitUntil('a frame with the scene to be drawn', () => readUi(page), (ui) => ui.framesDrawn >= 1 && ui.bodies > 0);
}

/** Picks the lab's first listed robot in the Robots panel and returns its name. */
async function pickFirstRobot(page) {
  const item = page.locator(byTestId('robot-item')).first();
  await item.waitFor();
  const robot = await item.getAttribute('data-robot');
  await item.click();
  return robot;
}

test('the first module alone draws the lab; a picked robot brings its part, compressed and cacheable', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ openPage, artifactName }) => {
    const page = await openPage('viewer');
    const responses = [];
    page.on('response', (response) => responses.push(response));
    await waitForScene(page);

    const atFirst = await wasmFetched(page);
    assert.equal(atFirst.length, 1, `one wasm file before anything is opened: ${JSON.stringify(atFirst)}`);
    assert.match(atFirst[0].name, FIRST_MODULE);
    t.diagnostic(`first module: ${atFirst[0].transferSize} B transferred, ${atFirst[0].decodedBodySize} B decoded`);

    const robot = await pickFirstRobot(page);
    await page.locator(`${byTestId('robot-report')}[data-robot="${robot}"]`).waitFor();

    const afterPick = await wasmFetched(page);
    const part = afterPick.find((entry) => PICKED_ROBOT_PART.test(entry.name));
    assert.ok(part, `picking a robot fetched its part: ${JSON.stringify(afterPick.map((entry) => entry.name))}`);
    const partBytes = afterPick.slice(1).reduce((sum, entry) => sum + entry.transferSize, 0);
    t.diagnostic(
      `picking ${robot} fetched ${afterPick.length - 1} more wasm files, ${partBytes} B transferred ` +
        `(the part itself ${part.transferSize} B, ${part.decodedBodySize} B decoded)`,
    );
    const response = responses.find((candidate) => candidate.url() === part.name);
    assert.ok(response, 'the part was fetched over the network');
    const headers = await response.allHeaders();
    assert.equal(response.status(), 200);
    assert.equal(headers['content-type'], 'application/wasm');
    assert.match(headers['content-encoding'] ?? '', /^(br|gzip)$/, 'the part is sent compressed');
    assert.match(headers['cache-control'] ?? '', /immutable/, 'the part may be kept without asking again');

    // The part works: the report of the picked robot is live, the view still draws.
    const before = await readUi(page);
    await waitUntil('more frames drawn', () => readUi(page), (ui) => ui.framesDrawn > before.framesDrawn);
    saveArtifact(artifactName('picked.png'), await page.screenshot());
  });
});

test('a part that cannot be fetched says so and the page goes on', { timeout: 300_000 }, async (t) => {
  // The browser logs the failed fetch, and the loader logs why: expected here.
  await withLab(
    t,
    async ({ openPage, artifactName }) => {
      const page = await openPage('viewer');
      await waitForScene(page);
      await page.route(PICKED_ROBOT_PART, (route) => route.abort('connectionfailed'));

      const robot = await pickFirstRobot(page);
      const error = page.locator(byTestId('part-error'));
      await error.waitFor();
      assert.equal(
        (await error.textContent()).trim(),
        "Could not load the robot's sensors: check the connection, then reload the page.",
      );
      const picked = page.locator(`${byTestId('robot-item')}[data-robot="${robot}"]`);
      assert.equal(await picked.getAttribute('aria-pressed'), 'true', 'the robot is still picked');
      const before = await readUi(page);
      await waitUntil('more frames drawn', () => readUi(page), (ui) => ui.framesDrawn > before.framesDrawn);
      assert.equal((await readUi(page)).state, 'connected', 'the page stays connected');
      saveArtifact(artifactName('part-error.png'), await page.screenshot());
    },
    { allowConsoleErrors: true },
  );
});
