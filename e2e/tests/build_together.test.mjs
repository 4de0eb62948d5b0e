// Building the world together, from the browser. A student, once the instructor lets
// students add objects, adds a ramp from the palette, drags it across the floor in the
// 3D view and undoes the move. The instructor saves the lab as it stands with "Save
// scene (.vlab)" and opens the file on the create page as a new lab: the new lab has the
// same bodies where the old one had them.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';

import { PNG } from 'pngjs';

import { saveArtifact, waitForConnected, withLab } from '../lib/harness.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { joinAsStudent } from '../lib/student.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

// A white floor in a low black fence: from the top, the steel ramp is the only grey.
const YARD = 'environment wallrect { width 6; length 6; height 0.2; ground "White"; walls "Black"; sky "Black"; }\n';

/** Where the ramp is drawn, in page pixels: the median of the canvas's grey pixels below
 * the placing panel (the fence's anti-aliased edges are grey too, but thin: the median
 * stays on the ramp). */
async function rampOnScreen(page) {
  const canvas = page.locator(byTestId('lab-canvas'));
  const box = await canvas.boundingBox();
  const { width, height, data } = PNG.sync.read(await canvas.screenshot());
  const [xs, ys] = [[], []];
  for (let y = Math.floor(height * 0.3); y < height * 0.9; y += 1) {
    for (let x = Math.floor(width * 0.2); x < width * 0.8; x += 1) {
      const i = (y * width + x) * 4;
      const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
      if (Math.max(r, g, b) < 200 && Math.min(r, g, b) > 50 && Math.max(r, g, b) - Math.min(r, g, b) < 40) {
        xs.push(x);
        ys.push(y);
      }
    }
  }
  if (xs.length < 50) return null;
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return { x: box.x + median(xs) * (box.width / width), y: box.y + median(ys) * (box.height / height), pixels: xs.length };
}

/** Where `name` stands in lab `lab` saved now: the numbers of its `pos(...)`. */
async function standsAt(server, lab, token, name) {
  const response = await fetch(`${server.baseUrl}/api/labs/${lab}/scene.vlab`, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  // `static composed ana_ramp_1 {` and its pose on the next line.
  const found = text.match(new RegExp(`\\b${name} \\{\\s*pos\\(([^)]*)\\)`));
  assert.ok(found, `${name} in the saved scene:\n${text}`);
  return found[1].split(',').map(Number);
}

test('a student adds a ramp from the palette, drags it in the 3D view and undoes the move', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const created = await server.request('POST', '/api/labs', { token: server.token, body: { name: 'Obstacles', scene_source: YARD } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { id: lab, instructor_token: teacherToken } = created.body;
    const { page: ana } = await joinAsStudent(server, openPage, 'Ana', { lab, instructorToken: teacherToken });

    // The switch is off: no palette for students. The instructor turns it on from the page.
    assert.equal(await ana.locator(byTestId('palette-ramp')).count(), 0, 'no palette before the switch');
    const teacher = await openPage('instructor', { url: `${server.baseUrl}${created.body.instructor_path}` });
    await teacher.locator(byTestId('toggle-students-add-objects')).check();
    await ana.locator(byTestId('palette-ramp')).click();
    const said = await waitUntil('the ramp to go in', () => ana.locator(byTestId('palette-said')).textContent(), (m) => /ana_ramp_1/.test(m ?? ''));
    t.diagnostic(said);
    const before = await standsAt(server, lab, teacherToken, 'ana_ramp_1');

    // From the top, find it, and drag it a good way to the right.
    await ana.locator(byTestId('btn-top-view')).click();
    await ana.locator(byTestId('place-mode')).check();
    const seen = await waitUntil('the ramp drawn from the top', () => rampOnScreen(ana), (r) => r !== null);
    t.diagnostic(`the ramp on screen at ${Math.round(seen.x)}, ${Math.round(seen.y)} (${seen.pixels} pixels)`);
    saveArtifact(artifactName('1-added.png'), await ana.screenshot());
    await ana.mouse.move(seen.x, seen.y);
    await ana.mouse.down();
    await ana.mouse.move(seen.x + 120, seen.y, { steps: 12 });
    await ana.mouse.up();
    await waitUntil('the placement to be taken', () => ana.locator(byTestId('placement-status')).textContent(), (m) => /placed/i.test(m ?? ''));
    assert.match(await ana.locator(byTestId('placing-selected')).textContent(), /ana_ramp_1/);
    const after = await waitUntil('the ramp to stand elsewhere', () => standsAt(server, lab, teacherToken, 'ana_ramp_1'), (p) => Math.hypot(p[0] - before[0], p[2] - before[2]) > 0.3);
    t.diagnostic(`the ramp went from ${before} to ${after}`);
    // The teacher's page draws it there too (fixed bodies come with the scene).
    const moved = await waitUntil('the ramp to be drawn moved', () => rampOnScreen(ana), (r) => r !== null && r.x > seen.x + 60);
    t.diagnostic(`drawn at ${Math.round(moved.x)}, ${Math.round(moved.y)}`);
    saveArtifact(artifactName('2-dragged.png'), await ana.screenshot());

    await ana.locator(byTestId('undo-placement')).click();
    const back = await waitUntil('the ramp back where it was', () => standsAt(server, lab, teacherToken, 'ana_ramp_1'), (p) => Math.hypot(p[0] - before[0], p[2] - before[2]) < 0.01);
    t.diagnostic(`undone: ${back}; ${await ana.locator(byTestId('placement-status')).textContent()}`);
    saveArtifact(artifactName('3-undone.png'), await teacher.screenshot());
  });
});

