// A scene with a mesh and library materials is drawn with them: after the instructor
// uploads wheels (`shape mesh("wheel.mesh", ...)`), a glass pane and textured boxes, the
// page fetches the triangles of /assets/wheel.obj (`/api/triangles?mesh=...`: the server
// reads the file) and the textures once each, every one answers 200, and
// no error is logged (a mesh that does not exist is only a warning; its collision shape
// is drawn and nothing is fetched for it). The code that makes meshes and textures is a
// part of the page of its own, fetched once for all of them.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { saveArtifact, withLab } from '../lib/harness.mjs';
import { waitUntil } from '../lib/poll.mjs';
import { byTestId } from '../lib/ui.mjs';

const SCENE = `
wheel_a { shape mesh("wheel.mesh", 0.006); customgeom cylinder(0.51, 0.42); pos(5, 0.52, 9.5); material "Steel"; }
static glass_pane { shape box(2.4, 1.6, 0.05); pos(6, 0.8, 8.8); material "Glass"; }
stripes_box { shape box(0.8, 0.8, 0.8); pos(7.5, 0.4, 9.5); material "RedStripes"; }
ghost { shape mesh("nosuch.mesh", 1); customgeom sphere(0.3); pos(4, 0.3, 8); }
`;

test('meshes and textured materials are fetched once and drawn', { timeout: 300_000 }, async (t) => {
  await withLab(t, async ({ server, openPage, artifactName }) => {
    const page = await openPage('viewer');
    /** @type {Map<string, number[]>} */
    const assets = new Map();
    /** Statuses of the `scene_assets` part's fetches. */
    const assetsPart = [];
    page.on('response', (response) => {
      const url = new URL(response.url());
      if (/^\/split_scene_assets-[0-9a-f]{16}\.wasm$/.test(url.pathname)) assetsPart.push(response.status());
      const key = url.pathname === '/api/triangles' ? `triangles of ${url.searchParams.get('mesh')}` : url.pathname;
      if (url.pathname.startsWith('/assets/') || url.pathname === '/api/triangles') {
        assets.set(key, [...(assets.get(key) ?? []), response.status()]);
      }
    });

    const upload = await fetch(`${server.baseUrl}/api/labs/demo/scene`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'text/plain' },
      body: SCENE,
    });
    const reply = await upload.json();
    assert.equal(upload.status, 200, JSON.stringify(reply));
    assert.deepEqual(
      reply.warnings.map((w) => w.message),
      ["the mesh 'nosuch.mesh' was not found: the object is drawn with its collision shape"],
    );

    await waitUntil(
      'the wheel mesh and the stripes texture to be fetched',
      async () => new Map(assets),
      (seen) => seen.has('triangles of /assets/wheel.obj') && seen.has('/assets/textures/redstripes.png'),
    );
    // Give the view a moment to draw with them, then keep a picture for people.
    await page.waitForTimeout(1500);
    const shot = await page.locator(byTestId('lab-canvas')).screenshot();
    t.diagnostic(`canvas: ${saveArtifact(artifactName('canvas.png'), shot)}; assets: ${JSON.stringify([...assets])}`);

    for (const [asset, statuses] of assets) {
      assert.deepEqual(statuses, [200], `${asset} is fetched once and served`);
    }
    assert.ok(!assets.has('/assets/wheel.obj'), 'the page does not read the OBJ file itself');
    // The page may have fetched it before the listener was set (the demo lab's floor is
    // textured): then the browser's resource list has it.
    const listed = await page.evaluate(() =>
      performance.getEntriesByType('resource').filter((entry) => /\/split_scene_assets-[0-9a-f]{16}\.wasm$/.test(entry.name)).length,
    );
    assert.equal(listed, 1, 'the part for meshes and textures is fetched once');
    assert.ok(assetsPart.every((status) => status === 200), `the part is served: ${assetsPart}`);
    assert.ok(![...assets.keys()].some((p) => p.includes('nosuch')), 'nothing is fetched for a missing mesh');
  });
});
