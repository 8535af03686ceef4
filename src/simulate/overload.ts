import type { Hedge } from '../hedge/hedge';
import { createPolicy } from '../policy';
import { MAX_TIMER_MS } from '../wait';
import { checkInstances, MAX_ATTEMPTS, MAX_CALLS, MAX_WINDOWS, SimulationLimitError, windowsIn } from './limits';
import { selectPercentile } from './outage';
import { EventQueue } from './queue';
import { ClientRetries } from './retries';
import { createRng, type Rng } from './rng';
import type { Filled } from './settings';
import { protectInstance, type ResolvedStrategy, resolveStrategy, type Strategy } from './strategies';

/** The overload scenario's settings; every field is optional. */
export interface OverloadOptions {
  /** Requests the server serves per second, one at a time, first in first out. Default 1,000. */
  readonly capacity?: number | undefined;
  /** The demand (Poisson arrivals of logical requests) as a share of capacity. Default 0.8. */
  readonly load?: number | undefined;
  /** Each attempt's timeout, from send to response, in ms (the client's `attemptTimeoutMs`). Default 1,000. */
  readonly attemptTimeoutMs?: number | undefined;
  /** Each logical request's `maxAttempts`. Default 3. */
  readonly maxAttempts?: number | undefined;
  /** Steady traffic before the slowdown, in ms. Default 5,000. */
  readonly warmupMs?: number | undefined;
  /** How long the slowdown (or the outage) lasts, in ms. Default 4,000. */
  readonly slowdownMs?: number | undefined;
  /** The server's capacity during the slowdown, as a share of `capacity`. Default 0.1. */
  readonly slowdownCapacity?: number | undefined;
  /** Answer every request with a fast 503 during the slowdown instead (an outage). Default false. */
  readonly outage?: boolean | undefined;
  /**
   * During the slowdown, each request the server serves fails with this probability (a 503 once served: it took its
   * turn and its service time, and its client hears at once). Default 0. The partial-failure scenario is this with
   * no slowdown ({@link simulatePartial}).
   */
  readonly failureRate?: number | undefined;
  /**
   * Client instances (processes, pods) the demand is split over, evenly at random: each has its own budget and
   * breaker (fresh objects on the simulation's clock), as each process of a fleet creates its own. Default 1.
   */
  readonly instances?: number | undefined;
  /** How long the run goes on after the slowdown, in ms. Default 60,000. */
  readonly afterMs?: number | undefined;
  /**
   * The server sheds (a fast 503) a request that would wait more than this in its queue, in ms. Default Infinity:
   * an unbounded queue.
   */
  readonly queueLimitMs?: number | undefined;
  /**
   * The status of the server's shed answer (over `queueLimitMs`): `503` (bare, the default), which says nothing of why,
   * or `429` (Too Many Requests, with no Retry-After), with which a server says it is saturated. herdless's budget reads
   * a 429 as it reads a timeout.
   */
  readonly shedStatus?: 503 | 429 | undefined;
  /** During the slowdown the server answers nothing: every attempt runs to its timeout (a hang). Default false. */
  readonly hang?: boolean | undefined;
  /**
   * Latency-only degradation: during the slowdown each answer is late by a random time, exponential with this mean,
   * in ms, that costs the server nothing (a slow network path, a slow downstream with room to spare). Default 0.
   */
  readonly addedLatencyMs?: number | undefined;
  /** The trouble comes and goes: on for `flapMs`, off for `flapMs`, and so on through the slowdown, in ms. Default Infinity. */
  readonly flapMs?: number | undefined;
  /** The demand during the slowdown, as a multiple of `load` (a spike: 2 doubles it). Default 1. */
  readonly demandSpike?: number | undefined;
  /**
   * A server whose latency grows with the work it holds, as in Brooker's metastability model, instead of the FIFO
   * queue: every request is worked on at once and takes `concurrencyBaseMs + (1000 / capacity) x` the requests in
   * flight when it arrives; abandoned requests stay in flight until done. Default undefined: the FIFO server.
   */
  readonly concurrencyBaseMs?: number | undefined;
  /**
   * Closed-loop demand: a user whose call gave up issues it again, as a new call, this long after, in ms, up to
   * `reissues` times. Default Infinity: users never re-issue (open-loop demand).
   */
  readonly reissueMs?: number | undefined;
  /** With a finite `reissueMs`: how many times a user re-issues one request. Default 2. */
  readonly reissues?: number | undefined;
  /** The clients' `baseMs` (the first backoff's ceiling). Default 100, the library's. */
  readonly baseMs?: number | undefined;
  /** Each call's overall deadline, the clients' `timeoutMs`, in ms. Default Infinity. */
  readonly timeoutMs?: number | undefined;
  /** A network hop takes |Normal(hopMeanMs, hopSdMs)| ms. Default 5. */
  readonly hopMeanMs?: number | undefined;
  /** See `hopMeanMs`. Default 1. */
  readonly hopSdMs?: number | undefined;
  /** The width of a load window (the chart's), in ms. Default 1,000. */
  readonly windowMs?: number | undefined;
  /** Strategies to compare. Default: fixed, none, full, full+budget, full+breaker, full+budget+breaker. */
  readonly strategies?: readonly Strategy[] | undefined;
  /** The seed: the same seed gives the same result, byte for byte. Default 1. */
  readonly seed?: number | undefined;
  /** Called after each strategy's run with how many are done. */
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
}

