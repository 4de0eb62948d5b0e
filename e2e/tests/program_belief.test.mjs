// What a robot's program believes, in the page: the instructor adds a diffbot whose Python
// program publishes an estimate of its pose and draws points, a line and a text. Picked,
// the robot shows its program's estimate in the Robots panel, the estimate's error against
// the true pose is plotted and grows, the canvas draws the three drawings, the text is an
// HTML label placed over the canvas, and the "Beliefs" checkbox hides them.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { imageStats } from '../lib/png.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

const ROBOT = 'diffbot_belief';

// The diffbot starts where the lab finds room (the demo's props are pushed about by its
// rovers); the program draws about world (2, 3): on the ground, (2, −3).
const DESCRIPTION = ['include "diffbot_robot.vlab";', 'call diffbot("_belief", {x}, {z}, 0);', ''].join('\n');
const PROGRAM = [
  'from vlab import Robot',
  '',
  'robot = Robot()',
  'while robot.step():',
  '    robot.actuator("drive").set(0.3, 0.5)',
  '    t = robot.time()',
  '    robot.publish_estimate(2.0 + 0.05 * t, -3.0, t)',
  '    robot.draw_points([(2.0, -2.5), (2.2, -2.5), (2.4, -2.5)], color="orange")',
  '    robot.draw_lines([(1.5, -3.5), (2.5, -3.5), (2.5, -2.5)], color="cyan")',
  '    robot.draw_text(2.0, -2.2, "goal here", color="yellow")',
  '',
].join('\n');

/** What the canvas and the Robots panel show of the program's belief, in one round trip. */
async function readBelief(page) {
  return page.evaluate(() => {
    const q = (selector) => document.querySelector(selector);
    const canvas = q('[data-testid="lab-canvas"]');
    const plot = q('[data-testid="time-plot"][data-plot="estimate:error"]');
    const label = q('[data-testid="belief-label"]');
    return {
      picked: canvas?.getAttribute('data-picked') || null,
      drawings: Number(canvas?.getAttribute('data-drawings') ?? -1),
      estimate: q('[data-testid="estimate-text"]')?.textContent.trim() ?? null,
      errorPoints: plot ? Number(plot.getAttribute('data-points')) : null,
      label: label && {
        text: label.textContent.trim(),
        placed: label.getAttribute('data-placed') === 'true',
        shown: label.getClientRects().length > 0 && getComputedStyle(label).visibility === 'visible',
      },
    };
  });
}

test('a program\'s estimate and drawings show for its picked robot', { timeout: 120_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const form = new FormData();
    form.append('description', new Blob([DESCRIPTION], { type: 'text/plain' }), 'robot.vlab');
    form.append('program', new Blob([PROGRAM], { type: 'text/x-python' }), 'main.py');
    const upload = await fetch(`${server.baseUrl}/api/labs/demo/robots`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}` },
      body: form,
    });
    assert.equal(upload.status, 200, await upload.text());

    const page = await openPage('instructor');
    await waitUntil('the lab running and drawn', () => readUi(page), (u) => u.mode === 'running' && u.framesDrawn > 0);
    const item = page.locator(`${byTestId('robot-item')}[data-robot="${ROBOT}"]`);
    await item.waitFor();
    await item.click();
    await waitUntil(`${ROBOT} picked, with its program's estimate`, () => readBelief(page), (b) => b.picked === ROBOT && b.estimate);

    await page.locator(byTestId('btn-plot-estimate-error')).click();
    const first = await waitUntil('the estimate error plotted', () => readBelief(page), (b) => b.errorPoints >= 2);
    await waitUntil('the estimate error plot to grow', () => readBelief(page), (b) => b.errorPoints > first.errorPoints);

    const drawn = await waitUntil(
      'the points, the line and the text drawn, the text placed as a label',
      () => readBelief(page),
      (b) => b.drawings === 3 && b.label?.placed && b.label.shown,
    );
    assert.equal(drawn.label.text, 'goal here');

    const shot = await page.locator(byTestId('lab-canvas')).screenshot();
    const file = saveArtifact(artifactName('belief.png'), shot);
    const stats = imageStats(shot);
    t.diagnostic(`canvas screenshot ${file}: ${JSON.stringify(stats)}`);
    assert.ok(stats.distinctColours >= 64 && stats.lumaStdDev >= 10, `the canvas looks blank (${file})`);
    saveArtifact(artifactName('page.png'), await page.screenshot());

    // Closer, without the lidar's rays: the camera follows the robot and zooms in.
    await page.locator(byTestId('toggle-rays')).uncheck();
    await page.locator(byTestId('btn-follow-robot')).click();
    const box = await page.locator(byTestId('lab-canvas')).boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let notch = 0; notch < 8; notch += 1) await page.mouse.wheel(0, -120);
    const frames = (await readUi(page)).framesDrawn;
    await waitUntil('a few frames of the close view', () => readUi(page), (u) => u.framesDrawn >= frames + 5);
    const close = saveArtifact(artifactName('close-up.png'), await page.locator(byTestId('lab-canvas')).screenshot());
    t.diagnostic(`close-up screenshot ${close}`);

    await page.locator(byTestId('toggle-beliefs')).uncheck();
    await waitUntil('the beliefs to hide', () => readBelief(page), (b) => b.drawings === 0 && !b.label?.shown);
    await page.locator(byTestId('toggle-beliefs')).check();
    await waitUntil('the beliefs to show again', () => readBelief(page), (b) => b.drawings === 3 && b.label?.shown);
  });
});
