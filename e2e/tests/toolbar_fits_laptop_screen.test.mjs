// On a common laptop screen the instructor sees every time control at once: none is cut
// off or pushed out of view (the page must not need sideways scrolling to reach Reset).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { VIEWPORT, saveArtifact, withLab } from '../lib/harness.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { INSTRUCTOR_ONLY, byTestId, readUi } from '../lib/ui.mjs';

test('the instructor toolbar fits a laptop screen', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ openPage, artifactName }) => {
    const page = await openPage('instructor');
    await waitUntil('the instructor controls', () => readUi(page), (u) => u.instructorControls.length === INSTRUCTOR_ONLY.length);

    const outside = await page.evaluate(
      ([ids, hooks]) => {
        const report = [];
        for (const id of [...ids, ...hooks]) {
          const element = document.querySelector(`[data-testid="${id}"]`);
          const box = element?.getBoundingClientRect();
          if (!box || box.width === 0 || box.left < 0 || box.top < 0 || box.right > innerWidth + 0.5 || box.bottom > innerHeight + 0.5) {
            report.push({ id, box: box && { left: box.left, top: box.top, right: box.right, bottom: box.bottom } });
          }
        }
        return { report, scrollX, innerWidth, scrollWidth: document.documentElement.scrollWidth };
      },
      [INSTRUCTOR_ONLY, ['connection-status', 'role', 'sim-time', 'step-counter', 'lab-mode']],
    );
    saveArtifact(artifactName('toolbar.png'), await page.screenshot());
    assert.deepEqual(
      outside.report,
      [],
      `at ${VIEWPORT.width}×${VIEWPORT.height} these are out of view: ${JSON.stringify(outside)}`,
    );
    assert.equal(outside.scrollX, 0, 'the page should not be scrolled sideways');
    // Reachable without scrolling: clicking does not move the page.
    await page.locator(byTestId('btn-reset')).hover();
    assert.equal(await page.evaluate(() => scrollX), 0, 'reaching Reset scrolled the page sideways');
  });
});
