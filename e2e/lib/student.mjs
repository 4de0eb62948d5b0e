// A student in the browser: joining a lab by its code, and reading what the Add-robot
// panel (its editors, its result) and a robot's console show.

import { waitForConnected } from './harness.mjs';
import { waitUntil } from './poll.mjs';
import { byTestId, readUi } from './ui.mjs';

/**
 * Opens the front page in a new context, joins lab `lab` (the demo lab unless given; its
 * instructor's token `instructorToken` reads its join code) with its join code as `name`
 * and waits for the student's lab page. Returns `{page, token, consoleErrors}`
 * (`consoleErrors`: the page's console errors, to filter: Chromium logs 4xx answers).
 */
export async function joinAsStudent(server, openPage, name, { lab: labId = 'demo', instructorToken = server.token } = {}) {
  const lab = await server.request('GET', `/api/labs/${labId}`, { token: instructorToken });
  const code = lab.body?.join_code;
  if (!/^[A-Z0-9]+$/.test(code ?? '')) throw new Error(`no join code: ${JSON.stringify(lab.body)}`);
  const page = await openPage('viewer', { name: 'student', url: `${server.baseUrl}/`, waitConnected: false });
  const consoleErrors = [];
  page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
  await page.locator(byTestId('join-code')).fill(code);
  await page.locator(byTestId('join-name')).fill(name);
  await page.locator(byTestId('btn-join')).click();
  await page.waitForURL(new RegExp(`[?&]lab=${labId}`));
  await waitForConnected(page, 'the student page');
  await waitUntil('the student role', () => readUi(page), (u) => u.role === 'student' && u.bodies > 0);
  // The token leaves the address bar once the page has it; the tab keeps it.
  await waitUntil('the token to leave the address bar', () => page.url(), (url) => !url.includes('token='));
  const token = await page.evaluate((id) => sessionStorage.getItem(`vlab-link-token:${id}`), labId);
  if (!token) throw new Error('the tab did not keep its link token');
  return { page, token, consoleErrors };
}

/** What the Add-robot panel and the robot's console show now. */
export async function readProgramUi(page) {
  return page.evaluate(() => {
    const q = (id) => document.querySelector(`[data-testid="${id}"]`);
    const all = (id) => [...document.querySelectorAll(`[data-testid="${id}"]`)];
    const source = q('program-source');
    return {
      panelTitle: q('robot-upload-title')?.textContent?.trim() ?? null,
      examples: all('robot-example').flatMap((s) => [...s.options].map((o) => o.value)),
      description: q('scene-source')?.value ?? null,
      program: source?.value ?? null,
      programCaretLine: source ? source.value.slice(0, source.selectionStart).split('\n').length : null,
      programFocused: source !== null && document.activeElement === source,
      outcome: q('scene-result')?.getAttribute('data-outcome') ?? null,
      result: q('scene-result')?.textContent?.trim() ?? null,
      note: q('robot-upload-note')?.textContent?.trim() ?? null,
      errors: all('scene-error').map((e) => e.textContent.trim()),
      programErrorLine: q('program-error-line')?.getAttribute('data-line') ?? null,
      descriptionErrorLine: q('scene-error-line')?.getAttribute('data-line') ?? null,
      programHighlighted: source?.parentElement?.querySelector('.code-highlight .tok-kw') != null,
      console: q('robot-console') !== null,
      state: q('program-status')?.getAttribute('data-state') ?? null,
      headline: q('program-status')?.textContent?.trim() ?? null,
      message: q('program-message')?.textContent ?? null,
      lines: all('console-line').map((line) => ({
        step: Number(line.getAttribute('data-step')),
        source: line.getAttribute('data-source'),
        text: line.querySelector('.console-text')?.textContent ?? '',
        bold: line.querySelector('b') !== null,
      })),
    };
  });
}
