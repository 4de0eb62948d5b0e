// A lab survives its server, with a page open (docs/operations.md, "Running a cluster"):
// two cluster servers, the demo lab running on the first (A), a robot added to it through
// the second (B), and a viewer's page on B watching it through B's mirror. A is killed
// with SIGKILL; B takes the lab's lease over and restores it from the database, and the
// page, never reloaded, reconnects by itself and shows the lab running again with every
// robot, the one added through B too.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { SERVICES_MISSING, clusterServices, withCluster } from '../lib/cluster.mjs';
import { saveArtifact } from '../lib/harness.mjs';
import { DEFAULT_TIMEOUT_MS, waitUntil } from '../lib/poll.mjs';
import { byTestId, readUi } from '../lib/ui.mjs';

/**
 * A robot added through B before the kill: acknowledged, so kept in the database. The lab
 * chooses its start (`{x}`, `{z}`): the demo's rovers push its props about.
 */
const ROBOT = 'kept_bot';
const DESCRIPTION = `robot ${ROBOT} { body { ${ROBOT}_base { shape box(0.5, 0.3, 0.5); pos({x}, 0.2, {z}); material "Green"; } } }`;

/**
 * How long the page may take to run the lab again after the kill: the lease expires 10 s
 * after its last renewal and another server claims it within 2 s (about 15 s in all), then
 * the page's reconnection backs off up to 5 s; on a loaded machine SwiftShader's page is
 * slow to answer. A guard against a hang, not a measure.
 */
const FAILOVER_PATIENCE_MS = 1.5 * DEFAULT_TIMEOUT_MS;

/**
 * What the browser may log while the lab moves: a websocket or a request refused (503,
 * "this lab is moving to another server") or cut off with its server.
 */
const PAGE_SEES_THE_MOVE = [
  /WebSocket connection to '.*' failed/,
  /Failed to load resource: the server responded with a status of 503/,
];

/** The robots the page lists, by name, sorted. */
const listedRobots = (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('[data-testid="robot-item"]')].map((item) => item.getAttribute('data-robot')).sort(),
  );

/**
 * Marks the page's window (a reload would lose the mark) and records every connection
 * state the page shows from now on, in order.
 */
const markPage = (page, mark) =>
  page.evaluate((mark) => {
    window.__failoverMark = mark;
    const states = [];
    window.__failoverStates = states;
    const record = () => {
      const state = document.querySelector('[data-testid="connection-status"]')?.getAttribute('data-state') ?? null;
      if (states[states.length - 1] !== state) states.push(state);
    };
    record();
    new MutationObserver(record).observe(document.documentElement, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-state'],
    });
  }, mark);

const readMark = (page) =>
  page.evaluate(() => ({ mark: window.__failoverMark ?? null, states: window.__failoverStates ?? [] }));

/**
 * Waits until the page shows a step past the one it showed at the poll before (the lab
 * runs, and not a page still showing what it last had); returns both.
 */
async function stepAdvances(page, what, options) {
  let previous = null;
  const advanced = await waitUntil(
    `${what}: the step shown to advance`,
    async () => {
      const step = (await readUi(page)).step;
      const seen = { from: previous, to: step };
      previous = step;
      return seen;
    },
    ({ from, to }) => from !== null && to !== null && to > from,
    options,
  );
  return [advanced.from, advanced.to];
}