/** One strategy's figures in the overload scenario. */
export interface OverloadFigures {
  readonly strategy: string;
  /** Logical requests (each a `retry()` call). */
  readonly calls: number;
  /** Attempts that reached the server. */
  readonly requests: number;
  /** Attempts after the first of each call's rounds (each of `retry()`'s attempts): the retries. */
  readonly retries: number;
  /** Hedges sent (a strategy with a hedge: attempts sent beside a round's first, see herdless/hedge). */
  readonly hedges: number;
  /** Offered load over capacity from the start of the slowdown to the end of the run. */
  readonly amplification: number;
  /** The share of logical requests that succeeded. */
  readonly goodput: number;
  /** The share of the logical requests begun during the slowdown (or outage, or partial failure) that succeeded. */
  readonly goodputDuring: number;
  /**
   * From the end of the slowdown until goodput (the share of the requests begun in each second that succeed) is
   * back to 95% for 5 s in a row, in ms; null when it never is within the run.
   */
  readonly recoveryMs: number | null;
  /** Time from a logical request's start to its success, 99th percentile, in ms (NaN if none). */
  readonly p99Ms: number;
  /** Logical requests the circuit breaker refused at their first attempt (`CircuitOpenError`). */
  readonly refused: number;
  /** Retries the budget refused (`'budget'`). */
  readonly budgetStops: number;
  /**
   * Served requests whose client had already given up on them (timed out), or whose call another attempt had
   * answered (a hedge's race lost): wasted work.
   */
  readonly wasted: number;
  /** Requests arriving at the server per window (`windowMs`), from time 0. */
  readonly load: readonly number[];
}

/** What {@link simulateOverload} returns. */
export interface OverloadResult {
  readonly scenario: 'overload' | 'partial';
  readonly settings: Filled<Omit<OverloadOptions, 'strategies' | 'onProgress'>>;
  readonly results: readonly OverloadFigures[];
}

/** The overload scenario's default strategies. */
export const OVERLOAD_STRATEGIES = [
  'fixed',
  'none',
  'full',
  'full+budget',
  'full+breaker',
  'full+budget+breaker',
] as const satisfies readonly Strategy[];

const SEND = 0;
const ARRIVE = 1;
const OK = 2;
const FAIL = 3;
const SHED = 4; // a failure: the server's fast answer to a request over its queue limit
const DONE = 5; // the concurrency server finishes a request (its client may have given up on it long before)
const HEDGE = 6; // a round's hedge delay passed
/**
 * An attempt's events carry which attempt of its round it is (0 the first, 1 the first hedge): `kind + COPY x index`.
 * The server treats every attempt alike; the client follows a round's attempts by a bit each (see `inFlight`).
 */
