import { nearest } from '../nearest';
import { createPolicy } from '../policy';
import { onlyKnown } from '../validate';
import { checkInstances, MAX_ATTEMPTS, MAX_WINDOWS, SimulationLimitError, windowsIn } from './limits';
import { EventQueue } from './queue';
import { ClientRetries } from './retries';
import { createRng } from './rng';
import { OutageServer } from './server';
import type { Filled } from './settings';
import {
  protectedPolicy,
  type ResolvedStrategy,
  resolveStrategy,
  STRATEGIES,
  type Strategy,
  unhedged,
} from './strategies';

/** The outage scenario's settings; every field is optional. */
export interface OutageOptions {
  /** Clients, each making one call with retries. Default 1,000. */
  readonly clients?: number | undefined;
  /** The clients' first requests are spread uniformly over this window, in ms. Default 100. */
  readonly startWindowMs?: number | undefined;
  /** The server fails every request that arrives before this time, in ms. Default 4,000. */
  readonly outageMs?: number | undefined;
  /** After the outage the server succeeds this many requests per `capacityWindowMs` and fails the rest. Default 100. */
  readonly capacity?: number | undefined;
  /** The window `capacity` counts in, in ms; also the width of a load bucket. Default 100. */
  readonly capacityWindowMs?: number | undefined;
  /** A network hop takes |Normal(hopMeanMs, hopSdMs)| ms. Default 10. */
  readonly hopMeanMs?: number | undefined;
  /** See `hopMeanMs`. Default 2. */
  readonly hopSdMs?: number | undefined;
  /** Each client's `maxAttempts`. Default 10. */
  readonly maxAttempts?: number | undefined;
  /** Each client's overall deadline, `timeoutMs`. Default Infinity. */
  readonly timeoutMs?: number | undefined;
  /**
   * The wait the server names during the outage, in ms: it answers 429 with this Retry-After, and its refusals after
   * the outage with none. Default 0: no Retry-After at all.
   */
  readonly retryAfterMs?: number | undefined;
  /**
   * Client instances (processes, pods) the clients are split over, evenly: each has its own budget and breaker
   * (fresh objects on the simulation's clock), as each process of a fleet creates its own. Default 1.
   */
  readonly instances?: number | undefined;
  /** Strategies to compare. Default: all of {@link STRATEGIES}. */
  readonly strategies?: readonly Strategy[] | undefined;
  /** The seed: the same seed gives the same result, byte for byte. Default 1. */
  readonly seed?: number | undefined;
  /** Called after each strategy's run with how many are done. */
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
}

/** One strategy's figures in the outage scenario. */
export interface OutageFigures {
  /** The strategy's name. */
  readonly strategy: string;
  /** Requests that reached the server. */
  readonly requests: number;
  /** requests / clients. */
  readonly amplification: number;
  /** The most requests in one window after the outage ended. */
  readonly peakAfterOutage: number;
  /** peakAfterOutage / capacity. */
  readonly peakOverCapacity: number;
  /** When the last client finished (succeeded or gave up), in ms from the start. */
  readonly lastFinishMs: number;
  /** Clients whose call succeeded. */
  readonly succeeded: number;
  /** Clients that gave up (out of attempts, past the deadline, or refused). */
  readonly gaveUp: number;
  /**
   * Of those, the calls a protection stopped: a first attempt or a retry the circuit breaker refused, or a retry the
   * retry budget refused (0 without a budget or breaker). Counted by {@link simulateOutage}; absent from figures
   * made of counts without it (herdless/testing's herd, which has no protection of its own).
   */
  readonly refused?: number;
  /** Time from a client's first request to its success, median and 99th percentile, in ms (NaN if none). */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Requests arriving at the server per window (`capacityWindowMs`), from time 0. */
  readonly load: readonly number[];
}

/** What {@link simulateOutage} returns: the settings used (defaults filled in) and a row of figures per strategy. */
export interface OutageResult {
  readonly scenario: 'outage';
  readonly settings: Filled<Omit<OutageOptions, 'strategies' | 'onProgress'>>;
  readonly results: readonly OutageFigures[];
}

const ARRIVE = 0;
const SUCCEEDED = 1;
const FAILED = 2;
/** Failed, with the server's Retry-After. */
const HINTED = 3;
/** A client sends an attempt (if its circuit breaker lets it). */
const SEND = 4;

/** Nearest-rank percentile of sorted values, NaN for none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[rank(sorted.length, p)] as number;
}

/** The index of the nearest-rank `p` percentile among `n` sorted values. */
const rank = (n: number, p: number) => Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1));

/**
 * {@link percentile} of values in any order, none NaN, found by selection (Hoare's quickselect, median of three)
 * instead of a sort: the same value, in linear time. Reorders `values` in place. After `maxRounds` partitions (pivots
 * that unlucky: never with the simulator's latencies) it sorts what is left instead, n log n at worst.
 */
