// The instructor rewinds the lab from the timeline: the demo lab runs a while and is
// paused over HTTP at step S; a student's page scrubbing back has no rewind button; the
// instructor's page scrubs back to an earlier step R of the current run, clicks "Rewind
// the lab to here", is asked inline (Cancel leaves everything as it was), confirms: the
// lab is at step R, paused, for the toolbar and the HTTP API, the page is live again, the
// run picker offers the run rewound besides the new one, and the view still shows the
// room. An earlier run offers no rewind.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { imageStats } from '../lib/png.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { joinAsStudent } from '../lib/student.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

/** What the timeline and the rewind show now, in one round trip. */
async function readRewind(page) {
  return page.evaluate(() => {
    const q = (selector) => document.querySelector(selector);
    const num = (element, name) => {
      const value = element?.getAttribute(name);
      return value === null || value === undefined || value === '' ? null : Number(value);
    };
    const bar = q('#timeline');
    const badge = q('[data-testid="timeline-badge"]');
    const rewind = q('#timeline-rewind');
    return {
      phase: bar?.getAttribute('data-phase') ?? null,
      first: num(bar, 'data-first'),
      last: num(bar, 'data-last'),
      run: num(bar, 'data-run'),
      shown: num(badge, 'data-step'),
      asked: num(badge, 'data-asked'),
      shownRun: num(badge, 'data-run'),
      badge: badge?.textContent.trim() ?? null,
      rewind: rewind && { step: num(rewind, 'data-step'), disabled: rewind.disabled, text: rewind.textContent.trim() },
      confirm: q('#timeline-confirm')?.querySelector('[data-testid="timeline-confirm-text"]')?.textContent.trim() ?? null,
      error: q('#timeline-error')?.textContent.trim() ?? null,
      runs: [...document.querySelectorAll('#timeline-run option')].map((o) => ({ run: Number(o.value), label: o.textContent.trim(), selected: o.selected })),
      framesDrawn: num(q('[data-testid="lab-canvas"]'), 'data-frames-drawn'),
    };
  });
}

/** Sets the slider as a drag ending at `step` does: input events, then change on release. */
async function dragSliderTo(page, step) {
  await page.evaluate((value) => {
    const slider = document.querySelector('#timeline-slider');
    for (const fraction of [0.5, 0.8, 1]) {
      slider.value = String(Math.round(Number(slider.value) + (value - Number(slider.value)) * fraction));
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    }
    slider.dispatchEvent(new Event('change', { bubbles: true }));
  }, step);
}

