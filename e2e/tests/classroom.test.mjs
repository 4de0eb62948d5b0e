// The classroom in the browser: an instructor has the demo lab open; a student (another
// browser context: another person) opens the front page, sees the open labs, is told
// plainly when the join code is wrong, joins with the right code and a name, and lands
// in the lab as a student. The instructor pauses; the student adds a robot through the
// "Add robot" form. The robot shows in both pages' robot lists and in both People
// panels beside the student's name; both pages show the server's step. The student may
// drive, reset and remove their own robot, not the lab's; a notice from the instructor
// reaches the student; a reload without the token in the URL is still the same student.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, waitForConnected, withLab } from '../lib/harness.mjs';
import { imageStats } from '../lib/png.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

const STUDENT = 'Ana <b>Lopez</b>';
const SUFFIX = 'ana';
const ROBOT = `diffbot_${SUFFIX}`;

/** What the classroom parts of a page show now. */
async function readClass(page) {
  return page.evaluate(() => {
    const all = (id, root = document) => [...root.querySelectorAll(`[data-testid="${id}"]`)];
    const q = (id) => document.querySelector(`[data-testid="${id}"]`);
    return {
      people: all('person').map((person) => ({
        name: person.querySelector('.person-name')?.textContent ?? null,
        role: person.getAttribute('data-role'),
        online: person.getAttribute('data-online') === 'true',
        you: person.getAttribute('data-you') === 'true',
        robots: all('person-robot', person).map((r) => r.getAttribute('data-robot')),
        boldInside: person.querySelector('b') !== null,
      })),
      robots: all('robot-item').map((item) => item.getAttribute('data-robot')),
      uploadOutcome: q('scene-result')?.getAttribute('data-outcome') ?? null,
      uploadText: q('scene-result')?.textContent?.trim() ?? null,
      notices: all('notice-text').map((n) => n.textContent),
      joinCode: q('join-code-shown')?.textContent?.trim() ?? null,
      tools: q('instructor-tools') !== null,
      driveDisabled: q('btn-drive-keys')?.disabled ?? null,
      reset: q('btn-reset-robot') !== null,
      remove: q('btn-remove-robot') !== null,
      owner: q('robot-owner')?.textContent?.trim() ?? null,
    };
  });
}