export function selectPercentile(values: Float64Array, p: number, maxRounds = 64): number {
  if (values.length === 0) return Number.NaN;
  const k = rank(values.length, p);
  let lo = 0;
  let hi = values.length - 1;
  for (let rounds = 0; hi > lo; rounds++) {
    if (rounds === maxRounds) {
      values.subarray(lo, hi + 1).sort();
      break;
    }
    const mid = lo + ((hi - lo) >> 1);
    // The median of the first, middle and last values as the pivot.
    const a = values[lo] as number;
    const b = values[mid] as number;
    const c = values[hi] as number;
    const pivot = Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((values[i] as number) < pivot) i++;
      while ((values[j] as number) > pivot) j--;
      if (i <= j) {
        const t = values[i] as number;
        values[i++] = values[j] as number;
        values[j--] = t;
      }
    }
    // Now values[lo..j] <= pivot <= values[i..hi], and any between j and i equal the pivot.
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return values[k] as number;
}

/**
 * Simulates N clients that fail together in an outage and retry against a server with a fixed capacity, on virtual
 * time, once per strategy. Each client's waits and give-ups are decided by herdless itself (`decide`, on a policy
 * from `createPolicy`), with the simulation's seeded randomness. Memory: a few numbers per client and one counter per
 * window, never a record of every event. Choose it to see what a retry policy does to a recovering server before
 * shipping it: compare your policy with the built-in strategies on the same seed.
 *
 * @example
 * ```ts
 * import { simulateOutage } from 'herdless/simulate';
 * const { results } = simulateOutage({ clients: 5_000, outageMs: 10_000, strategies: ['fixed', 'full'] });
 * for (const r of results) console.log(r.strategy, r.peakOverCapacity, r.gaveUp);
 * ```
 *
 * @throws RangeError when the outage spans more than {@link MAX_WINDOWS} windows of `capacityWindowMs`, or a run
 *   lasts longer than that many (checked as requests arrive): each window is a counter kept in memory.
 */
export function simulateOutage(options: OutageOptions = {}): OutageResult {
  const settings = {
    clients: options.clients ?? 1_000,
    startWindowMs: options.startWindowMs ?? 100,
    outageMs: options.outageMs ?? 4_000,
    capacity: options.capacity ?? 100,
    capacityWindowMs: options.capacityWindowMs ?? 100,
    hopMeanMs: options.hopMeanMs ?? 10,
    hopSdMs: options.hopSdMs ?? 2,
    maxAttempts: options.maxAttempts ?? 10,
    timeoutMs: options.timeoutMs ?? Infinity,
    retryAfterMs: options.retryAfterMs ?? 0,
    instances: options.instances ?? 1,
    seed: options.seed ?? 1,
  };
  checkOutage(options, settings);
  const windows = windowsIn(settings.outageMs, settings.capacityWindowMs);
  if (windows > MAX_WINDOWS) {
    throw new SimulationLimitError(
      `herdless: simulateOutage: outageMs (${settings.outageMs}) spans ${windows} windows of capacityWindowMs (${settings.capacityWindowMs}), more than ${MAX_WINDOWS}: use wider windows or a shorter outage`,
    );
  }
  checkInstances(settings.instances);
  const strategies = unhedged(
    (options.strategies ?? (Object.keys(STRATEGIES) as Strategy[])).map(resolveStrategy),
    'outage',
  );
  const results = strategies.map((strategy, i) => {
    const figures = runOutage(settings, strategy);
    options.onProgress?.(i + 1, strategies.length);
    return figures;
  });
  return { scenario: 'outage', settings, results };
}

/** What {@link simulateOutage} takes. */
const OUTAGE_KEYS: ReadonlySet<string> = new Set([
  'clients',
  'startWindowMs',
  'outageMs',
  'capacity',
  'capacityWindowMs',
  'hopMeanMs',
  'hopSdMs',
  'maxAttempts',
  'timeoutMs',
  'retryAfterMs',
  'instances',
  'strategies',
  'seed',
  'onProgress',
]);

/**
 * The outage scenario's settings checked: a RangeError naming a bad one (`capacity: -5` reported a peak of -0.4x), a
 * TypeError naming an unknown key, and a {@link SimulationLimitError} for a run that could go on for hours.
 */
function checkOutage(options: OutageOptions, s: OutageResult['settings']): void {
  onlyKnown(options, OUTAGE_KEYS, 'simulateOutage', (key) => nearest(key, OUTAGE_KEYS));
  const bad = (name: string, wants: string, value: unknown) => {
    throw new RangeError(`herdless: ${name} must be ${wants}, got ${String(value)}`);
  };
  if (!(Number.isInteger(s.clients) && s.clients >= 1)) bad('clients', 'an integer >= 1', s.clients);
  if (!(s.capacity > 0 && Number.isFinite(s.capacity))) bad('capacity', 'a finite number > 0', s.capacity);
  for (const name of ['capacityWindowMs'] as const) {
    if (!(s[name] > 0 && Number.isFinite(s[name]))) bad(name, 'a finite number > 0', s[name]);
  }
  for (const name of ['startWindowMs', 'outageMs', 'hopMeanMs', 'hopSdMs', 'retryAfterMs'] as const) {
    if (!(s[name] >= 0 && Number.isFinite(s[name]))) bad(name, 'a finite number >= 0', s[name]);
  }
  const work = s.clients * Math.min(s.maxAttempts, Number.MAX_SAFE_INTEGER);
  if (work > MAX_ATTEMPTS) {
    throw new SimulationLimitError(
      `herdless: simulateOutage: clients x maxAttempts (${s.clients} x ${s.maxAttempts}) is ${work} attempts at most, more than ${MAX_ATTEMPTS}: fewer clients or attempts`,
    );
  }
}

