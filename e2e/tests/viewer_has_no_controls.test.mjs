// A viewer watches: no time controls in the page, and the server refuses time control
// without the instructor's token (permissions live on the server, not only in the UI).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { readUi } from '../lib/ui.mjs';

test('a viewer has no time controls and cannot control time', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const viewer = await openPage('viewer');
    const ui = await waitUntil(
      'the viewer page to show its role and the scene',
      () => readUi(viewer),
      (u) => u.role === 'viewer' && u.bodies > 0,
    );
    assert.deepEqual(ui.instructorControls, [], 'a viewer must not get any time control');

    for (const [who, token] of [['no token', null], ['a wrong token', 'not-the-token']]) {
      const answer = await server.control({ action: 'pause' }, { token });
      assert.ok(
        answer.status === 401 || answer.status === 403,
        `pause with ${who} should be refused with 401/403, got ${answer.status} ${JSON.stringify(answer.body)}`,
      );
      assert.equal(typeof answer.body?.error?.message, 'string', `the refusal should carry {"error":{"message"}}: ${JSON.stringify(answer.body)}`);
    }
    const lab = await server.lab('demo');
    assert.equal(lab.mode, 'running', 'a refused pause must not pause the lab');

    saveArtifact(artifactName('viewer.png'), await viewer.screenshot());
  });
});
