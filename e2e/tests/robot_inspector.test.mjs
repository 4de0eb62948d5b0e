// The instructor inspects and drives a robot from the Robots panel: a robot with sensors
// (the course's diffbot: lidar, GPS, compass, encoders, odometry, bumper) is added to the
// demo lab; picking it in the panel shows its sensor table filling with readings whose
// sim time advances and its lidar scan drawn from above; a motor speed typed by hand
// becomes the motor's command (on the page and in the API); with keyboard driving on,
// held keys reach the robot's report and the page does not scroll. A viewer sees the
// same live report without any control.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { imageStats } from '../lib/png.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

const ROBOT = 'diffbot_e2e';
// Near the yard's (0, 0) corner, facing it (yaw 3π/4 turns forward from +X towards −X−Z):
// the lidar sees both walls.
const SCENE = `include "diffbot_robot.vlab";\ncall diffbot("_e2e", 1.6, 1.6, 3 * pi / 4);\n`;

/** Adds the diffbot to the demo lab through the scene API, as the instructor. */
async function insertRobot(server) {
  const response = await fetch(`${server.baseUrl}/api/labs/demo/scene`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'text/plain; charset=utf-8' },
    body: SCENE,
    signal: AbortSignal.timeout(30_000),
  });
  const body = await response.json();
  assert.equal(response.status, 200, `the scene with the robot was refused: ${JSON.stringify(body)}`);
  assert.equal(body.inserted.robots, 1, `one robot inserted: ${JSON.stringify(body)}`);
}

/** `GET /api/labs/demo/robots/{robot}`: the robot's report. */
async function robotReport(server, robot = ROBOT) {
  const response = await server.request('GET', `/api/labs/demo/robots/${encodeURIComponent(robot)}`);
  assert.equal(response.status, 200, `GET robot ${robot}: ${JSON.stringify(response.body)}`);
  return response.body;
}

/** What the Robots panel shows now. */
async function readPanel(page) {
  return page.evaluate(() => {
    const q = (id, root = document) => root.querySelector(`[data-testid="${id}"]`);
    const all = (id, root = document) => [...root.querySelectorAll(`[data-testid="${id}"]`)];
    const text = (element) => element?.textContent?.trim() ?? null;
    const report = q('robot-report');
    const panel = q('robot-panel');
    return {
      open: panel?.getAttribute('data-open') ?? null,
      robots: all('robot-item').map((item) => item.getAttribute('data-robot')),
      picked: all('robot-item').filter((item) => item.getAttribute('aria-pressed') === 'true').map((item) => item.getAttribute('data-robot')),
      robot: report?.getAttribute('data-robot') ?? null,
      step: report && report.getAttribute('data-step') !== '' ? Number(report.getAttribute('data-step')) : null,
      time: report && report.getAttribute('data-time') !== '' ? Number(report.getAttribute('data-time')) : null,
      position: text(q('robot-position')),
      heading: text(q('robot-heading')),
      keys: text(q('robot-keys')),
      sensors: all('sensor-row').map((row) => ({
        name: row.getAttribute('data-sensor'),
        kind: row.getAttribute('data-kind'),
        time: row.getAttribute('data-time') === '' ? null : Number(row.getAttribute('data-time')),
        measured: text(q('sensor-measured', row)),
        truth: text(q('sensor-truth', row)),
      })),
      scans: all('scan-plot').map((plot) => ({ sensor: plot.getAttribute('data-sensor'), hits: Number(plot.getAttribute('data-hits')) })),
      actuators: all('actuator-row').map((row) => ({
        name: row.getAttribute('data-actuator'),
        command: text(q('actuator-command', row)),
        stalled: row.getAttribute('data-stalled') === 'true',
        inputs: all('actuator-input', row).length,
        error: text(q('actuator-error', row)),
      })),
      driveToggle: q('btn-drive-keys')?.getAttribute('aria-pressed') ?? null,
      heldOnPage: text(q('held-keys')),
      panelScrollTop: panel?.scrollTop ?? null,
      pageScroll: [document.scrollingElement.scrollTop, document.scrollingElement.scrollLeft],
    };
  });
}

/** The keys the report shows, sorted (the server may order them its own way). */
const heldKeys = (panel) => (panel.keys === 'none' || panel.keys === null ? [] : panel.keys.split(', ').sort());
const sensor = (panel, name) => panel.sensors.find((s) => s.name === name);
const actuator = (panel, name) => panel.actuators.find((a) => a.name === name);

