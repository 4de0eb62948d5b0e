// The page tells the server which frames it drew as the protocol asks: each `drawn`
// counts its pictures, the server answers the first with `pacing` (acknowledge every
// second frame while the page keeps up), the page then waits for that many frames
// between two `drawn`s, and the frames keep coming (the view goes on moving).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, waitForConnected, withLab } from '../lib/harness.mjs';
import { sleep, waitUntil } from '../lib/poll.mjs';
import { readUi } from '../lib/ui.mjs';

/** What crossed the page's lab websocket, in order: `frame`, `drawn` and `pacing` events. */
function recordSocket(page) {
  const events = [];
  page.on('websocket', (socket) => {
    if (!socket.url().includes('/ws/labs/')) return;
    socket.on('framereceived', ({ payload }) => {
      if (typeof payload !== 'string') {
        events.push({ kind: 'frame' });
        return;
      }
      const message = JSON.parse(payload);
      if (message.type === 'pacing') events.push({ kind: 'pacing', drawnEvery: message.drawn_every });
    });
    socket.on('framesent', ({ payload }) => {
      const message = typeof payload === 'string' ? JSON.parse(payload) : {};
      if (message.type === 'drawn') events.push({ kind: 'drawn', step: message.step, pictures: message.pictures });
    });
  });
  return events;
}

test('the page says what it drew as often as the server asks, and frames keep coming', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const page = await openPage('viewer', { url: 'about:blank', waitConnected: false });
    const events = recordSocket(page);
    await page.goto(server.viewerUrl('demo'));
    await waitForConnected(page, 'the viewer page');
    await waitUntil('the scene to be drawn', () => readUi(page), (ui) => ui.framesDrawn >= 1 && ui.bodies > 0);
    const drawnBefore = (await readUi(page)).framesDrawn;
    await sleep(3_000);
    const ui = await readUi(page);

    const frames = events.filter((e) => e.kind === 'frame').length;
    const drawn = events.filter((e) => e.kind === 'drawn');
    const told = events.filter((e) => e.kind === 'pacing').map((e) => e.drawnEvery);
    t.diagnostic(`${frames} frames received, ${drawn.length} drawn sent, pacing told ${JSON.stringify(told)}`);
    assert.ok(drawn.length > 0, 'the page said nothing of what it drew');
    for (const message of drawn) {
      assert.ok(Number.isInteger(message.pictures) && message.pictures >= 1, `drawn without pictures: ${JSON.stringify(message)}`);
    }
    assert.equal(told[0], 2, 'the first drawn is answered with every second frame (a full window)');
    // Between two drawn, at least as many frames as the pacing in force asked for. A
    // larger pacing is in force from the drawn after the one that follows it (the page
    // may send one before reading it); a smaller one at once, for this check.
    let asked = 1;
    let pending = null;
    let since = 0;
    let checked = 0;
    for (const event of events) {
      if (event.kind === 'frame') since += 1;
      if (event.kind === 'pacing') {
        if (event.drawnEvery < asked) [asked, pending] = [event.drawnEvery, null];
        else pending = event.drawnEvery;
      }
      if (event.kind !== 'drawn') continue;
      assert.ok(since >= asked, `a drawn after ${since} frames while every ${asked} was asked (${JSON.stringify(event)})`);
      checked += 1;
      since = 0;
      if (pending !== null) [asked, pending] = [pending, null];
    }
    assert.ok(checked >= 2, `${checked} drawn checked`);
    // Paced, not stalled: frames came all along and the view moved on.
    assert.ok(frames >= 30, `only ${frames} frames in about 3 s`);
    assert.ok(ui.framesDrawn > drawnBefore, 'the view drew nothing more');
    saveArtifact(artifactName('paced.png'), await page.screenshot());
  });
});
