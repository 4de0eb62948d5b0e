// A link to a lab that does not exist says so plainly, and the page stops retrying.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { readUi } from '../lib/ui.mjs';

test('a page for an unknown lab reports not found', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const page = await openPage('viewer', { waitConnected: false, lab: 'no-such-lab' });
    const ui = await waitUntil(
      'the connection status to be not_found with an error banner',
      () => readUi(page),
      (u) => u.state === 'not_found' && u.banner !== null,
    );
    assert.match(ui.banner, /no-such-lab/, 'the banner should name the lab that was not found');

    const answer = await server.request('GET', '/api/labs/no-such-lab');
    assert.equal(answer.status, 404, `GET /api/labs/no-such-lab should be 404, got ${answer.status}`);
    assert.equal(typeof answer.body?.error?.message, 'string', `a 404 carries {"error":{"message"}}: ${JSON.stringify(answer.body)}`);

    saveArtifact(artifactName('not-found.png'), await page.screenshot());
  }, { allowConsoleErrors: true });
});
