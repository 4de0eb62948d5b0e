// Driving a robot from one's own machine, as a student finds it: the student joins by
// code and adds a diffbot without a program; its console panel offers "Drive it from
// your laptop" with the whole command line. That command, run with the Python client
// (clients/python) and a small program, attaches: the page's status says "remote
// controller: running", the program's log lines stream into the console, and the robot
// drives. Ending the program leaves the robot holding still and says so.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { joinAsStudent, readProgramUi } from '../lib/student.mjs';
import { byTestId } from '../lib/ui.mjs';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ROBOT = 'diffbot_laptop';

const PROGRAM = [
  'from vlab import Robot',
  '',
  'robot = Robot()',
  'robot.actuator("drive").set(0.4, 0.0)',
  'start = robot.time()',
  'while robot.step():',
  '    if robot.step_count() % 120 == 0:',
  '        robot.log(f"from the laptop at t={robot.time():.1f}")',
  '    if robot.time() - start > 4:',
  '        break',
  '',
].join('\n');

test('the command line the console offers drives the robot from a program on the student\'s machine', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    // The demo's rovers roam the whole room: one driving into this robot would stop it
    // short. The instructor takes them out; the props stay where they settled.
    for (const rover of ['rover_red', 'rover_green', 'rover_blue']) {
      const removed = await server.request('DELETE', `/api/labs/demo/robots/${rover}`, { token: server.token });
      assert.ok(removed.status < 300, `removing ${rover}: ${removed.status}`);
    }
    const { page, token } = await joinAsStudent(server, openPage, 'Laptop');
    // Where the lab finds 2 m of free floor around it: a prop in its way would stop it short.
    const description = 'include "diffbot_robot.vlab";\ncall diffbot("_laptop", {x}, {z}, 0);\n';
    const added = await fetch(`${server.baseUrl}/api/labs/demo/robots?clearance_m=2`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
      body: description,
    });
    assert.equal(added.status, 200, await added.text());

    await page.locator(`${byTestId('robot-item')}[data-robot="${ROBOT}"]`).click();
    const hint = page.locator(byTestId('remote-hint'));
    await hint.waitFor();
    await hint.locator('summary').click();
    const command = (await page.locator(byTestId('remote-command')).textContent()).trim();
    assert.match(command, new RegExp(`--lab demo --token ${token} --robot ${ROBOT}$`), command);
    saveArtifact(artifactName('1-command.png'), await page.screenshot());

    // The student's machine: the program file and the command as shown.
    const folder = mkdtempSync(path.join(os.tmpdir(), 'vlab-laptop-'));
    writeFileSync(path.join(folder, 'main.py'), PROGRAM);
    const args = command.split(/\s+/).slice(1);
    assert.equal(args[0], 'main.py');
    const client = spawn('python3', args, {
      cwd: folder,
      env: { ...process.env, PYTHONPATH: path.join(REPO_ROOT, 'clients', 'python', 'src') },
    });
    let err = '';
    client.stderr.on('data', (chunk) => (err += chunk));
    const exited = new Promise((resolve) => client.on('exit', resolve));
    t.after(() => client.kill());

    const start = (await server.request('GET', `/api/labs/demo/robots/${ROBOT}`, { token })).body.pose.position;
    const driving = await waitUntil(
      'the page to show the remote controller driving',
      () => readProgramUi(page),
      (p) => p.state === 'running' && /remote controller/.test(p.headline ?? '') && p.lines.some((l) => /from the laptop/.test(l.text)),
      { timeoutMs: 60_000 },
    );
    assert.match(driving.headline, /remote controller: running/);
    saveArtifact(artifactName('2-driving.png'), await page.screenshot());

    assert.equal(await exited, 0, err);
    const ended = await waitUntil('the page to say the program ended', () => readProgramUi(page), (p) => p.state === 'no program');
    assert.equal(ended.message, 'the program ended');
    const end = (await server.request('GET', `/api/labs/demo/robots/${ROBOT}`, { token })).body.pose.position;
    const moved = Math.hypot(end[0] - start[0], end[2] - start[2]);
    assert.ok(moved > 0.5, `the robot drove ${moved} m`);
    assert.match(err, /driving robot diffbot_laptop in lab demo/);
  });
});