const COPY = 8;

/**
 * The overload story on virtual time: steady Poisson traffic at `load` of a FIFO server's capacity, each logical
 * request with its own attempt timeout and `maxAttempts`; a slowdown to `slowdownCapacity` (or an outage of fast
 * 503s) for `slowdownMs`; then `afterMs` more. The server keeps working on requests whose clients already gave up
 * (how overload collapses goodput), and with a `queueLimitMs` it sheds what would wait longer with a fast 503. Every
 * client's decisions are herdless's own (`decide`, and with `+budget`/`+breaker` one shared `createRetryBudget()` /
 * `createCircuitBreaker()` on the simulation's clock). Choose it to see whether a policy lets a service recover from
 * a blip, or holds it in overload.
 *
 * @example
 * ```ts
 * import { simulateOverload } from 'herdless/simulate';
 * for (const r of simulateOverload({ queueLimitMs: 1_000 }).results) console.log(r.strategy, r.recoveryMs);
 * ```
 *
 * @throws RangeError when a run would draw more than {@link MAX_CALLS} logical requests on average (`load x capacity`
 *   over the run's length) or count more than {@link MAX_WINDOWS} windows of `windowMs` (or seconds of `afterMs`).
 */
export function simulateOverload(options: OverloadOptions = {}): OverloadResult {
  const settings = {
    capacity: options.capacity ?? 1_000,
    load: options.load ?? 0.8,
    attemptTimeoutMs: options.attemptTimeoutMs ?? 1_000,
    maxAttempts: options.maxAttempts ?? 3,
    warmupMs: options.warmupMs ?? 5_000,
    slowdownMs: options.slowdownMs ?? 4_000,
    slowdownCapacity: options.slowdownCapacity ?? 0.1,
    outage: options.outage ?? false,
    failureRate: options.failureRate ?? 0,
    instances: options.instances ?? 1,
    afterMs: options.afterMs ?? 60_000,
    queueLimitMs: options.queueLimitMs ?? Infinity,
    shedStatus: options.shedStatus ?? 503,
    hang: options.hang ?? false,
    addedLatencyMs: options.addedLatencyMs ?? 0,
    flapMs: options.flapMs ?? Infinity,
    demandSpike: options.demandSpike ?? 1,
    concurrencyBaseMs: options.concurrencyBaseMs ?? Number.NaN,
    reissueMs: options.reissueMs ?? Infinity,
    reissues: options.reissues ?? 2,
    baseMs: options.baseMs ?? 100,
    timeoutMs: options.timeoutMs ?? Infinity,
    hopMeanMs: options.hopMeanMs ?? 5,
    hopSdMs: options.hopSdMs ?? 1,
    windowMs: options.windowMs ?? 1_000,
    seed: options.seed ?? 1,
  };
  checkOverload(settings);
  checkOverloadLimits(settings);
  const strategies = (options.strategies ?? OVERLOAD_STRATEGIES).map(resolveStrategy);
  const drawn = drawDemand(settings);
  const results = strategies.map((strategy, i) => {
    const figures = runOverload(settings, strategy, drawn);
    options.onProgress?.(i + 1, strategies.length);
    return figures;
  });
  return { scenario: 'overload', settings, results };
}

/** The partial-failure scenario's settings; every field is optional. */
export interface PartialOptions
  extends Omit<OverloadOptions, 'slowdownMs' | 'slowdownCapacity' | 'outage' | 'failureRate'> {
  /** Each request the server serves fails with this probability (a fast 503) during the failure. Default 0.5. */
  readonly failureRate?: number | undefined;
  /** How long the partial failure lasts, in ms. Default 30,000. */
  readonly durationMs?: number | undefined;
}

