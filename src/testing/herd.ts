import { summarize } from '../simulate/outage';
import { createRng } from '../simulate/rng';
import { drive, installClock, installedClock, type VirtualClock } from './clock';
import { Dependency } from './dependency';
import { Exchange } from './exchange';
import { directFetch } from './fetch';
import { intercept } from './intercept';
import { type HerdCall, type HerdOptions, resolveOptions } from './options';
import { describeFailure, describeResult, type HerdReport } from './report';

/** One herd at a time: the clock, the interceptors and Math.random are global. */
let running = false;

/**
 * Runs `call` (your code: one call with its retries, a hand-written loop, p-retry, an SDK, herdless) from `clients`
 * concurrent callers (default 200) against a simulated dependency that fails for `outageMs` (default 1 s: 503s, or
 * resets, or hangs), then serves `capacity` requests per 100 ms (default 20), shedding or queueing the rest, all on
 * virtual time (@sinonjs/fake-timers, or the fake clock your test runner installed): a minute of outage runs in a
 * fraction of a second, and the same seed gives the same report. Resolves with the load the dependency saw and the
 * simulator's figures: peak after the outage over capacity, amplification, who gave up and with what, time to
 * success. Each caller's function gets the dependency's `url` and a `fetch`; with `intercept` (default), global
 * `fetch`, axios and got calls to `url` are routed to it too (the optional peer `@mswjs/interceptors` 0.41).
 *
 * Choose it to see, in a unit test, the shape of the load your retry code sends when a dependency fails for
 * everyone at once, and whether your calls still get through; pair it with {@link assertNoHerd}.
 *
 * @example
 * ```ts
 * import { retryingFetch } from 'herdless';
 * import { assertNoHerd, herd } from 'herdless/testing';
 *
 * const report = await herd(({ url }) => retryingFetch({ maxAttempts: 10 })(url), { outageMs: 2_000 });
 * assertNoHerd(report); // throws with the chart on a window over 3x capacity, or on fewer than 90% of callers
 *                        // succeeding where plain jittered retries bring them all through (see minSuccess)
 * ```
 */
export async function herd(call: HerdCall, options: HerdOptions = {}): Promise<HerdReport> {
  if (typeof call !== 'function') throw new TypeError(`herdless: herd's call must be a function, got ${typeof call}`);
  const { settings: s, name, isSuccess } = resolveOptions(options);
  if (running) throw new Error('herdless/testing: a herd is already running: await it before starting another');
  const own = installedClock() === undefined; // may throw (a clock that leaves Date real): before `running` is set
  running = true;
  let clock: VirtualClock | undefined;
  let release: (() => void) | undefined;
  const random = Math.random;
  let close: (() => void) | undefined;
  try {
    clock = own ? await installClock() : (installedClock() as VirtualClock);
    const origin = clock.now;
    const dependency = new Dependency(s, createRng(s.seed));
    const exchange = new Exchange(dependency, origin);
    close = () => exchange.close();
    const url = new URL(s.url);
    if (s.intercept) release = await intercept(exchange, url.origin);
    if (s.seedRandom) Math.random = createRng(s.seed ^ 0x5eed).next;
    const fetch = directFetch(exchange, url.origin);
    const starts = createRng(s.seed + 1);

    const n = s.clients;
    const startedAt = new Float64Array(n);
    const latencies = new Float64Array(n);
    // No prototype: a failure named `__proto__`, `constructor` or `toString` is a key like any other.
    const gaveUpWith: Record<string, number> = Object.create(null);
    let [succeeded, finished, lastFinishMs] = [0, 0, 0];
    const give = (key: string) => {
      gaveUpWith[key] = (gaveUpWith[key] ?? 0) + 1;
    };
    const start = (client: number) => {
      startedAt[client] = Date.now() - origin;
      const end = () => {
        finished++;
        lastFinishMs = Math.max(lastFinishMs, Date.now() - origin);
      };
      let result: Promise<unknown>;
      try {
        // Promise.resolve reads a promise's constructor: a hostile one throws here, not in the run.
        result = Promise.resolve(call({ url: s.url, fetch, client }));
      } catch (error) {
        result = Promise.reject(error);
      }
      result.then(
        (value) => {
          end();
          let ok: unknown;
          try {
            ok = isSuccess(value);
            // A judge that answers with a promise (an async isSuccess) has not said true: the call fails, named, and
            // a rejection of that promise is caught here, never left unhandled.
            if (typeof (ok as { then?: unknown } | null)?.then === 'function') {
              (ok as Promise<unknown>).then(undefined, () => {});
              give('isSuccess returned a promise');
              return;
            }
          } catch (error) {
            // A judge that throws fails the call, counted and named, never an unhandled rejection.
            give(`isSuccess threw ${describeFailure(error)}`);
            return;
          }
          if (ok) latencies[succeeded++] = Date.now() - origin - (startedAt[client] as number);
          else give(describeResult(value));
        },
        (error: unknown) => {
          end();
          give(describeFailure(error));
        },
      );
    };
    for (let c = 0; c < n; c++) {
      const at = s.startWindowMs > 0 ? starts.next() * s.startWindowMs : 0;
      if (at === 0) start(c);
      else setTimeout(() => start(c), at);
    }
    const ended = await drive(
      clock,
      () => finished === n,
      () => dependency.server.received + exchange.settled + finished,
      origin + s.untilMs,
    );
    if (ended !== 'done') {
      gaveUpWith.unfinished = n - finished; // still running at untilMs, or waiting on what never comes
      lastFinishMs = ended === 'until' ? s.untilMs : clock.now - origin;
    }
    const figures = summarize(
      name ?? (call.name || 'code'),
      {
        requests: dependency.server.received,
        succeeded,
        gaveUp: n - succeeded,
        lastFinishMs,
        latencies: latencies.subarray(0, succeeded),
        load: [...dependency.load],
      },
      s,
    );
    // The simulator's peak skips the window in which the outage ends; the dependency's counts that window's arrivals
    // from the end on, so a herd landing right after an outage that ends mid-window is not missed.
    const peakAfterOutage = dependency.peakAfterOutage;
    const peakOverCapacity = peakAfterOutage / s.capacity;
    return { scenario: 'herd', settings: s, results: [{ ...figures, peakAfterOutage, peakOverCapacity, gaveUpWith }] };
  } finally {
    Math.random = random;
    close?.();
    release?.();
    if (own) clock?.uninstall?.();
    running = false;
  }
}
