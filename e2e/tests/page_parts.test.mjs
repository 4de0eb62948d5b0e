// A lab's page downloads only its first wasm module, the part that lights the view with
// the sky's gradient (fetched when the view opens, drawn evenly lit until it is there),
// and the part that makes meshes and textures when its scene has any (the demo lab's
// floor and walls are textured);
// the parts of the page that are not shown at first (a picked robot's sensors, the
// forms, the instructor's tools) come as modules of their own the first time they are
// shown, compressed and cacheable like the first. A part that cannot be fetched says so where it would stand, and the rest
// of the page goes on. The sizes are printed for docs/performance.md, never asserted.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

const FIRST_MODULE = /\/vlab_frontend_bg-[0-9a-f]{16}\.wasm$/;
const PICKED_ROBOT_PART = /\/split_picked_robot-[0-9a-f]{16}\.wasm$/;
const SCENE_ASSETS_PART = /\/split_scene_assets-[0-9a-f]{16}\.wasm$/;
const LIGHTING_PART = /\/split_lighting-[0-9a-f]{16}\.wasm$/;
const SHARED_CHUNK = /\/chunk_[0-9]+-[0-9a-f]{16}\.wasm$/;

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

    // The textures are fetched after the first frame, and the part that makes them with
    // them; the lighting part is asked for when the view opens: either may be on its way
    // already, or not yet.
    const atFirst = await wasmFetched(page);
    const firstModule = atFirst.filter((entry) => FIRST_MODULE.test(entry.name));
    assert.equal(firstModule.length, 1, `the first module, once: ${JSON.stringify(atFirst)}`);
    // That part may bring code it shares with others (`chunk_<n>`), but no other part comes.
    const expected = [FIRST_MODULE, SCENE_ASSETS_PART, LIGHTING_PART, SHARED_CHUNK];
    const unasked = atFirst.filter((entry) => !expected.some((pattern) => pattern.test(entry.name)));
    assert.deepEqual(unasked, [], 'no other part before anything is opened');
    t.diagnostic(`first module: ${firstModule[0].transferSize} B transferred, ${firstModule[0].decodedBodySize} B decoded`);
    const assetsPart = await waitUntil('the textures\' part', () => wasmFetched(page), (all) => all.some((e) => SCENE_ASSETS_PART.test(e.name)));
    const textures = assetsPart.find((entry) => SCENE_ASSETS_PART.test(entry.name));
    t.diagnostic(`the part for meshes and textures: ${textures.transferSize} B transferred, ${textures.decodedBodySize} B decoded`);
    const lit = await waitUntil(
      'the view lit by the sky',
      () => page.locator(byTestId('lab-canvas')).getAttribute('data-lighting'),
      (lighting) => lighting === 'sky',
    );
    assert.equal(lit, 'sky');
    const lightingPart = (await wasmFetched(page)).filter((entry) => LIGHTING_PART.test(entry.name));
    assert.equal(lightingPart.length, 1, 'the lighting part, fetched once');
    t.diagnostic(`the lighting part: ${lightingPart[0].transferSize} B transferred, ${lightingPart[0].decodedBodySize} B decoded`);
    const beforePick = await wasmFetched(page);

    const robot = await pickFirstRobot(page);
    await page.locator(`${byTestId('robot-report')}[data-robot="${robot}"]`).waitFor();

    const afterPick = await wasmFetched(page);
    const part = afterPick.find((entry) => PICKED_ROBOT_PART.test(entry.name));
    assert.ok(part, `picking a robot fetched its part: ${JSON.stringify(afterPick.map((entry) => entry.name))}`);
    const picked = afterPick.slice(beforePick.length);
    const partBytes = picked.reduce((sum, entry) => sum + entry.transferSize, 0);
    t.diagnostic(
      `picking ${robot} fetched ${picked.length} more wasm files, ${partBytes} B transferred ` +
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

test('without its lighting part the view is drawn evenly lit and the page goes on', { timeout: 300_000 }, async (t) => {
  // The browser logs the failed fetch, and the page logs why it lights evenly: expected here.
  await withLab(
    t,
    async ({ openPage, artifactName }) => {
      const page = await openPage('viewer', { fail: [LIGHTING_PART] });
      await waitForScene(page);
      const before = await readUi(page);
      await waitUntil('more frames drawn', () => readUi(page), (ui) => ui.framesDrawn > before.framesDrawn + 30);
      assert.equal(await page.locator(byTestId('lab-canvas')).getAttribute('data-lighting'), 'even');
      assert.equal((await readUi(page)).state, 'connected', 'the page stays connected');
      saveArtifact(artifactName('evenly-lit.png'), await page.screenshot());
    },
    { allowConsoleErrors: true },
  );
});
