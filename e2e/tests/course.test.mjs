// A course from the browser, end to end. The teacher creates a class on the create page
// with the server key, adds two students from the class page (reading their PINs),
// creates a lesson from the library's challenges/park and an assignment on it with two
// hidden trials. Each student signs in from her own browser with the class code, her name
// and her PIN (a wrong PIN first is refused under the form), enters the lesson (its lab
// page opens as hers, its link leads back to the class), and hands in program files from
// the class page: Ana the reference solution (scenes/challenges/park.py with its
// drive_to.py), Ben a program that never moves. The teacher's overview shows the lesson;
// her gradebook shows both grades, the solution's higher, evaluates both hand-ins again
// to the same grades, and its CSV downloads with both rows. Last, Ana opens her grade's
// trials (scores in seconds) and watches a trial's replay on its own page: the bay and
// her robot are drawn in the 3D view and the replay plays.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { saveArtifact, waitForConnected, withLab } from '../lib/harness.mjs';
import { imageStats } from '../lib/png.mjs';
import { DEFAULT_TIMEOUT_MS, waitUntil } from '../lib/poll.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

const CHALLENGES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'scenes', 'challenges');
/** Evaluations run real attempts: a few minutes on a loaded machine is not a fault. */
const EVALUATION_TIMEOUT_MS = 5 * DEFAULT_TIMEOUT_MS;

/** What the class page shows now. */
async function readClass(page) {
  return page.evaluate(() => {
    const q = (id) => document.querySelector(`[data-testid="${id}"]`);
    const all = (id) => [...document.querySelectorAll(`[data-testid="${id}"]`)];
    return {
      role: q('class-page')?.getAttribute('data-role') ?? null,
      error: q('class-error')?.textContent?.trim() ?? null,
      code: q('class-code')?.textContent?.trim() ?? null,
      credentials: q('student-credentials') && {
        student: q('student-credentials').getAttribute('data-student'),
        pin: q('student-credentials').getAttribute('data-pin'),
        link: q('student-link')?.value ?? null,
      },
      roster: all('roster-row').map((r) => ({ name: r.getAttribute('data-student'), signedIn: r.getAttribute('data-signed-in') === 'true' })),
      lessons: all('lesson-row').map((r) => r.getAttribute('data-lab')),
      assignments: all('assignment-item').map((a) => a.getAttribute('data-assignment')),
      homework: all('homework').map((h) => ({
        id: h.getAttribute('data-assignment'),
        due: h.querySelector('[data-testid="due-note"]')?.textContent?.trim() ?? null,
        submissions: [...h.querySelectorAll('[data-testid="submission-item"]')].map((s) => ({
          status: s.getAttribute('data-status'),
          grade: s.getAttribute('data-grade'),
        })),
        error: h.querySelector('[data-testid="hand-in-error"]')?.textContent?.trim() ?? null,
      })),
      grades: all('grade-row').map((r) => ({
        name: r.getAttribute('data-student'),
        cells: [...r.querySelectorAll('[data-testid="grade-cell"]')].map((c) => ({
          status: c.getAttribute('data-status'),
          grade: c.getAttribute('data-grade') === '' ? null : Number(c.getAttribute('data-grade')),
          late: c.getAttribute('data-late') === 'true',
          evaluation: c.querySelector('[data-testid="btn-open-evaluation"]')?.getAttribute('data-evaluation') ?? null,
          text: c.textContent.trim(),
        })),
      })),
      gradesError: q('grades-error')?.textContent?.trim() ?? null,
      overview: all('lesson-overview').map((l) => ({
        lab: l.getAttribute('data-lab'),
        people: l.querySelector('[data-testid="lesson-people"]')?.textContent?.trim() ?? null,
        robots: [...l.querySelectorAll('[data-testid="overview-robot"]')].map((r) => ({
          robot: r.getAttribute('data-robot'),
          program: r.getAttribute('data-program'),
        })),
      })),
      evaluation: q('evaluation') && {
        status: q('evaluation').getAttribute('data-status'),
        trials: all('trial-item').map((t) => ({ number: t.getAttribute('data-trial'), status: t.getAttribute('data-status'), text: t.textContent.trim() })),
        watch: all('btn-watch-trial').map((b) => b.getAttribute('data-trial')),
      },
    };
  });
}

/** Opens a section of the class page by its tab. */
async function openTab(page, tab) {
  await page.locator(byTestId(`tab-${tab}`)).click();
}

