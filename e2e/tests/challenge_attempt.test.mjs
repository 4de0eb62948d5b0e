// A student at the park challenge, from the browser: the instructor's lab is made from
// the library's `challenges/park.vlab`, whose green bay is drawn see-through in the
// view. The student joins by code, adds the course's diffbot with the reference solution
// (`scenes/challenges/park.py`, its `drive_to.py` helper pasted in, as a student would
// in the one-file program editor), presses "Try it" and follows her attempt live in the
// Challenge panel until it is solved with a score. She watches its replay in the 3D view
// (its time plays on, an event jumps to its moment, the picture shows the attempt's
// world), goes back to the lab, and finds her row on the board: one attempt, solved. The
// instructor's board shows her row with her name, and trying the scene's own robot,
// which has no program, is refused in the panel with the server's reason; when she shows
// every row, the student's board says so at once. Last, the instructor starts a live
// run: its table lists the robots, and Stop ends it.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { saveArtifact, waitForConnected, withLab } from '../lib/harness.mjs';
import { countPixels, imageStats } from '../lib/png.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { readProgramUi } from '../lib/student.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

const CHALLENGES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'scenes', 'challenges');
const SUFFIX = 'park';
const ROBOT = `diffbot_${SUFFIX}`;
const STUDENT = 'Parker';

/** park.py with the module it imports pasted in its place: one file for the editor. */
function parkProgram() {
  const read = (file) => readFileSync(path.join(CHALLENGES, file), 'utf8');
  const program = read('park.py');
  const importLine = /^from drive_to import .*$/m;
  assert.match(program, importLine, 'park.py imports its helper');
  return program.replace(importLine, read('drive_to.py'));
}

/** What the Challenge panel and the replay bar show now. */
async function readChallenge(page) {
  return page.evaluate(() => {
    const q = (id) => document.querySelector(`[data-testid="${id}"]`);
    const all = (id) => [...document.querySelectorAll(`[data-testid="${id}"]`)];
    const replay = q('attempt-replay');
    return {
      panel: q('challenge-panel') !== null,
      title: q('challenge-title')?.textContent?.trim() ?? null,
      error: q('challenge-error')?.textContent?.trim() ?? null,
      tryButtons: all('btn-attempt').map((b) => b.getAttribute('data-robot')),
      attempts: all('attempt-item').map((a) => ({
        id: a.getAttribute('data-attempt'),
        status: a.getAttribute('data-status'),
        score: a.getAttribute('data-score'),
        text: a.textContent.trim(),
      })),
      rows: all('board-row').map((r) => ({
        name: r.getAttribute('data-name'),
        you: r.getAttribute('data-you') === 'true',
        attempts: Number(r.getAttribute('data-attempts')),
        solved: r.getAttribute('data-solved') === 'true',
        best: r.querySelector('[data-testid="board-best"]')?.textContent?.trim() ?? null,
      })),
      replay: replay && {
        time: Number(replay.getAttribute('data-time')),
        duration: Number(replay.getAttribute('data-duration')),
        playing: replay.getAttribute('data-playing') === 'true',
        readout: q('attempt-replay-time')?.textContent?.trim() ?? null,
        events: all('replay-event').map((e) => ({ time: Number(e.getAttribute('data-time')), text: e.textContent.trim() })),
      },
      timeline: q('timeline') !== null,
      boardNote: q('board-note')?.textContent?.trim() ?? null,
      liveRun: q('live-run') && {
        over: q('live-run').getAttribute('data-over') === 'true',
        robots: all('live-robot').map((r) => ({ robot: r.getAttribute('data-robot'), status: r.getAttribute('data-status') })),
      },
      zones: Number(q('lab-canvas')?.getAttribute('data-zones') ?? 'NaN'),
    };
  });
}

/** Joins `lab` by its code from the front page as `name`; the student's lab page. */
async function joinLab(server, openPage, lab, code, name) {
  const page = await openPage('viewer', { name: 'student', url: `${server.baseUrl}/`, waitConnected: false });
  await page.locator(byTestId('join-code')).fill(code);
  await page.locator(byTestId('join-name')).fill(name);
  await page.locator(byTestId('btn-join')).click();
  await page.waitForURL(new RegExp(`[?&]lab=${lab}`));
  await waitForConnected(page, 'the student page');
  await waitUntil('the student role', () => readUi(page), (u) => u.role === 'student' && u.bodies > 0);
  return page;
}

