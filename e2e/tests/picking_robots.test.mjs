// Picking robots quickly. A student's page once panicked ("Tried to access a reactive
// value that has already been disposed", in the picked robot's part of the page) after
// she picked another robot: her robot's console, which only she and the instructor see,
// was taken off the page while it was about to scroll to a line just arrived, and the
// scroll then reached for a console that was gone. Here a student whose program prints
// every step switches between her robot and somebody else's, again and again, while the
// lines pour in. And the part of the page that shows a picked robot comes as a module of
// its own: held back until the student has picked one robot, then another, then let go,
// it arrives with nobody to show it to. Neither breaks the page.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { readProgramUi, joinAsStudent } from '../lib/student.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

const PICKED_ROBOT_PART = /\/split_picked_robot-[0-9a-f]{16}\.wasm$/;

test('the picked robot\'s part arriving after the robot was let go breaks nothing', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ openPage, artifactName }) => {
    const page = await openPage('viewer');
    let release;
    const released = new Promise((resolve) => { release = resolve; });
    let asked = 0;
    await page.route(PICKED_ROBOT_PART, async (route) => {
      asked += 1;
      await released;
      await route.continue();
    });
    await waitUntil('the scene', () => readUi(page), (ui) => ui.framesDrawn >= 1 && ui.bodies > 0);
    const items = page.locator(byTestId('robot-item'));
    await waitUntil('two robots listed', () => items.count(), (n) => n >= 2);
    const [first, second] = [await items.nth(0).getAttribute('data-robot'), await items.nth(1).getAttribute('data-robot')];
    const item = (robot) => page.locator(`${byTestId('robot-item')}[data-robot="${robot}"]`);
    const picked = () => page.locator(byTestId('lab-canvas')).getAttribute('data-picked');

    await item(first).click();
    await waitUntil('the part to be asked for', () => asked, (n) => n >= 1);
    await item(second).click();
    await waitUntil(`${second} picked`, picked, (robot) => robot === second);
    await item(second).click();
    await waitUntil('no robot picked', picked, (robot) => !robot);
    release();
    // The module arrives and runs with nobody to show it to; give it the time to.
    await waitUntil('the part to arrive', () => page.evaluate(() => performance.getEntriesByType('resource').filter((e) => /split_picked_robot/.test(e.name)).length), (n) => n >= 1);
    await page.waitForTimeout(1000);

    await item(first).click();
    await page.locator(`${byTestId('robot-report')}[data-robot="${first}"]`).waitFor();
    const ui = await readUi(page);
    assert.equal(ui.state, 'connected', 'the page lives on');
    saveArtifact(artifactName('picked-again.png'), await page.screenshot());
  });
});

const CHATTY = [
  'from vlab import Robot',
  '',
  'robot = Robot()',
  'while robot.step():',
  '    print("step", robot.step_count())',
  '',
].join('\n');

test('a student switching between her robot, whose console streams, and another breaks nothing', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const { page, consoleErrors } = await joinAsStudent(server, openPage, 'Quick');
    await page.locator(byTestId('btn-open-robot-upload')).click();
    await page.locator(byTestId('robot-suffix')).fill('quick');
    await page.locator(byTestId('btn-robot-template')).click();
    await page.locator(byTestId('program-source')).fill(CHATTY);
    await page.locator(byTestId('btn-upload-robot')).click();
    const done = await waitUntil('the upload', () => readProgramUi(page), (p) => !['busy', 'none', null].includes(p.outcome));
    assert.equal(done.outcome, 'inserted', `${done.result} ${done.errors?.join(' | ')}`);
    await page.locator(byTestId('btn-close-robot-upload')).click();
    await server.request('POST', '/api/labs/demo/control', { token: server.token, body: { action: 'resume' } });

    const mine = page.locator(`${byTestId('robot-item')}[data-robot="diffbot_quick"]`);
    const other = page.locator(`${byTestId('robot-item')}[data-robot="rover_red"]`);
    const picked = () => page.locator(byTestId('lab-canvas')).getAttribute('data-picked');
    for (let round = 0; round < 12; round += 1) {
      if ((await picked()) !== 'diffbot_quick') await mine.click();
      await waitUntil('her console streaming', () => readProgramUi(page), (p) => p.console && p.lines.length > 0);
      await other.click();
      await waitUntil('the other robot picked, without her console', () => readProgramUi(page), (p) => !p.console);
    }
    await mine.click();
    await waitUntil('her console again', () => readProgramUi(page), (p) => p.console && p.lines.length > 0);
    assert.equal((await readUi(page)).state, 'connected', 'the page lives on');
    assert.deepEqual(consoleErrors.filter((line) => !/status of 4\d\d/.test(line)), [], 'no errors in the page');
    saveArtifact(artifactName('switched.png'), await page.screenshot());
  });
});
