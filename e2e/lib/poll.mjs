// Waiting without guessing: poll a probe until a predicate holds, with a generous
// deadline, and say what was last seen when the deadline passes. Tests never assert on
// how fast something is.
//
// Why generous: SwiftShader renders WebGL on the CPU, and on a loaded 2-core machine a
// page of the demo lab was measured drawing about 1 frame/s, with a second page's main
// thread busy for up to ~30 s before it answered (its WebGL calls queue behind the first
// page's in the shared GPU process).

/** Default deadline of a wait, in milliseconds. `E2E_TIMEOUT_SCALE` stretches every wait. */
export const DEFAULT_TIMEOUT_MS = 60_000 * Number(process.env.E2E_TIMEOUT_SCALE ?? 1);

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `probe()` every `intervalMs` until `predicate(value)` is true, then returns that
 * value. Errors thrown by the probe count as "not yet" (the page may be navigating).
 *
 * @template T
 * @param {string} what        what is awaited, for the error message
 * @param {() => Promise<T> | T} probe
 * @param {(value: T) => boolean} predicate
 * @param {{ timeoutMs?: number, intervalMs?: number }} [options]
 * @returns {Promise<T>}
 */
export async function waitUntil(what, probe, predicate = Boolean, options = {}) {
  const { timeoutMs = DEFAULT_TIMEOUT_MS, intervalMs = 200 } = options;
  const deadline = Date.now() + timeoutMs;
  let last;
  let lastError;
  for (;;) {
    try {
      last = await probe();
      lastError = undefined;
      if (predicate(last)) return last;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const seen = lastError ? `last error: ${lastError.message}` : `last seen: ${describe(last)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; ${seen}`);
    }
    await sleep(intervalMs);
  }
}

function describe(value) {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
