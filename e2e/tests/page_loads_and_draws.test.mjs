// A person opening the demo lab sees a live 3D scene: the page connects, the scene's
// bodies are drawn, frames keep coming, the canvas holds a real picture (not a blank
// clear colour), and the simulation clock advances while the lab runs.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { imageStats } from '../lib/png.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

test('the demo lab page connects, draws the scene and runs', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const page = await openPage('viewer');

    const withScene = await waitUntil('the scene to be drawn (data-bodies > 20)', () => readUi(page), (ui) => ui.bodies > 20);
    const api = await server.lab('demo');
    t.diagnostic(`bodies drawn: ${withScene.bodies}; bodies in the lab (API): ${api.bodies}`);
    assert.ok(api.bodies > 20, `the demo lab should have more than 20 bodies, the API says ${api.bodies}`);

    const framesBefore = (await readUi(page)).framesDrawn;
    assert.ok(Number.isFinite(framesBefore), `data-frames-drawn should be a number, got ${framesBefore}`);
    await waitUntil('more frames to be drawn', () => readUi(page), (ui) => ui.framesDrawn >= framesBefore + 10);

    // The demo starts running: simulation time advances on the page.
    const running = await waitUntil('the lab mode to be running', () => readUi(page), (ui) => ui.mode === 'running');
    assert.ok(Number.isFinite(running.time), `sim-time data-time should be a number, got ${running.time}`);
    await waitUntil(
      `sim time to advance past ${running.time} s`,
      () => readUi(page),
      (ui) => ui.time >= running.time + 0.25 && ui.step > running.step,
    );

    // The canvas shows a picture: many colours, shading, no single colour filling it.
    const canvas = page.locator(byTestId('lab-canvas'));
    const shot = await canvas.screenshot();
    const file = saveArtifact(artifactName('canvas.png'), shot);
    const stats = imageStats(shot);
    t.diagnostic(`canvas screenshot ${file}: ${JSON.stringify(stats)}`);
    assert.ok(stats.width >= 200 && stats.height >= 150, `the canvas is too small to see: ${stats.width}×${stats.height}`);
    assert.ok(stats.distinctColours >= 64, `the canvas looks blank: only ${stats.distinctColours} distinct colours (${file})`);
    assert.ok(stats.lumaStdDev >= 8, `the canvas looks flat: luma standard deviation ${stats.lumaStdDev.toFixed(2)} (${file})`);
    assert.ok(stats.dominantShare <= 0.9, `one colour fills ${(stats.dominantShare * 100).toFixed(1)}% of the canvas (${file})`);

    saveArtifact(artifactName('page.png'), await page.screenshot());
  });
});
