// A cluster of real servers for a test (docs/operations.md, "Running a cluster"): `vlab
// serve --cluster` processes sharing the NATS server and PostgreSQL that
// `VLAB_TEST_NATS_URL` and `VLAB_TEST_POSTGRES_URL` name (`cargo xtask test` starts both
// and sets them), a fresh database and a cluster name of the test's own, so that runs
// side by side never see each other; each server's log is kept like a lone server's.

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { withPages } from './harness.mjs';
import { waitUntil } from './poll.mjs';
import { VlabServer } from './server.mjs';

const run = promisify(execFile);

/** The variables naming the services, as the Rust tests' kit reads them. */
export const NATS_URL_VAR = 'VLAB_TEST_NATS_URL';
export const POSTGRES_URL_VAR = 'VLAB_TEST_POSTGRES_URL';

/** `{nats, postgres}` (a superuser URL) from the environment, or `null` when either is unset. */
export function clusterServices() {
  const nats = process.env[NATS_URL_VAR]?.trim();
  const postgres = process.env[POSTGRES_URL_VAR]?.trim();
  return nats && postgres ? { nats, postgres } : null;
}

/** Why a cluster test is skipped when the services are not named. */
export const SERVICES_MISSING =
  `cluster mode needs NATS and PostgreSQL: run it through \`cargo xtask test\`, which starts both, ` +
  `or set ${NATS_URL_VAR} (nats://…, JetStream on) and ${POSTGRES_URL_VAR} (a superuser's postgres://…)`;

/** A name no other test has: `prefix`, this process and random hex (letters, digits, `_`). */
const uniqueName = (prefix) => `${prefix}_${process.pid}_${randomBytes(6).toString('hex')}`;

/** Runs `sql` on PostgreSQL at `url` with Debian's `psql`. */
async function psql(url, sql) {
  try {
    await run('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql], { timeout: 60_000 });
  } catch (error) {
    throw new Error(`psql ${JSON.stringify(sql)} failed (Debian's postgresql-client): ${error.stderr || error.message}`);
  }
}

/** An empty database of its own on PostgreSQL; `drop()` removes it. */
export class TestDatabase {
  static async create(serverUrl) {
    const name = uniqueName('vlab_e2e');
    await psql(serverUrl, `CREATE DATABASE "${name}"`);
    return new TestDatabase(serverUrl, name);
  }

  constructor(serverUrl, name) {
    this.serverUrl = serverUrl;
    this.name = name;
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    this.url = url.toString();
  }

  /** Drops it, closing the connections left to it (those of killed servers). */
  async drop() {
    await psql(this.serverUrl, `DROP DATABASE IF EXISTS "${this.name}" WITH (FORCE)`);
  }
}

/** `vlab serve --cluster` processes on one database, one server key and one cluster name. */
export class VlabCluster {
  /**
   * Starts one server per id in `ids`, one after the other: the first alone makes the
   * directory's buckets, the server key and the demo lab, which it then runs.
   */
  static async start(ids = ['a', 'b'], services = clusterServices()) {
    if (!services) throw new Error(SERVICES_MISSING);
    const cluster = new VlabCluster(services, await TestDatabase.create(services.postgres));
    try {
      for (const id of ids) await cluster.#startServer(id);
    } catch (error) {
      await cluster.dispose();
      throw error;
    }
    return cluster;
  }

  constructor(services, database) {
    this.services = services;
    this.database = database;
    this.name = uniqueName('e2e');
    this.token = randomBytes(16).toString('hex');
    this.folder = mkdtempSync(path.join(tmpdir(), 'vlab-e2e-cluster-'));
    /** @type {VlabServer[]} */
    this.servers = [];
  }

  async #startServer(id) {
    // Its key file, and what is kept beside it (compiled programs), a file of its own.
    const keyFile = path.join(this.folder, `${id}.key`);
    const server = await VlabServer.start({
      token: this.token,
      label: id,
      db: this.database.url,
      args: ['--cluster', this.services.nats, '--cluster-name', this.name, '--server-id', id, '--key-file', keyFile],
      // Who holds which lease is read from the log (`leaseHeldBy`), whatever RUST_LOG says.
      logFilter: `${process.env.RUST_LOG ?? 'info'},vlab_server::cluster=info`,
    });
    this.servers.push(server);
  }

  /** Server `id`. */
  server(id) {
    const server = this.servers.find((s) => s.label === id);
    if (!server) throw new Error(`no server ${id} in this cluster (${this.servers.map((s) => s.label).join(', ')})`);
    return server;
  }

  /**
   * Waits until server `id` says in its log that it holds lab `lab`'s lease, counting
   * only what it logged after its first `since` lines (its `linesLogged` read earlier,
   * for a later claim); returns the log line.
   */
  async leaseHeldBy(id, lab, { since = 0, timeoutMs } = {}) {
    const server = this.server(id);
    const claimed = (line) => line.includes("this server holds the lab's lease") && line.includes(`lab=${lab}`);
    return waitUntil(
      `server ${id} to log that it holds lab ${lab}'s lease`,
      () => server.logLinesSince(since).find(claimed),
      (line) => line !== undefined,
      timeoutMs === undefined ? {} : { timeoutMs },
    );
  }

  /** Kills server `id` at once (SIGKILL), as a crash or a cut cable. */
  async kill(id) {
    await this.server(id).kill();
  }

  /** Stops every server, deletes their folders and drops the database. */
  async dispose() {
    for (const server of this.servers) await server.dispose();
    rmSync(this.folder, { recursive: true, force: true });
    await this.database.drop();
  }
}

/**
 * Runs `body({cluster, openPage, artifactName})` on a fresh cluster of servers `ids` and a
 * fresh browser (`withPages`: `openPage(role, {server, ...})`), then stops everything.
 */
export async function withCluster(t, ids, body, options = {}) {
  const cluster = await VlabCluster.start(ids);
  try {
    await withPages(t, cluster.servers, (world) => body({ cluster, ...world }), options);
  } finally {
    await cluster.dispose();
  }
}