test('a student joins by code, adds a robot while paused, and both pages agree', { timeout: 600_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const lab = await server.request('GET', '/api/labs/demo', { token: server.token });
    assert.equal(lab.status, 200, JSON.stringify(lab.body));
    const code = lab.body.join_code;
    assert.match(code ?? '', /^[A-Z0-9]+$/, `the instructor sees the demo lab's join code: ${JSON.stringify(lab.body)}`);

    const instructor = await openPage('instructor');
    await waitUntil('the instructor page to show its role', () => readUi(instructor), (u) => u.role === 'instructor');
    await waitUntil('the instructor tools to show the join code', () => readClass(instructor), (c) => c.joinCode === code);

    // The front page: what VLab is, the open labs, the join form.
    const student = await openPage('viewer', { name: 'student', url: `${server.baseUrl}/`, waitConnected: false });
    await student.locator(byTestId('landing-page')).waitFor();
    await waitUntil(
      'the landing page to list the demo lab',
      () => student.locator(`${byTestId('lab-row')}[data-lab="demo"]`).count(),
      (n) => n === 1,
    );
    assert.equal(await student.locator(byTestId('create-lab-link')).getAttribute('href'), '/?create');

    // A wrong code is said plainly, and nothing happens.
    await student.locator(byTestId('join-code')).fill('ZZZZZZ');
    await student.locator(byTestId('join-name')).fill(STUDENT);
    await student.locator(byTestId('btn-join')).click();
    const wrong = await waitUntil('the wrong code to be refused', () => student.locator(byTestId('join-error')).textContent(), (text) => /join code/i.test(text ?? ''));
    assert.ok(!student.url().includes('token='), `still on the front page: ${student.url()} (${wrong})`);
    saveArtifact(artifactName('landing.png'), await student.screenshot());

    await student.locator(byTestId('join-code')).fill(code.toLowerCase());
    await student.locator(byTestId('btn-join')).click();
    await student.waitForURL(/[?&]lab=demo/);
    await waitForConnected(student, 'the student page');
    await waitUntil('the student page to show the student role', () => readUi(student), (u) => u.role === 'student');
    // The token is not left in the address bar (a projector, a copied link).
    await waitUntil('the token to leave the address bar', () => student.url(), (url) => !url.includes('token='));
    const stored = await student.evaluate(() => localStorage.getItem('vlab.session.demo'));
    assert.ok(stored && JSON.parse(stored).name === STUDENT, `the session is kept in localStorage: ${stored}`);

    // Presence: both pages list the student (the name as text), the student sees "you".
    await waitUntil(
      'the instructor page to list the student, online',
      () => readClass(instructor),
      (c) => c.people.some((p) => p.name === STUDENT && p.role === 'student' && p.online),
    );
    const studentView = await waitUntil(
      'the student page to mark the student as "you"',
      () => readClass(student),
      (c) => c.people.some((p) => p.name === STUDENT && p.you) && c.people.some((p) => p.role === 'instructor'),
    );
    assert.ok(studentView.people.every((p) => !p.boldInside), 'a name is shown as text, never as HTML');
    assert.equal(studentView.tools, false, 'a student gets no instructor tools');
    assert.equal(studentView.joinCode, null);

    // The instructor pauses; the student adds a robot through the form meanwhile.
    await waitUntil('the instructor page to show a running lab', () => readUi(instructor), (u) => u.mode === 'running');
    await instructor.locator(byTestId('btn-play-pause')).click();
    await waitUntil('the server to say paused', () => server.lab('demo'), (l) => l.mode === 'paused');

    await student.locator(byTestId('btn-open-robot-upload')).click();
    await student.locator(byTestId('robot-upload')).waitFor();
    await student.locator(byTestId('robot-suffix')).fill(SUFFIX);
    await student.locator(byTestId('btn-robot-template')).click();
    const source = await student.locator(byTestId('scene-source')).inputValue();
    assert.match(source, /include "diffbot_robot\.vlab";/);
    assert.match(source, new RegExp(`call diffbot\\("_${SUFFIX}", \\{x\\}, \\{z\\}, 0\\);`), source);
    await student.locator(byTestId('btn-upload-robot')).click();
    const uploaded = await waitUntil('the upload to finish', () => readClass(student), (c) => !['busy', 'none', null].includes(c.uploadOutcome));
    assert.equal(uploaded.uploadOutcome, 'inserted', `the robot was not added: ${uploaded.uploadText}`);

    const api = await server.lab('demo');
    assert.ok(api.robots.includes(ROBOT), `the server has the robot: ${JSON.stringify(api.robots)}`);
    assert.equal(api.mode, 'paused', 'adding a robot does not start time');
    for (const [name, page] of [['instructor', instructor], ['student', student]]) {
      await waitUntil(
        `the ${name} page to list ${ROBOT} in the Robots panel and beside the student in People`,
        () => readClass(page),
        (c) => c.robots.includes(ROBOT) && c.people.some((p) => p.name === STUDENT && p.robots.includes(ROBOT)),
      );
      await waitUntil(
        `the ${name} page to show paused at the server's step ${api.step}`,
        () => readUi(page),
        (u) => u.mode === 'paused' && u.step === api.step,
      );
    }
    const [a, b] = [await readUi(instructor), await readUi(student)];
    assert.equal(a.step, b.step, 'the two pages show different steps');
    assert.equal(a.time, b.time, 'the two pages show different sim times');

    // Its owner may drive, reset and remove it (the upload picked it in the inspector) ...
    const own = await waitUntil(
      'the student page to offer driving, reset and remove for their own robot',
      () => readClass(student),
      (c) => c.driveDisabled === false && c.reset && c.remove && c.owner === `owner: ${STUDENT}`,
    );
    assert.ok(own);
    // ... not the lab's robots.
    await student.locator(`${byTestId('robot-item')}[data-robot="rover_red"]`).click();
    await waitUntil(
      "the student page to offer nothing but following for the lab's robot",
      () => readClass(student),
      (c) => c.owner === "the lab's robot" && c.driveDisabled === true && !c.reset && !c.remove,
    );
    // Done with the form: on a laptop it had the People panel's room.
    await student.locator(byTestId('btn-close-robot-upload')).click();
    await student.locator(`${byTestId('person-robot')}[data-robot="${ROBOT}"]`).click();
    await student.locator(byTestId('btn-follow-robot')).click();
    await waitUntil('the camera to follow the robot', () => student.locator(byTestId('lab-canvas')).getAttribute('data-follow'), (f) => f === ROBOT);

    // A notice from the instructor reaches the student.
    await instructor.locator(byTestId('notice-input')).fill('Five minutes left');
    await instructor.locator(byTestId('btn-send-notice')).click();
    await waitUntil('the student to see the notice', () => readClass(student), (c) => c.notices.includes('Five minutes left'));

    await waitUntil('the student page to draw frames', () => readUi(student), (u) => u.framesDrawn > 2);
    const studentShot = await student.screenshot();
    const instructorShot = await instructor.screenshot();
    saveArtifact(artifactName('student.png'), studentShot);
    saveArtifact(artifactName('instructor.png'), instructorShot);
    for (const [name, shot] of [['student', studentShot], ['instructor', instructorShot]]) {
      const stats = imageStats(shot);
      assert.ok(stats.distinctColours > 200 && stats.dominantShare < 0.6, `the ${name} page looks blank: ${JSON.stringify(stats)}`);
    }

    // A reload of the plain lab link is still the same student, with the same robot.
    await student.goto(server.viewerUrl('demo'));
    await waitForConnected(student, 'the reloaded student page');
    await waitUntil('the reloaded page to be the student again', () => readUi(student), (u) => u.role === 'student');
    await waitUntil(
      'the reloaded page to mark the student and their robot',
      () => readClass(student),
      (c) => c.people.some((p) => p.name === STUDENT && p.you && p.robots.includes(ROBOT)),
    );

    // The create page: the server key, a name, the scene picker → the join code, large.
    await student.goto(`${server.baseUrl}/?create`);
    await waitUntil('the scene picker to list the library', () => student.locator(`${byTestId('scene-select')} option`).count(), (n) => n > 3);
    const offered = await student.locator(`${byTestId('scene-select')} option`).allTextContents();
    assert.ok(!offered.some((text) => /^(diffbot_robot|tankbot_robot|tower|cart|pyramid)\b/.test(text)), `only labs are offered, not pieces to include: ${offered}`);
    assert.ok(offered.some((text) => text.startsWith('arena — ') && text.trim().endsWith('.')), `a scene's whole opening comment: ${offered}`);
    await student.locator(byTestId('server-key')).fill(server.token);
    await student.locator(byTestId('lab-name-input')).fill('Physics 1');
    await student.locator(byTestId('btn-create-lab')).click();
    const created = student.locator(byTestId('created-lab'));
    await created.waitFor();
    const newLab = await created.getAttribute('data-lab');
    const shownCode = (await student.locator(byTestId('created-join-code')).textContent()).trim();
    // The join code shows to the new lab's instructor, whose token the instructor link carries.
    const link = new URL(await student.locator(byTestId('instructor-link')).inputValue());
    assert.equal(link.searchParams.get('lab'), newLab, link.href);
    const listed = await server.request('GET', `/api/labs/${encodeURIComponent(newLab)}`, { token: link.searchParams.get('token') });
    assert.equal(listed.body.join_code, shownCode, 'the page shows the new lab\'s join code');
    await student.locator(byTestId('btn-copy-instructor-link')).click();
    const copied = await student.locator(byTestId('instructor-link-copied')).textContent();
    assert.match(copied, /^(Copied|This browser did not copy it)/, 'the Copy button says what it did');
    saveArtifact(artifactName('created.png'), await student.screenshot());
  }, { allowConsoleErrors: true }); // the refused join (404) is logged by the browser itself
});
