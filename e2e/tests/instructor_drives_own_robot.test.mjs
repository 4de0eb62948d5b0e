// Regression: the instructor adds a robot, then drives it with the keyboard. It used to
// fail with "Forbidden: only the owner of 'teacher_bot' drives it with the keyboard"
// while the page offered the keyboard control. Now one permission table decides for the
// server and the page: the instructor owns the robots they add (keys allowed), but does
// not hold the keys of a student's robot (the page does not offer them; the instructor
// still commands its actuators by hand).
//
// The instructor opens the demo lab, opens "Add robot", starts from the "Keyboard
// teleop" example (its program reads the Keyboard sensor `kbd` and sets the DiffDrive
// `drive`) and writes a description of their own at the spot the form picked: a small
// two-wheeled robot named teacher_bot (the example's own description always names its
// robot diffbot_<suffix>). Uploaded, they look at one of the lab's own robots (keyboard
// offered: the lab's robots are the instructor's) and pick theirs in the Robots panel:
// "Drive with keyboard" is offered; holding I shows I in the robot's report (and in the
// API) and the program drives it; letting go shows none. A student joins and adds a robot
// of their own (the student is offered its keys); the instructor picks it: no keyboard
// driving (the toggle, if shown at all, is off and disabled, and a key held on the page
// reaches nothing), but the manual actuator inputs are there and a motor speed typed by
// hand becomes the motor's command. Screenshots of both states go to E2E_ARTIFACTS, and
// neither the 3D view nor the Robots panel may look blank in them.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { imageStats } from '../lib/png.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { joinAsStudent, readProgramUi } from '../lib/student.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

const TEACHER_ROBOT = 'teacher_bot';
const EXAMPLE = 'teleop';
const LAB_ROBOT = 'rover_red';
const STUDENT = 'Ana';
const STUDENT_SUFFIX = 'ana';
const STUDENT_ROBOT = `diffbot_${STUDENT_SUFFIX}`;

/**
 * The instructor's own robot at (x, z), facing +X: the course diffbot's shape (a deck on
 * two motored wheels and a ball caster) with a GPS, a keyboard and a DiffDrive, under a
 * name of its own.
 */
const teacherRobot = (x, z) => `// My own robot for today's demo: two wheels, a caster, a keyboard to drive it.
num x = ${x}; num z = ${z};
robot ${TEACHER_ROBOT} {
  body {
    Keyboard kbd;
    ${TEACHER_ROBOT}_deck {
      shape box(0.2, 0.04, 0.16); pos(x - 0.04, 0.05, z); material "Orange"; density 700;
      SimpleGPS gps;
    }
    ${TEACHER_ROBOT}_wheel_l { shape cylinder(0.03, 0.02); pos(x, 0.03, z - 0.1); material "Rubber"; density 1200; }
    ${TEACHER_ROBOT}_wheel_r { shape cylinder(0.03, 0.02); pos(x, 0.03, z + 0.1); material "Rubber"; density 1200; }
    JointHinge(${TEACHER_ROBOT}_deck, ${TEACHER_ROBOT}_wheel_l) {
      anchor(x, 0.03, z - 0.1); axis(0, 0, -1); SimpleMotor m_l { max_force 0.03; }
    }
    JointHinge(${TEACHER_ROBOT}_deck, ${TEACHER_ROBOT}_wheel_r) {
      anchor(x, 0.03, z + 0.1); axis(0, 0, -1); SimpleMotor m_r { max_force 0.03; }
    }
    ${TEACHER_ROBOT}_caster { shape sphere(0.013); pos(x - 0.11, 0.013, z); material "Steel"; density 7800; }
    JointBall(${TEACHER_ROBOT}_deck, ${TEACHER_ROBOT}_caster) { anchor(x - 0.11, 0.013, z); }
    DiffDrive drive { left "m_l"; right "m_r"; }
  }
}
`;

/** What the Robots panel shows now. */
async function readPanel(page) {
  return page.evaluate(() => {
    const q = (id, root = document) => root.querySelector(`[data-testid="${id}"]`);
    const all = (id, root = document) => [...root.querySelectorAll(`[data-testid="${id}"]`)];
    const text = (element) => element?.textContent?.trim() ?? null;
    const report = q('robot-report');
    const toggle = q('btn-drive-keys');
    return {
      robots: all('robot-item').map((item) => item.getAttribute('data-robot')),
      picked: all('robot-item').filter((item) => item.getAttribute('aria-pressed') === 'true').map((item) => item.getAttribute('data-robot')),
      robot: report?.getAttribute('data-robot') ?? null,
      time: report && report.getAttribute('data-time') !== '' ? Number(report.getAttribute('data-time')) : null,
      owner: text(q('robot-owner')),
      keys: text(q('robot-keys')),
      // The keyboard toggle: null when the page has none at all.
      drive: toggle && {
        text: text(toggle),
        disabled: toggle.disabled,
        pressed: toggle.getAttribute('aria-pressed'),
        visible: toggle.getClientRects().length > 0 && getComputedStyle(toggle).visibility !== 'hidden',
      },
      heldOnPage: text(q('held-keys')),
      actuators: all('actuator-row').map((row) => ({
        name: row.getAttribute('data-actuator'),
        command: text(q('actuator-command', row)),
        inputs: all('actuator-input', row).length,
        setButtons: all('btn-set-actuator', row).length,
        error: text(q('actuator-error', row)),
      })),
    };
  });
}

