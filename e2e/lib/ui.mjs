// The app's test hooks (`data-testid` attributes), read in one round trip per poll.

/** Every control only an instructor may see. A viewer's page must have none of them. */
export const INSTRUCTOR_ONLY = [
  'time-controls',
  'btn-play-pause',
  'step-count',
  'btn-step',
  'rate-select',
  'btn-reset',
  'btn-open-scene-editor',
];

/** The `[data-testid=…]` selector of a hook. */
export const byTestId = (id) => `[data-testid="${id}"]`;

/**
 * What the page shows now:
 * `{state, role, time, step, mode, bodies, framesDrawn, banner, instructorControls}`.
 * Numbers are `null` while their hook is missing or empty; `banner` is the error banner's
 * text when it is shown, else `null`; `instructorControls` lists the instructor-only hooks
 * present in the page.
 */
export async function readUi(page) {
  return page.evaluate((instructorOnly) => {
    const q = (id) => document.querySelector(`[data-testid="${id}"]`);
    const attr = (id, name) => q(id)?.getAttribute(name) ?? null;
    const num = (id, name) => {
      const value = attr(id, name);
      return value === null || value.trim() === '' ? null : Number(value);
    };
    const shown = (element) => {
      if (!element) return false;
      const style = getComputedStyle(element);
      return style.display !== 'none' && style.visibility !== 'hidden' && element.getClientRects().length > 0;
    };
    const banner = q('error-banner');
    const bannerText = banner?.textContent?.trim() ?? '';
    return {
      state: attr('connection-status', 'data-state'),
      role: q('role')?.textContent?.trim().toLowerCase() ?? null,
      time: num('sim-time', 'data-time'),
      step: num('step-counter', 'data-step'),
      mode: attr('lab-mode', 'data-mode'),
      bodies: num('lab-canvas', 'data-bodies'),
      framesDrawn: num('lab-canvas', 'data-frames-drawn'),
      banner: shown(banner) && bannerText !== '' ? bannerText : null,
      instructorControls: instructorOnly.filter((id) => q(id) !== null),
    };
  }, INSTRUCTOR_ONLY);
}
