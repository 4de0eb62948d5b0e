// A robot imported from URDF, from the browser: a student opens "Add robot", loads the
// course's diffbot written in URDF (scenes/urdf/diffbot.urdf) with "Load URDF…"; the
// description becomes one that imports it, the upload inserts it with the devices of its
// Gazebo extensions (lidar, motors, encoders, drive, odometry), the drive moves it, and
// the camera following it draws it (a close-up screenshot that is not blank). Then a
// second student loads the same robot whose chassis is a binary STL mesh, picking the
// URDF file and the mesh together: the mesh goes up as bytes and draws the chassis. A
// third picks a ROS package as a zip (xacro, an include, package:// meshes): the page
// finds the robot file in it and the server unpacks and expands it.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { zipOf } from '../lib/zip.mjs';
import { imageStats } from '../lib/png.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { joinAsStudent, readProgramUi } from '../lib/student.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

const URDF = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../scenes/urdf/diffbot.urdf');
const PACKAGE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../backend/tests/fixtures/burger_description');
const CHASSIS_BOX = '<visual>\n      <origin xyz="-0.04 0 0.02" rpy="0 0 0"/>\n      <geometry><box size="0.2 0.16 0.04"/></geometry>';
const CHASSIS_MESH =
  '<visual>\n      <origin xyz="-0.04 0 0.02" rpy="0 0 0"/>\n      <geometry><mesh filename="package://diffbot_description/meshes/chassis.stl" scale="0.001 0.001 0.001"/></geometry>';

/** A binary STL of a box of `size` (file units) about the origin: 12 triangles. */
function boxStl([sx, sy, sz]) {
  const corner = (i) => [i & 1 ? sx / 2 : -sx / 2, i & 2 ? sy / 2 : -sy / 2, i & 4 ? sz / 2 : -sz / 2];
  const faces = [[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3]];
  const bytes = Buffer.alloc(84 + 12 * 50);
  bytes.writeUInt32LE(12, 80);
  let at = 84;
  for (const [a, b, c, d] of faces) {
    for (const triangle of [[a, b, c], [a, c, d]]) {
      at += 12; // the normal: zero, the reader works it out
      for (const v of triangle) {
        for (const x of corner(v)) {
          bytes.writeFloatLE(x, at);
          at += 4;
        }
      }
      at += 2;
    }
  }
  return bytes;
}

/** Closes the form, follows `robot` close up and returns the canvas screenshot's stats. */
async function closeUp(t, page, robot, artifactName, name) {
  await page.locator(byTestId('btn-close-robot-upload')).click();
  await page.locator(`${byTestId('person-robot')}[data-robot="${robot}"]`).click();
  await page.locator(byTestId('robot-actions')).waitFor();
  await page.locator(byTestId('btn-follow-robot')).click();
  await waitUntil('the camera to follow the robot', () => page.locator(byTestId('lab-canvas')).getAttribute('data-follow'), (f) => f === robot);
  const box = await page.locator(byTestId('lab-canvas')).boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let notch = 0; notch < 8; notch += 1) await page.mouse.wheel(0, -120);
  const frames = (await readUi(page)).framesDrawn;
  await waitUntil('a few frames of the close view', () => readUi(page), (u) => u.framesDrawn >= frames + 10);
  const shot = await page.locator(byTestId('lab-canvas')).screenshot();
  const file = saveArtifact(artifactName(name), shot);
  const stats = imageStats(shot);
  t.diagnostic(`canvas screenshot ${file}: ${JSON.stringify(stats)}`);
  return { file, stats };
}

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
    const { file, stats } = await closeUp(t, student, ROBOT, artifactName, 'urdf-robot.png');
    assert.ok(stats.distinctColours >= 64 && stats.lumaStdDev >= 10, `the canvas looks blank (${file})`);
    saveArtifact(artifactName('page.png'), await student.screenshot());
  });
});

