// A robot in a room with tall walls can be seen: the view opens on the room's inside
// (the near walls, which stand between the eye and the floor it looks at, are left out
// of the picture), Follow keeps the robot in sight wherever it is, and Top view looks
// straight down on the whole room. Measured on the canvas: the robot is the only green
// thing in the lab, and its pixels are counted.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { countPixels } from '../lib/png.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

const ROOM = `environment room { width 6; length 6; height 2.5; sky "Black"; ground "Tiles"; walls "Pattern"; ceiling "RedStripes"; gravity -9.81; }
robot marker { body { marker_base { shape box(0.6, 0.4, 0.6); pos(4.7, 0.2, 4.7); material "Green"; } } }
`;

// Green, or the teal green turns when picked (the picked robot glows blue): nothing
// else in this room is much greener than it is red.
const green = (r, g) => g > 90 && g > r + 40;

async function greenPixels(page) {
  await waitUntil('frames to be drawn', () => readUi(page), (u) => u.framesDrawn > 2);
  return countPixels(await page.locator(byTestId('lab-canvas')).screenshot(), green);
}

test('a robot in a walled room is seen: from the start, when followed, and from the top', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const created = await server.request('POST', '/api/labs', { token: server.token, body: { name: 'Room', scene_source: ROOM } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const page = await openPage('instructor', { url: `${server.baseUrl}${created.body.instructor_path}` });
    await waitUntil('the room to be drawn', () => readUi(page), (u) => u.bodies > 0 && u.framesDrawn > 2);

    const opened = await greenPixels(page);
    saveArtifact(artifactName('1-opened.png'), await page.screenshot());
    t.diagnostic(`the robot's pixels as the view opens: ${opened}`);
    assert.ok(opened > 200, `the robot in the corner nearest the eye, behind two tall walls, is in sight as the view opens: ${opened} green pixels`);

    // Follow, then turn the view so the robot is behind a wall seen from outside.
    await page.locator(`${byTestId('robot-item')}[data-robot="marker"]`).click();
    await waitUntil('the robot to be picked', () => page.locator(byTestId('lab-canvas')).getAttribute('data-picked'), (p) => p === 'marker');
    await page.locator(byTestId('btn-follow-robot')).click();
    await waitUntil('the camera to follow the robot', () => page.locator(byTestId('lab-canvas')).getAttribute('data-follow'), (f) => f === 'marker');
    const canvas = page.locator(byTestId('lab-canvas'));
    const box = await canvas.boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 400, box.y + box.height / 2 - 60, { steps: 8 });
    await page.mouse.up();
    const followed = await greenPixels(page);
    saveArtifact(artifactName('2-followed.png'), await page.screenshot());
    t.diagnostic(`the robot's pixels when followed and orbited: ${followed}`);
    assert.ok(followed > 200, `the followed robot stays in sight: ${followed} green pixels`);

    await page.locator(byTestId('btn-top-view')).click();
    const fromAbove = await greenPixels(page);
    saveArtifact(artifactName('3-top-view.png'), await page.screenshot());
    t.diagnostic(`the robot's pixels from the top: ${fromAbove}`);
    assert.ok(fromAbove > 100, `seen from the top: ${fromAbove} green pixels`);
    assert.equal(await canvas.getAttribute('data-follow'), '', 'the top view stops following');
  });
});