test(
  'kill -9 of a lab\'s server: its page on another server goes on by itself',
  { timeout: 600_000, skip: clusterServices() ? false : SERVICES_MISSING },
  async (t) => {
    await withCluster(t, ['a', 'b'], async ({ cluster, openPage, artifactName }) => {
      const [a, b] = [cluster.server('a'), cluster.server('b')];
      // A started alone and opened the demo lab: it runs there.
      await cluster.leaseHeldBy('a', 'demo');

      // A robot added through B, which sends the upload to A: acknowledged.
      const added = await fetch(`${b.baseUrl}/api/labs/demo/robots`, {
        method: 'POST',
        headers: { authorization: `Bearer ${b.token}`, 'content-type': 'text/plain' },
        body: DESCRIPTION,
      });
      const answer = await added.text();
      assert.equal(added.status, 200, `adding ${ROBOT} through B: ${answer}`);
      t.diagnostic(`${ROBOT} added through B: ${JSON.stringify(JSON.parse(answer).robots)}`);

      const page = await openPage('viewer', { server: b });
      await waitUntil(
        `the page on B to show the demo lab running, drawn, with ${ROBOT}`,
        async () => ({ ui: await readUi(page), robots: await listedRobots(page) }),
        ({ ui, robots }) => ui.mode === 'running' && ui.framesDrawn > 0 && robots.includes(ROBOT),
      );
      // Past the first checkpoint (step 1,200) by more than the 5 s A may take to keep it
      // (1,200 steps at real time).
      await waitUntil(
        'the lab on A to run past step 2,500',
        async () => readUi(page),
        (ui) => ui.step > 2500,
        { timeoutMs: FAILOVER_PATIENCE_MS },
      );
      const runningOnA = await stepAdvances(page, 'the lab on A, seen from B');
      const before = { ui: await readUi(page), robots: await listedRobots(page) };
      t.diagnostic(`before the kill: steps ${runningOnA.join(' → ')}, robots ${before.robots.join(', ')}`);
      saveArtifact(artifactName('before-kill.png'), await page.screenshot());

      const mark = `mark-${Date.now()}`;
      await markPage(page, mark);
      const bLogged = b.linesLogged;
      await cluster.kill('a');
      const killed = Date.now();

      // B claims the lease and restores the lab from the database.
      await cluster.leaseHeldBy('b', 'demo', { since: bLogged, timeoutMs: FAILOVER_PATIENCE_MS });
      t.diagnostic(`B held the demo lab's lease ${((Date.now() - killed) / 1000).toFixed(1)} s after the kill`);

      // The page lost its connection and made a new one by itself (a reload ends the wait too).
      const seen = await waitUntil(
        'the page to lose its connection and connect again',
        async () => ({ ui: await readUi(page), ...(await readMark(page)) }),
        ({ ui, mark: kept, states }) =>
          kept !== mark || (ui.state === 'connected' && states.some((state) => state !== 'connected')),
        { timeoutMs: FAILOVER_PATIENCE_MS },
      );
      assert.equal(seen.mark, mark, 'the page was reloaded: its window lost the mark set before the kill');
      t.diagnostic(`the page's connection states since the kill: ${seen.states.join(' → ')}`);
      const runningOnB = await stepAdvances(page, 'the lab on B', { timeoutMs: FAILOVER_PATIENCE_MS });
      t.diagnostic(
        `running again ${((Date.now() - killed) / 1000).toFixed(1)} s after the kill: steps ${runningOnB.join(' → ')}`,
      );
      // It went on from A's last kept checkpoint, not from step 0 (while B restores it, the
      // lab stands paused at step 0 until it goes on from there).
      const resumed = await waitUntil(
        'the page to show the lab running on B',
        async () => readUi(page),
        (ui) => ui.state === 'connected' && ui.mode === 'running' && ui.step !== null,
        { timeoutMs: FAILOVER_PATIENCE_MS },
      );
      assert.ok(resumed.step >= 1200, `the lab on B went on from step ${resumed.step}, before A's kept checkpoint`);

      const after = await waitUntil(
        'the page to list the same robots as before and show no error',
        async () => ({ ui: await readUi(page), robots: await listedRobots(page), ...(await readMark(page)) }),
        ({ ui, robots }) => ui.banner === null && ui.mode === 'running' && robots.join() === before.robots.join(),
        { timeoutMs: FAILOVER_PATIENCE_MS },
      );
      saveArtifact(artifactName('after-takeover.png'), await page.screenshot());
      assert.equal(after.mark, mark, 'the page was reloaded: its window lost the mark set before the kill');
      assert.ok(after.robots.includes(ROBOT), `${ROBOT}, added through B before the kill, is gone`);
      assert.equal(after.ui.bodies, before.ui.bodies, 'the lab on B has not the bodies it had on A');
      assert.equal(after.ui.role, 'viewer');
      // The lab answers from B, running, and A is gone.
      const lab = await b.lab('demo');
      assert.equal(lab.mode, 'running', JSON.stringify(lab));
      assert.equal(a.running, false);
    }, { expectedConsoleErrors: PAGE_SEES_THE_MOVE });
  },
);
