// Headless Chromium with WebGL2 on the CPU (SwiftShader): Debian's /usr/bin/chromium,
// never a downloaded build. The flags below are the set found to give WebGL2 without
// GPU-process crashes; without the background-networking ones Chromium keeps trying
// to reach the network at every start.

import { existsSync } from 'node:fs';

import { chromium } from 'playwright-core';

/** The flags that give WebGL2 in headless Chromium without a GPU. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--ignore-gpu-blocklist',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

/**
 * Launches Chromium. Playwright gives every launch a fresh, temporary user-data dir
 * (deleted on close), so no state leaks between tests.
 */
export async function launchBrowser() {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    throw new Error(
      `Chromium not found at ${executablePath}: \`cargo xtask test\` installs Debian's chromium, ` +
        'or set CHROMIUM_PATH',
    );
  }
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
}
