// A student's robot program, from the browser: the student joins by code, opens "Add
// robot", picks an example robot, loads a description and a .wasm module from files,
// then writes a Python program. The first upload has a syntax error: it is listed and
// marked at its line in the program editor, the caret jumps there, and nothing is
// inserted (the API agrees). Fixed, the robot appears, its
// console streams the program's printed lines with advancing steps, and the robot moves.
// Then "Edit program" loads the program back; a version that raises is saved: the
// console shows the traceback and the status says stopped while the lab's clock goes
// on; Restart runs it again. The instructor sees the same console.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, waitForConnected, withLab } from '../lib/harness.mjs';
import { imageStats } from '../lib/png.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

const SUFFIX = 'prog';
const ROBOT = `diffbot_${SUFFIX}`;

const program = ({ colon = ':', raiseAt = null } = {}) =>
  [
    'from vlab import Robot',
    '',
    'robot = Robot()',
    'n = 0',
    `while robot.step()${colon}`,
    '    robot.actuator("drive").set(0.4, 0.3)',
    '    n += 1',
    '    if n % 10 == 0:',
    '        print(f"tick {n} <b>t</b>={robot.time():.2f}")',
    ...(raiseAt === null ? [] : [`    if n == ${raiseAt}:`, '        raise RuntimeError("boom at tick " + str(n))']),
    '',
  ].join('\n');

// Line 5 lacks its colon: a Python syntax error there.
const BROKEN = program({ colon: '' });
const FIXED = program();
const RAISING = program({ raiseAt: 150 });

/** What the Add-robot panel and the robot's console show now. */
async function readProgramUi(page) {
  return page.evaluate(() => {
    const q = (id) => document.querySelector(`[data-testid="${id}"]`);
    const all = (id) => [...document.querySelectorAll(`[data-testid="${id}"]`)];
    const source = q('program-source');
    return {
      panelTitle: q('robot-upload-title')?.textContent?.trim() ?? null,
      examples: all('robot-example').flatMap((s) => [...s.options].map((o) => o.value)),
      description: q('scene-source')?.value ?? null,
      program: source?.value ?? null,
      programCaretLine: source ? source.value.slice(0, source.selectionStart).split('\n').length : null,
      programFocused: source !== null && document.activeElement === source,
      outcome: q('scene-result')?.getAttribute('data-outcome') ?? null,
      result: q('scene-result')?.textContent?.trim() ?? null,
      errors: all('scene-error').map((e) => e.textContent.trim()),
      programErrorLine: q('program-error-line')?.getAttribute('data-line') ?? null,
      descriptionErrorLine: q('scene-error-line')?.getAttribute('data-line') ?? null,
      programHighlighted: source?.parentElement?.querySelector('.code-highlight .tok-kw') != null,
      console: q('robot-console') !== null,
      state: q('program-status')?.getAttribute('data-state') ?? null,
      headline: q('program-status')?.textContent?.trim() ?? null,
      message: q('program-message')?.textContent ?? null,
      lines: all('console-line').map((line) => ({
        step: Number(line.getAttribute('data-step')),
        source: line.getAttribute('data-source'),
        text: line.querySelector('.console-text')?.textContent ?? '',
        bold: line.querySelector('b') !== null,
      })),
    };
  });
}

const robotReport = async (server, token) =>
  server.request('GET', `/api/labs/demo/robots/${ROBOT}`, { token });

