// A program that needs more CPU per control step than its share, from the browser: a
// student joins by code and uploads, through the Add-robot form, a program for the
// course's diffbot that burns about 45 ms of CPU at every 21 ms control step of a lab
// running in real time at 1×. The student's page marks it late, beside the robot in the
// Robots panel and in its console's status ("late: N ms of CPU per M ms step"), the
// console says why, the API agrees (its CPU per step is over its share, and it still
// runs), and the lab's clock goes on without waiting for it. Then the instructor's
// "Programs" setting switches the lab to lockstep and back to real time, and the API
// follows each choice.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { imageStats } from '../lib/png.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { joinAsStudent, readProgramUi } from '../lib/student.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

const SUFFIX = 'hog';
const ROBOT = `diffbot_${SUFFIX}`;
const BADGE = /^late: \d+ ms of CPU per \d+ ms step$/;

// About 45 ms of the program's own CPU per control step, measured by its CPU clock
// (`time.process_time()` stays the machine's in a lab): twice its 21 ms share, and half
// the 84 ms past which a program is stopped, however fast or busy the machine is.
const HEAVY = [
  'import time',
  'from vlab import Robot',
  '',
  'robot = Robot()',
  'while robot.step():',
  '    start = time.process_time()',
  '    while time.process_time() - start < 0.045:',
  '        pass',
  '',
].join('\n');

const robotReport = async (server, token) =>
  server.request('GET', `/api/labs/demo/robots/${ROBOT}`, { token });

/** The late badges a page shows now: in the Robots panel (by robot) and in the console. */
async function readLate(page) {
  return page.evaluate(() => {
    const all = (id) => [...document.querySelectorAll(`[data-testid="${id}"]`)];
    const inStatus = document.querySelector('[data-testid="program-late"]');
    return {
      inList: all('robot-late').map((badge) => ({
        robot: badge.getAttribute('data-robot'),
        text: badge.textContent.trim(),
        title: badge.getAttribute('title'),
      })),
      inConsole: inStatus ? { text: inStatus.textContent.trim(), title: inStatus.getAttribute('title') } : null,
      picked: all('robot-item').filter((item) => item.getAttribute('aria-pressed') === 'true').map((item) => item.getAttribute('data-robot')),
    };
  });
}

/** The instructor's "Programs" choice: its options and the one selected. */
async function readSyncSelect(page) {
  return page.locator(byTestId('sync-mode')).evaluate((select) => ({
    label: document.querySelector(`label[for="${select.id}"]`)?.textContent?.trim() ?? null,
    options: [...select.options].map((o) => ({ value: o.value, text: o.textContent.trim() })),
    value: select.value,
  }));
}

const sync = async (server) => (await server.request('GET', '/api/labs/demo', { token: server.token })).body.settings.sync;