/** The partial-failure scenario's default strategies. */
export const PARTIAL_STRATEGIES = ['no-retries', 'plain', 'full+budget', 'full+breaker', 'recommended'] as const;

/**
 * A dependency that fails part of what it serves while it still has room: steady Poisson traffic at `load` of a FIFO
 * server's capacity (default 0.8), and for `durationMs` (default 30 s) each request the server serves fails with
 * probability `failureRate` (default 0.5: a fast 503, after its turn in the queue), then `afterMs` more. The common
 * case of trouble (a bad host among many, a failing shard), where refusing work is the outage: choose it to see
 * whether a protection keeps what retrying is for, and whether plain retries tip a loaded server into overload.
 * Otherwise as {@link simulateOverload}.
 *
 * @example
 * ```ts
 * import { simulatePartial } from 'herdless/simulate';
 * for (const r of simulatePartial({ load: 0.5 }).results) console.log(r.strategy, r.goodputDuring);
 * ```
 */
export function simulatePartial(options: PartialOptions = {}): OverloadResult {
  const { durationMs, failureRate, strategies, onProgress, ...rest } = options;
  const result = simulateOverload({
    ...rest,
    slowdownMs: durationMs ?? 30_000,
    slowdownCapacity: 1,
    failureRate: failureRate ?? 0.5,
    strategies: strategies ?? PARTIAL_STRATEGIES,
    ...(onProgress ? { onProgress } : {}),
  });
  return { ...result, scenario: 'partial' };
}

/** Settings that would not run to an answer: a RangeError naming the setting. */
function checkOverload(s: OverloadResult['settings']): void {
  const bad = (name: string, wants: string, value: unknown) => {
    throw new RangeError(`herdless: ${name} must be ${wants}, got ${String(value)}`);
  };
  if (!(s.capacity > 0 && Number.isFinite(s.capacity))) bad('capacity', 'a finite number > 0', s.capacity);
  if (!(s.load > 0 && Number.isFinite(s.load))) bad('load', 'a finite number > 0', s.load);
  if (!(s.failureRate >= 0 && s.failureRate <= 1)) bad('failureRate', 'a number in [0, 1]', s.failureRate);
  checkInstances(s.instances);
  if (s.shedStatus !== 503 && s.shedStatus !== 429) bad('shedStatus', '503 or 429', s.shedStatus);
  if (typeof s.hang !== 'boolean') bad('hang', 'true or false', s.hang);
  if (!(s.addedLatencyMs >= 0 && Number.isFinite(s.addedLatencyMs)))
    bad('addedLatencyMs', 'a finite number >= 0', s.addedLatencyMs);
  if (!(s.flapMs >= 1)) bad('flapMs', 'a number >= 1, or Infinity (no flapping)', s.flapMs);
  if (!(s.demandSpike > 0 && s.demandSpike <= 100)) bad('demandSpike', 'a number in (0, 100]', s.demandSpike);
  if (!(Number.isNaN(s.concurrencyBaseMs) || (s.concurrencyBaseMs >= 0 && Number.isFinite(s.concurrencyBaseMs))))
    bad('concurrencyBaseMs', 'a finite number >= 0 (or undefined: the FIFO server)', s.concurrencyBaseMs);
  if (!(s.reissueMs > 0)) bad('reissueMs', 'a number > 0, or Infinity (users never re-issue)', s.reissueMs);
  if (!(Number.isInteger(s.reissues) && s.reissues >= 0 && s.reissues <= 10))
    bad('reissues', 'an integer in [0, 10]', s.reissues);
}