/** `GET /api/labs/demo/robots/{robot}`: the robot's report. */
async function robotReport(server, robot) {
  const response = await server.request('GET', `/api/labs/demo/robots/${encodeURIComponent(robot)}`, { token: server.token });
  assert.equal(response.status, 200, `GET robot ${robot}: ${JSON.stringify(response.body)}`);
  return response.body;
}

/** Picks `robot` in the page's Robots panel (a click on the picked one would let it go). */
async function pick(page, robot) {
  const item = page.locator(`${byTestId('robot-item')}[data-robot="${robot}"]`);
  await item.click();
  await waitUntil(`${robot} to be picked in the Robots panel`, () => readPanel(page), (p) => p.picked.join() === robot);
}

/** Whether the keyboard toggle may be used on the robot now picked. */
const driveOffered = (panel) => panel.drive !== null && panel.drive.visible && !panel.drive.disabled;
const actuator = (panel, name) => panel.actuators.find((a) => a.name === name);

/**
 * Saves a screenshot of the whole page and of its 3D canvas and Robots panel, and fails
 * when either of those looks blank. Returns the page screenshot's path.
 */
async function shootAndCheck(page, name, artifactName, t) {
  const file = saveArtifact(artifactName(name), await page.screenshot());
  const whole = imageStats(await page.screenshot());
  const canvas = imageStats(await page.locator(byTestId('lab-canvas')).screenshot());
  const panel = imageStats(await page.locator(byTestId('robot-panel')).screenshot());
  t.diagnostic(`${file}: page ${JSON.stringify(whole)}; canvas ${JSON.stringify(canvas)}; panel ${JSON.stringify(panel)}`);
  assert.ok(whole.distinctColours > 200 && whole.dominantShare < 0.6, `the page looks blank (${file}): ${JSON.stringify(whole)}`);
  // As page_loads_and_draws judges the canvas: the demo's black sky fills much of it.
  assert.ok(canvas.distinctColours >= 64 && canvas.lumaStdDev >= 8 && canvas.dominantShare <= 0.9, `the 3D view looks blank (${file}): ${JSON.stringify(canvas)}`);
  assert.ok(panel.distinctColours >= 32 && panel.lumaStdDev >= 8, `the Robots panel looks empty (${file}): ${JSON.stringify(panel)}`);
  return file;
}

