// Opening a lab fetches the app's wasm compressed, a second visit takes it from the
// browser's cache, and the time from navigation to the first drawn 3D frame is printed
// for docs/performance.md (a figure, never asserted: it depends on the machine).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { waitForConnected, withLab } from '../lib/harness.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { readUi } from '../lib/ui.mjs';

/**
 * Runs in the page before its own scripts: `window.__firstFrame` resolves with the
 * milliseconds from navigation start to the first frame drawn, and `__firstScene` to
 * the first frame drawn with the scene's bodies, read from the canvas's test hooks
 * as they change (no polling delay in the figure).
 */
function watchFirstFrames() {
  const canvasHook = () => document.querySelector('[data-testid="lab-canvas"]');
  const watch = (drawn) =>
    new Promise((resolve) => {
      const check = () => {
        const canvas = canvasHook();
        if (!canvas || !drawn(Number(canvas.getAttribute('data-frames-drawn')), Number(canvas.getAttribute('data-bodies')))) {
          return false;
        }
        resolve(performance.now());
        return true;
      };
      const observer = new MutationObserver(() => check() && observer.disconnect());
      observer.observe(document, { subtree: true, childList: true, attributes: true });
    });
  window.__firstFrame = watch((frames) => frames >= 1);
  window.__firstScene = watch((frames, bodies) => frames >= 1 && bodies > 0);
}

/** The resource timing of the page's wasm, and the response the browser got for it. */
async function wasmLoad(page, responses) {
  const timing = await page.evaluate(() => {
    const entry = performance.getEntriesByType('resource').find((resource) => resource.name.endsWith('.wasm'));
    return entry && {
      name: entry.name,
      transferSize: entry.transferSize,
      encodedBodySize: entry.encodedBodySize,
      decodedBodySize: entry.decodedBodySize,
      responseEnd: entry.responseEnd,
    };
  });
  assert.ok(timing, 'the page fetched no .wasm');
  // A response taken from the memory cache may not be reported: then none is known.
  const response = responses.find((candidate) => candidate.url() === timing.name);
  return { timing, status: response?.status() ?? null, headers: response ? await response.allHeaders() : {} };
}

async function loadTimed(page, url) {
  const responses = [];
  const listener = (response) => responses.push(response);
  page.on('response', listener);
  await page.goto(url);
  await waitForConnected(page, 'the viewer page');
  await waitUntil('a frame with the scene to be drawn', () => readUi(page), (ui) => ui.framesDrawn >= 1 && ui.bodies > 0);
  const firstFrame = await page.evaluate(() => window.__firstFrame);
  const firstScene = await page.evaluate(() => window.__firstScene);
  const wasm = await wasmLoad(page, responses);
  page.off('response', listener);
  return { firstFrame, firstScene, wasm };
}

test('the wasm comes compressed, then from the cache, and the first frame time is printed', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage }) => {
    // A fresh browser context (empty cache), watched from before its first navigation.
    const page = await openPage('viewer', { url: 'about:blank', waitConnected: false });
    await page.addInitScript(watchFirstFrames);

    const cold = await loadTimed(page, server.viewerUrl('demo'));
    const { timing, headers } = cold.wasm;
    t.diagnostic(
      `first load: first 3D frame ${cold.firstFrame.toFixed(0)} ms after navigation, first frame with the scene ` +
        `${cold.firstScene.toFixed(0)} ms; wasm ${timing.transferSize} B transferred (${timing.encodedBodySize} B ` +
        `${headers['content-encoding'] ?? 'uncompressed'}, ${timing.decodedBodySize} B decoded), fetched by ` +
        `${timing.responseEnd.toFixed(0)} ms`,
    );
    assert.match(headers['content-encoding'] ?? '', /^(br|gzip)$/, 'the wasm is sent compressed');
    assert.equal(headers['content-type'], 'application/wasm');
    assert.ok(timing.encodedBodySize < timing.decodedBodySize, 'fewer bytes on the wire than in the module');
    assert.match(headers['cache-control'] ?? '', /immutable/, 'the wasm may be kept without asking again');

    // The page again, as a returning visitor: the wasm comes from the cache (nothing
    // transferred) or at most a 304 (headers only).
    const warm = await loadTimed(page, server.viewerUrl('demo'));
    const fromCache = warm.wasm.timing.transferSize === 0;
    t.diagnostic(
      `second load: first 3D frame ${warm.firstFrame.toFixed(0)} ms, with the scene ${warm.firstScene.toFixed(0)} ms; ` +
        `wasm ${fromCache ? 'from the browser cache' : `status ${warm.wasm.status}`}, ` +
        `${warm.wasm.timing.transferSize} B transferred`,
    );
    assert.equal(warm.wasm.timing.name, timing.name, 'the same build keeps the same wasm name');
    assert.ok(
      fromCache || warm.wasm.status === 304,
      `the second load fetched the wasm again: status ${warm.wasm.status}, ${warm.wasm.timing.transferSize} B transferred`,
    );
  });
});
