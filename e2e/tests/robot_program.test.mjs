// A student's robot program, from the browser: the student joins by code, opens "Add
// robot" and writes a Python program for the course's diffbot. The first upload has a
// syntax error: it is listed and marked at its line in the program editor, the caret
// jumps there, and nothing is inserted (the API agrees). Fixed, the robot appears, its
// console streams the program's printed lines with advancing steps, and the robot moves.
// Then "Edit program" loads the program back; a version that raises is saved: the
// console shows the traceback and the status says stopped while the lab's clock goes
// on; Restart runs it again and Stop stops it. The instructor sees the same console.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { imageStats } from '../lib/png.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { joinAsStudent, readProgramUi } from '../lib/student.mjs';
import { byTestId } from '../lib/ui.mjs';

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

const robotReport = async (server, token) =>
  server.request('GET', `/api/labs/demo/robots/${ROBOT}`, { token });

test('a student uploads a Python program, fixes its error, watches its console, restarts and stops it', { timeout: 600_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const { page: student, token, consoleErrors } = await joinAsStudent(server, openPage, 'Programmer');

    // The form: the course's diffbot, and a program of our own with a syntax error.
    await student.locator(byTestId('btn-open-robot-upload')).click();
    await student.locator(byTestId('robot-upload')).waitFor();
    await student.locator(byTestId('robot-suffix')).fill(SUFFIX);
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
    saveArtifact(artifactName('1-syntax-error.png'), await student.screenshot());

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
    saveArtifact(artifactName('2-running.png'), runningShot);
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
    saveArtifact(artifactName('3-traceback.png'), await student.screenshot());

    // Restart: it runs again from the top (and prints again, at later steps). The lab
    // is paused and stepped by hand meanwhile, so the program is still well short of
    // its raise when Stop is pressed, however slow the machine.
    const lastStep = Math.max(...stopped.lines.map((l) => l.step));
    const control = (body) => server.request('POST', '/api/labs/demo/control', { token: server.token, body });
    assert.equal((await control({ action: 'pause' })).status, 200);
    await student.locator(byTestId('btn-program-restart')).click();
    await waitUntil('the program to start again', () => readProgramUi(student), (p) => p.state !== 'stopped');
    // Steps go by 20 at a time until it prints: a slow machine takes longer to start it,
    // and a paused lab lets a loaded program join only at a control step it steps.
    await waitUntil(
      'the restarted program to print again',
      async () => {
        const ui = await readProgramUi(student);
        if (!ui.lines.some((l) => l.source === 'print' && l.step > lastStep)) {
          assert.equal((await control({ action: 'step', steps: 20 })).status, 200);
        }
        return ui;
      },
      (p) => p.state === 'running' && p.lines.some((l) => l.source === 'print' && l.step > lastStep),
    );
    saveArtifact(artifactName('4-restarted.png'), await student.screenshot());

    // Stop: the program ends at once (well before it would raise again), and says why.
    await student.locator(byTestId('btn-program-stop')).click();
    const halted = await waitUntil('the program to stop on request', () => readProgramUi(student), (p) => p.state === 'stopped');
    assert.doesNotMatch(halted.message ?? '', /boom/, `stopped by the button, not by raising: ${halted.message}`);
    assert.equal((await robotReport(server, token)).body.program.state, 'stopped');

    // The instructor sees any robot's console: its history arrives with the robot's report.
    const instructor = await openPage('instructor');
    await instructor.locator(`${byTestId('robot-item')}[data-robot="${ROBOT}"]`).click();
    const watched = await waitUntil(
      "the instructor to see the student's console",
      () => readProgramUi(instructor),
      (p) => p.console && p.lines.some((l) => /boom at tick 150/.test(l.text)) && p.lines.some((l) => l.source === 'print'),
    );
    assert.equal(watched.state, 'stopped', watched.headline);
    await instructor.locator(byTestId('robot-console')).scrollIntoViewIfNeeded();
    saveArtifact(artifactName('5-instructor.png'), await instructor.screenshot());

    const unexpected = consoleErrors.filter((text) => !/status of (404|422)/.test(text));
    assert.deepEqual(unexpected, [], 'only the refused upload and the robot not found yet may show in the console');
  }, { allowConsoleErrors: true });
});