/** Adds `name` to the roster from the Students section; her PIN, as shown once. */
async function addStudent(teacher, name) {
  await teacher.locator(byTestId('new-student-name')).fill(name);
  await teacher.locator(byTestId('btn-add-student')).click();
  const shown = await waitUntil(`${name}'s PIN`, () => readClass(teacher), (c) => c.credentials?.student === name);
  assert.match(shown.credentials.pin, /^\d{4,8}$/, JSON.stringify(shown.credentials));
  assert.match(shown.credentials.link, /^http:\/\/127\.0\.0\.1:\d+\/\?class=[^&]+&link=/, 'the full sign-in link, to print');
  await teacher.locator(byTestId('btn-credentials-done')).click();
  return shown.credentials.pin;
}

/** A student's own browser: the start page, signed in to the class; her class page. */
async function signIn(server, openPage, code, name, pin, { wrongPinFirst = false } = {}) {
  const page = await openPage('viewer', { name, url: `${server.baseUrl}/`, waitConnected: false });
  await page.locator(byTestId('class-code-input')).fill(code);
  await page.locator(byTestId('sign-in-name')).fill(name);
  if (wrongPinFirst) {
    const wrong = pin === '0000' ? '1111' : '0000';
    await page.locator(byTestId('sign-in-pin')).fill(wrong);
    await page.locator(byTestId('btn-sign-in')).click();
    const error = await waitUntil('the refusal under the form', () => page.locator(byTestId('sign-in-error')).textContent().catch(() => null), (text) => Boolean(text?.trim()));
    assert.match(error, /PIN/i, error);
    assert.equal(await page.locator(byTestId('class-code-input')).inputValue(), code, 'the code typed stays');
    assert.equal(await page.locator(byTestId('sign-in-name')).inputValue(), name, 'the name typed stays');
    saveArtifact(`course-${name}-wrong-pin.png`, await page.screenshot());
  }
  await page.locator(byTestId('sign-in-pin')).fill(pin);
  await page.locator(byTestId('btn-sign-in')).click();
  await page.waitForURL(/[?&]class=/);
  await waitUntil(`${name}'s class page`, () => readClass(page), (c) => c.role === 'student');
  await waitUntil('the token to leave the address bar', () => page.url(), (url) => !url.includes('token='));
  return page;
}

/** Enters the lesson from My lessons: its lab page, as the student; then back to the
 * class by the lab page's link to it. */
async function enterLesson(page, lab) {
  await page.locator(`${byTestId('btn-enter-lesson')}[data-lab="${lab}"]`).click();
  await page.waitForURL(new RegExp(`[?&]lab=${lab}`));
  await waitForConnected(page, 'the lesson');
  await waitUntil('the student role in the lesson', () => readUi(page), (u) => u.role === 'student' && u.bodies > 0);
  await page.locator(byTestId('back-to-class')).click();
  await page.waitForURL(/[?&]class=/);
  await waitUntil('the class page again', () => readClass(page), (c) => c.role === 'student');
}

/** Both rows of the gradebook once every cell is graded (or failed), evaluated after `after`. */
async function gradedBook(teacher, after = {}) {
  const done = (cell, name) => (cell?.status === 'graded' || cell?.status === 'failed') && cell.evaluation !== (after[name] ?? null);
  return waitUntil(
    'both hand-ins graded',
    () => readClass(teacher),
    (c) => c.gradesError !== null || (c.grades.length === 2 && c.grades.every((r) => done(r.cells[0], r.name))),
    { timeoutMs: EVALUATION_TIMEOUT_MS },
  );
}

/** Hands in `files` for the first assignment from My assignments. */
async function handIn(page, files) {
  await openTab(page, 'my-assignments');
  await page.locator(byTestId('hand-in-file-input')).first().setInputFiles(files);
  await page.locator(byTestId('btn-hand-in-files')).first().click();
  return waitUntil('the hand-in in her list', () => readClass(page), (c) => c.homework[0]?.submissions.length === 1 || c.homework[0]?.error);
}

