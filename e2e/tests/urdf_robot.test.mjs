// A robot imported from URDF, from the browser: a student opens "Add robot", loads the
// course's diffbot written in URDF (scenes/urdf/diffbot.urdf) with "Load URDF…"; the
// description becomes one that imports it, the upload inserts it with the devices of its
// Gazebo extensions (lidar, motors, encoders, drive, odometry), the drive moves it, and
// the camera following it draws it (a close-up screenshot that is not blank).

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { imageStats } from '../lib/png.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { joinAsStudent, readProgramUi } from '../lib/student.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

const URDF = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../scenes/urdf/diffbot.urdf');
const SUFFIX = 'urdf';
const ROBOT = `diffbot_${SUFFIX}`;

test('a student adds a URDF robot with Load URDF…, drives it and sees it drawn', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const { page: student, token } = await joinAsStudent(server, openPage, 'Importer');

    await student.locator(byTestId('btn-open-robot-upload')).click();
    await student.locator(byTestId('robot-upload')).waitFor();
    await student.locator(byTestId('robot-suffix')).fill(SUFFIX);
    await student.locator(byTestId('urdf-file')).setInputFiles(URDF);
    const written = await waitUntil(
      'the description to import the URDF file',
      () => readProgramUi(student),
      (p) => p.description?.includes('urdf "diffbot.urdf"'),
    );
    assert.match(written.description, new RegExp(`robot ${ROBOT} \\{`), written.description);
    // No program: the robot is driven by hand.
    await student.locator(byTestId('program-source')).fill('');
    await student.locator(byTestId('btn-upload-robot')).click();
    const added = await waitUntil('the upload to finish', () => readProgramUi(student), (p) => !['busy', ''].includes(p.outcome ?? ''));
    assert.equal(added.outcome, 'inserted', added.result);

    const report = await server.request('GET', `/api/labs/demo/robots/${ROBOT}`, { token });
    assert.equal(report.status, 200, JSON.stringify(report.body));
    const sensors = report.body.sensors.map((s) => s.name).sort();
    const actuators = report.body.actuators.map((a) => a.name).sort();
    assert.deepEqual(sensors, ['enc_l', 'enc_r', 'lidar', 'odom'], 'the Gazebo ray sensor and the drive plugin');
    assert.deepEqual(actuators, ['drive', 'm_l', 'm_r']);
    const start = report.body.pose.position;

    // Driven by its plugin's drive, it leaves its spot.
    const drive = await server.request('POST', `/api/labs/demo/robots/${ROBOT}/actuators`, {
      token,
      body: { drive: { v: 0.15, omega: 0.3 } },
    });
    assert.equal(drive.status, 200, JSON.stringify(drive.body));
    const moved = await waitUntil(
      'the robot to move',
      async () => (await server.request('GET', `/api/labs/demo/robots/${ROBOT}`, { token })).body.pose.position,
      (p) => Math.hypot(p[0] - start[0], p[2] - start[2]) > 0.1,
    );
    t.diagnostic(`moved from ${start} to ${moved}`);

    // The camera follows it, close up: the robot is drawn.
    await student.locator(byTestId('btn-close-robot-upload')).click();
    await student.locator(`${byTestId('person-robot')}[data-robot="${ROBOT}"]`).click();
    await student.locator(byTestId('robot-actions')).waitFor();
    await student.locator(byTestId('btn-follow-robot')).click();
    await waitUntil('the camera to follow the robot', () => student.locator(byTestId('lab-canvas')).getAttribute('data-follow'), (f) => f === ROBOT);
    const box = await student.locator(byTestId('lab-canvas')).boundingBox();
    await student.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let notch = 0; notch < 8; notch += 1) await student.mouse.wheel(0, -120);
    const frames = (await readUi(student)).framesDrawn;
    await waitUntil('a few frames of the close view', () => readUi(student), (u) => u.framesDrawn >= frames + 10);
    const shot = await student.locator(byTestId('lab-canvas')).screenshot();
    const file = saveArtifact(artifactName('urdf-robot.png'), shot);
    const stats = imageStats(shot);
    t.diagnostic(`canvas screenshot ${file}: ${JSON.stringify(stats)}`);
    assert.ok(stats.distinctColours >= 64 && stats.lumaStdDev >= 10, `the canvas looks blank (${file})`);
    saveArtifact(artifactName('page.png'), await student.screenshot());
  });
});