test('the instructor inspects a robot, commands a motor and drives it with the keyboard', { timeout: 420_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const page = await openPage('instructor');
    await waitUntil('the scene to be drawn', () => readUi(page), (u) => u.bodies > 0 && u.framesDrawn > 0);
    await insertRobot(server);

    // The panel lists every robot of the lab, the new one included.
    const apiRobots = (await server.lab('demo')).robots;
    assert.ok(apiRobots.includes(ROBOT), `the API lists ${ROBOT}: ${apiRobots}`);
    const listed = await waitUntil('the panel to list the lab\'s robots', () => readPanel(page), (p) => p.robots.includes(ROBOT));
    assert.deepEqual([...listed.robots].sort(), [...apiRobots].sort(), 'the panel lists the robots the API lists');
    assert.equal(listed.open, 'true', 'the panel starts open');

    // Pick it: its live report, with a row per sensor the API reports.
    await page.locator(`${byTestId('robot-item')}[data-robot="${ROBOT}"]`).click();
    const api = await robotReport(server);
    const apiSensors = api.sensors.map((s) => s.name);
    assert.ok(apiSensors.includes('lidar') && apiSensors.includes('gps'), `the diffbot has its sensors: ${apiSensors}`);
    const first = await waitUntil(
      `the panel to show ${ROBOT}'s report with every sensor read`,
      () => readPanel(page),
      (p) => p.robot === ROBOT && p.step !== null && p.sensors.length === apiSensors.length && p.sensors.every((s) => s.time !== null),
    );
    assert.deepEqual(first.picked, [ROBOT], 'the picked robot is pressed in the list');
    assert.deepEqual(first.sensors.map((s) => s.name), apiSensors, 'one row per sensor, in declaration order');
    assert.match(first.position, /^-?\d+\.\d{3} -?\d+\.\d{3} -?\d+\.\d{3}$/, 'the true position reads "x y z"');
    assert.match(first.heading, /^-?\d+\.\d°$/, 'the heading reads in degrees');
    assert.match(sensor(first, 'gps').measured, /^-?\d+\.\d{2,3} -?\d+\.\d{2,3} -?\d+\.\d{2,3}$/, 'a GPS reads "x y z"');
    assert.match(sensor(first, 'lidar').measured, /^180 beams · /, 'a lidar reads as its beams');
    assert.match(sensor(first, 'enc_l').measured, /ticks · .* rad$/, 'an encoder reads ticks and angle');
    assert.match(sensor(first, 'odom').measured, /^x .* y .* θ .*°$/, 'odometry reads as a 2D pose');

    // Readings keep coming: the lidar's reading time and the report's time advance.
    const lidarTime = sensor(first, 'lidar').time;
    const later = await waitUntil(
      `the lidar's reading time to advance past ${lidarTime} s`,
      () => readPanel(page),
      (p) => sensor(p, 'lidar')?.time > lidarTime && p.time > first.time,
    );
    assert.ok(later.step > first.step, 'the report\'s step advanced');
    const scan = later.scans.find((s) => s.sensor === 'lidar');
    assert.ok(scan, 'the lidar scan is plotted');
    assert.ok(scan.hits > 10, `the lidar sees the walls of the corner it faces: ${scan.hits} hits plotted`);

    // A motor speed by hand: the command changes on the page and in the API.
    const motorRow = page.locator(`${byTestId('actuator-row')}[data-actuator="m_l"]`);
    assert.ok(actuator(later, 'm_l'), `the diffbot's left motor is listed: ${JSON.stringify(later.actuators)}`);
    await motorRow.locator(byTestId('actuator-input')).fill('fast');
    await motorRow.locator(byTestId('btn-set-actuator')).click();
    const refused = await waitUntil('the typo to be refused', () => readPanel(page), (p) => actuator(p, 'm_l').error !== null);
    assert.match(actuator(refused, 'm_l').error, /not a number/, 'a typo is explained, nothing sent');
    await motorRow.locator(byTestId('actuator-input')).fill('2.5');
    await motorRow.locator(byTestId('btn-set-actuator')).click();
    const commanded = await waitUntil(
      'the motor command to read speed 2.500',
      () => readPanel(page),
      (p) => actuator(p, 'm_l').command === 'speed 2.500',
    );
    assert.equal(actuator(commanded, 'm_l').error, null, 'the error went away');
    assert.deepEqual((await robotReport(server)).actuators.find((a) => a.name === 'm_l').command, { speed: 2.5 });
    // Later reports keep showing it (the command stuck on the server, not only on the page).
    const afterCommand = commanded.time;
    const kept = await waitUntil('a later report', () => readPanel(page), (p) => p.time > afterCommand);
    assert.equal(actuator(kept, 'm_l').command, 'speed 2.500');

    // Keyboard driving: held keys reach the robot; arrows and Space do not scroll the panel.
    const panelBox = page.locator(byTestId('robot-panel'));
    await panelBox.evaluate((panel) => {
      panel.scrollTop = 40;
    });
    await page.locator(byTestId('btn-drive-keys')).click();
    const driving = await readPanel(page);
    assert.equal(driving.driveToggle, 'true', 'the toggle is on');
    const scrollBefore = { panel: driving.panelScrollTop, page: driving.pageScroll };
    assert.ok(scrollBefore.panel > 0, `the panel is scrollable at this size (scrollTop ${scrollBefore.panel})`);

    await page.keyboard.down('i');
    await waitUntil('the report to show I held', () => readPanel(page), (p) => p.keys === 'I');
    assert.deepEqual((await robotReport(server)).keys, ['I'], 'the API reports I held');

    await page.keyboard.down('ArrowDown');
    await page.keyboard.down(' ');
    const held = await waitUntil(
      'the report to show I, ARROWDOWN and SPACE held',
      () => readPanel(page),
      (p) => heldKeys(p).join() === 'ARROWDOWN,I,SPACE',
    );
    assert.equal(held.panelScrollTop, scrollBefore.panel, 'arrow and space did not scroll the panel');
    assert.deepEqual(held.pageScroll, scrollBefore.page, 'nor the page');
    assert.equal(held.driveToggle, 'true', 'Space did not press the toggle');

    const panelShot = await panelBox.screenshot();
    const panelFile = saveArtifact(artifactName('panel.png'), panelShot);
    saveArtifact(artifactName('page.png'), await page.screenshot());
    // The rest of the panel: the lidar plot and the actuators.
    await panelBox.evaluate((panel) => {
      panel.scrollTop = panel.scrollHeight;
    });
    const lowerFile = saveArtifact(artifactName('panel-lower.png'), await panelBox.screenshot());
    t.diagnostic(`lower panel screenshot ${lowerFile}`);
    await panelBox.evaluate((panel, top) => {
      panel.scrollTop = top;
    }, scrollBefore.panel);
    const stats = imageStats(panelShot);
    t.diagnostic(`panel screenshot ${panelFile}: ${JSON.stringify(stats)}`);
    assert.ok(stats.distinctColours >= 32 && stats.lumaStdDev >= 8, `the panel looks empty (${panelFile})`);

    await page.keyboard.up(' ');
    await page.keyboard.up('ArrowDown');
    await page.keyboard.up('i');
    await waitUntil('the report to show no key held', () => readPanel(page), (p) => p.keys === 'none');

    // Turning driving off lets go of a key still held.
    await page.keyboard.down('k');
    await waitUntil('the report to show K held', () => readPanel(page), (p) => p.keys === 'K');
    await page.locator(byTestId('btn-drive-keys')).click();
    await waitUntil('driving off to release K', () => readPanel(page), (p) => p.keys === 'none' && p.driveToggle === 'false');
    await page.keyboard.up('k');
    assert.deepEqual((await robotReport(server)).keys, [], 'the API reports no key held');

    // Losing focus lets go too.
    await page.locator(byTestId('btn-drive-keys')).click();
    await page.keyboard.down('j');
    await waitUntil('the report to show J held', () => readPanel(page), (p) => p.keys === 'J');
    await page.evaluate(() => window.dispatchEvent(new Event('blur')));
    await waitUntil('the blur to release J', () => readPanel(page), (p) => p.keys === 'none');
    await page.keyboard.up('j');
  });
});

test('a viewer inspects a robot but gets no controls', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ openPage, artifactName }) => {
    const viewer = await openPage('viewer');
    const listed = await waitUntil('the panel to list the demo robots', () => readPanel(viewer), (p) => p.robots.length > 0);
    const robot = listed.robots[0];
    await viewer.locator(`${byTestId('robot-item')}[data-robot="${robot}"]`).click();
    const first = await waitUntil(`${robot}'s report`, () => readPanel(viewer), (p) => p.robot === robot && p.actuators.length > 0);
    await waitUntil('a later report', () => readPanel(viewer), (p) => p.time > first.time);
    assert.equal(first.driveToggle, null, 'a viewer has no keyboard driving');
    assert.deepEqual(first.actuators.map((a) => a.inputs), first.actuators.map(() => 0), 'a viewer has no manual inputs');
    assert.equal(await viewer.locator(byTestId('btn-set-actuator')).count(), 0);
    for (const { name, command } of first.actuators) {
      assert.match(command, /^(speed|position|v) -?\d/, `but sees ${name}'s command`);
    }
    saveArtifact(artifactName('viewer.png'), await viewer.screenshot());
  });
});
