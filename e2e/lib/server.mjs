// The real VLab server for a test: the `vlab` binary on a free loopback port, with its
// own database in a temporary folder (or the one it is given: a cluster's), its logs
// kept (and printed when a test fails), and a small client of its HTTP API.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { DEFAULT_TIMEOUT_MS, sleep, waitUntil } from './poll.mjs';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Ports our test servers use (kept apart from anything a developer runs on 8080). */
const PORT_RANGE = { first: 18080, last: 18999 };

/** Keep at most this many log lines per server. */
const MAX_LOG_LINES = 5000;

/** Where the server binary is: `VLAB_BIN`, else the dev build in the cargo target dir. */
export function serverBinary() {
  const targetDir = process.env.CARGO_TARGET_DIR
    ? path.resolve(REPO_ROOT, process.env.CARGO_TARGET_DIR)
    : path.join(REPO_ROOT, 'target');
  const bin = process.env.VLAB_BIN ?? path.join(targetDir, 'debug', 'vlab');
  if (!existsSync(bin)) {
    throw new Error(
      `server binary not found at ${bin}: run \`cargo xtask test\`, or build it ` +
        '(`cargo build -p vlab-server --bin vlab`) and set VLAB_BIN',
    );
  }
  return bin;
}

/** Where the browser bundle is: `VLAB_WEB_DIR`, else `dist/` in the workspace. */
export function webDir() {
  const dir = process.env.VLAB_WEB_DIR ?? path.join(REPO_ROOT, 'dist');
  if (!existsSync(path.join(dir, 'index.html'))) {
    throw new Error(
      `no browser bundle in ${dir} (index.html missing): run \`cargo xtask web\` and set VLAB_WEB_DIR`,
    );
  }
  return dir;
}

