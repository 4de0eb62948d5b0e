// The instructor sees what a demo robot senses: every robot carries a label (its name and
// its owner, "lab" for the demo's own), toggled by the view's "Labels" checkbox; a click
// on a rover in the 3D canvas picks it (the Robots panel shows its live sensors); its GPS
// and its odometry error are plotted and the plots grow; its lidar rays and its two
// trails (true, odometry) are drawn in the canvas; a pause freezes the plots and a reset
// empties them and the trails.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { imageStats } from '../lib/png.mjs';
import { sleep, waitUntil } from '../lib/poll.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

// A demo rover: a 91-beam lidar, a GPS, odometry from its wheel encoders; it drives in circles.
const ROBOT = 'rover_red';

/** What the view and the Robots panel show now, in one round trip. */
async function readView(page) {
  return page.evaluate(() => {
    const q = (selector, root = document) => root.querySelector(selector);
    const all = (selector, root = document) => [...root.querySelectorAll(selector)];
    const num = (element, name) => {
      const value = element?.getAttribute(name);
      return value === null || value === undefined || value === '' ? null : Number(value);
    };
    const canvas = q('[data-testid="lab-canvas"]');
    return {
      picked: canvas?.getAttribute('data-picked') || null,
      panelOpen: q('[data-testid="robot-panel"]')?.getAttribute('data-open') ?? null,
      rays: num(canvas, 'data-rays'),
      trailPoints: num(canvas, 'data-trail-points'),
      labels: all('[data-testid="robot-label"]').map((label) => ({
        robot: label.getAttribute('data-robot'),
        owner: label.getAttribute('data-owner'),
        placed: label.getAttribute('data-placed') === 'true',
        shown: label.getClientRects().length > 0 && getComputedStyle(label).visibility === 'visible',
        anchor: [num(label, 'data-anchor-x'), num(label, 'data-anchor-y')],
      })),
      listed: all('[data-testid="robot-item"][aria-pressed="true"]').map((item) => item.getAttribute('data-robot')),
      inspected: q('[data-testid="robot-report"]')?.getAttribute('data-robot') ?? null,
      sensors: Object.fromEntries(
        all('[data-testid="sensor-row"]').map((row) => [
          row.getAttribute('data-sensor'),
          q('[data-testid="sensor-measured"]', row)?.textContent.trim() ?? null,
        ]),
      ),
      scan: (() => {
        const plot = q('[data-testid="scan-plot"][data-sensor="lidar"]');
        return plot && { hits: num(plot, 'data-hits'), truthHits: num(plot, 'data-truth-hits') };
      })(),
      plots: Object.fromEntries(
        all('[data-testid="time-plot"]').map((plot) => [
          plot.getAttribute('data-plot'),
          { points: num(plot, 'data-points'), lines: plot.querySelectorAll('path.plot-line').length },
        ]),
      ),
    };
  });
}

/** Clicks the canvas where `robot`'s body is drawn until the view says it is picked (it drives on meanwhile). */
async function clickRobot(page, robot) {
  const canvas = page.locator(byTestId('lab-canvas'));
  for (let attempt = 0; attempt < 10; attempt += 1) {
    const label = (await readView(page)).labels.find((l) => l.robot === robot && l.placed);
    assert.ok(label, `${robot} has a placed label`);
    const box = await canvas.boundingBox();
    await page.mouse.click(box.x + label.anchor[0], box.y + label.anchor[1]);
    try {
      return await waitUntil(`a click to pick ${robot}`, () => readView(page), (v) => v.picked === robot, { timeoutMs: 3000 });
    } catch {
      // It moved away under the pointer: aim again.
    }
  }
  throw new Error(`ten clicks on ${robot}'s body did not pick it`);
}

const plotted = (view, key) => view.plots[key]?.points ?? 0;

