// When the server goes away, the page says so (status leaves `connected`, the error banner
// explains), and when it comes back on the same address the page reconnects by itself.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { DEFAULT_TIMEOUT_MS, waitUntil } from '../lib/poll.mjs';
import { readUi } from '../lib/ui.mjs';

test('the page reports a lost server and reconnects when it returns', { timeout: 420_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const page = await openPage('instructor');
    await waitUntil('the scene to be drawn', () => readUi(page), (u) => u.bodies > 0);

    await server.kill();
    const lost = await waitUntil(
      'the connection status to leave connected (reconnecting or unreachable) with an error banner',
      () => readUi(page),
      (u) => (u.state === 'reconnecting' || u.state === 'unreachable') && u.banner !== null,
    );
    t.diagnostic(`while the server is down: state=${lost.state}, banner=${JSON.stringify(lost.banner)}`);
    assert.ok(lost.banner.length >= 10, `the error banner should explain, it says ${JSON.stringify(lost.banner)}`);
    assert.match(lost.banner, /server|connect|reach|offline|network/i, 'the error banner should say the server cannot be reached');
    saveArtifact(artifactName('server-down.png'), await page.screenshot());

    await server.restart();
    const back = await waitUntil(
      'the page to reconnect to the restarted server',
      () => readUi(page),
      (u) => u.state === 'connected',
      { timeoutMs: 2 * DEFAULT_TIMEOUT_MS },
    );
    t.diagnostic(`after the restart: ${JSON.stringify(back)}`);
    await waitUntil('the error banner to go once reconnected', () => readUi(page), (u) => u.state === 'connected' && u.banner === null);
    await waitUntil('the scene to be drawn again', () => readUi(page), (u) => u.bodies > 0);
    saveArtifact(artifactName('reconnected.png'), await page.screenshot());
  }, { allowConsoleErrors: true });
});