test('the instructor rewinds the lab to a step of the timeline', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const instructor = await openPage('instructor');
    await waitUntil('the lab running', () => readUi(instructor), (u) => u.mode === 'running');
    await waitUntil('6 s of simulation time', () => server.lab('demo'), (lab) => lab.time >= 6, { intervalMs: 500 });
    const paused = await server.control({ action: 'pause' });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    const S = paused.body.step;
    t.diagnostic(`paused at step ${S} (${paused.body.time.toFixed(2)} s)`);
    const live = await waitUntil(
      'the timeline to reach the paused step',
      () => readRewind(instructor),
      (v) => v.phase === 'live' && v.last === S && v.first !== null && v.first < 240,
    );
    assert.equal(live.rewind, null, 'no rewind while the page is live');
    assert.equal(live.runs.length, 0, 'one run: no run picker yet');
    const R = Math.round(S / 2);

    // A student scrubbing back to the same step gets the moment, not the rewind.
    const student = await joinAsStudent(server, openPage, 'Ada');
    await waitUntil('the student timeline', () => readRewind(student.page), (v) => v.last === S);
    await dragSliderTo(student.page, R);
    const studentSees = await waitUntil('the student page to show a moment', () => readRewind(student.page), (v) => v.phase === 'seeking' && v.asked === R);
    t.diagnostic(`student sees ${studentSees.badge}`);
    assert.equal(await student.page.locator('#timeline-rewind').count(), 0, 'a student page has no rewind');
    await student.page.locator('#timeline-live').click();

    // The instructor scrubs back to R: the bar offers the rewind to the step shown.
    await dragSliderTo(instructor, R);
    const seeking = await waitUntil(
      `the moment at step ${R}`,
      () => readRewind(instructor),
      (v) => v.phase === 'seeking' && v.asked === R && v.rewind?.step === v.shown,
    );
    const shown = seeking.shown;
    t.diagnostic(`instructor sees ${seeking.badge}; button "${seeking.rewind.text}" to step ${seeking.rewind.step}`);
    assert.ok(shown <= R && shown > 0, `the step shown (${shown}) is at or before the one asked (${R})`);
    assert.equal(seeking.rewind.step, shown, 'the rewind goes to the step on screen');
    assert.equal(seeking.rewind.text, 'Rewind the lab to here');

    // Asked inline; Cancel changes nothing.
    await instructor.locator('#timeline-rewind').click();
    const asked = await waitUntil('the confirm row', () => readRewind(instructor), (v) => v.confirm !== null);
    t.diagnostic(`confirm: ${asked.confirm}`);
    assert.match(asked.confirm, new RegExp(`^Everybody goes back to step ${shown} \\(\\d\\d:\\d\\d\\.\\d\\); programs start over\\. Rewind\\?$`));
    await instructor.locator('#timeline-rewind-cancel').click();
    await waitUntil('the confirm row to close', () => readRewind(instructor), (v) => v.confirm === null && v.rewind !== null && !v.rewind.disabled);
    assert.equal((await server.lab('demo')).step, S, 'a cancelled rewind leaves the lab where it was');

    await instructor.locator('#timeline-rewind').click();
    await waitUntil('the confirm row again', () => readRewind(instructor), (v) => v.confirm !== null);
    t.diagnostic(`confirm screenshot ${saveArtifact(artifactName('confirm.png'), await instructor.screenshot())}`);
    await instructor.locator('#timeline-rewind-yes').click();

    // The lab is at the step shown, paused, in a new run; the page is live there.
    const rewound = await waitUntil(
      `the lab rewound to step ${shown}`,
      async () => ({ lab: await server.lab('demo'), ui: await readUi(instructor), bar: await readRewind(instructor) }),
      ({ lab, ui, bar }) => {
        if (bar.error) throw new Error(`the rewind was refused: ${bar.error}`);
        return lab.step === shown && lab.mode === 'paused' && ui.step === shown && ui.mode === 'paused' && bar.phase === 'live' && bar.runs.length === 2;
      },
    );
    t.diagnostic(`rewound: lab at step ${rewound.lab.step}, ${rewound.lab.mode}; toolbar ${rewound.ui.step}, ${rewound.ui.mode}; runs ${rewound.bar.runs.map((r) => r.label).join(' | ')}`);
    assert.equal(rewound.bar.confirm, null, 'the confirm row is gone');
    assert.equal(rewound.bar.rewind, null, 'live: no rewind button');
    assert.equal(rewound.bar.last, shown, "the timeline's live end is the step rewound to");
    assert.match(rewound.bar.runs[0].label, /^Run 2 — now$/);
    assert.ok(rewound.bar.runs[0].selected);
    assert.match(rewound.bar.runs[1].label, /^Run 1 — \d\d:\d\d long$/);
    assert.equal(rewound.ui.banner, null, 'no error banner');
    // Everybody was told why the lab stood still meanwhile.
    const told = await waitUntil(
      "the student's page to say why the lab is paused",
      () => student.page.locator(byTestId('notice-text')).allTextContents(),
      (texts) => texts.some((text) => text.startsWith(`The instructor is taking the lab back to step ${shown}`)),
    );
    t.diagnostic(`the student was told: ${told.join(' | ')}`);

    // What it looks like: the room, paused at that step.
    await waitUntil('a few frames after the rewind', () => readRewind(instructor), (v) => v.framesDrawn >= rewound.bar.framesDrawn + 3);
    const canvasShot = await instructor.locator(byTestId('lab-canvas')).screenshot();
    const canvasFile = saveArtifact(artifactName('rewound-canvas.png'), canvasShot);
    const stats = imageStats(canvasShot);
    t.diagnostic(`canvas screenshot ${canvasFile}: ${JSON.stringify(stats)}`);
    assert.ok(stats.distinctColours >= 64 && stats.lumaStdDev >= 8, `the view after the rewind looks blank (${canvasFile})`);
    t.diagnostic(`page screenshot ${saveArtifact(artifactName('rewound.png'), await instructor.screenshot())}`);

    // The run rewound is kept, and watched without a rewind button.
    await instructor.locator('#timeline-run').selectOption('1');
    const earlier = await waitUntil('the start of run 1', () => readRewind(instructor), (v) => v.phase === 'seeking' && v.shownRun === 1);
    t.diagnostic(`run 1: ${earlier.badge}, steps ${earlier.first}–${earlier.last}`);
    assert.equal(earlier.rewind, null, 'an earlier run offers no rewind');
    assert.ok(earlier.last >= S - 240, `run 1 still reaches to where it was paused (${earlier.last})`);
    await instructor.locator('#timeline-live').click();
    await waitUntil('live again', () => readRewind(instructor), (v) => v.phase === 'live');
  });
});