/** The limits of {@link simulateOverload}: what a run keeps in memory. */
function checkOverloadLimits(s: OverloadResult['settings']): void {
  const runMs = s.warmupMs + s.slowdownMs + s.afterMs;
  // The drawn calls (the spike's included), each re-issued up to `reissues` times by users who do.
  const drawn = (s.load * s.capacity * (runMs + s.slowdownMs * (s.demandSpike - 1))) / 1_000;
  const calls = drawn * (s.reissueMs === Infinity ? 1 : 1 + s.reissues);
  const windows = Math.max(windowsIn(runMs, s.windowMs), windowsIn(s.afterMs, 1_000));
  const limit = (what: string) => {
    throw new SimulationLimitError(`herdless: simulateOverload: ${what}: shorten the run or lower the rate`);
  };
  if (calls > MAX_CALLS) {
    limit(
      `load x capacity (${s.load} x ${s.capacity}/s) over ${runMs} ms${drawn === calls && s.demandSpike === 1 ? '' : ', with its spike and re-issues,'} is ${calls} requests, more than ${MAX_CALLS}`,
    );
  }
  if (windows > MAX_WINDOWS)
    limit(`the run spans ${windows} windows of windowMs (${s.windowMs}), more than ${MAX_WINDOWS}`);
  const work = calls * Math.min(s.maxAttempts, Number.MAX_SAFE_INTEGER);
  if (work > MAX_ATTEMPTS)
    limit(
      `its ${Math.round(calls)} calls x maxAttempts (${s.maxAttempts}) is ${Math.round(work)} attempts at most, more than ${MAX_ATTEMPTS}`,
    );
}

/**
 * What every strategy's run of one scenario shares, drawn once: the logical requests' start times, the generator as
 * it stands after drawing them (each run draws on from a copy), and, in a fleet, each request's instance.
 */
interface Demand {
  /** The start times: a Poisson process at load x capacity (x demandSpike during the slowdown). */
  readonly starts: Float64Array;
  /** The seeded generator after the start times were drawn from it; cloned by each run. */
  readonly rng: Rng;
  /** Each drawn request's instance, drawn on first use (a run with one policy needs none). */
  instances(): Uint32Array;
}

function drawDemand(s: OverloadResult['settings']): Demand {
  const rng = createRng(s.seed);
  const slowFrom = s.warmupMs;
  const slowTo = s.warmupMs + s.slowdownMs;
  const endMs = slowTo + s.afterMs;
  const ratePerMs = (s.load * s.capacity) / 1_000;
  let starts = new Float64Array(Math.max(16, Math.ceil(1.1 * ratePerMs * endMs)));
  let n = 0;
  for (let t = 0; ; ) {
    const rate = t >= slowFrom && t < slowTo ? ratePerMs * s.demandSpike : ratePerMs;
    const next = t - Math.log(1 - rng.next()) / rate;
    // A draw that crosses a change of rate starts afresh from it (memoryless): the rate of each stretch is its own.
    const edge = t < slowFrom ? slowFrom : t < slowTo ? slowTo : endMs;
    if (next >= edge && s.demandSpike !== 1 && edge < endMs) {
      t = edge;
      continue;
    }
    if (next >= endMs) break;
    if (n === starts.length) {
      const grown = new Float64Array(2 * n);
      grown.set(starts);
      starts = grown;
    }
    starts[n++] = next;
    t = next;
  }
  starts = starts.subarray(0, n);
  let instances: Uint32Array | undefined;
  return {
    starts,
    rng,
    instances() {
      if (instances === undefined) {
        // Each request goes to an instance at random (its own stream, so that one instance draws as before).
        const pick = createRng(s.seed ^ 0x5bd1e995);
        instances = new Uint32Array(n);
        for (let c = 0; c < n; c++) instances[c] = Math.floor(pick.next() * s.instances);
      }
      return instances;
    },
  };
}