function runOutage(s: OutageResult['settings'], strategy: ResolvedStrategy): OutageFigures {
  const rng = createRng(s.seed);
  const event = { time: 0, client: 0, kind: 0 };
  const clock = () => event.time;
  // One policy per instance when it holds state (a budget, a breaker); instances without any all behave alike.
  const fleet = strategy.budget || strategy.breaker ? Math.min(s.instances, s.clients) || 1 : 1;
  const policies = Array.from({ length: fleet }, () =>
    createPolicy({
      maxAttempts: s.maxAttempts,
      timeoutMs: s.timeoutMs,
      ...protectedPolicy(strategy, clock),
      random: rng.next,
    }),
  );
  const n = s.clients;
  const retries = new ClientRetries(n, policies, strategy.retryAfter);
  const firstSend = new Float64Array(n);
  const sentAt = new Float64Array(n);
  const latencies = new Float64Array(n);
  const server = new OutageServer(s.outageMs, s.capacity, s.capacityWindowMs, s.retryAfterMs);
  const queue = new EventQueue();
  const hop = () => rng.hop(s.hopMeanMs, s.hopSdMs);

  for (let c = 0; c < n; c++) {
    const at = rng.next() * s.startWindowMs;
    firstSend[c] = at;
    queue.push(at, c, SEND);
  }

  let succeeded = 0;
  let gaveUp = 0;
  let refused = 0;
  let lastFinishMs = 0;
  while (queue.pop(event)) {
    const { time, client } = event;
    if (event.kind === SEND) {
      if (retries.start(client)) {
        sentAt[client] = time;
        queue.push(time + hop(), client, ARRIVE);
      } else {
        gaveUp++; // the circuit breaker refused it: CircuitOpenError, or a RetryError 'circuit-open'
        refused++;
        lastFinishMs = Math.max(lastFinishMs, time);
      }
    } else if (event.kind === ARRIVE) {
      const kind = server.arrive(time) ? SUCCEEDED : server.retryAfter(time) === undefined ? FAILED : HINTED;
      queue.push(time + hop(), client, kind);
    } else if (event.kind === SUCCEEDED) {
      retries.succeeded(client, time - (sentAt[client] as number));
      latencies[succeeded++] = time - (firstSend[client] as number);
      lastFinishMs = Math.max(lastFinishMs, time);
    } else {
      const hint = event.kind === HINTED ? s.retryAfterMs : undefined;
      const d = retries.failed(client, time - (firstSend[client] as number), hint, time - (sentAt[client] as number));
      if (!d.retry) {
        gaveUp++;
        if (d.reason === 'budget' || d.reason === 'circuit-open') refused++;
        lastFinishMs = Math.max(lastFinishMs, time);
      } else {
        queue.push(time + d.delayMs, client, SEND);
      }
    }
  }

  return summarize(
    strategy.name,
    {
      requests: server.received,
      succeeded,
      gaveUp,
      refused,
      lastFinishMs,
      latencies: latencies.subarray(0, succeeded),
      load: server.load,
    },
    s,
  );
}

/** What a run counted: the raw material of {@link OutageFigures}. */
export interface OutageCounts {
  readonly requests: number;
  readonly succeeded: number;
  readonly gaveUp: number;
  /** Of those, the calls a budget or a breaker refused (absent: not counted). */
  readonly refused?: number;
  readonly lastFinishMs: number;
  /** Each successful client's time to success, in ms (any order; sorted here, in place). */
  readonly latencies: Float64Array;
  readonly load: readonly number[];
}

/** The figures of one strategy's run, from its counts; shared by the simulator and the real-server demo. */
export function summarize(
  strategy: string,
  counts: OutageCounts,
  settings: {
    readonly clients: number;
    readonly outageMs: number;
    readonly capacity: number;
    readonly capacityWindowMs: number;
  },
): OutageFigures {
  const sorted = counts.latencies.sort();
  const firstAfter = Math.ceil(settings.outageMs / settings.capacityWindowMs);
  const peakAfterOutage = counts.load.slice(firstAfter).reduce((a, b) => Math.max(a, b), 0);
  return {
    strategy,
    requests: counts.requests,
    amplification: counts.requests / settings.clients,
    peakAfterOutage,
    peakOverCapacity: peakAfterOutage / settings.capacity,
    lastFinishMs: counts.lastFinishMs,
    succeeded: counts.succeeded,
    gaveUp: counts.gaveUp,
    ...(counts.refused === undefined ? {} : { refused: counts.refused }),
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    load: counts.load,
  };
}
