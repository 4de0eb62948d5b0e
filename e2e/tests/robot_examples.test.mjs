// The Add-robot form fills from the server's example robots and from files: a student
// picks an example (its description with the name in place of {suffix}, its start left
// to the lab, its program in the Python editor), loads a description from a .vlab
// file and a .wasm module (shown by its size, not edited), goes back to the example and
// uploads it: the robot is added where the lab chose, with its program, which starts.
// Then the example's robot.vlab as it is on disk, placeholders and all, loaded from a
// file and uploaded: the lab fills them in.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { joinAsStudent, readProgramUi } from '../lib/student.mjs';
import { byTestId } from '../lib/ui.mjs';

const SUFFIX = 'ex';

test('a student starts from an example robot, or from files, and uploads the example', { timeout: 600_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const served = await server.request('GET', '/api/examples');
    assert.equal(served.status, 200, `the server lists example robots: ${JSON.stringify(served.body)}`);
    assert.ok(served.body.length > 0, 'at least one example');
    const { page: student, token } = await joinAsStudent(server, openPage, 'Explorer');

    await student.locator(byTestId('btn-open-robot-upload')).click();
    await student.locator(byTestId('robot-upload')).waitFor();
    await student.locator(byTestId('robot-suffix')).fill(SUFFIX);
    const listed = await waitUntil('the example robots to be listed', () => readProgramUi(student), (p) => p.examples.length > 1);
    assert.deepEqual(listed.examples, ['', ...served.body.map((e) => e.id)], "the picker lists the server's examples after 'none'");

    const example = served.body[0];
    await student.locator(byTestId('robot-example')).selectOption(example.id);
    const picked = await waitUntil('the example to fill both editors', () => readProgramUi(student), (p) => (p.program ?? '').trim() !== '');
    const code = picked.description.split('\n').filter((line) => !line.trim().startsWith('//')).join('\n');
    assert.ok(!code.includes('{suffix}'), `the name is filled in: ${picked.description}`);
    assert.ok(code.includes('{x}') && code.includes('{z}'), `the lab chooses the start: ${picked.description}`);
    assert.equal(
      picked.description.split('\n').filter((line) => line.trim().startsWith('//')).join('\n'),
      example.robot.split('\n').filter((line) => line.trim().startsWith('//')).join('\n'),
      'its comments, which explain the placeholders, are left as they are',
    );
    assert.ok(picked.description.includes(`_${SUFFIX}`), `the description carries the name's suffix: ${picked.description}`);
    assert.equal(picked.program, example.program.files[example.program.main], 'the editor holds the example program');
    assert.ok(picked.programHighlighted, 'highlighted as Python');
    assert.equal(await student.locator(byTestId('robot-example-summary')).textContent(), example.summary);
    saveArtifact(artifactName('1-example.png'), await student.screenshot());

    // Files: a description, and a module that replaces the program (after asking).
    await student.locator(byTestId('description-file')).setInputFiles({
      name: 'mine.vlab', mimeType: 'text/plain', buffer: Buffer.from('// from a file\n'),
    });
    await waitUntil('the description file to load', () => readProgramUi(student), (p) => p.description === '// from a file\n');
    student.once('dialog', (dialog) => dialog.accept());
    await student.locator(byTestId('program-file')).setInputFiles({
      name: 'bot.wasm', mimeType: 'application/wasm', buffer: Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]),
    });
    await waitUntil(
      'the module to show as a binary',
      () => student.locator(byTestId('program-binary')).textContent().catch(() => ''),
      (text) => text.includes('WebAssembly module, 8 bytes'),
    );
    assert.equal(await student.locator(byTestId('program-name')).textContent(), 'bot.wasm');
    saveArtifact(artifactName('2-files.png'), await student.screenshot());

    // Back to the example (saying yes to replacing the module), and upload it.
    student.once('dialog', (dialog) => dialog.accept());
    await student.locator(byTestId('robot-example')).selectOption('');
    await student.locator(byTestId('robot-example')).selectOption(example.id);
    await waitUntil('the example to be back', () => readProgramUi(student), (p) => p.program === example.program.files[example.program.main]);
    await student.locator(byTestId('btn-upload-robot')).click();
    const added = await waitUntil('the upload to finish', () => readProgramUi(student), (p) => !['busy', 'none', null].includes(p.outcome));
    assert.equal(added.outcome, 'inserted', added.result);
    const robots = (await server.lab('demo')).robots.filter((name) => name.endsWith(`_${SUFFIX}`));
    assert.equal(robots.length, 1, `one robot named <model>_${SUFFIX}: ${robots}`);
    const report = await waitUntil(
      'its program to start',
      async () => (await server.request('GET', `/api/labs/demo/robots/${robots[0]}`, { token })).body,
      (r) => ['running', 'stopped'].includes(r?.program?.state),
    );
    assert.equal(report.program.state, 'running', `the example runs: ${report.program.message}`);
    await waitUntil('the console to show it started', () => readProgramUi(student), (p) => p.console && p.state === 'running' && p.lines.length > 0);
    assert.match(added.note ?? '', new RegExp(`${robots[0]} starts at x [0-9.]+, z [0-9.]+, a free spot the lab chose`));
    await student.locator(byTestId('robot-console')).scrollIntoViewIfNeeded();
    saveArtifact(artifactName('3-uploaded.png'), await student.screenshot());

    // The example's robot.vlab from disk, as a teacher hands it out: {suffix}, {x} and {z}
    // in place. The lab names it after the student and starts it on a free spot.
    await student.locator(byTestId('robot-example')).selectOption('');
    await student.locator(byTestId('description-file')).setInputFiles({
      name: 'robot.vlab', mimeType: 'text/plain', buffer: Buffer.from(example.robot),
    });
    await waitUntil('the file to load', () => readProgramUi(student), (p) => p.description === example.robot);
    await student.locator(byTestId('btn-upload-robot')).click();
    const fromDisk = await waitUntil('the upload from disk to finish', () => readProgramUi(student), (p) => !['busy', 'none', null].includes(p.outcome) && p.description === example.robot && p.note !== added.note);
    assert.equal(fromDisk.outcome, 'inserted', `the file as it is on disk is added: ${fromDisk.result}`);
    const named = (await server.lab('demo')).robots.filter((name) => name.endsWith('_explorer'));
    assert.equal(named.length, 1, `named after the student: ${(await server.lab('demo')).robots}`);
  }, { allowConsoleErrors: true });
});
