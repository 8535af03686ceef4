/**
 * One lane of an act of the demo: a client strategy, its own real server, and the same steady traffic as every other
 * lane of the act. `runLane` makes each logical request at its arrival time with real `fetch` calls and reports what happened.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { CircuitOpenError, RetryError, type RetryOptions, retry } from '../src/index';
import { percentile } from '../src/simulate/index';
import { createRng } from '../src/simulate/rng';
import { PRESETS, type PresetName, protectedPolicy } from '../src/simulate/strategies';
import { CapacityServer, type CapacityServerOptions, REQUEST_ID } from './server';
import type { Act, DemoFigures, DemoSettings, LaneName } from './settings';

/** A lane's record of its attempts: `next` counts a fetch and gives its id, `aborted` notes one its signal ended. */
interface Tally {
  next(): string;
  aborted(id: string): void;
}

/** One logical request: resolves on success, rejects when its client gives up. Each fetch goes through `tally`. */
type Call = (url: string, tally: Tally, stop: AbortSignal) => Promise<void>;

/**
 * One GET that carries its id (the {@link REQUEST_ID} header), reads the body (so the connection is reused) and throws
 * on a non-2xx status. One that its signal ends is noted as aborted: the client may have written it and then closed
 * the socket before the server read it.
 */
async function get(url: string, tally: Tally, signal: AbortSignal): Promise<void> {
  const id = tally.next();
  let res: Response;
  try {
    res = await fetch(url, { signal, headers: { [REQUEST_ID]: id } });
    await res.arrayBuffer();
  } catch (error) {
    if (signal.aborted) tally.aborted(id);
    throw error;
  }
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
async function attempt(url: string, tally: Tally, stop: AbortSignal, timeoutMs: number): Promise<void> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('attempt timed out', 'TimeoutError')), timeoutMs);
  const abort = () => controller.abort(stop.reason);
  stop.addEventListener('abort', abort, { once: true });
  try {
    await get(url, tally, controller.signal);
  } finally {
    clearTimeout(timer);
    stop.removeEventListener('abort', abort);
  }
}

/** What each lane is called in the tables and charts: the simulator's preset names, and the naive loop. */
export function laneTitle(s: DemoSettings, lane: LaneName): string {
  return lane === 'naive' ? `naive loop, fixed ${s.fixedDelayMs} ms` : lane;
}

/**
 * The `retry()` options of a preset's lane (`no-retries`, `plain` or `recommended`): the act's attempts and attempt
 * timeout, then exactly the simulator's preset (its `protectedPolicy`: the preset's backoff and, for `recommended`, a
 * fresh `createRetryBudget()` with the library's defaults, on the clock `now`). So the
 * `recommended` lane is the setup the README recommends, and the one `herdless simulate` runs, by construction.
 */
export function laneOptions(s: DemoSettings, lane: PresetName, now: () => number): RetryOptions {
  return { maxAttempts: s.maxAttempts, attemptTimeoutMs: s.attemptTimeoutMs, ...protectedPolicy(PRESETS[lane], now) };
}

/**
 * A lane's client, a factory of its calls: the loop many codebases have (try with a timeout, wait a fixed time, try
 * again), or herdless's retry() with a preset's options ({@link laneOptions}). A lane's budget and breaker are shared
 * by all its calls, as one client process shares them across its calls to one dependency.
 */
export function laneClient(s: DemoSettings, lane: LaneName): Call {
  if (lane === 'naive')
    return async (url, tally, stop) => {
      for (let n = 1; ; n++) {
        try {
          return await attempt(url, tally, stop, s.attemptTimeoutMs);
        } catch (error) {
          if (n >= s.maxAttempts || stop.aborted) throw error;
          await sleep(s.fixedDelayMs, stop);
        }
      }
    };
  const options = laneOptions(s, lane, () => performance.now());
  return (url, tally, stop) => retry((ctx) => get(url, tally, ctx.signal), { ...options, signal: stop });
}

/**
 * The logical requests' start times, in ms, from a seeded source: Poisson arrivals at `load x capacity` a second, held
 * to that rate in each phase of the act (before, during and after the trouble). Each phase gets the count its rate
 * asks, at times drawn uniformly over it: a Poisson process given its count, as bursty within the phase. Drawn
 * unconditioned, at 20 requests a second the count strays by a tenth: seed 1 sent 18 a second after the slowdown, 90%
 * of capacity where the act says 80%, so the backlog the slowdown left drained at half the speed (the server's spare
 * 10%, not 20%) and outlasted the run: every lane of the overload read "never" (issue 31).
 */
