/**
 * One lane of the demo: a client strategy, its own real server, and the same steady traffic as every other lane.
 * `runLane` makes each logical request at its arrival time with real `fetch` calls and reports what happened.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { CircuitOpenError, createCircuitBreaker, createRetryBudget, RetryError, retry } from '../src/index';
import { percentile } from '../src/simulate/index';
import { createRng } from '../src/simulate/rng';
import { CapacityServer } from './server';
import type { DemoFigures, DemoSettings } from './settings';

/** One logical request: resolves on success, rejects when its client gives up. `count` is called per fetch. */
type Call = (url: string, count: () => void, stop: AbortSignal) => Promise<void>;

/** One GET that counts itself, reads the body (so the connection is reused) and throws on a non-2xx status. */
async function get(url: string, count: () => void, signal: AbortSignal): Promise<void> {
  count();
  const res = await fetch(url, { signal });
  await res.arrayBuffer();
  if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status}`), { status: res.status });
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first; leaves no timer or listener behind. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = () => {
      signal.removeEventListener('abort', stop);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}

/** One attempt of the naive loop, abandoned (its fetch aborted) after `timeoutMs` or when `stop` aborts. */
async function attempt(url: string, count: () => void, stop: AbortSignal, timeoutMs: number): Promise<void> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('attempt timed out', 'TimeoutError')), timeoutMs);
  const abort = () => controller.abort(stop.reason);
  stop.addEventListener('abort', abort, { once: true });
  try {
    await get(url, count, controller.signal);
  } finally {
    clearTimeout(timer);
    stop.removeEventListener('abort', abort);
  }
}

/**
 * The lanes, by name, each a factory of its client: the loop many codebases have (try with a timeout, wait a fixed
 * time, try again), and herdless's retry() with full jitter alone, with a retry budget, and with the budget and a
 * circuit breaker. A lane's budget and breaker are shared by all its calls, as one client process shares them across
 * its calls to one dependency; they have the library's defaults but for the durations (scaled with the run's) and
 * the budget's reserve (see `budgetMinPerSecond`).
 */
export function lanes(s: DemoSettings): [string, () => Call][] {
  const naive = (): Call => async (url, count, stop) => {
    for (let n = 1; ; n++) {
      try {
        return await attempt(url, count, stop, s.attemptTimeoutMs);
      } catch (error) {
        if (n >= s.maxAttempts || stop.aborted) throw error;
        await sleep(s.fixedDelayMs, stop);
      }
    }
  };
  const herdless = (protect: { budget?: boolean; breaker?: boolean }) => (): Call => {
    const budget = protect.budget
      ? createRetryBudget({ windowMs: s.budgetWindowMs, minPerSecond: s.budgetMinPerSecond })
      : undefined;
    const breaker = protect.breaker ? createCircuitBreaker({ breakMs: s.breakMs }) : undefined;
    return (url, count, stop) =>
      retry((ctx) => get(url, count, ctx.signal), {
        jitter: 'full',
        baseMs: s.baseMs,
        maxAttempts: s.maxAttempts,
        attemptTimeoutMs: s.attemptTimeoutMs,
        signal: stop,
        budget,
        breaker,
      });
  };
  return [
    [`naive loop, fixed ${s.fixedDelayMs} ms`, naive],
    ['herdless, full jitter', herdless({})],
    ['herdless, full + budget', herdless({ budget: true })],
    ['herdless, full + budget + breaker', herdless({ budget: true, breaker: true })],
  ];
}

/** The logical requests' start times, in ms: a Poisson process at `load x capacity` a second, from a seeded source. */
export function arrivals(s: DemoSettings): number[] {
  const rng = createRng(s.seed);
  const endMs = s.warmupMs + s.slowdownMs + s.afterMs;
  const perMs = (s.load * s.capacity) / 1_000;
  const starts: number[] = [];
  for (let t = -Math.log(1 - rng.next()) / perMs; t < endMs; t += -Math.log(1 - rng.next()) / perMs) starts.push(t);
  return starts;
}

/** A failure the story expects: an attempt that timed out, or a call the open breaker refused. */
function expected(error: unknown): boolean {
  const cause = error instanceof RetryError ? error.cause : error;
  return error instanceof CircuitOpenError || (cause as { name?: unknown } | null)?.name === 'TimeoutError';
}

/** The first window from which `good` is at least 95% of `demand` for 5 windows in a row; null if none. */
export function recoveryWindow(good: readonly number[], demand: readonly number[]): number | null {
  for (let first = 0, run = 0; first + run < demand.length; ) {
    const w = first + run;
    if ((good[w] as number) >= 0.95 * (demand[w] as number)) {
      if (++run === 5) return first;
    } else [first, run] = [w + 1, 0];
  }
  return null;
}

/** A lane's server, not yet listening: it slows down at the settings' time. */
export function laneServer(s: DemoSettings): CapacityServer {
  return new CapacityServer({
    capacity: s.capacity,
    slowFromMs: s.warmupMs,
    slowToMs: s.warmupMs + s.slowdownMs,
    slowdownCapacity: s.slowdownCapacity,
    windowMs: s.chartWindowMs,
  });
}

/** Loads fetch and opens a few connections to `url`, so that no lane starts by paying for set-up. */
export async function warmUp(url: string, signal: AbortSignal): Promise<void> {
  await Promise.all(Array.from({ length: 4 }, () => fetch(url, { signal }).then((res) => res.arrayBuffer())));
}

/**
 * Runs lane `index` of {@link lanes} against `server` (listening at `url`) from `origin` (a `performance.now()`: when
 * traffic starts) until every call has ended, and resolves with its figures; rejects with the signal's reason if
 * `signal` aborts. Leaves the server open (its owner closes it).
 */
export async function runLane(
  s: DemoSettings,
  index: number,
  server: CapacityServer,
  url: string,
  origin: number,
  signal: AbortSignal,
): Promise<DemoFigures> {
  const [name, make] = lanes(s)[index] as [string, () => Call];
  const call = make();
  const slowToMs = s.warmupMs + s.slowdownMs;
  const endMs = slowToMs + s.afterMs;
  const starts = arrivals(s);
  const demand = new Array<number>(Math.ceil(s.afterMs / s.recoveryWindowMs)).fill(0);
  const good = [...demand];
  const latencies: number[] = [];
  let attempts = 0;
  let sent = 0;
  let refused = 0;
  let budgetStops = 0;
  let errors = 0;
  let behindMs = 0;
  const count = () => void attempts++;
  const clock = () => performance.now() - origin;
  // A request is sent when fetch writes it to a socket (undici's own diagnostics channel): an attempt abandoned
  // before that (its timeout passed while a stalled machine had not yet connected) never leaves the client.
  const host = new URL(url).origin;
  const onHeaders = (message: unknown) => {
    if ((message as { request?: { origin?: unknown } }).request?.origin === host) sent++;
  };

  const one = async (startMs: number) => {
    const w = Math.floor((startMs - slowToMs) / s.recoveryWindowMs);
    const tracked = w >= 0 && w < demand.length;
    if (tracked) demand[w] = (demand[w] as number) + 1;
    try {
      await call(url, count, signal);
      latencies.push(clock() - startMs);
      if (tracked) good[w] = (good[w] as number) + 1;
    } catch (error) {
      if (error instanceof CircuitOpenError) refused++;
      else if (error instanceof RetryError && error.reason === 'budget') budgetStops++;
      else if (!expected(error) && !signal.aborted) errors++;
    }
  };

  const calls: Promise<void>[] = [];
  signal.throwIfAborted();
  server.begin(origin);
  subscribe('undici:client:sendHeaders', onHeaders);
  try {
    // Each logical request starts at its arrival time (a late timer catches up at once, as waiting callers would).
    await new Promise<void>((resolve) => {
      let next = 0;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', finish);
        behindMs = server.backlogMs(Math.max(clock(), endMs));
        resolve();
      };
      const tick = () => {
        const now = clock();
        while (next < starts.length && (starts[next] as number) <= now) calls.push(one(starts[next++] as number));
        if (next < starts.length) timer = setTimeout(tick, (starts[next] as number) - now);
        else finish();
      };
      signal.addEventListener('abort', finish, { once: true });
      timer = setTimeout(tick, Math.max(0, -clock()));
    });
    await Promise.all(calls);
  } finally {
    unsubscribe('undici:client:sendHeaders', onHeaders);
  }
  signal.throwIfAborted();

  const from = Math.floor(s.warmupMs / s.chartWindowMs);
  const to = Math.ceil(endMs / s.chartWindowMs);
  const offered = server.load.slice(from, to).reduce((a, b) => a + b, 0);
  const recovery = recoveryWindow(good, demand);
  return {
    strategy: name,
    calls: starts.length,
    attempts,
    sent,
    received: server.received,
    amplification: offered / ((s.capacity * (endMs - s.warmupMs)) / 1_000),
    goodput: starts.length === 0 ? 1 : latencies.length / starts.length,
    recoveryMs: recovery === null ? null : recovery * s.recoveryWindowMs,
    p99Ms: percentile(Float64Array.from(latencies).sort(), 0.99),
    refused,
    budgetStops,
    wasted: server.wasted,
    behindMs,
    errors,
    load: [...server.load],
  };
}