test("the instructor drives the robot they added with the keyboard, not a student's", { timeout: 600_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const instructor = await openPage('instructor');
    await waitUntil('the instructor page to draw the lab', () => readUi(instructor), (u) => u.role === 'instructor' && u.bodies > 0 && u.framesDrawn > 0);

    // "Add robot": the keyboard teleop example, with a description of the teacher's own.
    await instructor.locator(byTestId('btn-open-robot-upload')).click();
    await instructor.locator(byTestId('robot-upload')).waitFor();
    const listed = await waitUntil('the example robots to be listed', () => readProgramUi(instructor), (p) => p.examples.length > 1);
    assert.ok(listed.examples.includes(EXAMPLE), `the picker offers the keyboard teleop example: ${listed.examples}`);
    await instructor.locator(byTestId('robot-example')).selectOption(EXAMPLE);
    const picked = await waitUntil(
      'the example to fill the description and the program',
      () => readProgramUi(instructor),
      (p) => /robot\.sensor\("kbd"\)/.test(p.program ?? '') && /call diffbot\(/.test(p.description ?? ''),
    );
    // The example leaves its start to the lab; so does the teacher's own description.
    assert.match(picked.description, /call diffbot\("[^"]*", \{x\}, \{z\}, 0\);/, 'the lab chooses where it starts');
    await instructor.locator(byTestId('scene-source')).fill(teacherRobot('{x}', '{z}'));
    await instructor.locator(byTestId('btn-upload-robot')).click();
    const added = await waitUntil('the upload to finish', () => readProgramUi(instructor), (p) => !['busy', 'none', null].includes(p.outcome));
    assert.equal(added.outcome, 'inserted', `${TEACHER_ROBOT} was not added: ${added.result}\n${added.errors.join('\n')}`);
    assert.ok((await server.lab('demo')).robots.includes(TEACHER_ROBOT), 'the server has the robot');
    await instructor.locator(byTestId('btn-close-robot-upload')).click();

    // The upload picked the new robot; the instructor looks at one of the lab's own robots
    // (theirs to drive too), then picks theirs again in the Robots panel.
    await waitUntil(`the Robots panel to list ${TEACHER_ROBOT}`, () => readPanel(instructor), (p) => p.robots.includes(TEACHER_ROBOT));
    await pick(instructor, LAB_ROBOT);
    const labs = await waitUntil(`the panel to show ${LAB_ROBOT}'s report`, () => readPanel(instructor), (p) => p.robot === LAB_ROBOT && p.drive !== null);
    assert.equal(labs.owner, "the lab's robot");
    assert.ok(driveOffered(labs), `the instructor may drive the lab's own robot with the keyboard: ${JSON.stringify(labs.drive)}`);
    await pick(instructor, TEACHER_ROBOT);
    const own = await waitUntil(
      `the panel to show ${TEACHER_ROBOT}'s report`,
      () => readPanel(instructor),
      (p) => p.robot === TEACHER_ROBOT && p.keys !== null && p.keys !== '' && p.actuators.length > 0,
    );
    assert.deepEqual(own.picked, [TEACHER_ROBOT]);
    assert.equal(own.keys, 'none', 'no key is held yet');
    assert.ok(own.drive !== null, `the instructor is shown no keyboard control for ${TEACHER_ROBOT}`);
    assert.ok(driveOffered(own), `"Drive with keyboard" is not usable for the instructor's own robot: ${JSON.stringify(own.drive)}`);
    assert.match(own.drive.text, /Drive with keyboard/);
    assert.equal(own.drive.pressed, 'false');
    t.diagnostic(`${TEACHER_ROBOT}: ${own.owner}`);

    // Hold I: the robot's report shows it, the API agrees, and the teleop program drives.
    const start = (await robotReport(server, TEACHER_ROBOT)).pose.position;
    await instructor.locator(byTestId('btn-drive-keys')).click();
    await waitUntil('the toggle to be on', () => readPanel(instructor), (p) => p.drive?.pressed === 'true');
    await instructor.keyboard.down('i');
    const holding = await waitUntil('the report to show I held', () => readPanel(instructor), (p) => p.keys === 'I');
    assert.equal(holding.heldOnPage, 'I', 'the toggle shows the key held');
    assert.deepEqual((await robotReport(server, TEACHER_ROBOT)).keys, ['I'], 'the API reports I held');
    await waitUntil(
      'the teleop program to drive the robot while I is held',
      () => robotReport(server, TEACHER_ROBOT),
      (r) => Math.hypot(r.pose.position[0] - start[0], r.pose.position[2] - start[2]) > 0.05,
    );
    assert.equal((await readUi(instructor)).banner, null, 'no refusal is shown');
    // The camera follows it, for the screenshot to show the robot itself.
    await instructor.locator(byTestId('btn-follow-robot')).click();
    await waitUntil('the camera to follow the robot', () => instructor.locator(byTestId('lab-canvas')).getAttribute('data-follow'), (f) => f === TEACHER_ROBOT);
    await waitUntil('the instructor page to draw frames', () => readUi(instructor), (u) => u.framesDrawn > 2);
    const ownShot = await shootAndCheck(instructor, '1-own-robot-key-held.png', artifactName, t);
    t.diagnostic(`the instructor holding I for ${TEACHER_ROBOT}: ${ownShot}`);

    await instructor.keyboard.up('i');
    await waitUntil('the report to show no key held', () => readPanel(instructor), (p) => p.keys === 'none');
    assert.deepEqual((await robotReport(server, TEACHER_ROBOT)).keys, [], 'the API reports no key held');

    // A student joins and adds a robot of their own.
    const { page: student } = await joinAsStudent(server, openPage, STUDENT);
    await student.locator(byTestId('btn-open-robot-upload')).click();
    await student.locator(byTestId('robot-upload')).waitFor();
    await student.locator(byTestId('robot-suffix')).fill(STUDENT_SUFFIX);
    await student.locator(byTestId('btn-robot-template')).click();
    await student.locator(byTestId('btn-upload-robot')).click();
    const uploaded = await waitUntil('the student\'s upload to finish', () => readProgramUi(student), (p) => !['busy', 'none', null].includes(p.outcome));
    assert.equal(uploaded.outcome, 'inserted', `the student's robot was not added: ${uploaded.result}`);
    // The template leaves the start to the lab, which keeps it clear of where the
    // teacher's robot is and of where it started (a reset would stack them), and says so.
    assert.match(uploaded.note ?? '', /starts at x [0-9.]+, z [0-9.]+, a free spot the lab chose/);
    const studentStart = (await robotReport(server, STUDENT_ROBOT)).pose.position;
    assert.ok(
      Math.hypot(studentStart[0] - start[0], studentStart[2] - start[2]) > 0.75,
      `the student's robot starts clear of where the teacher's started: ${studentStart} vs ${start}`,
    );
    assert.ok((await server.lab('demo')).robots.includes(STUDENT_ROBOT), 'the server has the student\'s robot');
    const studentSees = await waitUntil(
      'the student page to offer the keys of their own robot',
      () => readPanel(student),
      (p) => p.robot === STUDENT_ROBOT && p.drive !== null,
    );
    assert.ok(driveOffered(studentSees), `the student may drive their own robot: ${JSON.stringify(studentSees.drive)}`);

    // The instructor picks the student's robot while the toggle is still on: driving stops,
    // and the keyboard control is not offered; the manual actuator inputs are.
    await waitUntil(`the instructor's panel to list ${STUDENT_ROBOT}`, () => readPanel(instructor), (p) => p.robots.includes(STUDENT_ROBOT));
    await pick(instructor, STUDENT_ROBOT);
    const theirs = await waitUntil(
      `the instructor's panel to show ${STUDENT_ROBOT}'s report with its actuators`,
      () => readPanel(instructor),
      (p) => p.robot === STUDENT_ROBOT && p.keys !== null && p.keys !== '' && actuator(p, 'm_l') !== undefined,
    );
    assert.deepEqual(theirs.picked, [STUDENT_ROBOT]);
    assert.equal(theirs.owner, `owner: ${STUDENT}`);
    assert.ok(!driveOffered(theirs), `the instructor is offered the keyboard for the student's robot: ${JSON.stringify(theirs.drive)}`);
    assert.notEqual(theirs.drive?.pressed, 'true', 'driving stopped when the student\'s robot was picked');
    assert.ok(!theirs.heldOnPage, `the toggle shows no held keys: ${theirs.heldOnPage}`);
    for (const { name, inputs, setButtons } of theirs.actuators) {
      assert.ok(inputs > 0 && setButtons === 1, `the instructor gets the manual inputs of ${name}: ${JSON.stringify(theirs.actuators)}`);
    }
    if (theirs.drive !== null) {
      // It is there but disabled: clicking it does not start driving.
      await instructor.locator(byTestId('btn-drive-keys')).click({ force: true });
      assert.equal((await readPanel(instructor)).drive.pressed, 'false', 'a click on the disabled toggle starts nothing');
    }

    // A key held on the instructor's page reaches nothing: later reports still say none.
    await instructor.keyboard.down('i');
    const heldTime = (await readPanel(instructor)).time;
    const afterKey = await waitUntil(
      'reports of the student\'s robot from a while after the key went down',
      () => readPanel(instructor),
      (p) => p.robot === STUDENT_ROBOT && p.time > heldTime + 0.5,
    );
    assert.equal(afterKey.keys, 'none', 'the student\'s robot reads no key held by the instructor');
    assert.deepEqual((await robotReport(server, STUDENT_ROBOT)).keys, [], 'the API reports no key held');
    await instructor.keyboard.up('i');

    // The instructor still drives it by hand: a motor speed becomes the motor's command.
    const motorRow = instructor.locator(`${byTestId('actuator-row')}[data-actuator="m_l"]`);
    await motorRow.locator(byTestId('actuator-input')).fill('1.5');
    await motorRow.locator(byTestId('btn-set-actuator')).click();
    const commanded = await waitUntil(
      'the student\'s motor to read speed 1.500',
      () => readPanel(instructor),
      (p) => actuator(p, 'm_l')?.command === 'speed 1.500' || actuator(p, 'm_l')?.error,
    );
    assert.equal(actuator(commanded, 'm_l').error, null, `the manual command was refused: ${actuator(commanded, 'm_l').error}`);
    assert.deepEqual((await robotReport(server, STUDENT_ROBOT)).actuators.find((a) => a.name === 'm_l').command, { speed: 1.5 });
    assert.equal((await readUi(instructor)).banner, null, 'no refusal is shown');

    // Two views of the panel: its top (the owner, the keyboard toggle), then the actuators.
    await instructor.locator(byTestId('robot-panel')).evaluate((panel) => {
      panel.scrollTop = 0;
    });
    const topShot = await shootAndCheck(instructor, '2-student-robot-no-keys.png', artifactName, t);
    t.diagnostic(`the instructor on ${STUDENT_ROBOT}, no keyboard driving: ${topShot}`);
    await motorRow.scrollIntoViewIfNeeded();
    const inputsShot = await shootAndCheck(instructor, '3-student-robot-manual-inputs.png', artifactName, t);
    t.diagnostic(`the instructor on ${STUDENT_ROBOT}, manual inputs: ${inputsShot}`);
  });
});