test('a student uploads a Python program, fixes its error, watches its console, and restarts it', { timeout: 600_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const lab = await server.request('GET', '/api/labs/demo', { token: server.token });
    const code = lab.body.join_code;
    assert.match(code ?? '', /^[A-Z0-9]+$/, JSON.stringify(lab.body));

    // Join by code.
    const student = await openPage('viewer', { name: 'student', url: `${server.baseUrl}/`, waitConnected: false });
    const consoleErrors = [];
    student.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    await student.locator(byTestId('join-code')).fill(code);
    await student.locator(byTestId('join-name')).fill('Programmer');
    await student.locator(byTestId('btn-join')).click();
    await student.waitForURL(/[?&]lab=demo&token=/);
    await waitForConnected(student, 'the student page');
    await waitUntil('the student role', () => readUi(student), (u) => u.role === 'student' && u.bodies > 0);
    const token = new URL(student.url()).searchParams.get('token');

    // The form: the example robots from the server, a description and a program editor.
    await student.locator(byTestId('btn-open-robot-upload')).click();
    await student.locator(byTestId('robot-upload')).waitFor();
    await student.locator(byTestId('robot-suffix')).fill(SUFFIX);
    const examples = await waitUntil('the example robots to be listed', () => readProgramUi(student), (p) => p.examples.length > 1);
    const served = await server.request('GET', '/api/examples');
    assert.equal(served.status, 200, JSON.stringify(served.body));
    assert.deepEqual(examples.examples.slice(1), served.body.map((e) => e.id), 'the picker lists the server\'s examples');
    await student.locator(byTestId('robot-example')).selectOption(served.body[0].id);
    const picked = await waitUntil('the example to fill both editors', () => readProgramUi(student), (p) => (p.program ?? '').trim() !== '');
    assert.ok(!/\{(suffix|x|z)\}/.test(picked.description), `placeholders are filled: ${picked.description}`);
    assert.ok(picked.description.includes(SUFFIX), `the description carries the name: ${picked.description}`);
    saveArtifact(artifactName('1-example.png'), await student.screenshot());

    // A description and a program can come from files; a .wasm is shown, not edited.
    await student.locator(byTestId('description-file')).setInputFiles({
      name: 'mine.vlab', mimeType: 'text/plain', buffer: Buffer.from('// from a file\n'),
    });
    await waitUntil('the description file to load', () => readProgramUi(student), (p) => p.description === '// from a file\n');
    // Replacing the example's program asks first: say yes.
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
    await student.locator(byTestId('btn-program-to-python')).click();
    await student.locator(byTestId('program-source')).waitFor();

    // Back to the course's diffbot, with a program of our own that has a syntax error.
    await student.locator(byTestId('robot-example')).selectOption('');
    await student.locator(byTestId('btn-robot-template')).click();
    const template = await readProgramUi(student);
    assert.match(template.description, new RegExp(`call diffbot\\("_${SUFFIX}"`), template.description);
    await student.locator(byTestId('program-source')).fill(BROKEN);
    assert.ok((await readProgramUi(student)).programHighlighted, 'the program is highlighted as Python');
    await student.locator(byTestId('btn-upload-robot')).click();
    const refused = await waitUntil('the broken program to be refused', () => readProgramUi(student), (p) => ['rejected', 'failed'].includes(p.outcome));
    assert.equal(refused.outcome, 'rejected', `positioned errors: ${refused.result}`);
    assert.match(refused.errors[0], /^main\.py:5:\d+: /, `the error names main.py line 5: ${refused.errors}`);
    assert.equal(refused.programErrorLine, '5', 'the program editor marks line 5');
    assert.equal(refused.descriptionErrorLine, null, 'the description is not marked');
    assert.equal(refused.programCaretLine, 5, 'the caret moved to the error');
    assert.equal(refused.program, BROKEN, 'a refused upload keeps the program');
    assert.ok(!(await server.lab('demo')).robots.includes(ROBOT), 'nothing was inserted');
    assert.equal((await robotReport(server, token)).status, 404, 'the robot does not exist');
    await student.locator(byTestId('program-source')).evaluate((area) => area.setSelectionRange(0, 0));
    await student.locator(byTestId('scene-error')).first().click();
    assert.equal((await readProgramUi(student)).programCaretLine, 5, 'clicking the error jumps to its line');
    saveArtifact(artifactName('2-syntax-error.png'), await student.screenshot());

    // Fixed: the robot is added, its program runs, its console streams.
    await student.locator(byTestId('program-source')).fill(FIXED);
    await student.locator(byTestId('btn-upload-robot')).click();
    const added = await waitUntil('the fixed upload to finish', () => readProgramUi(student), (p) => !['busy', 'rejected'].includes(p.outcome));
    assert.equal(added.outcome, 'inserted', added.result);
    assert.ok((await server.lab('demo')).robots.includes(ROBOT), 'the server has the robot');
    const first = (await robotReport(server, token)).body;
    const running = await waitUntil(
      'the console to show printed lines at advancing steps',
      () => readProgramUi(student),
      (p) => p.console && p.lines.filter((l) => l.source === 'print').length >= 3,
    );
    const printed = running.lines.filter((l) => l.source === 'print');
    assert.match(printed[0].text, /^tick \d+ <b>t<\/b>=\d+\.\d\d$/, 'program output is shown as text');
    assert.ok(printed.every((l) => !l.bold), 'never as HTML');
    assert.ok(printed.at(-1).step > printed[0].step, `steps advance: ${printed.map((l) => l.step)}`);
    assert.equal(running.state, 'running', `the program runs on: ${running.headline}\n${running.message ?? ''}`);
    const moved = await waitUntil(
      'the robot to move',
      async () => (await robotReport(server, token)).body,
      (r) => Math.hypot(r.pose.position[0] - first.pose.position[0], r.pose.position[2] - first.pose.position[2]) > 0.05,
    );
    assert.ok(Array.isArray(moved.console), 'its owner gets its console in the report');
    await student.locator(byTestId('robot-console')).scrollIntoViewIfNeeded();
    const runningShot = await student.screenshot();
    saveArtifact(artifactName('3-running.png'), runningShot);
    const stats = imageStats(runningShot);
    assert.ok(stats.distinctColours > 200 && stats.dominantShare < 0.6, `the page looks blank: ${JSON.stringify(stats)}`);

    // Edit program: the editor gets it back; a version that raises replaces it.
    await student.locator(byTestId('btn-edit-program')).click();
    const editing = await waitUntil('the program to load for editing', () => readProgramUi(student), (p) => p.panelTitle === `Program of ${ROBOT}`);
    assert.equal(editing.program, FIXED, 'the editor holds the running program');
    await student.locator(byTestId('program-source')).fill(RAISING);
    await student.locator(byTestId('btn-save-program')).click();
    const saved = await waitUntil('the new program to be saved', () => readProgramUi(student), (p) => !['busy', 'none', null].includes(p.outcome));
    assert.equal(saved.outcome, 'saved', saved.result);
    const stopped = await waitUntil(
      'the console to show the traceback and the status stopped',
      () => readProgramUi(student),
      (p) => p.state === 'stopped' && /boom at tick 150/.test(p.message ?? ''),
    );
    assert.match(stopped.message, /line \d+/, `the traceback has line numbers: ${stopped.message}`);
    const stepAtStop = (await server.lab('demo')).step;
    await waitUntil("the lab's clock to go on", () => server.lab('demo'), (l) => l.step > stepAtStop + 100);
    await student.locator(byTestId('robot-console')).scrollIntoViewIfNeeded();
    saveArtifact(artifactName('4-traceback.png'), await student.screenshot());

    // Restart: it runs again from the top (and prints again, at later steps).
    const lastStep = Math.max(...stopped.lines.map((l) => l.step));
    await student.locator(byTestId('btn-program-restart')).click();
    await waitUntil(
      'the restarted program to print again',
      () => readProgramUi(student),
      (p) => p.lines.some((l) => l.source === 'print' && l.step > lastStep),
    );
    const api = (await robotReport(server, token)).body;
    assert.ok(['running', 'starting', 'stopped'].includes(api.program.state), JSON.stringify(api.program));
    saveArtifact(artifactName('5-restarted.png'), await student.screenshot());

    // The instructor sees any robot's console: its history arrives with the robot's report.
    const instructor = await openPage('instructor');
    await instructor.locator(`${byTestId('robot-item')}[data-robot="${ROBOT}"]`).click();
    const watched = await waitUntil(
      "the instructor to see the student's console",
      () => readProgramUi(instructor),
      (p) => p.console && p.lines.some((l) => /boom at tick 150/.test(l.text)) && p.lines.some((l) => l.source === 'print'),
    );
    assert.ok(['running', 'starting', 'stopped'].includes(watched.state), watched.headline);
    await instructor.locator(byTestId('robot-console')).scrollIntoViewIfNeeded();
    saveArtifact(artifactName('6-instructor.png'), await instructor.screenshot());

    const unexpected = consoleErrors.filter((text) => !/status of (404|422)/.test(text));
    assert.deepEqual(unexpected, [], 'only the refused upload and the robot not found yet may show in the console');
  }, { allowConsoleErrors: true });
});
