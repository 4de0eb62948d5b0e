// The screens classes have: a 1366×768 laptop, a 1024×768 one, a tablet upright
// (820×1180) and sideways (1180×820). At each, the instructor and a student with the
// Add-robot form open: the 3D view stays usable (at least half the width beside the
// form, or a band of its own above it on an upright tablet), nothing covers the form's
// title, the timeline stays under the view, and no control needs sideways scrolling.
// Screenshots of each are saved to be looked at.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { joinAsStudent } from '../lib/student.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

const SCREENS = [
  { name: 'laptop-1366x768', width: 1366, height: 768, stacked: false },
  { name: 'laptop-1024x768', width: 1024, height: 768, stacked: false },
  { name: 'tablet-sideways-1180x820', width: 1180, height: 820, stacked: false },
  { name: 'tablet-upright-820x1180', width: 820, height: 1180, stacked: true },
];

/** Boxes of the parts that matter, in CSS pixels of the window. */
async function layout(page) {
  return page.evaluate(() => {
    const box = (selector) => {
      const element = document.querySelector(selector);
      if (!element) return null;
      const r = element.getBoundingClientRect();
      return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height };
    };
    return {
      canvas: box('[data-testid="lab-canvas"]'),
      form: box('[data-testid="robot-upload"]'),
      formTitle: box('[data-testid="robot-upload"] .panel-header'),
      timeline: box('#timeline') ?? box('[data-testid="timeline"]'),
      toggles: box('[data-testid="view-toggles"]'),
      topView: box('[data-testid="btn-top-view"]'),
      upload: box('[data-testid="btn-upload-robot"]'),
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth,
    };
  });
}

const overlaps = (a, b) => a && b && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

test('the lab fits the screens classes have, with the Add-robot form open', { timeout: 600_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const instructor = await openPage('instructor');
    const { page: student } = await joinAsStudent(server, openPage, 'Tablet');
    for (const screen of SCREENS) {
      for (const [who, page] of [['instructor', instructor], ['student', student]]) {
        await page.setViewportSize({ width: screen.width, height: screen.height });
        if ((await page.locator(byTestId('robot-upload')).count()) === 0) {
          await page.locator(byTestId('btn-open-robot-upload')).click();
        }
        await page.locator(byTestId('robot-upload')).waitFor();
        await waitUntil(`the view to be drawn at ${screen.name}`, () => readUi(page), (u) => u.framesDrawn > 0);
        await page.waitForTimeout(300); // a frame at the new size
        const seen = await layout(page);
        saveArtifact(artifactName(`${screen.name}-${who}.png`), await page.screenshot());
        const where = `${who} at ${screen.name}: ${JSON.stringify(seen)}`;
        t.diagnostic(`${who} at ${screen.name}: view ${Math.round(seen.canvas.width)}×${Math.round(seen.canvas.height)}, form ${Math.round(seen.form.width)}×${Math.round(seen.form.height)}`);
        assert.ok(seen.scrollWidth <= seen.innerWidth + 1, `no sideways scrolling: ${where}`);
        if (screen.stacked) {
          assert.ok(seen.canvas.width >= screen.width - 2 && seen.canvas.height >= 300, `the view is a band across the screen: ${where}`);
          assert.ok(seen.form.top >= seen.canvas.bottom - 1, `the form comes under the view: ${where}`);
        } else {
          assert.ok(seen.canvas.width >= screen.width * 0.45, `the view keeps at least about half the width: ${where}`);
          assert.ok(seen.form.left >= seen.canvas.right - 1, `the form is beside the view: ${where}`);
        }
        assert.ok(!overlaps(seen.formTitle, seen.toggles) && !overlaps(seen.formTitle, seen.topView), `nothing covers the form's title: ${where}`);
        assert.ok(!overlaps(seen.timeline, seen.form), `the timeline stays under the view: ${where}`);
        await page.locator(byTestId('btn-upload-robot')).scrollIntoViewIfNeeded();
        const upload = await layout(page);
        assert.ok(upload.upload && upload.upload.width > 40 && upload.upload.right <= screen.width + 0.5, `Upload can be reached: ${where}`);
      }
    }
  });
});
