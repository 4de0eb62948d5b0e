// The robot's-eye view: a robot with a camera stands in the demo lab facing a red wall;
// picking it in the Robots panel offers its cameras, and choosing one draws what it sees
// live on a canvas: the red wall across the middle, the floor below, the sky above.
// Choosing the depth camera shows its image in greys; choosing none stops the images.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { PNG } from 'pngjs';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { imageStats } from '../lib/png.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

const ROBOT = 'eyebot';
// A low red wall 1.4 m ahead of a robot whose camera looks along +X, 0.4 m above the
// floor: the wall fills the middle of the view, the floor its bottom, the lab beyond
// shows above and on both sides.
const SCENE = `
static eyebot_wall { shape box(0.2, 0.6, 1); pos(3.1, 0.3, 1.6); material "Red"; }
robot eyebot {
  body {
    static eyebot_chassis { shape box(0.3, 0.2, 0.3); pos(1.6, 0.4, 1.6);
      Camera eye { }
      DepthCamera depth { } }
  }
}
`;

async function insertRobot(server) {
  const response = await fetch(`${server.baseUrl}/api/labs/demo/scene`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'text/plain; charset=utf-8' },
    body: SCENE,
    signal: AbortSignal.timeout(30_000),
  });
  const body = await response.json();
  assert.equal(response.status, 200, `the scene with the robot was refused: ${JSON.stringify(body)}`);
}

async function readEyeView(page) {
  return page.evaluate(() => {
    const q = (id) => document.querySelector(`[data-testid="${id}"]`);
    const canvas = q('eye-view-canvas');
    return {
      cameras: [...document.querySelectorAll('[data-testid="btn-watch-camera"]')].map((b) => b.getAttribute('data-camera')),
      step: canvas && canvas.getAttribute('data-step') !== '' ? Number(canvas.getAttribute('data-step')) : null,
      size: canvas ? [canvas.width, canvas.height] : null,
      caption: document.querySelector('.eye-view-caption')?.textContent?.trim() ?? null,
    };
  });
}

/** The colour at the middle of a PNG, and at a fifth from its top and bottom. */
function probe(buffer) {
  const { width, height, data } = PNG.sync.read(buffer);
  const at = (fx, fy) => {
    const i = 4 * (Math.floor(fy * height) * width + Math.floor(fx * width));
    return [data[i], data[i + 1], data[i + 2]];
  };
  return { middle: at(0.5, 0.5), top: at(0.5, 0.05), bottom: at(0.5, 0.95) };
}

test("the robot's-eye view shows what the picked robot's camera sees", { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const page = await openPage('instructor');
    await waitUntil('the scene to be drawn', () => readUi(page), (u) => u.bodies > 0 && u.framesDrawn > 0);
    await insertRobot(server);
    await waitUntil('the panel to list the robot', () => page.locator(`${byTestId('robot-item')}[data-robot="${ROBOT}"]`).count(), (n) => n === 1);
    await page.locator(`${byTestId('robot-item')}[data-robot="${ROBOT}"]`).click();

    const offered = await waitUntil('the cameras to be offered', () => readEyeView(page), (v) => v.cameras.length === 2);
    assert.deepEqual(offered.cameras, ['eye', 'depth'], 'both cameras, in declaration order');
    assert.equal(offered.step, null, 'no image before one is chosen');

    await page.locator(`${byTestId('btn-watch-camera')}[data-camera="eye"]`).click();
    const first = await waitUntil('an image of the eye camera', () => readEyeView(page), (v) => v.step !== null);
    assert.deepEqual(first.size, [160, 120], 'the canvas takes the image\'s size');
    const later = await waitUntil('a newer image (5 Hz of sim time)', () => readEyeView(page), (v) => v.step > first.step);
    assert.match(later.caption, /^eye · 160×120 · step \d+$/);

    const canvas = page.locator(byTestId('eye-view-canvas'));
    const shot = await canvas.screenshot();
    const file = saveArtifact(artifactName('eye.png'), shot);
    const stats = imageStats(shot);
    const colours = probe(shot);
    t.diagnostic(`eye view ${file}: ${JSON.stringify(stats)} ${JSON.stringify(colours)}`);
    assert.ok(stats.distinctColours >= 3 && stats.lumaStdDev >= 8, `the view looks blank (${file})`);
    const [r, g, b] = colours.middle;
    assert.ok(r > 80 && r > 2 * g && r > 2 * b, `the middle shows the red wall: ${colours.middle} (${file})`);
    assert.ok(colours.bottom[0] < 1.5 * colours.bottom[1], `the bottom shows the floor, not the wall: ${colours.bottom}`);
    assert.ok(colours.top[0] < 1.5 * colours.top[1], `the top shows what is beyond the low wall: ${colours.top}`);
    saveArtifact(artifactName('panel.png'), await page.locator(byTestId('robot-eye-view')).screenshot());

    // The depth camera: greys, nearer brighter.
    await page.locator(`${byTestId('btn-watch-camera')}[data-camera="depth"]`).click();
    const depth = await waitUntil('a depth image', () => readEyeView(page), (v) => v.step !== null && v.caption.startsWith('depth'));
    assert.deepEqual(depth.size, [160, 120]);
    const depthShot = await canvas.screenshot();
    const depthFile = saveArtifact(artifactName('depth.png'), depthShot);
    const grey = probe(depthShot).middle;
    assert.ok(grey[0] === grey[1] && grey[1] === grey[2] && grey[0] > 0, `the wall reads as a grey: ${grey} (${depthFile})`);

    // Choosing it again stops the images.
    await page.locator(`${byTestId('btn-watch-camera')}[data-camera="depth"]`).click();
    await waitUntil('the canvas to go', () => readEyeView(page), (v) => v.size === null);
  });
});