test('a student adds a URDF robot with its binary STL mesh picked beside it, and the mesh draws the chassis', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const { page: student, token } = await joinAsStudent(server, openPage, 'Mesher');
    const urdf = fs.readFileSync(URDF, 'utf8');
    assert.ok(urdf.includes(CHASSIS_BOX), 'the chassis visual to replace');
    const suffix = 'stl';
    const robot = `diffbot_${suffix}`;

    await student.locator(byTestId('btn-open-robot-upload')).click();
    await student.locator(byTestId('robot-upload')).waitFor();
    await student.locator(byTestId('robot-suffix')).fill(suffix);
    // Both files at once, as a student picks a URDF and its meshes folder's files.
    await student.locator(byTestId('urdf-file')).setInputFiles([
      { name: 'diffbot.urdf', mimeType: 'application/xml', buffer: Buffer.from(urdf.replace(CHASSIS_BOX, CHASSIS_MESH)) },
      { name: 'chassis.stl', mimeType: 'model/stl', buffer: boxStl([200, 160, 40]) },
    ]);
    await waitUntil('the description to import the URDF file', () => readProgramUi(student), (p) => p.description?.includes('urdf "diffbot.urdf"'));
    await student.locator(byTestId('program-source')).fill('');
    await student.locator(byTestId('btn-upload-robot')).click();
    const added = await waitUntil('the upload to finish', () => readProgramUi(student), (p) => !['busy', ''].includes(p.outcome ?? ''));
    assert.equal(added.outcome, 'inserted', added.result);
    assert.doesNotMatch(added.result, /bounding box|warning|missing|cannot/i, `the mesh was read: ${added.result}`);

    // The server kept the mesh: it serves it (as OBJ) under the lab's assets.
    const report = await server.request('GET', `/api/labs/demo/robots/${robot}`, { token });
    assert.equal(report.status, 200, JSON.stringify(report.body));
    const meshUrl = await waitUntil(
      'the page to load the chassis mesh',
      // The page asks the server for the mesh's triangles: /api/triangles?mesh=URL.
      () => student.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name)).filter((u) => u.pathname === '/api/triangles').map((u) => u.searchParams.get('mesh')).find((m) => m?.endsWith('/chassis.stl.obj')) ?? null),
      (url) => url !== null,
    );
    const obj = await server.request('GET', meshUrl, { token });
    assert.equal(obj.status, 200);
    const vertices = (obj.body?.unparsed ?? '').split('\n').filter((l) => l.startsWith('v '));
    assert.equal(vertices.length, 36, 'the twelve triangles of the STL box');
    t.diagnostic(`chassis mesh served at ${meshUrl}`);

    const { file, stats } = await closeUp(t, student, robot, artifactName, 'urdf-stl-robot.png');
    assert.ok(stats.distinctColours >= 64 && stats.lumaStdDev >= 10, `the canvas looks blank (${file})`);
  });
});

test('a student adds a ROS package picked as a zip with Load URDF…', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage }) => {
    const { page: student, token } = await joinAsStudent(server, openPage, 'Rosie');
    const file = (relative) => fs.readFileSync(path.join(PACKAGE, relative));
    const zip = zipOf([
      ['burger_description/package.xml', file('package.xml')],
      ['burger_description/urdf/burger.urdf', file('urdf/burger.urdf')],
      ['burger_description/urdf/common_properties.xacro', file('urdf/common_properties.xacro')],
      ['burger_description/meshes/bases/burger_base.stl', boxStl([140, 140, 120])],
    ]);

    await student.locator(byTestId('btn-open-robot-upload')).click();
    await student.locator(byTestId('robot-upload')).waitFor();
    await student.locator(byTestId('robot-suffix')).fill('zip');
    await student.locator(byTestId('urdf-file')).setInputFiles({ name: 'burger_description.zip', mimeType: 'application/zip', buffer: zip });
    const written = await waitUntil(
      'the description to import the package\'s robot file',
      () => readProgramUi(student),
      (p) => p.description?.includes('urdf "urdf/burger.urdf"'),
    );
    assert.match(written.description, /robot burger_zip \{/, written.description);
    await student.locator(byTestId('program-source')).fill('');
    await student.locator(byTestId('btn-upload-robot')).click();
    const added = await waitUntil('the upload to finish', () => readProgramUi(student), (p) => !['busy', ''].includes(p.outcome ?? ''));
    assert.equal(added.outcome, 'inserted', `${added.result} ${added.errors?.join(' | ')}`);
    t.diagnostic(added.result);

    const report = await server.request('GET', '/api/labs/demo/robots/burger_zip', { token });
    assert.equal(report.status, 200, JSON.stringify(report.body));
    t.diagnostic(`burger_zip at ${report.body.pose.position}`);
  });
});
