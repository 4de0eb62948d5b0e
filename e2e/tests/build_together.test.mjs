// Building the world together, from the browser. The instructor saves the lab as it
// stands with "Save scene (.vlab)" and opens the file on the create page as a new lab:
// the new lab has the same bodies where the old one had them.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';

import { saveArtifact, waitForConnected, withLab } from '../lib/harness.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

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