/** A port in our range that nothing listens on right now. */
export async function freePort() {
  const span = PORT_RANGE.last - PORT_RANGE.first + 1;
  const start = Math.floor(Math.random() * span);
  for (let i = 0; i < 100; i += 1) {
    const port = PORT_RANGE.first + ((start + i * 7) % span);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${PORT_RANGE.first}-${PORT_RANGE.last}`);
}

function canListen(port) {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** One `vlab serve` process; `restart()` brings it back on the same port and database. */
export class VlabServer {
  /** Starts a server and waits until `GET /api/health` answers `{"ok":true}`. */
  static async start(options = {}) {
    // Test files run side by side: another one's server may take the free port found
    // before this one binds it. Then this one exits at once, and tries another port.
    for (let attempt = 1; ; attempt += 1) {
      const server = new VlabServer(options.port ?? (await freePort()), options);
      try {
        await server.#spawnAndWait();
        return server;
      } catch (error) {
        const portTaken = /address already in use/i.test(server.logs());
        if (options.port !== undefined || !portTaken || attempt >= 3) throw error;
        await server.dispose();
      }
    }
  }

  /**
   * `db`: the database (a PostgreSQL URL) instead of a SQLite file in the server's own
   * folder; `args`: more arguments of `vlab serve`; `logFilter`: its `RUST_LOG` (default
   * ours, else `info`); `label`: its name in the logs.
   */
  constructor(port, { token, label = 'vlab', db, args = [], logFilter = process.env.RUST_LOG ?? 'info' } = {}) {
    this.port = port;
    this.token = token ?? randomBytes(16).toString('hex');
    this.label = label;
    this.baseUrl = `http://127.0.0.1:${port}`;
    this.dataDir = mkdtempSync(path.join(tmpdir(), 'vlab-e2e-'));
    this.dbPath = db ?? path.join(this.dataDir, 'vlab.db');
    this.extraArgs = args;
    this.logFilter = logFilter;
    /** @type {string[]} */
    this.logLines = [];
    /** Lines logged in all, those dropped past `MAX_LOG_LINES` too. */
    this.linesLogged = 0;
    this.generation = 0;
    this.process = null;
    this.exited = null;
  }

  /** The instructor's page of a lab (the token in the URL gives the instructor role). */
  instructorUrl(lab = 'demo') {
    return `${this.baseUrl}/?lab=${encodeURIComponent(lab)}&token=${encodeURIComponent(this.token)}`;
  }

  /** A viewer's page of a lab: no token. */
  viewerUrl(lab = 'demo') {
    return `${this.baseUrl}/?lab=${encodeURIComponent(lab)}`;
  }

  async #spawnAndWait() {
    this.generation += 1;
    const generation = this.generation;
    const args = [
      'serve',
      '--addr', `127.0.0.1:${this.port}`,
      '--db', this.dbPath,
      '--web-dir', webDir(),
      '--instructor-token', this.token,
      ...this.extraArgs,
    ];
    const bin = serverBinary();
    this.#log(`[e2e] starting ${bin} ${args.join(' ')}`);
    const child = spawn(bin, args, {
      env: { ...process.env, RUST_LOG: this.logFilter, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.process = child;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.#log(`[e2e] server (run ${generation}) exited: code ${code}, signal ${signal}`);
        resolve({ code, signal });
      });
      child.once('error', (error) => {
        this.#log(`[e2e] could not start the server: ${error.message}`);
        resolve({ code: null, signal: null, error });
      });
    });
    for (const stream of [child.stdout, child.stderr]) {
      let pending = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk) => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop();
        for (const line of lines) this.#log(line);
      });
      stream.on('end', () => pending && this.#log(pending));
    }

    let exitedEarly = null;
    this.exited.then((status) => (exitedEarly = status));
    try {
      await waitUntil(
        `GET ${this.baseUrl}/api/health to answer {"ok":true}`,
        async () => {
          if (exitedEarly) {
            throw new Error(`the server exited before it was healthy: ${JSON.stringify(exitedEarly)}`);
          }
          const response = await fetch(`${this.baseUrl}/api/health`, { signal: AbortSignal.timeout(2000) });
          return response.ok ? await response.json() : { status: response.status };
        },
        (body) => body?.ok === true,
        { timeoutMs: DEFAULT_TIMEOUT_MS, intervalMs: 100 },
      );
    } catch (error) {
      error.message += `\n--- server log ---\n${this.logs()}`;
      await this.stop();
      throw error;
    }
  }

  #log(line) {
    this.linesLogged += 1;
    this.logLines.push(line);
    if (this.logLines.length > MAX_LOG_LINES) this.logLines.splice(0, this.logLines.length - MAX_LOG_LINES);
  }

  /** The lines kept of those logged after the first `linesLogged` (a count read earlier). */
  logLinesSince(linesLogged) {
    const after = this.linesLogged - linesLogged;
    return after <= 0 ? [] : this.logLines.slice(-after);
  }

  /** Everything the server printed, all runs. */
  logs() {
    return this.logLines.join('\n');
  }

  get running() {
    return this.process !== null && this.process.exitCode === null && this.process.signalCode === null;
  }

  /** Kills the process at once (SIGKILL): the server vanishes as in a crash or a cut cable. */
  async kill() {
    if (!this.running) return;
    this.process.kill('SIGKILL');
    await this.exited;
  }

  /** Asks the process to stop (SIGTERM), killing it if it has not within 5 s. */
  async stop() {
    if (!this.running) return;
    this.process.kill('SIGTERM');
    const done = await Promise.race([this.exited, sleep(5000).then(() => null)]);
    if (done === null && this.running) {
      this.#log('[e2e] the server ignored SIGTERM for 5 s: killing it');
      this.process.kill('SIGKILL');
      await this.exited;
    }
  }

  /** Starts the server again on the same port, database and token. */
  async restart() {
    await this.stop();
    await this.#spawnAndWait();
  }

  /** Stops the server and deletes its database. */
  async dispose() {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** `GET /api/labs/{lab}`: `{id, name, mode, rate, step, time, dt_secs, bodies, ...}`. */
  async lab(lab = 'demo') {
    const response = await this.request('GET', `/api/labs/${encodeURIComponent(lab)}`);
    if (response.status !== 200) {
      throw new Error(`GET /api/labs/${lab} answered ${response.status}: ${JSON.stringify(response.body)}`);
    }
    return response.body;
  }

  /**
   * `POST /api/labs/{lab}/control` with the instructor token (or `token`, `null` for none).
   * Returns `{status, body}` without judging it.
   */
  async control(action, { lab = 'demo', token = this.token } = {}) {
    return this.request('POST', `/api/labs/${encodeURIComponent(lab)}/control`, { body: action, token });
  }

  /** A JSON request to the API; returns `{status, body}` (body `null` when empty or not JSON). */
  async request(method, route, { body, token } = {}) {
    const headers = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (token) headers.authorization = `Bearer ${token}`;
    const response = await fetch(`${this.baseUrl}${route}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    let parsed = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = { unparsed: text };
    }
    return { status: response.status, body: parsed };
  }
}