/** Lab `lab` saved as a scene now, without its opening comment (which lab, when). */
async function savedScene(server, lab, token) {
  const response = await fetch(`${server.baseUrl}/api/labs/${lab}/scene.vlab`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(response.status, 200);
  return (await response.text()).split('\n').filter((line) => !line.startsWith('//'));
}

test('the instructor saves the lab as a scene and opens it on the create page as a new lab', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const instructor = await openPage('instructor');
    // Some steps, so props have fallen and settled where the saved scene will keep them.
    for (const body of [{ action: 'pause' }, { action: 'step', steps: 240 }]) {
      const control = await server.request('POST', '/api/labs/demo/control', { token: server.token, body });
      assert.equal(control.status, 200, JSON.stringify(control.body));
    }
    await waitUntil('the page to show the steps', () => readUi(instructor), (u) => u.step >= 240);

    await instructor.locator(byTestId('btn-save-scene')).scrollIntoViewIfNeeded();
    const [download] = await Promise.all([instructor.waitForEvent('download'), instructor.locator(byTestId('btn-save-scene')).click()]);
    assert.equal(download.suggestedFilename(), 'demo.vlab');
    const file = await download.path();
    const text = fs.readFileSync(file, 'utf8');
    t.diagnostic(`saved ${text.length} bytes; first line: ${text.split('\n')[0]}`);
    assert.match(text, /environment/, 'the room is in the file');

    // The create page opens the file as a new lab.
    const teacher = await openPage('viewer', { name: 'teacher', url: `${server.baseUrl}/?create`, waitConnected: false });
    await teacher.locator(byTestId('server-key')).fill(server.token);
    await teacher.locator(byTestId('lab-name-input')).fill('Week 2, as we left it');
    await teacher.locator(byTestId('scene-select')).selectOption({ label: 'A scene saved from a lab (.vlab file)…' });
    await teacher.locator(byTestId('btn-create-lab')).click();
    await waitUntil('the form to ask for the file', () => teacher.locator(byTestId('create-error')).textContent(), (m) => /Open the saved scene/.test(m ?? ''));
    await teacher.locator(byTestId('saved-scene-file')).setInputFiles({ name: 'demo.vlab', mimeType: 'text/plain', buffer: Buffer.from(text) });
    await waitUntil('the file to be read', () => teacher.locator(byTestId('saved-scene-name')).textContent(), (m) => m.startsWith('demo.vlab'));
    await teacher.locator(byTestId('btn-create-lab')).click();
    await teacher.locator(byTestId('created-lab')).waitFor();
    const lab = await teacher.locator(byTestId('created-lab')).getAttribute('data-lab');
    const link = await teacher.locator(byTestId('instructor-link')).inputValue();
    const token = new URL(link).searchParams.get('token');
    await teacher.goto(link);
    await waitForConnected(teacher, "the new lab's page");
    const shown = await waitUntil('the new lab drawn', () => readUi(teacher), (u) => u.role === 'instructor' && u.bodies > 0);
    saveArtifact(artifactName('reopened.png'), await teacher.screenshot());

    assert.equal(shown.bodies, (await readUi(instructor)).bodies, 'the same bodies drawn in both labs');
    // The new lab, not stepped yet, saved again: the same world, line for line.
    const saved = text.split('\n').filter((line) => !line.startsWith('//'));
    const again = await savedScene(server, lab, token);
    t.diagnostic(`${saved.length} lines saved, ${again.length} saved again from ${lab}`);
    // Same statements; numbers within 10 µm (a quaternion written again after the engine
    // normalised it may differ in its last digit).
    const NUMBER = /-?\d+(\.\d+)?/g;
    assert.deepEqual(again.map((l) => l.replace(NUMBER, '#')), saved.map((l) => l.replace(NUMBER, '#')));
    const numbers = (lines) => lines.flatMap((l) => (l.match(NUMBER) ?? []).map(Number));
    const [a, b] = [numbers(saved), numbers(again)];
    const worst = Math.max(...a.map((x, i) => Math.abs(x - b[i])));
    t.diagnostic(`${a.length} numbers, the largest difference ${worst}`);
    assert.ok(worst <= 1e-5, `a number moved by ${worst}`);
  });
});
