// A student's robot program in C++, from the browser: she opens "Add robot", takes the
// course's diffbot and opens a C++ file written with the RobotAPI's names. The server
// compiles it: the first version has an error, which is listed at its file, line and
// column and marked at its line in the program editor, and nothing is inserted. Fixed,
// the robot appears, the program's `cout` lines stream into its console, and it drives.
// "Edit program" brings the C++ source back, not the module it became.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { joinAsStudent, readProgramUi } from '../lib/student.mjs';
import { byTestId } from '../lib/ui.mjs';

const SUFFIX = 'cpp';
const ROBOT = `diffbot_${SUFFIX}`;

const program = (speed) =>
  [
    '#include <plugins/robot_software_api.h>',
    '',
    'class PLUGIN_EXPORT Cruise : public RobotSoftware {',
    'public:',
    '    Cruise(Robot *r) : RobotSoftware(r) { steps = 0; }',
    '    virtual void preStep() {',
    '        DiffDrive *drive = _robot->getActuatorInstance<DiffDrive>("drive");',
    `        if (drive) drive->setVelocity(${speed}, 0.0);`,
    '        if (++steps % 25 == 0) cout << "cruising, step " << steps << endl;',
    '    }',
    'protected:',
    '    int steps;',
    '};',
    '',
    'ROBOT_SOFTWARE_PLUGIN(Cruise, "Cruise")',
    '',
  ].join('\n');

// Line 8 names a speed that was never declared: a compile error there.
const BROKEN = program('cruise_speed');
const FIXED = program('0.4');

test('a student uploads a C++ program, sees its compile error at its line, fixes it and watches it drive', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const { page: student, token, consoleErrors } = await joinAsStudent(server, openPage, 'Coder');
    await student.locator(byTestId('btn-open-robot-upload')).click();
    await student.locator(byTestId('robot-upload')).waitFor();
    await student.locator(byTestId('robot-suffix')).fill(SUFFIX);
    await student.locator(byTestId('btn-robot-template')).click();
    await student.locator(byTestId('program-file')).setInputFiles({ name: 'cruise.cpp', mimeType: 'text/plain', buffer: Buffer.from(BROKEN) });
    await waitUntil('the C++ file to open', () => readProgramUi(student), (p) => p.program === BROKEN);

    await student.locator(byTestId('btn-upload-robot')).click();
    const refused = await waitUntil('the broken program to be refused', () => readProgramUi(student), (p) => ['rejected', 'failed'].includes(p.outcome));
    assert.equal(refused.outcome, 'rejected', `positioned errors: ${refused.result}`);
    assert.match(refused.errors[0], /^cruise\.cpp:8:\d+: .*cruise_speed/, `the error names cruise.cpp line 8: ${refused.errors}`);
    assert.equal(refused.programErrorLine, '8', 'the program editor marks line 8');
    assert.equal(refused.program, BROKEN, 'a refused upload keeps the program');
    assert.ok(!(await server.lab('demo')).robots.includes(ROBOT), 'nothing was inserted');
    saveArtifact(artifactName('1-compile-error.png'), await student.screenshot());

    await student.locator(byTestId('program-source')).fill(FIXED);
    await student.locator(byTestId('btn-upload-robot')).click();
    const added = await waitUntil('the fixed upload to finish', () => readProgramUi(student), (p) => !['busy', 'rejected'].includes(p.outcome));
    assert.equal(added.outcome, 'inserted', added.result);
    const first = (await server.request('GET', `/api/labs/demo/robots/${ROBOT}`, { token })).body;
    const running = await waitUntil(
      'the console to show the program\'s cout lines',
      () => readProgramUi(student),
      (p) => p.console && p.lines.some((l) => l.source === 'print' && /^cruising, step \d+$/.test(l.text)),
    );
    assert.equal(running.state, 'running', running.headline);
    await waitUntil(
      'the robot to drive',
      async () => (await server.request('GET', `/api/labs/demo/robots/${ROBOT}`, { token })).body,
      (r) => Math.hypot(r.pose.position[0] - first.pose.position[0], r.pose.position[2] - first.pose.position[2]) > 0.05,
    );
    saveArtifact(artifactName('2-driving.png'), await student.screenshot());

    await student.locator(byTestId('btn-edit-program')).click();
    const editing = await waitUntil('the program to load for editing', () => readProgramUi(student), (p) => p.panelTitle === `Program of ${ROBOT}`);
    assert.equal(editing.program, FIXED, 'the editor holds the C++ source');

    const unexpected = consoleErrors.filter((text) => !/status of 422/.test(text));
    assert.deepEqual(unexpected, [], 'only the refused upload may show in the console');
  }, { allowConsoleErrors: true });
});