export function arrivals(s: DemoSettings, act: Act): number[] {
  const rng = createRng(s.seed);
  const perMs = (act.load * s.capacity) / 1_000;
  const edges = [0, act.warmupMs, act.warmupMs + act.troubleMs, act.warmupMs + act.troubleMs + act.afterMs];
  const starts: number[] = [];
  for (let i = 1; i < edges.length; i++) {
    const [from, to] = [edges[i - 1] as number, edges[i] as number];
    const phase = Array.from({ length: Math.round(perMs * (to - from)) }, () => from + rng.next() * (to - from));
    starts.push(...phase.sort((a, b) => a - b));
  }
  return starts;
}

/**
 * A failure the story expects: an attempt that timed out or got a 503, or a call the open breaker refused (a retry
 * refused by the budget or the breaker ends with its last attempt's failure, one of those).
 */
function expected(error: unknown): boolean {
  const cause = error instanceof RetryError ? error.cause : error;
  const { name, status } = (cause ?? {}) as { name?: unknown; status?: unknown };
  return error instanceof CircuitOpenError || name === 'TimeoutError' || status === 503;
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

/** The id a request carries in headers as undici writes them (`name: value` lines); `''` when it carries none. */
export function requestId(headers: string): string {
  const prefix = `\r\n${REQUEST_ID}: `;
  const from = headers.toLowerCase().indexOf(prefix);
  if (from < 0) return '';
  const start = from + prefix.length;
  const end = headers.indexOf('\r\n', start);
  return headers.slice(start, end < 0 ? headers.length : end);
}

/** How the requests a lane's clients wrote match those its server read (see {@link DemoFigures}). */
export interface Matching {
  readonly abandonedInFlight: number;
  readonly lost: number;
  readonly unexpected: number;
}

/**
 * Matches the ids the clients wrote (`written`, once per request written to a socket) against the times the server
 * read each (`reads`). A request written once and never read is abandoned in flight if it is in `abandoned` (its
 * client aborted the attempt, and the server read its connection to the end without finding it). Any other request
 * written and not read is lost; a read of an id never written, or of one more often than it was written, is
 * unexpected; a request without an id cannot be matched, so it counts as lost (written) or unexpected (read).
 */
export function matchRequests(
  written: readonly string[],
  abandoned: ReadonlySet<string>,
  reads: ReadonlyMap<string, number>,
): Matching {
  const times = new Map<string, number>();
  for (const id of written) times.set(id, (times.get(id) ?? 0) + 1);
  let abandonedInFlight = 0;
  let lost = 0;
  let unexpected = 0;
  for (const id of new Set([...times.keys(), ...reads.keys()])) {
    const w = times.get(id) ?? 0;
    const r = reads.get(id) ?? 0;
    if (id === '') [lost, unexpected] = [lost + w, unexpected + r];
    else if (r > w) unexpected += r - w;
    else if (w === 1 && r === 0 && abandoned.has(id)) abandonedInFlight++;
    else lost += w - r;
  }
  return { abandonedInFlight, lost, unexpected };
}

/** Resolves after `n` turns of the event loop, each through its I/O phase (a `setImmediate` runs after it). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** How long a lane waits at most for its server to read what its clients wrote, in ms (see {@link caughtUp}). */
const CATCH_UP_MS = 15_000;

/** A request a client wrote: its id, the client port of its connection, and when (a `performance.now()`). */
type Written = readonly [id: string, port: number, atMs: number];

/** The server closed the connection `w` was written on, after it was written: it read all it ever will of it. */
function connectionClosed(server: CapacityServer, [, port, atMs]: Written): boolean {
  return (server.closedAt.get(port) ?? Number.NEGATIVE_INFINITY) >= atMs;
}

/**
 * Waits until `server` has read every request in `written`, or closed the connection it was written on, for at most
 * {@link CATCH_UP_MS}. When a lane's calls end, the server, on the same thread, may not have read everything yet: on a
 * machine loaded by two busy loops it read requests a median 4 to 6 s (at most 8 s) after the clients wrote them, with
 * no packet dropped or resent by the kernel. Leaves no timer behind.
 */
async function caughtUp(server: CapacityServer, written: readonly Written[], signal: AbortSignal): Promise<void> {
  const from = performance.now();
  const settled = (w: Written) => server.reads.has(w[0]) || connectionClosed(server, w);
  while (!written.every(settled) && performance.now() - from < CATCH_UP_MS) {
    await sleep(20, signal);
    await turns(3);
  }
}

/** The options of a lane's server: its trouble (slowdown or partial failure) is the act's. */
export function laneServerOptions(s: DemoSettings, act: Act): CapacityServerOptions {
  return {
    capacity: s.capacity,
    troubleFromMs: act.warmupMs,
    troubleToMs: act.warmupMs + act.troubleMs,
    slowdownCapacity: act.slowdownCapacity,
    failureRate: act.failureRate,
    seed: s.seed,
    windowMs: s.chartWindowMs,
  };
}

/** A lane's server, not yet listening (see {@link laneServerOptions}). */
export function laneServer(s: DemoSettings, act: Act): CapacityServer {
  return new CapacityServer(laneServerOptions(s, act));
}

/** Loads fetch and opens a few connections to `url`, so that no lane starts by paying for set-up. */
export async function warmUp(url: string, signal: AbortSignal): Promise<void> {
  await Promise.all(Array.from({ length: 4 }, () => fetch(url, { signal }).then((res) => res.arrayBuffer())));
}

/**
 * Runs `lane` of `act` against `server` (listening at `url`) from `origin` (a `performance.now()`: when traffic
 * starts) until every call has ended, and resolves with its figures; rejects with the signal's reason if `signal`
 * aborts. Leaves the server open (its owner closes it).
 */
export async function runLane(
  s: DemoSettings,
  act: Act,
  lane: LaneName,
  server: CapacityServer,
  url: string,
  origin: number,
  signal: AbortSignal,
): Promise<DemoFigures> {
  const call = laneClient(s, lane);
  const troubleToMs = act.warmupMs + act.troubleMs;
  const endMs = troubleToMs + act.afterMs;
  const starts = arrivals(s, act);
  const demand = new Array<number>(Math.ceil(act.afterMs / s.recoveryWindowMs)).fill(0);
  const good = [...demand];
  const latencies: number[] = [];
  let begunDuring = 0;
  let goodDuring = 0;
  let attempts = 0;
  const written: Written[] = [];
  const aborted = new Set<string>();
  const tally: Tally = { next: () => String(++attempts), aborted: (id) => void aborted.add(id) };
  let refused = 0;
  let budgetStops = 0;
  let errors = 0;
  let behindMs = 0;
  const clock = () => performance.now() - origin;
  // A request is sent when fetch writes it to a socket (undici's own diagnostics channel, just before its write): an
  // attempt abandoned before that (its timeout passed while a stalled machine had not yet connected) never leaves the
  // client. The channel gives the headers as written, so the request's id.
  const host = new URL(url).origin;
  const onHeaders = (message: unknown) => {
    const { request, headers, socket } = message as {
      request?: { origin?: unknown };
      headers?: unknown;
      socket?: { localPort?: number };
    };
    if (request?.origin === host)
      written.push([requestId(String(headers)), socket?.localPort ?? -1, performance.now()]);
  };

  const one = async (startMs: number) => {
    const w = Math.floor((startMs - troubleToMs) / s.recoveryWindowMs);
    const tracked = w >= 0 && w < demand.length;
    if (tracked) demand[w] = (demand[w] as number) + 1;
    const during = startMs >= act.warmupMs && startMs < troubleToMs;
    if (during) begunDuring++;
    try {
      await call(url, tally, signal);
      latencies.push(clock() - startMs);
      if (tracked) good[w] = (good[w] as number) + 1;
      if (during) goodDuring++;
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
  await caughtUp(server, written, signal);
  // Abandoned in flight: aborted by its client, not read, and its connection read to the end.
  const abandoned = new Set(written.filter((w) => aborted.has(w[0]) && connectionClosed(server, w)).map(([id]) => id));

  const from = Math.floor(act.warmupMs / s.chartWindowMs);
  const to = Math.ceil(endMs / s.chartWindowMs);
  const offered = server.load.slice(from, to).reduce((a, b) => a + b, 0);
  const recovery = recoveryWindow(good, demand);
  return {
    strategy: laneTitle(s, lane),
    lane,
    calls: starts.length,
    attempts,
    sent: written.length,
    received: server.received,
    ...matchRequests(
      written.map(([id]) => id),
      abandoned,
      server.reads,
    ),
    failed: server.failed,
    amplification: offered / ((s.capacity * (endMs - act.warmupMs)) / 1_000),
    goodput: starts.length === 0 ? 1 : latencies.length / starts.length,
    goodputDuring: begunDuring === 0 ? 1 : goodDuring / begunDuring,
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