test('a robot picked in the 3D view shows its sensors, plots, rays and trails', { timeout: 180_000 }, async (t) => {
  await withLab(t, async ({ openPage, artifactName }) => {
    const page = await openPage('instructor');
    page.on('dialog', (dialog) => dialog.accept());
    await waitUntil('the lab running and drawn', () => readUi(page), (u) => u.mode === 'running' && u.framesDrawn > 0);

    // A label over every robot, naming its owner; the checkbox hides and shows them.
    const labelled = await waitUntil(
      'a placed label over each of the three rovers',
      () => readView(page),
      (v) => v.labels.length === 3 && v.labels.every((l) => l.placed && l.shown),
    );
    assert.deepEqual(labelled.labels.map((l) => l.owner), ['lab', 'lab', 'lab'], 'the demo\'s rovers are the lab\'s own');
    await page.locator(byTestId('toggle-labels')).uncheck();
    await waitUntil('the labels to hide', () => readView(page), (v) => v.labels.every((l) => !l.shown));
    await page.locator(byTestId('toggle-labels')).check();
    await waitUntil('the labels to show again', () => readView(page), (v) => v.labels.every((l) => l.shown));

    // Pick the rover by clicking its body in the canvas: the folded Robots panel opens on it.
    await page.locator(byTestId('btn-toggle-robot-panel')).first().click();
    await waitUntil('the Robots panel to fold', () => readView(page), (v) => v.panelOpen === 'false');
    await clickRobot(page, ROBOT);
    const inspected = await waitUntil(
      `the panel to show ${ROBOT}'s sensors`,
      () => readView(page),
      (v) => v.panelOpen === 'true' && v.inspected === ROBOT && v.sensors.gps && v.sensors.odometry,
    );
    assert.deepEqual(inspected.listed, [ROBOT], 'the Robots list marks the picked rover');
    // A drag that starts on another rover orbits the view and picks nothing.
    const other = inspected.labels.find((l) => l.robot !== ROBOT && l.placed);
    const box = await page.locator(byTestId('lab-canvas')).boundingBox();
    await page.mouse.move(box.x + other.anchor[0], box.y + other.anchor[1]);
    await page.mouse.down();
    await page.mouse.move(box.x + other.anchor[0] + 60, box.y + other.anchor[1] + 10, { steps: 6 });
    await page.mouse.up();
    assert.equal((await readView(page)).picked, ROBOT, `a drag from ${other.robot} keeps ${ROBOT} picked`);
    await waitUntil('its GPS reading to change', () => readView(page), (v) => v.sensors.gps !== inspected.sensors.gps);

    // Plots: the GPS (x, y, z measured and true) and the odometry's error; both grow.
    await page.locator(`${byTestId('sensor-row')}[data-sensor="gps"] ${byTestId('btn-plot-sensor')}`).click();
    await page.locator(`${byTestId('sensor-row')}[data-sensor="odometry"] ${byTestId('btn-plot-error')}`).click();
    const growing = await waitUntil(
      'both plots to gather samples',
      () => readView(page),
      (v) => plotted(v, 'gps') >= 3 && plotted(v, 'odometry:error') >= 3,
    );
    assert.equal(growing.plots.gps.lines, 6, 'x, y and z, measured and true');
    assert.equal(growing.plots['odometry:error'].lines, 1, 'the error alone');
    await waitUntil('the GPS plot to grow', () => readView(page), (v) => plotted(v, 'gps') > plotted(growing, 'gps'));

    // The lidar's polar view shows the measured and the true scan.
    const scanned = await waitUntil('the lidar scan plotted', () => readView(page), (v) => v.scan?.hits > 10);
    assert.ok(scanned.scan.truthHits > 10, `the true scan beside the measured one: ${JSON.stringify(scanned.scan)}`);

    // Rays and trails in the canvas.
    const drawn = await waitUntil(
      'the lidar rays and both trails to be drawn',
      () => readView(page),
      (v) => v.rays === 91 && v.trailPoints >= 6,
    );
    t.diagnostic(`rays ${drawn.rays}, trail points ${drawn.trailPoints}`);
    const shot = await page.locator(byTestId('lab-canvas')).screenshot();
    const file = saveArtifact(artifactName('rays-and-trails.png'), shot);
    const stats = imageStats(shot);
    t.diagnostic(`canvas screenshot ${file}: ${JSON.stringify(stats)}`);
    assert.ok(stats.distinctColours >= 64 && stats.lumaStdDev >= 10, `the canvas looks blank (${file})`);
    saveArtifact(artifactName('page.png'), await page.screenshot());
    const plots = saveArtifact(artifactName('plots.png'), await page.locator(byTestId('plots')).screenshot());
    t.diagnostic(`plots screenshot ${plots}`);

    // Closer: the camera follows the rover and zooms in on its rays and trails.
    await page.locator(byTestId('btn-follow-robot')).click();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let notch = 0; notch < 6; notch += 1) await page.mouse.wheel(0, -120);
    const frames = (await readUi(page)).framesDrawn;
    await waitUntil('a few frames of the close view', () => readUi(page), (u) => u.framesDrawn >= frames + 5);
    const close = saveArtifact(artifactName('close-up.png'), await page.locator(byTestId('lab-canvas')).screenshot());
    t.diagnostic(`close-up screenshot ${close}`);

    // A pause freezes the plots.
    await page.locator(byTestId('btn-play-pause')).click();
    await waitUntil('the lab to pause', () => readUi(page), (u) => u.mode === 'paused');
    await sleep(500);
    const paused = await readView(page);
    await sleep(1500);
    const stillPaused = await readView(page);
    assert.equal(plotted(stillPaused, 'gps'), plotted(paused, 'gps'), 'no samples while paused');
    assert.equal(plotted(stillPaused, 'odometry:error'), plotted(paused, 'odometry:error'));

    // A reset empties them and the trails (the lab's time goes back to 0).
    await page.locator(byTestId('btn-reset')).click();
    const reset = await waitUntil(
      'the reset to empty the plots and the trails',
      () => readView(page),
      (v) => plotted(v, 'gps') <= 1 && plotted(v, 'odometry:error') <= 1 && v.trailPoints <= 2,
    );
    assert.equal(reset.picked, ROBOT, 'the rover stays picked');
    assert.deepEqual(Object.keys(reset.plots).sort(), ['gps', 'odometry:error'], 'the plots stay open');

    // Closing a plot.
    await page.locator(`${byTestId('time-plot')}[data-plot="gps"] ${byTestId('btn-close-plot')}`).click();
    await waitUntil('the GPS plot to close', () => readView(page), (v) => !('gps' in v.plots) && 'odometry:error' in v.plots);
  });
});