function runOverload(s: OverloadResult['settings'], strategy: ResolvedStrategy, drawn: Demand): OverloadFigures {
  const rng = drawn.rng.clone();
  const { hopMeanMs, hopSdMs, flapMs } = s;
  const hop = () => rng.hop(hopMeanMs, hopSdMs);
  const slowFrom = s.warmupMs;
  const slowTo = s.warmupMs + s.slowdownMs;
  const endMs = slowTo + s.afterMs;
  /** Whether the trouble is on at `t`: within the slowdown, and in an "on" half of its flapping. */
  const troubled = (t: number) =>
    t >= slowFrom && t < slowTo && (flapMs === Infinity || Math.floor((t - slowFrom) / flapMs) % 2 === 0);
  // The logical requests' start times, the same for every strategy.
  const starts = drawn.starts;
  const n = starts.length;
  const reissues = s.reissueMs === Infinity ? 0 : s.reissues;
  const slots = n * (1 + reissues); // every re-issued call is a new one, after the drawn ones
  let calls = n;
  /** The drawn call each call re-issues (itself for a drawn one), and how many times it was issued before. */
  const origin = new Uint32Array(slots);
  const generation = new Uint8Array(slots);
  for (let c = 0; c < n; c++) origin[c] = c;
  const event = { time: 0, client: 0, kind: 0 };
  const clock = () => event.time;
  // One policy per instance when it holds state (a budget, a breaker, a hedge); instances without any behave alike.
  const fleet = strategy.budget || strategy.breaker || strategy.hedge ? s.instances : 1;
  const hedges: (Hedge | undefined)[] = [];
  const policies = Array.from({ length: fleet }, () => {
    const { policy, hedge } = protectInstance(strategy, clock);
    hedges.push(hedge);
    return createPolicy({
      maxAttempts: s.maxAttempts,
      timeoutMs: s.timeoutMs,
      ...policy,
      random: rng.next,
      ...(s.baseMs === 100 ? {} : { baseMs: s.baseMs, capMs: Math.max(10_000, s.baseMs) }),
    });
  });
  // Each request goes to an instance at random (its own stream, so that one instance draws as before).
  let instance: Uint32Array | undefined;
  if (fleet > 1) {
    instance = new Uint32Array(slots);
    instance.set(drawn.instances());
  }
  const retries = new ClientRetries(slots, policies, undefined, instance);
  const startAt = new Float64Array(slots);
  startAt.set(starts);
  /** When each call's current round (one of `retry()`'s attempts) began: its first attempt's send. */
  const sentAt = new Float64Array(slots);
  /** Each call's attempts of its current round still in flight, a bit each (bit 0 the first): 0 between rounds. */
  const inFlight = new Uint8Array(slots);
  /** With a hedge: each round's hedge delay, when its next hedge is due (NaN: none), and the hedges it sent. */
  const hedging = strategy.hedge ? hedges : undefined;
  const hedgeDelay = hedging && new Float64Array(slots);
  const hedgeDue = hedging && new Float64Array(slots).fill(Number.NaN);
  const hedgesSent = hedging && new Uint8Array(slots);
  let hedgeCount = 0;
  const hedgeOf = (client: number) => hedges[instance ? (instance[client] as number) : client % fleet] as Hedge;
  const latencies = new Float64Array(slots);
  const started = new Uint8Array(slots);
  // Per second after the slowdown: requests begun, and those of them that succeeded.
  const seconds = Math.ceil(s.afterMs / 1_000);
  const demand = new Uint32Array(seconds);
  const good = new Uint32Array(seconds);
  const load = new Array<number>(Math.ceil(endMs / s.windowMs)).fill(0);
  const queue = new EventQueue();
  const serviceMs = 1_000 / s.capacity;
  const concurrent = !Number.isNaN(s.concurrencyBaseMs);
  let working = 0; // the concurrency server's requests being worked on
  let busyUntil = 0; // when the FIFO server finishes the work it has accepted
  let requests = 0;
  let offered = 0; // arrivals from the slowdown's start to the run's end
  let succeeded = 0;
  let refused = 0;
  let budgetStops = 0;
  let wasted = 0;
  const secondOf = (client: number) => Math.floor(((startAt[client] as number) - slowTo) / 1_000);
  const during = (client: number) => (startAt[client] as number) >= slowFrom && (startAt[client] as number) < slowTo;
  let begunDuring = 0;
  /** The server's shed answer, as the client reads it (one object: nothing keeps it). */
  const shed = { status: s.shedStatus };
  let goodDuring = 0;
  /** A call gave up: its user issues it again later, as a new call, while re-issues are left. */
  const gaveUp = (client: number, time: number) => {
    const next = (generation[client] as number) + 1;
    if (next > reissues || calls >= slots) return;
    const c = calls++;
    origin[c] = origin[client] as number;
    generation[c] = next;
    startAt[c] = time + s.reissueMs;
    if (instance) instance[c] = instance[client] as number;
    queue.push(startAt[c] as number, c, SEND);
  };

  if (n > 0) queue.push(starts[0] as number, 0, SEND);
  /** A round ended: no attempt of it in flight, and no hedge due. */
  const endRound = (client: number) => {
    inFlight[client] = 0;
    if (hedgeDue) hedgeDue[client] = Number.NaN;
  };
  while (queue.pop(event)) {
    const { time, client } = event;
    const kind = event.kind & (COPY - 1);
    const copy = event.kind >> 3; // which attempt of its round (0: the first)
    if (kind === SEND) {
      if (started[client] === 0) {
        started[client] = 1;
        if (client + 1 < n) queue.push(starts[client + 1] as number, client + 1, SEND);
        const second = secondOf(client);
        if (second >= 0 && second < seconds) demand[second] = (demand[second] as number) + 1;
        if (during(client)) begunDuring++;
      }
      if (!retries.start(client)) {
        if (sentAt[client] === 0)
          refused++; // never sent: a CircuitOpenError
        else if (retries.refusedBy === 'budget') budgetStops++; // a retry the budget refused as it was to start
        gaveUp(client, time); // a retry refused: RetryError 'circuit-open'
        continue;
      }
      sentAt[client] = time;
      inFlight[client] = 1;
      queue.push(time + hop(), client, ARRIVE);
      if (hedging) {
        // As hedged() begins a round: the hedge's delay, if it has one yet, and its timer.
        const delay = hedgeOf(client).begin();
        (hedgesSent as Uint8Array)[client] = 0;
        if (delay !== undefined && delay <= MAX_TIMER_MS) {
          (hedgeDelay as Float64Array)[client] = delay;
          (hedgeDue as Float64Array)[client] = time + delay;
          queue.push(time + delay, client, HEDGE);
        }
      }
    } else if (kind === HEDGE) {
      // A timer of a round that has ended (answered, or failed before its hedge was due) is cleared: skipped.
      if ((hedgeDue as Float64Array)[client] !== time) continue;
      const sent = (hedgesSent as Uint8Array)[client] as number;
      const delay = (hedgeDelay as Float64Array)[client] as number;
      if (!hedgeOf(client).decide(sent + 1, delay).send) {
        (hedgeDue as Float64Array)[client] = Number.NaN; // refused: no more hedges this round
        continue;
      }
      (hedgesSent as Uint8Array)[client] = sent + 1;
      hedgeCount++;
      inFlight[client] = (inFlight[client] as number) | (1 << (sent + 1));
      queue.push(time + hop(), client, ARRIVE + COPY * (sent + 1));
      const more = sent + 1 < (hedgeOf(client).settings.maxHedges as number);
      (hedgeDue as Float64Array)[client] = more ? time + delay : Number.NaN;
      if (more) queue.push(time + delay, client, HEDGE);
    } else if (kind === ARRIVE) {
      requests++;
      if (time >= slowFrom) offered++;
      const w = Math.floor(time / s.windowMs);
      if (w < load.length) load[w] = (load[w] as number) + 1;
      const trouble = troubled(time);
      // Every attempt of a round ends at the round's timeout: retry()'s attemptTimeoutMs aborts the whole round.
      const deadline = (sentAt[client] as number) + s.attemptTimeoutMs;
      const tag = COPY * copy;
      if (trouble && s.outage) {
        queue.push(time + hop(), client, FAIL + tag); // a fast 503
        continue;
      }
      if (trouble && s.hang) {
        queue.push(deadline, client, FAIL + tag); // no answer: the attempt's timeout ends it
        continue;
      }
      let done: number;
      let slowServed = false; // served at the slowdown's rate
      if (concurrent) {
        done = time + s.concurrencyBaseMs + serviceMs * working++;
        queue.push(done, 0, DONE);
      } else {
        if (busyUntil - time > s.queueLimitMs) {
          queue.push(time + hop(), client, SHED + tag); // a fast 503, or a 429
          continue;
        }
        const begin = Math.max(time, busyUntil);
        const slow = troubled(begin) && !s.outage && !s.hang;
        busyUntil = begin + (slow ? serviceMs / s.slowdownCapacity : serviceMs);
        done = busyUntil;
        slowServed = slow;
      }
      let answered = done + hop();
      // A partial failure: the server served it, and it failed (a 503 after its turn).
      const failedServing = slowServed && s.failureRate > 0 && rng.next() < s.failureRate;
      if (trouble && s.addedLatencyMs > 0) answered += -Math.log(1 - rng.next()) * s.addedLatencyMs;
      if (answered <= deadline) queue.push(answered, client, (failedServing ? FAIL : OK) + tag);
      else {
        wasted++; // served all the same, after its client gave up on it
        queue.push(deadline, client, FAIL + tag);
      }
    } else if (kind === DONE) {
      working--;
    } else if (((inFlight[client] as number) & (1 << copy)) === 0) {
      // The answer of an attempt whose round another attempt already answered: aborted by its client, served anyway.
      if (kind === OK) wasted++;
    } else if (kind === OK) {
      const roundMs = time - (sentAt[client] as number);
      endRound(client);
      retries.succeeded(client, roundMs, s.attemptTimeoutMs);
      if (hedging) hedgeOf(client).record(roundMs);
      latencies[succeeded++] = time - (startAt[client] as number);
      const second = secondOf(client);
      if (second >= 0 && second < seconds) good[second] = (good[second] as number) + 1;
      if (during(client)) goodDuring++;
    } else {
      const left = (inFlight[client] as number) & ~(1 << copy);
      // A failure does not end a round while another of its attempts is in flight; it stops the hedges to come.
      if (left !== 0) {
        inFlight[client] = left;
        if (hedgeDue) hedgeDue[client] = Number.NaN;
        continue;
      }
      endRound(client);
      // An attempt its timeout abandoned took "forever" as far as its client knows.
      const attemptMs = time - (sentAt[client] as number);
      const d = retries.failed(
        client,
        time - (startAt[client] as number),
        undefined,
        attemptMs >= s.attemptTimeoutMs ? Infinity : attemptMs,
        s.attemptTimeoutMs,
        kind === SHED ? shed : undefined,
      );
      if (d.retry) queue.push(time + d.delayMs, client, SEND);
      else {
        if (d.reason === 'budget') budgetStops++;
        gaveUp(client, time);
      }
    }
  }

  let recoveryMs: number | null = null;
  for (let first = 0, run = 0; first + run < seconds; ) {
    const second = first + run;
    if ((good[second] as number) >= 0.95 * (demand[second] as number)) {
      if (++run === 5) {
        recoveryMs = first * 1_000;
        break;
      }
    } else [first, run] = [second + 1, 0];
  }
  return {
    strategy: strategy.name,
    calls,
    requests,
    retries: requests - hedgeCount - calls + refused,
    hedges: hedgeCount,
    amplification: offered / ((s.capacity * (endMs - slowFrom)) / 1_000),
    goodput: calls === 0 ? 1 : succeeded / calls,
    goodputDuring: begunDuring === 0 ? 1 : goodDuring / begunDuring,
    recoveryMs,
    p99Ms: selectPercentile(latencies.subarray(0, succeeded), 0.99),
    refused,
    budgetStops,
    wasted,
    load,
  };
}