test('a teacher runs a class: roster, lesson, assignment, hand-ins, grades and a graded replay', { timeout: 1_200_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    // The class, from the create page with the server key.
    const teacher = await openPage('viewer', { name: 'teacher', url: `${server.baseUrl}/?create`, waitConnected: false });
    await teacher.locator(byTestId('class-server-key')).fill(server.token);
    await teacher.locator(byTestId('class-name-input')).fill('Robotics 2B');
    await teacher.locator(byTestId('btn-create-class')).click();
    await teacher.locator(byTestId('created-class')).waitFor();
    const code = (await teacher.locator(byTestId('created-class-code')).textContent()).trim();
    assert.match(code, /^[A-Z0-9]{4,}$/, code);
    saveArtifact(artifactName('1-created.png'), await teacher.screenshot());
    await teacher.locator(byTestId('btn-open-class')).click();
    const opened = await waitUntil("the teacher's class page", () => readClass(teacher), (c) => c.role === 'teacher');
    assert.equal(opened.code, code, 'the class code is on her page');
    const classId = new URL(teacher.url()).searchParams.get('class');
    assert.ok(classId, teacher.url());
    await waitUntil('the token to leave the address bar', () => teacher.url(), (url) => !url.includes('token='));

    // Two students on the roster, each PIN shown once.
    const anaPin = await addStudent(teacher, 'Ana');
    const benPin = await addStudent(teacher, 'Ben');
    const roster = await waitUntil('both on the roster', () => readClass(teacher), (c) => c.roster.length === 2);
    assert.deepEqual(roster.roster.map((s) => s.name).sort(), ['Ana', 'Ben']);
    saveArtifact(artifactName('2-roster.png'), await teacher.screenshot());

    // A lesson from the library's park challenge.
    await openTab(teacher, 'lessons');
    await teacher.locator(byTestId('lesson-name')).fill('Parking week');
    await waitUntil('the library in the scene list', () => teacher.locator(`${byTestId('lesson-scene')} option[value="challenges/park"]`).count(), (n) => n === 1);
    await teacher.locator(byTestId('lesson-scene')).selectOption('challenges/park');
    await teacher.locator(byTestId('btn-create-lesson')).click();
    const lessons = await waitUntil('the lesson in the list', () => readClass(teacher), (c) => c.lessons.length === 1);
    const lab = lessons.lessons[0];

    // The assignment: park, two hidden trials, due in a week.
    await openTab(teacher, 'assignments');
    await teacher.locator(byTestId('assignment-title')).fill('Park it');
    await waitUntil('the challenges in the select', () => teacher.locator(`${byTestId('assignment-challenge')} option[value="challenges/park"]`).count(), (n) => n === 1);
    await teacher.locator(byTestId('assignment-challenge')).selectOption('challenges/park');
    await teacher.locator(byTestId('assignment-trials')).fill('2');
    const due = new Date(Date.now() + 7 * 24 * 3600 * 1000);
    const local = new Date(due.getTime() - due.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await teacher.locator(byTestId('assignment-due-input')).fill(local);
    await teacher.locator(byTestId('btn-create-assignment')).click();
    await waitUntil('the assignment in the list', () => readClass(teacher), (c) => c.assignments.length === 1);
    saveArtifact(artifactName('3-assignments.png'), await teacher.screenshot());

    // The students, each from her own browser.
    const ana = await signIn(server, openPage, code, 'Ana', anaPin, { wrongPinFirst: true });
    const ben = await signIn(server, openPage, code, 'Ben', benPin);
    await enterLesson(ana, lab);
    await enterLesson(ben, lab);

    const anaHandIn = await handIn(ana, [path.join(CHALLENGES, 'park.py'), path.join(CHALLENGES, 'drive_to.py')]);
    assert.equal(anaHandIn.homework[0].error, null, 'the solution is handed in');
    assert.match(anaHandIn.homework[0].due, /^Due /, anaHandIn.homework[0].due);
    const idle = path.join(mkdtempSync(path.join(tmpdir(), 'vlab-course-')), 'main.py');
    writeFileSync(idle, 'from vlab import Robot\n\nrobot = Robot()\nwhile robot.step():\n    pass\n');
    const benHandIn = await handIn(ben, [idle]);
    assert.equal(benHandIn.homework[0].error, null, 'the idle program is handed in');
    saveArtifact(artifactName('4-hand-in.png'), await ana.screenshot());

    // The overview: the lesson, Ana and Ben in it.
    await openTab(teacher, 'overview');
    const overview = await waitUntil('the lesson in the overview', () => readClass(teacher), (c) => c.overview.some((l) => l.lab === lab));
    t.diagnostic(`overview: ${JSON.stringify(overview.overview)}`);
    saveArtifact(artifactName('5-overview.png'), await teacher.screenshot());

    // The gradebook: the hand-ins graded, then evaluated again to the same grades; the
    // solution's higher; the CSV.
    await openTab(teacher, 'gradebook');
    const first = await gradedBook(teacher);
    assert.equal(first.gradesError, null);
    const firstEvaluations = Object.fromEntries(first.grades.map((r) => [r.name, r.cells[0].evaluation]));
    await teacher.locator(byTestId('btn-evaluate-column')).first().click();
    const graded = await gradedBook(teacher, firstEvaluations);
    assert.equal(graded.gradesError, null);
    assert.deepEqual(
      graded.grades.map((r) => [r.name, r.cells[0].grade]).sort(),
      first.grades.map((r) => [r.name, r.cells[0].grade]).sort(),
      'evaluated again, the same grades',
    );
    const grade = (name) => graded.grades.find((r) => r.name === name).cells[0];
    t.diagnostic(`grades: ${JSON.stringify(graded.grades)}`);
    assert.equal(grade('Ana').status, 'graded', JSON.stringify(grade('Ana')));
    assert.ok(grade('Ana').grade > (grade('Ben').grade ?? 0), `the solution's grade is the higher: ${JSON.stringify(graded.grades)}`);
    assert.ok(!grade('Ana').late && !grade('Ben').late, 'handed in before the due date');
    saveArtifact(artifactName('6-gradebook.png'), await teacher.screenshot());
    const [download] = await Promise.all([teacher.waitForEvent('download'), teacher.locator(byTestId('btn-grades-csv')).click()]);
    const csv = readFileSync(await download.path(), 'utf8');
    t.diagnostic(`csv: ${csv}`);
    assert.match(download.suggestedFilename(), /\.csv$/);
    assert.match(csv, /Ana/);
    assert.match(csv, /Ben/);

    // Ana's grade, its trials, and a trial's replay on its own page.
    await openTab(ana, 'my-grades');
    const mine = await waitUntil('her graded row', () => readClass(ana), (c) => c.grades.length === 1 && c.grades[0].cells[0]?.status === 'graded', { timeoutMs: EVALUATION_TIMEOUT_MS });
    assert.equal(mine.grades[0].name, 'Ana', 'a student sees her own row only');
    await ana.locator(byTestId('btn-open-evaluation')).first().click();
    const trials = await waitUntil('her trials with their replays', () => readClass(ana), (c) => c.evaluation?.status === 'graded' && c.evaluation.watch.length === 2);
    assert.deepEqual(trials.evaluation.trials.map((tr) => tr.status), ['solved', 'solved'], JSON.stringify(trials.evaluation));
    assert.match(trials.evaluation.trials[0].text, /score \d+\.\d\d s/, 'a time score in seconds');
    saveArtifact(artifactName('7-my-grades.png'), await ana.screenshot());
    await ana.locator(byTestId('btn-watch-trial')).first().click();
    await ana.waitForURL(/[?&]replay=/);
    const replay = await waitUntil(
      'the replay to play',
      () => ana.evaluate(() => {
        const bar = document.querySelector('[data-testid="attempt-replay"]');
        const canvas = document.querySelector('[data-testid="lab-canvas"]');
        return bar && canvas && {
          duration: Number(bar.getAttribute('data-duration')),
          time: Number(bar.getAttribute('data-time')),
          zones: Number(canvas.getAttribute('data-zones')),
          bodies: Number(canvas.getAttribute('data-bodies')),
          framesDrawn: Number(canvas.getAttribute('data-frames-drawn')),
          error: document.querySelector('[data-testid="graded-replay-error"]')?.textContent ?? null,
        };
      }),
      (r) => r && (r.error !== null || (r.duration > 0 && r.time > 0.5 && r.framesDrawn > 2)),
    );
    assert.equal(replay.error, null);
    assert.equal(replay.zones, 1, 'the bay is drawn');
    assert.ok(replay.bodies > 0, 'the trial\'s world is drawn');
    const shot = await ana.locator(byTestId('lab-canvas')).screenshot();
    saveArtifact(artifactName('8-graded-replay.png'), shot);
    saveArtifact(artifactName('8-graded-replay-page.png'), await ana.screenshot());
    const stats = imageStats(shot);
    assert.ok(stats.distinctColours > 100 && stats.dominantShare < 0.8, `the replay shows a world, not a blank view: ${JSON.stringify(stats)}`);
    await ana.locator(byTestId('btn-back-to-lab')).click();
    await waitUntil('her class page again', () => readClass(ana), (c) => c.role === 'student');
  }, { expectedConsoleErrors: [/status of 401/] });
});
