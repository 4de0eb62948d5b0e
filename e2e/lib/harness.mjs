// One test's world: a fresh real server (or a cluster's), a fresh Chromium, and pages of
// the demo lab.
// On failure it saves a screenshot of every page to E2E_ARTIFACTS and prints the
// server's log and each page's console, so a red run says what happened.

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { launchBrowser } from './browser.mjs';
import { DEFAULT_TIMEOUT_MS, waitUntil } from './poll.mjs';
import { VlabServer } from './server.mjs';
import { readUi } from './ui.mjs';

const E2E_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A common laptop screen (1366×768) less the browser's own bars. */
export const VIEWPORT = { width: 1280, height: 720 };

/** Where screenshots go (gitignored). */
export const ARTIFACTS_DIR = process.env.E2E_ARTIFACTS ?? path.join(E2E_ROOT, 'artifacts');

/** Writes `buffer` to `<E2E_ARTIFACTS>/<name>` and returns the path. */
export function saveArtifact(name, buffer) {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, name);
  writeFileSync(file, buffer);
  return file;
}

/** A file-name-safe form of a test's name. */
export const slug = (text) =>
  text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80);

/**
 * Runs `body({server, openPage, artifactName})` against a fresh server and browser, then
 * tears both down. `openPage('instructor' | 'viewer', {name, lab = 'demo', waitConnected = true, url, fail = []})`
 * opens a lab's page (or `url`, e.g. the landing page) in a new browser context (its own cookies and storage: another
 * person) and waits until it has connected; requests to URLs matching a pattern in `fail` fail from
 * the first, as on a broken connection. Uncaught errors in a page fail the test, and so
 * do errors logged to a page's console unless `allowConsoleErrors` (tests that break the
 * connection on purpose: the browser itself logs the failed websocket), or but those
 * matching one of `expectedConsoleErrors` (a refusal the page is meant to handle, which
 * the browser logs as a failed request).
 *
 * @param {import('node:test').TestContext} t
 * @param {(world: {server: VlabServer, openPage: Function, artifactName: Function}) => Promise<void>} body
 */
export async function withLab(t, body, options = {}) {
  const server = await VlabServer.start();
  try {
    await withPages(t, [server], ({ openPage, artifactName }) => body({ server, openPage, artifactName }), options);
  } finally {
    await server.dispose();
  }
}

/**
 * Runs `body({openPage, artifactName})` with a fresh browser on running `servers`, then
 * closes the browser; the servers are the caller's to stop. `openPage` is `withLab`'s,
 * with one more option, `server`: the one whose page it opens (the first by default).
 * On failure, every page's screenshot and console and every server's log are reported.
 *
 * @param {import('node:test').TestContext} t
 * @param {VlabServer[]} servers
 * @param {(world: {openPage: Function, artifactName: Function}) => Promise<void>} body
 */
export async function withPages(t, servers, body, { allowConsoleErrors = false, expectedConsoleErrors = [] } = {}) {
  const testSlug = slug(t.name);
  /** @type {{name: string, page: import('playwright-core').Page, console: string[], errors: string[]}[]} */
  const opened = [];
  let browser = null;
  try {
    browser = await launchBrowser();

    const openPage = async (
      role,
      { name = role, waitConnected = true, lab = 'demo', url, fail = [], server = servers[0] } = {},
    ) => {
      const context = await browser.newContext({ viewport: VIEWPORT });
      context.setDefaultTimeout(DEFAULT_TIMEOUT_MS);
      for (const pattern of fail) await context.route(pattern, (route) => route.abort('connectionfailed'));
      const page = await context.newPage();
      const entry = { name, page, console: [], errors: [] };
      opened.push(entry);
      page.on('console', (message) => entry.console.push(`[${message.type()}] ${message.text()}`));
      page.on('pageerror', (error) => entry.errors.push(String(error?.stack ?? error)));
      await page.goto(url ?? (role === 'instructor' ? server.instructorUrl(lab) : server.viewerUrl(lab)));
      if (waitConnected) await waitForConnected(page, `the ${name} page`);
      return page;
    };
    const artifactName = (suffix) => `${testSlug}-${suffix}`;

    await body({ openPage, artifactName });

    const crashes = opened.filter((entry) => entry.errors.length > 0);
    if (crashes.length > 0) {
      throw new Error(
        'uncaught errors in the page:\n' +
          crashes.map((entry) => `${entry.name}: ${entry.errors.join('\n')}`).join('\n'),
      );
    }
    if (!allowConsoleErrors) {
      const complaints = opened.flatMap((entry) =>
        entry.console
          .filter((line) => line.startsWith('[error]') && !expectedConsoleErrors.some((pattern) => pattern.test(line)))
          .map((line) => `${entry.name}: ${line}`),
      );
      assert.deepEqual(complaints, [], 'a healthy session logs no errors in the browser console');
    }
  } catch (error) {
    await reportFailure(t, testSlug, servers, opened);
    throw error;
  } finally {
    await browser?.close().catch(() => {});
  }
}

/** Waits until the page's connection status says `connected`. */
export async function waitForConnected(page, what = 'the page') {
  return waitUntil(`${what} to connect (connection-status data-state=connected)`, () => readUi(page), (ui) => ui.state === 'connected');
}

async function reportFailure(t, testSlug, servers, opened) {
  const lines = [`==== e2e failure: ${t.name} ====`];
  for (const entry of opened) {
    try {
      const shot = await entry.page.screenshot({ fullPage: true, timeout: 10_000 });
      lines.push(`screenshot of the ${entry.name} page: ${saveArtifact(`${testSlug}-FAILED-${entry.name}.png`, shot)}`);
    } catch (error) {
      lines.push(`no screenshot of the ${entry.name} page: ${error.message}`);
    }
    try {
      lines.push(`${entry.name} page shows: ${JSON.stringify(await readUi(entry.page))}`);
    } catch {
      // the page is gone; its console below says why
    }
    lines.push(`---- ${entry.name} page console (last 100 lines) ----`, ...entry.console.slice(-100));
    if (entry.errors.length) lines.push(`---- ${entry.name} page uncaught errors ----`, ...entry.errors);
  }
  for (const server of servers) {
    const which = servers.length > 1 ? `server ${server.label}` : 'server';
    lines.push(`---- ${which} log (last 300 lines) ----`, ...server.logLines.slice(-300));
  }
  lines.push('==== end ====');
  // stderr, not t.diagnostic: it is seen at once and whatever the reporter.
  process.stderr.write(`${lines.join('\n')}\n`);
}
