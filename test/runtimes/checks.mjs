// The runtime checks: one plain ESM module that Node, Bun, Deno and a browser page all run unchanged against the
// built package. It uses web-standard globals only (fetch, AbortController, Headers, performance, setTimeout), no
// test framework and no `node:` module, so that what passes here is what the runtime itself does. Times are small
// and real (tens of ms): lower bounds get 2 ms of slack (Node's timers may fire up to 1 ms early as performance.now()
// sees it), upper bounds are generous for a busy CI machine.

const SLACK_MS = 2;
/** How late a timer or a settled promise may be on a loaded machine before a check calls it not prompt. */
const LATE_MS = 250;

const now = () => performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const never = () => new Promise(() => {});

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/** The error a promise rejects with; throws if it resolves. */
async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, got a value');
}

/** An error's visible shape (name, message, code, constructor, cause chain), for the report and for failures. */
export function shape(error, depth = 0) {
  if (typeof error !== 'object' || error === null) return { value: String(error) };
  const out = { constructor: error.constructor?.name, name: error.name, message: error.message };
  if (error.code !== undefined) out.code = error.code;
  if (error.errno !== undefined) out.errno = error.errno;
  if (error.syscall !== undefined) out.syscall = error.syscall;
  if (error.cause !== undefined) out.cause = depth < 3 ? shape(error.cause, depth + 1) : '...';
  return out;
}

/**
 * Tracks the library's timers: those set through the global setTimeout from a file of the build (dist/), which the
 * library looks up at call time. The runtime's own (Node's fetch keeps a 500 ms ticker of its own) are not counted.
 * Returns `stop()`, which puts the originals back and returns where each timer still pending was set.
 */
function trackTimers() {
  const { setTimeout: set, clearTimeout: clear } = globalThis;
  const live = new Map();
  let seen = 0;
  globalThis.setTimeout = (callback, ms, ...args) => {
    const id = set(() => {
      live.delete(id);
      callback(...args);
    }, ms);
    const stack = new Error().stack ?? '';
    if (stack.includes('/dist/')) {
      seen++;
      live.set(id, `${ms} ms, set at ${stack.split('\n').slice(2, 6).join(' < ')}`);
    }
    return id;
  };
  globalThis.clearTimeout = (id) => {
    live.delete(id);
    clear(id);
  };
  return () => {
    globalThis.setTimeout = set;
    globalThis.clearTimeout = clear;
    return { seen, pending: [...live.values()] };
  };
}

/** A transient failure carrying a real `Headers`, as a failed HTTP call would. */
const httpError = (status, headers) =>
  Object.assign(new Error(`HTTP ${status}`), { response: { status, headers: new Headers(headers) } });

/** Throws an Error carrying the response (status and headers) unless it is ok; else returns its text. */
async function okText(response) {
  const text = await response.text();
  if (!response.ok) throw Object.assign(new Error(`HTTP ${response.status}`), { response });
  return text;
}

/**
 * The checks, in order. Each returns nothing, or an `info` value worth reporting (the runtime's fetch error shape).
 * `env.baseUrl` is the test server (see run.mjs), `env.closedPort` a local port nothing listens on.
 */