test('a program over its CPU share is marked late while the lab steps on, and the instructor switches programs to lockstep and back', { timeout: 600_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    // The lab runs in real time at 1×.
    const start = await server.lab('demo');
    if (start.mode !== 'running') {
      const resumed = await server.control({ action: 'resume' });
      assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    }
    if (start.rate !== 1) {
      const rated = await server.control({ action: 'rate', rate: 1 });
      assert.equal(rated.status, 200, JSON.stringify(rated.body));
    }
    const lab = await waitUntil('the lab to run at 1×', () => server.lab('demo'), (l) => l.mode === 'running' && l.rate === 1);
    assert.equal(await sync(server), 'realtime', 'a lab starts in real time');

    // The student uploads the heavy program through the Add-robot form.
    const { page: student, token } = await joinAsStudent(server, openPage, 'Hog');
    await student.locator(byTestId('btn-open-robot-upload')).click();
    await student.locator(byTestId('robot-upload')).waitFor();
    await student.locator(byTestId('robot-suffix')).fill(SUFFIX);
    await student.locator(byTestId('btn-robot-template')).click();
    const template = await readProgramUi(student);
    assert.match(template.description, new RegExp(`call diffbot\\("_${SUFFIX}"`), template.description);
    await student.locator(byTestId('program-source')).fill(HEAVY);
    await student.locator(byTestId('btn-upload-robot')).click();
    const added = await waitUntil('the upload to finish', () => readProgramUi(student), (p) => !['busy', 'none', null].includes(p.outcome));
    assert.equal(added.outcome, 'inserted', added.result);
    assert.ok((await server.lab('demo')).robots.includes(ROBOT), 'the server has the robot');

    // The upload picks the robot. (Clicking it is no fallback: a click on the picked
    // robot unpicks it, and the page may not show the upload's pick yet.)
    await waitUntil('the upload to pick its robot', () => readLate(student), (l) => l.picked.includes(ROBOT));

    // The page marks it late, in the Robots panel and in the console's status. The
    // meter smooths over the last answers: it turns late as its figure passes the
    // share (a first badge may read "21 ms per 21 ms step"), then climbs to the
    // program's 45 ms.
    const overShare = (text) => {
      const [cpu, share] = text.match(/\d+/g).map(Number);
      return cpu > share;
    };
    const marked = await waitUntil(
      `the student page to mark ${ROBOT} late in the Robots panel and in its console`,
      () => readLate(student),
      (l) => l.inConsole !== null && BADGE.test(l.inConsole.text) && overShare(l.inConsole.text)
        && l.inList.some((b) => b.robot === ROBOT && BADGE.test(b.text)),
    );
    assert.deepEqual(marked.picked, [ROBOT], 'the late robot is the picked one');
    assert.deepEqual(marked.inList.map((b) => b.robot), [ROBOT], 'only the picked robot carries the badge');
    assert.match(marked.inConsole.title ?? '', /CPU per control step/, `the badge explains itself: ${marked.inConsole.title}`);
    const [cpuShown, shareShown] = marked.inConsole.text.match(/\d+/g).map(Number);
    assert.ok(cpuShown > shareShown, `the badge shows more CPU than the share: ${marked.inConsole.text}`);

    // Its console says so too, and the program still runs (late, not stopped).
    const told = await waitUntil(
      'the console to say the program is late',
      () => readProgramUi(student),
      (p) => p.console && p.lines.some((l) => /^late: \d+ ms of CPU per \d+ ms step/.test(l.text)),
    );
    assert.equal(told.state, 'running', `late, not stopped: ${told.headline}\n${told.message ?? ''}`);

    // The API agrees.
    const report = await waitUntil(
      'the API to report the program late',
      async () => (await robotReport(server, token)).body,
      (r) => r?.program?.late != null,
    );
    assert.equal(report.program.state, 'running', JSON.stringify(report.program));
    assert.ok(
      report.program.late.cpu_ms > report.program.late.share_ms,
      `its CPU per step is over its share: ${JSON.stringify(report.program.late)}`,
    );

    // A real-time lab never waits for it: the clock goes on, on the server and on the page.
    const stepNow = (await server.lab('demo')).step;
    assert.ok(stepNow > lab.step, `the lab stepped while the program ran: ${lab.step} → ${stepNow}`);
    await waitUntil("the lab's clock to go on", () => server.lab('demo'), (l) => l.step > stepNow + 100);
    await waitUntil('the student page to show the clock going on', () => readUi(student), (u) => u.step > stepNow);

    await student.locator(byTestId('robot-console')).scrollIntoViewIfNeeded();
    const lateShot = await student.screenshot();
    const lateFile = saveArtifact(artifactName('1-student-late.png'), lateShot);
    const stats = imageStats(lateShot);
    t.diagnostic(`student page ${lateFile}: ${JSON.stringify(stats)}`);
    assert.ok(stats.distinctColours > 200 && stats.dominantShare < 0.6, `the page looks blank: ${JSON.stringify(stats)}`);

    // The instructor's "Programs" setting: lockstep, then real time again.
    const instructor = await openPage('instructor');
    await waitUntil('the instructor role', () => readUi(instructor), (u) => u.role === 'instructor');
    const select = instructor.locator(byTestId('sync-mode'));
    await select.waitFor();
    const offered = await waitUntil('the setting to show the lab in real time', () => readSyncSelect(instructor), (s) => s.value === 'realtime');
    assert.equal(offered.label, 'Programs');
    assert.deepEqual(offered.options.map((o) => o.value), ['realtime', 'lockstep'], JSON.stringify(offered.options));

    await select.selectOption('lockstep');
    await waitUntil('the API to say lockstep', () => sync(server), (mode) => mode === 'lockstep');
    const locked = await waitUntil('the setting to stay on lockstep', () => readSyncSelect(instructor), (s) => s.value === 'lockstep');
    assert.equal(locked.value, 'lockstep');
    const hint = await instructor.locator(byTestId('sync-mode-hint')).textContent();
    assert.match(hint, /^The lab waits for every program/, 'the choice is explained under it');
    // Every option's words fit the select's box beside its arrow (about 28 px).
    const widths = await select.evaluate((element) => {
      const style = getComputedStyle(element);
      const context = document.createElement('canvas').getContext('2d');
      context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      return { box: element.clientWidth, texts: [...element.options].map((o) => context.measureText(o.text).width) };
    });
    assert.ok(widths.texts.every((width) => width + 28 <= widths.box), `every option is shown whole: ${JSON.stringify(widths)}`);
    await select.scrollIntoViewIfNeeded();
    saveArtifact(artifactName('2-instructor-lockstep.png'), await instructor.locator(byTestId('instructor-tools')).screenshot());

    await select.selectOption('realtime');
    await waitUntil('the API to say realtime', () => sync(server), (mode) => mode === 'realtime');
    await waitUntil('the setting to show real time', () => readSyncSelect(instructor), (s) => s.value === 'realtime');
    saveArtifact(artifactName('3-instructor-realtime.png'), await instructor.locator(byTestId('instructor-tools')).screenshot());
    saveArtifact(artifactName('4-instructor-page.png'), await instructor.screenshot());

    // Back in real time the lab goes on with the late program still running.
    const stepBack = (await server.lab('demo')).step;
    await waitUntil("the lab's clock to go on in real time", () => server.lab('demo'), (l) => l.mode === 'running' && l.step > stepBack + 100);
    assert.equal((await robotReport(server, token)).body.program.state, 'running');
  });
});