test('a student tries her robot at the park challenge, watches the replay and finds her row on the board', { timeout: 600_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const created = await server.request('POST', '/api/labs', {
      token: server.token,
      body: { name: 'Parking', scene: 'challenges/park.vlab' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { id: lab, join_code: code, instructor_path: instructorPath } = created.body;

    const student = await joinLab(server, openPage, lab, code, STUDENT);
    const panel = await waitUntil('the Challenge panel with the bay drawn', () => readChallenge(student), (c) => c.panel && c.title !== 'Challenge' && c.zones === 1);
    assert.equal(panel.title, 'Park in the green bay');
    assert.deepEqual(panel.tryButtons, [], 'nothing of her own to try yet');

    // Her robot: the course's diffbot, where the lab puts it, with the reference solution.
    await student.locator(byTestId('btn-open-robot-upload')).click();
    await student.locator(byTestId('robot-upload')).waitFor();
    await student.locator(byTestId('robot-suffix')).fill(SUFFIX);
    await student.locator(byTestId('btn-robot-template')).click();
    await student.locator(byTestId('program-source')).fill(parkProgram());
    await student.locator(byTestId('btn-upload-robot')).click();
    const added = await waitUntil('the upload to finish', () => readProgramUi(student), (p) => !['busy', 'none', null].includes(p.outcome));
    assert.equal(added.outcome, 'inserted', added.result);
    // Done with the form: the class panel, which holds the Challenge panel, has its room again.
    if ((await student.locator(byTestId('robot-upload')).count()) > 0) {
      await student.locator(byTestId('btn-close-robot-upload')).click();
    }

    // Try it: the attempt is followed live until it is solved with its time.
    await waitUntil('"Try it" for her robot', () => readChallenge(student), (c) => c.tryButtons.includes(ROBOT));
    await student.locator(`${byTestId('btn-attempt')}[data-robot="${ROBOT}"]`).click();
    const started = await waitUntil('the attempt in her list', () => readChallenge(student), (c) => c.attempts.length === 1 || c.error !== null);
    assert.equal(started.error, null, 'the attempt is accepted');
    const solved = await waitUntil(
      'the attempt to end',
      () => readChallenge(student),
      (c) => c.attempts.length === 1 && !['queued', 'running'].includes(c.attempts[0].status),
    );
    const attempt = solved.attempts[0];
    assert.equal(attempt.status, 'solved', `the reference solution parks: ${attempt.text}`);
    const score = Number(attempt.score);
    assert.ok(score > 0 && score < 60, `a time within the limit: ${attempt.text}`);
    assert.match(attempt.text, /solved · \d+\.\d\d s · \d+\.\d s simulated · seed \d+/, attempt.text);
    saveArtifact(artifactName('1-solved.png'), await student.screenshot());

    // Its replay, in the 3D view instead of the live lab: it plays, an event seeks.
    const liveBodies = (await readUi(student)).bodies;
    await student.locator(`${byTestId('btn-watch-replay')}[data-attempt="${attempt.id}"]`).click();
    const opened = await waitUntil('the replay to show', () => readChallenge(student), (c) => c.replay !== null && c.replay.duration > 0);
    const attemptBodies = (await readUi(student)).bodies;
    assert.ok(attemptBodies < liveBodies, `her robot alone, without the lab's own: ${attemptBodies} bodies, the lab ${liveBodies}`);
    assert.ok(Math.abs(opened.replay.duration - score) < 0.5, `the replay lasts the attempt: ${opened.replay.duration} s for ${score} s`);
    assert.ok(!opened.timeline, "the lab's timeline gives way to the replay's bar");
    assert.equal(opened.zones, 1, 'the bay is drawn in the attempt too');
    const moved = await waitUntil('the replay to play on', () => readChallenge(student), (c) => c.replay?.time > 1);
    assert.match(moved.replay.readout, /^\d+\.\d s \/ \d+\.\d s$/, moved.replay.readout);
    assert.ok(moved.replay.events.length > 0, 'what happened is listed');
    await waitUntil('frames of the replay to be drawn', () => readUi(student), (u) => u.framesDrawn > 2);
    const shot = await student.locator(byTestId('lab-canvas')).screenshot();
    saveArtifact(artifactName('2-replay-view.png'), shot);
    const stats = imageStats(shot);
    assert.ok(stats.distinctColours > 100 && stats.dominantShare < 0.8, `the replay shows a world, not a blank view: ${JSON.stringify(stats)}`);
    const last = moved.replay.events.at(-1);
    await student.locator(byTestId('replay-event')).last().click();
    const sought = await waitUntil('the replay at the last event', () => readChallenge(student), (c) => c.replay && !c.replay.playing && Math.abs(c.replay.time - last.time) < 0.05);
    t.diagnostic(`events: ${JSON.stringify(sought.replay.events)}`);
    saveArtifact(artifactName('3-replay-event.png'), await student.screenshot());
    // From above, the bay is a green square: nothing else in this room is green.
    const drawnBefore = (await readUi(student)).framesDrawn;
    await student.locator(byTestId('btn-top-view')).click();
    await waitUntil('frames from above', () => readUi(student), (u) => u.framesDrawn > drawnBefore + 1);
    const above = await student.locator(byTestId('lab-canvas')).screenshot();
    saveArtifact(artifactName('3-replay-from-above.png'), above);
    const bay = countPixels(above, (r, g, b) => g > r + 25 && g > b + 20);
    t.diagnostic(`the bay's pixels from above: ${bay}`);
    assert.ok(bay > 500, `the bay is drawn, see-through green: ${bay} green pixels`);

    // Back to the lab: the live scene again, and her row on the board.
    await student.locator(byTestId('btn-back-to-lab')).click();
    await waitUntil('the replay bar to go', () => readChallenge(student), (c) => c.replay === null);
    await waitUntil('the live lab again', () => readUi(student), (u) => u.bodies === liveBodies);
    assert.equal((await readChallenge(student)).zones, 1, 'the live lab with its bay');
    const mine = await waitUntil('her row on the board', () => readChallenge(student), (c) => c.rows.some((r) => r.you));
    const row = mine.rows.find((r) => r.you);
    assert.deepEqual({ attempts: row.attempts, solved: row.solved }, { attempts: 1, solved: true }, JSON.stringify(row));
    assert.match(row.best, /^\d+\.\d\d s$/, `the best score with its unit: ${row.best}`);
    saveArtifact(artifactName('4-board.png'), await student.screenshot());

    // The instructor's board names her.
    const instructor = await openPage('instructor', { url: `${server.baseUrl}${instructorPath}` });
    const seen = await waitUntil("the student's row on the instructor's board", () => readChallenge(instructor), (c) => c.rows.some((r) => r.name === STUDENT));
    const theirs = seen.rows.find((r) => r.name === STUDENT);
    assert.deepEqual({ you: theirs.you, attempts: theirs.attempts, solved: theirs.solved }, { you: false, attempts: 1, solved: true });
    saveArtifact(artifactName('5-instructor-board.png'), await instructor.screenshot());
    await instructor.locator(`${byTestId('btn-attempt')}[data-robot="diffbot"]`).click();
    const refused = await waitUntil('the refusal in the panel', () => readChallenge(instructor), (c) => c.error !== null);
    assert.match(refused.error, /no program/, refused.error);

    // Every row shown to students: the setting is kept, and the student's board follows.
    assert.equal((await readChallenge(student)).boardNote, 'Students see only their own row.');
    await instructor.locator(byTestId('board-visibility')).selectOption('names');
    await waitUntil('the setting to be kept', () => server.lab(lab), (l) => l.settings?.board === 'names');
    await waitUntil("the student's board to follow", () => readChallenge(student), (c) => c.boardNote === 'Everybody sees every row.');

    // A live run in the shared lab: every robot judged; Stop ends it.
    await instructor.locator(byTestId('btn-run-start')).click();
    const running = await waitUntil('the live run\'s table', () => readChallenge(instructor), (c) => c.liveRun?.robots.length === 2);
    assert.deepEqual(running.liveRun.robots.map((r) => r.robot).sort(), ['diffbot', ROBOT].sort());
    saveArtifact(artifactName('6-live-run.png'), await instructor.screenshot());
    const stopped = await waitUntil('the run to end', async () => {
      const now = await readChallenge(instructor);
      if (!now.liveRun?.over && !(await instructor.locator(byTestId('btn-run-stop')).isDisabled())) {
        await instructor.locator(byTestId('btn-run-stop')).click();
      }
      return readChallenge(instructor);
    }, (c) => c.liveRun?.over === true);
    t.diagnostic(`the live run: ${JSON.stringify(stopped.liveRun)}`);
  }, { expectedConsoleErrors: [/status of 409/] });
});