function checks(h, env) {
  return {
    'the web globals the core uses are there': async () => {
      const globals = { setTimeout, clearTimeout, AbortController, AbortSignal, DOMException, fetch, Headers };
      for (const [name, value] of Object.entries(globals)) assert(typeof value === 'function', `${name} missing`);
      assert(typeof performance?.now() === 'number', 'performance.now() missing');
      const timeout = new DOMException('x', 'TimeoutError');
      assert(timeout.name === 'TimeoutError' && timeout instanceof Error, 'DOMException is not an Error here');
    },

    'herdless/hedge: a hedge answers for a first attempt that hangs, which is aborted': async () => {
      const { createHedge, hedged } = h.hedge;
      const signals = [];
      const attempt = ({ signal }) => {
        signals.push(signal);
        if (signals.length > 1) return Promise.resolve('hedge');
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      };
      const started = now();
      const value = await h.retry(hedged(attempt, createHedge({ delayMs: 20, maxExtraLoad: 1 })), { maxAttempts: 1 });
      const took = now() - started;
      assert(value === 'hedge', `resolved ${value}`);
      assert(signals.length === 2, `${signals.length} attempts`);
      assert(signals[0].aborted && !signals[1].aborted, 'the first attempt was not aborted, or the hedge was');
      assert(took >= 20 - SLACK_MS && took < 20 + LATE_MS, `took ${took} ms for a hedge at 20 ms`);
    },

    'retry then success': async () => {
      let calls = 0;
      const events = [];
      const value = await h.retry(
        () => {
          calls++;
          if (calls < 3) throw new Error(`blip ${calls}`);
          return 'ok';
        },
        { baseMs: 5, capMs: 10, onRetry: (event) => events.push(event) },
      );
      assert(value === 'ok', `resolved with ${value}`);
      assert(calls === 3, `${calls} calls, expected 3`);
      assert(events.length === 2 && events[0].attempt === 1 && events[1].attempt === 2, 'onRetry not called twice');
    },

    'a success clears its deadline and attempt timers': async () => {
      // Minute-long timers: left behind, they would keep the process alive (run.mjs measures its exit).
      const value = await h.retry(async () => 42, { timeoutMs: 60_000, attemptTimeoutMs: 60_000 });
      assert(value === 42, `resolved with ${value}`);
    },

    'a permanent error passes through, same identity': async () => {
      const bug = new TypeError('x is not a function');
      const notFound = Object.assign(new Error('HTTP 404'), { status: 404 });
      for (const permanent of [bug, notFound]) {
        let calls = 0;
        const error = await rejection(
          h.retry(
            () => {
              calls++;
              throw permanent;
            },
            { baseMs: 1 },
          ),
        );
        assert(error === permanent, `rejected with ${error}, not the thrown error itself`);
        assert(calls === 1, `${calls} calls for a permanent error`);
      }
    },

    "RetryError, reason 'attempts'": async () => {
      const thrown = [];
      const error = await rejection(
        h.retry(
          () => {
            const e = new Error(`blip ${thrown.length + 1}`);
            thrown.push(e);
            throw e;
          },
          { maxAttempts: 3, baseMs: 1, capMs: 2 },
        ),
      );
      assert(error instanceof h.RetryError && error instanceof Error, `not a RetryError: ${error}`);
      assert(error.name === 'RetryError' && error.reason === 'attempts', `name ${error.name}, reason ${error.reason}`);
      assert(error.attempts === 3 && thrown.length === 3, `${error.attempts} attempts, ${thrown.length} calls`);
      assert(Object.isFrozen(error.errors) && error.errors.every((e, i) => e === thrown[i]), 'errors not the thrown');
      assert(error.cause === thrown[2], 'cause is not the last error');
      assert(error.message.startsWith('gave up after 3 attempts'), `message: ${error.message}`);
      assert(error.elapsedMs >= 0 && error.elapsedMs < 1000, `elapsedMs ${error.elapsedMs}`);
    },

    "RetryError, reason 'timeout': no sleep started across the deadline": async () => {
      const start = now();
      const error = await rejection(
        h.retry(
          () => {
            throw new Error('blip');
          },
          { maxAttempts: Infinity, timeoutMs: 1_000, jitter: 'none', baseMs: 400, capMs: 400 },
        ),
      );
      const took = now() - start;
      assert(error instanceof h.RetryError && error.reason === 'timeout', `not a 'timeout' RetryError: ${error}`);
      // Attempts at 0, 400, 800 ms; the next sleep would end at 1,200 > 1,000, so it gives up at ~800 ms, before the
      // deadline. (With 40 ms sleeps and a 100 ms deadline, a 60 ms stall of a browser page just opened on a busy
      // machine left time for 1 attempt only.)
      assert(error.attempts >= 2, `${error.attempts} attempts in 1,000 ms with 400 ms sleeps`);
      assert(took < 1_000 + LATE_MS, `gave up after ${took} ms`);
    },

    "RetryError, reason 'retry-after'": async () => {
      const start = now();
      const error = await rejection(
        h.retry(
          () => {
            throw httpError(503, { 'Retry-After': '120' });
          },
          { maxRetryAfterMs: 1000, baseMs: 1 },
        ),
      );
      assert(
        error instanceof h.RetryError && error.reason === 'retry-after',
        `not a 'retry-after' RetryError: ${error}`,
      );
      assert(error.attempts === 1, `${error.attempts} attempts`);
      const took = now() - start;
      assert(took < 1000, `gave up after ${took} ms, as if waiting for the server's 120 s`);
    },

    'abort mid-sleep: prompt, reason kept': async () => {
      const controller = new AbortController();
      const reason = new Error('the user left');
      let calls = 0;
      const settled = rejection(
        h.retry(
          () => {
            calls++;
            throw new Error('blip');
          },
          { signal: controller.signal, jitter: 'none', baseMs: 5000, capMs: 5000 },
        ),
      );
      await sleep(20); // now in the 5 s sleep after the first attempt
      const abortedAt = now();
      controller.abort(reason);
      const error = await settled;
      const took = now() - abortedAt;
      assert(error === reason, `rejected with ${error}, not signal.reason`);
      assert(calls === 1, `${calls} calls`);
      assert(took < LATE_MS, `settled ${took} ms after the abort, in a 5 s sleep`);
    },

    'abort mid-attempt: the attempt signal aborts with the same reason': async () => {
      const controller = new AbortController();
      const reason = new Error('the user left');
      let signal;
      const settled = rejection(
        h.retry(
          (context) => {
            signal = context.signal;
            return never();
          },
          { signal: controller.signal, timeoutMs: 60_000 },
        ),
      );
      await sleep(10);
      controller.abort(reason);
      const error = await settled;
      assert(error === reason, `rejected with ${error}, not signal.reason`);
      assert(signal.aborted && signal.reason === reason, 'the attempt signal did not abort with the reason');
    },

    'an already aborted signal: no call': async () => {
      const reason = new Error('too late');
      let calls = 0;
      const error = await rejection(h.retry(() => calls++, { signal: AbortSignal.abort(reason) }));
      assert(error === reason && calls === 0, `rejected with ${error} after ${calls} calls`);
    },

    'the deadline aborts a hung attempt': async () => {
      let signal;
      const start = now();
      const error = await rejection(
        h.retry(
          (context) => {
            signal = context.signal;
            return never();
          },
          { timeoutMs: 50 },
        ),
      );
      const took = now() - start;
      assert(error instanceof h.RetryError && error.reason === 'timeout', `not a 'timeout' RetryError: ${error}`);
      assert(error.attempts === 1, `${error.attempts} attempts`);
      assert(error.cause?.name === 'TimeoutError', `cause ${error.cause?.name}: ${error.cause?.message}`);
      assert(signal.aborted && signal.reason === error.cause, 'the attempt signal did not abort with the cause');
      assert(took >= 50 - SLACK_MS && took < 50 + LATE_MS, `gave up after ${took} ms`);
    },

    'the attempt timeout and its signal': async () => {
      const signals = [];
      const abortedAt = [];
      const start = now();
      const error = await rejection(
        h.retry(
          ({ signal }) => {
            signals.push(signal);
            signal.addEventListener('abort', () => abortedAt.push(now() - start));
            return never();
          },
          { attemptTimeoutMs: 30, maxAttempts: 2, baseMs: 0 },
        ),
      );
      const took = now() - start;
      assert(error instanceof h.RetryError && error.reason === 'attempts', `not an 'attempts' RetryError: ${error}`);
      assert(error.attempts === 2 && signals.length === 2, `${error.attempts} attempts, ${signals.length} calls`);
      for (const [i, e] of error.errors.entries()) {
        assert(e?.name === 'TimeoutError', `error ${i + 1} is ${e?.name}: ${e?.message}`);
        assert(signals[i].aborted && signals[i].reason === e, `attempt ${i + 1}'s signal did not abort with its error`);
      }
      assert(abortedAt.length === 2 && abortedAt[0] >= 30 - SLACK_MS, `aborted at ${abortedAt.join(', ')} ms`);
      assert(took >= 60 - SLACK_MS && took < 60 + LATE_MS, `gave up after ${took} ms`);
    },

    "the attempt timeout aborts the runtime's fetch through its signal": async () => {
      let fetchError;
      const error = await rejection(
        h.retry(
          ({ signal }) =>
            fetch(`${env.baseUrl}/hang`, { signal }).catch((e) => {
              fetchError = e;
              throw e;
            }),
          { attemptTimeoutMs: 40, maxAttempts: 1 },
        ),
      );
      assert(error instanceof h.RetryError && error.cause?.name === 'TimeoutError', `rejected with ${error}`);
      // fetch rejects with the signal's reason, the very TimeoutError the attempt counted, soon after the abort.
      const abortedAt = now();
      while (fetchError === undefined && now() - abortedAt < LATE_MS) await sleep(1);
      assert(fetchError !== undefined, `fetch still pending ${LATE_MS} ms after its signal aborted`);
      assert(fetchError === error.cause, `fetch rejected with ${JSON.stringify(shape(fetchError))}`);
      return { fetchRejectedAfterMs: Math.round(now() - abortedAt) };
    },

    "computeDelay's bounds": async () => {
      const draws = [0, 0.5, 1 - 2 ** -53, Math.random()];
      const base = 100;
      const cap = 10_000;
      for (const random of draws.map((r) => () => r)) {
        let previous;
        for (let attempt = 1; attempt <= 40; attempt++) {
          const ceiling = Math.min(cap, base * 2 ** (attempt - 1));
          const full = h.computeDelay(attempt, { random });
          const equal = h.computeDelay(attempt, { jitter: 'equal', random });
          const none = h.computeDelay(attempt, { jitter: 'none', random });
          const dec = h.computeDelay(attempt, { jitter: 'decorrelated', random }, previous);
          const upper = Math.min(cap, Math.max(base, 3 * (previous ?? base)));
          assert(full >= 0 && full < ceiling, `full ${full} outside [0, ${ceiling})`);
          assert(equal >= ceiling / 2 && equal <= ceiling, `equal ${equal} outside [${ceiling / 2}, ${ceiling}]`);
          assert(none === ceiling, `none ${none} is not ${ceiling}`);
          assert(dec >= base && dec <= upper, `decorrelated ${dec} outside [${base}, ${upper}]`);
          previous = dec;
        }
      }
      assert(h.computeDelay(1e6, { jitter: 'none', capMs: 500 }) === 500, 'a huge attempt is not capped');
      const bad = await rejection((async () => h.computeDelay(0))());
      assert(bad instanceof RangeError && bad.message.startsWith('herdless: attempt must be'), `${bad}`);
    },

    'parseRetryAfter and readRetryAfter': async () => {
      const at = Date.UTC(1994, 10, 6, 8, 49, 7);
      const cases = [
        [h.parseRetryAfter('120'), 120_000],
        [h.parseRetryAfter(' 3 '), 3000],
        [h.parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', at), 30_000],
        [h.parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', at), 30_000],
        [h.parseRetryAfter('Sun Nov  6 08:49:37 1994', at), 30_000],
        [h.parseRetryAfter('Sun, 06 Nov 1994 08:49:00 GMT', at), 0],
        [h.parseRetryAfter('soon'), undefined],
        [h.parseRetryAfter('-1'), undefined],
        [h.readRetryAfter({ response: { headers: new Headers({ 'Retry-After': '3' }) } }), 3000],
        [h.readRetryAfter({ headers: new Headers({ 'Retry-After': '3', 'Retry-After-Ms': '250' }) }), 250],
        [h.readRetryAfter({ headers: { 'retry-after': '7' } }), 7000],
        [h.readRetryAfter({ headers: new Headers() }), undefined],
        [h.readRetryAfter(null), undefined],
      ];
      for (const [i, [got, expected]] of cases.entries()) assert(got === expected, `case ${i}: ${got} !== ${expected}`);
    },

    "a retry waits for a real 503's retry-after-ms": async () => {
      const key = Math.random().toString(36).slice(2);
      const events = [];
      const start = now();
      const text = await h.retry(() => fetch(`${env.baseUrl}/flaky?key=${key}&fails=1&ms=80`).then(okText), {
        baseMs: 1,
        capMs: 1,
        onRetry: (event) => events.push(event),
      });
      const took = now() - start;
      assert(text === 'ok', `resolved with ${text}`);
      assert(events.length === 1 && events[0].delayMs >= 80, `onRetry events ${JSON.stringify(events)}`);
      assert(took >= 80 - SLACK_MS, `succeeded after ${took} ms, before the server's 80 ms`);
    },

    "a real 503's Retry-After beyond maxRetryAfterMs: reason 'retry-after'": async () => {
      const key = Math.random().toString(36).slice(2);
      const error = await rejection(
        h.retry(() => fetch(`${env.baseUrl}/flaky?key=${key}&fails=9&after=120`).then(okText), {
          maxRetryAfterMs: 5000,
        }),
      );
      assert(error instanceof h.RetryError && error.reason === 'retry-after', `rejected with ${error}`);
      assert(error.cause?.response?.status === 503, `cause ${JSON.stringify(shape(error.cause))}`);
    },

    "the runtime's fetch network error is transient": async () => {
      const url = `http://127.0.0.1:${env.closedPort}/`;
      const error = await rejection(fetch(url));
      const info = shape(error);
      assert(h.isNetworkError(error), `isNetworkError false for ${JSON.stringify(info)}`);
      assert(h.isTransient(error), `isTransient false for ${JSON.stringify(info)}`);
      let calls = 0;
      const given = await rejection(
        h.retry(
          () => {
            calls++;
            return fetch(url);
          },
          { maxAttempts: 2, baseMs: 1, capMs: 2 },
        ),
      );
      assert(given instanceof h.RetryError && given.reason === 'attempts', `retry rejected with ${given}`);
      assert(calls === 2 && given.attempts === 2, `${calls} calls, ${given.attempts} attempts`);
      return info;
    },
  };
}

/**
 * Runs every check in order with the global timers tracked, then checks that none is left pending.
 * Resolves with `{ name, ok, detail?, info? }` per check; never rejects.
 */
export async function runChecks(herdless, env) {
  const results = [];
  const stop = trackTimers();
  try {
    for (const [name, check] of Object.entries(checks(herdless, env))) {
      try {
        const info = await check();
        results.push(info === undefined ? { name, ok: true } : { name, ok: true, info });
      } catch (error) {
        results.push({ name, ok: false, detail: error instanceof Error ? error.message : String(error) });
      }
    }
  } finally {
    const { seen, pending } = stop();
    const detail =
      seen === 0
        ? 'no timer of the library was seen: the tracking does not work here'
        : `${pending.length} of the library's ${seen} timers still pending after the checks: ${pending.join('; ')}`;
    const ok = seen > 0 && pending.length === 0;
    results.push({ name: 'no library timer left behind', ok, ...(!ok && { detail }), info: { timersSeen: seen } });
  }
  return results;
}

/** The runtime's name and version, as it says them. */
export function runtimeName() {
  if (globalThis.Deno) return `deno ${globalThis.Deno.version.deno}`;
  if (globalThis.Bun) return `bun ${globalThis.Bun.version}`;
  if (globalThis.process?.versions?.node) return `node ${globalThis.process.versions.node}`;
  return globalThis.navigator?.userAgent ?? 'unknown';
}
