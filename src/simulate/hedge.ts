import { createRetryBudget, type RetryBudget } from '../budget';
import { createHedge, type Hedge } from '../hedge/index';
import { nearest } from '../nearest';
import { createPolicy } from '../policy';
import { onlyKnown } from '../validate';
import { checkInstances, MAX_CALLS, SimulationLimitError } from './limits';
import { selectPercentile } from './outage';
import { ClientRetries } from './retries';
import type { Filled } from './settings';
import { checkSimulatedHedge, type SimulatedHedge } from './strategies';
import { ANSWER, CALL, HEDGE, TailServer, type TailSettings, tailCapacity } from './tail';

/**
 * A hedging strategy the hedge scenario compares:
 * - `no-hedge`: one attempt a call (the reference);
 * - `unbounded`: a hedge for every call still unanswered at the healthy p95 (measured from a `no-hedge` run of the
 *   same server, healthy, at one process), with no cap: what most libraries offer;
 * - `hedge`: `createHedge()` as it comes, one per process (this process's p95 once 100 answers were seen, a 5% cap);
 * - `hedge+budget`: `createHedge({ budget })`, with a `createRetryBudget()` per process whose `slowMs` is ten times
 *   the healthy median (the scenario has no attempt timeout to take half of);
 * - your own: `{ name, hedge }` with `createHedge()`'s options (not its clock), and `budget: true` for the above.
 */
export type HedgeStrategy =
  | 'no-hedge'
  | 'unbounded'
  | 'hedge'
  | 'hedge+budget'
  | { readonly name: string; readonly hedge: SimulatedHedge; readonly budget?: boolean | undefined };

/** The hedge scenario's default strategies. */
export const HEDGE_STRATEGIES = ['no-hedge', 'unbounded', 'hedge', 'hedge+budget'] as const;

/** {@link simulateHedge}'s settings; every field is optional. */
export interface HedgeScenarioOptions {
  /** Client processes the calls are split over at random, each with its own hedge (and budget). Default 1. */
  readonly instances?: number | undefined;
  /** The demand (Poisson arrivals) as a share of the server's healthy capacity. Default 0.4. */
  readonly load?: number | undefined;
  /** The share of attempts served in the slow mode (the tail). Default 0.01. */
  readonly slowShare?: number | undefined;
  /** How many times longer a slow-mode attempt takes. Default 25. */
  readonly slowFactor?: number | undefined;
  /** A slowdown: for this long, from `warmupMs`, every worker is `slowdownFactor` times slower, in ms. Default 0. */
  readonly slowdownMs?: number | undefined;
  /** See `slowdownMs`. Default 3.3: at load 0.5 the server is then overloaded while it lasts. */
  readonly slowdownFactor?: number | undefined;
  /** When the slowdown begins, in ms. Default 5,000. */
  readonly warmupMs?: number | undefined;
  /** Calls arrive over this long, in ms (the run goes on until every call is answered). Default 30,000. */
  readonly runMs?: number | undefined;
  /** Parallel workers sharing the server's one FIFO queue. Default 50. */
  readonly workers?: number | undefined;
  /** The median service time of an attempt, in ms (lognormal). Default 20. */
  readonly medianMs?: number | undefined;
  /** The lognormal's sigma. Default 0.4. */
  readonly sigma?: number | undefined;
  /** A network hop, in ms. Default 1. */
  readonly hopMs?: number | undefined;
  /** Strategies to compare. Default {@link HEDGE_STRATEGIES}. */
  readonly strategies?: readonly HedgeStrategy[] | undefined;
  /** The seed: the same seed gives the same result. Default 1. */
  readonly seed?: number | undefined;
  /** Called after each strategy's run with how many are done. */
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
}

/** One strategy's figures in the hedge scenario. */
export interface HedgeFigures {
  readonly strategy: string;
  /** Calls (each answered: the scenario has no timeouts). */
  readonly calls: number;
  /** Attempts sent: calls plus hedges. */
  readonly requests: number;
  /** Hedges sent over calls: the extra load. */
  readonly extraLoad: number;
  /** The same over the calls begun in the slowdown (0 without one). */
  readonly extraInSlowdown: number;
  /** Attempts the server served after their call was answered (a hedge's lost race, already being served). */
  readonly wasted: number;
  /** Percentiles of the calls' latency, from start to first answer, in ms. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
}

/** What {@link simulateHedge} returns. */
export interface HedgeResult {
  readonly scenario: 'hedge';
  readonly settings: Filled<Omit<HedgeScenarioOptions, 'strategies' | 'onProgress'>> & {
    /** The server's healthy capacity, requests a second. */
    readonly capacity: number;
    /** The healthy p95 the `unbounded` hedge waits, in ms. */
    readonly healthyP95Ms: number;
  };
  readonly results: readonly HedgeFigures[];
}

/**
 * Hedging on virtual time: a server with a long tail (50 workers, lognormal attempts with a slow mode for 1% of them)
 * and, with `slowdownMs`, a slowdown that overloads it; calls split over 1 to 10,000 client processes, each with its
 * own `createHedge()` (the real objects, on the simulation's clock, driven as `hedged()` drives them). No timeouts and
 * no retries: the hedge alone. Per strategy: the p50, p99 and p99.9 of the calls' latency and the extra load, beside
 * no hedging and an unbounded hedge. Choose it to see what a hedge buys on a tail, and that it stays off when the
 * dependency is slow as a whole or the process is too quiet to learn its latency.
 *
 * @example
 * ```ts
 * import { simulateHedge } from 'herdless/simulate';
 * for (const r of simulateHedge({ instances: 10 }).results) console.log(r.strategy, r.p999Ms, r.extraLoad);
 * ```
 *
 * @throws RangeError naming the setting, for a bad one, or past {@link MAX_CALLS} calls.
 */
export function simulateHedge(options: HedgeScenarioOptions = {}): HedgeResult {
  if (options === null || typeof options !== 'object')
    throw new TypeError(`herdless: simulateHedge's options must be an object, got ${String(options)}`);
  onlyKnown(options, OPTIONS, 'simulateHedge', (key) => nearest(key, OPTIONS));
  const s = {
    instances: options.instances ?? 1,
    load: options.load ?? 0.4,
    slowShare: options.slowShare ?? 0.01,
    slowFactor: options.slowFactor ?? 25,
    slowdownMs: options.slowdownMs ?? 0,
    slowdownFactor: options.slowdownFactor ?? 3.3,
    warmupMs: options.warmupMs ?? 5_000,
    runMs: options.runMs ?? 30_000,
    workers: options.workers ?? 50,
    medianMs: options.medianMs ?? 20,
    sigma: options.sigma ?? 0.4,
    hopMs: options.hopMs ?? 1,
    seed: options.seed ?? 1,
  };
  checkHedgeScenario(s);
  const strategies = options.strategies ?? HEDGE_STRATEGIES;
  for (const strategy of strategies) checkStrategy(strategy);
  // The unbounded hedge's delay: the healthy p95 of calls without hedges, as a library's fixed delay is set.
  const healthy = runHedge({ ...s, instances: 1, slowdownMs: 0 }, 'no-hedge', 0);
  const healthyP95Ms = Math.round(selectPercentile(healthy.latency, 0.95));
  const results = strategies.map((strategy, i) => {
    const r = runHedge(s, strategy, healthyP95Ms);
    options.onProgress?.(i + 1, strategies.length);
    return r.figures;
  });
  return { scenario: 'hedge', settings: { ...s, capacity: tailCapacity(s), healthyP95Ms }, results };
}

function checkHedgeScenario(s: TailSettings): void {
  const bad = (name: string, wants: string, value: unknown) => {
    throw new RangeError(`herdless: ${name} must be ${wants}, got ${String(value)}`);
  };
  checkInstances(s.instances);
  if (s.instances > MAX_HEDGE_INSTANCES) bad('instances', `an integer in [1, ${MAX_HEDGE_INSTANCES}]`, s.instances);
  if (!(s.load > 0 && s.load <= 10)) bad('load', 'a number in (0, 10]', s.load);
  if (!(s.slowShare >= 0 && s.slowShare <= 1)) bad('slowShare', 'a number in [0, 1]', s.slowShare);
  if (!(s.slowFactor >= 1 && Number.isFinite(s.slowFactor))) bad('slowFactor', 'a finite number >= 1', s.slowFactor);
  if (!(s.slowdownMs >= 0 && Number.isFinite(s.slowdownMs))) bad('slowdownMs', 'a finite number >= 0', s.slowdownMs);
  if (!(s.slowdownFactor >= 1 && Number.isFinite(s.slowdownFactor)))
    bad('slowdownFactor', 'a finite number >= 1', s.slowdownFactor);
  if (!(s.warmupMs >= 0 && Number.isFinite(s.warmupMs))) bad('warmupMs', 'a finite number >= 0', s.warmupMs);
  if (!(s.runMs > 0 && Number.isFinite(s.runMs))) bad('runMs', 'a finite number > 0', s.runMs);
  if (!(Number.isInteger(s.workers) && s.workers >= 1 && s.workers <= 100_000))
    bad('workers', 'an integer in [1, 100000]', s.workers);
  if (!(s.medianMs > 0 && Number.isFinite(s.medianMs))) bad('medianMs', 'a finite number > 0', s.medianMs);
  if (!(s.sigma >= 0 && s.sigma <= 3)) bad('sigma', 'a number in [0, 3]', s.sigma);
  if (!(s.hopMs >= 0 && Number.isFinite(s.hopMs))) bad('hopMs', 'a finite number >= 0', s.hopMs);
  if (!Number.isFinite(s.seed)) bad('seed', 'a finite number', s.seed);
  const calls = (s.load * tailCapacity(s) * s.runMs) / 1_000;
  if (calls > MAX_CALLS) {
    throw new SimulationLimitError(
      `herdless: simulateHedge: load x capacity (${s.load} x ${Math.round(tailCapacity(s))}/s) over ${s.runMs} ms is ${Math.round(calls)} calls, more than ${MAX_CALLS}: shorten the run or lower the load`,
    );
  }
}

const NAMES: readonly string[] = HEDGE_STRATEGIES;

/** {@link HedgeScenarioOptions}' keys: any other is a misspelling, named with the nearest. */
const OPTIONS: ReadonlySet<string> = new Set([
  'instances',
  'load',
  'slowShare',
  'slowFactor',
  'slowdownMs',
  'slowdownFactor',
  'warmupMs',
  'runMs',
  'workers',
  'medianMs',
  'sigma',
  'hopMs',
  'strategies',
  'seed',
  'onProgress',
]);

/** The most client processes a run splits its calls over: each holds a hedge (a few kilobytes). */
const MAX_HEDGE_INSTANCES = 1_000_000;

function checkStrategy(strategy: HedgeStrategy): void {
  if (typeof strategy === 'string') {
    if (!NAMES.includes(strategy))
      throw new RangeError(
        `herdless: unknown hedge strategy '${strategy}' (known: ${NAMES.join(', ')}, or { name, hedge })`,
      );
    return;
  }
  if (strategy === null || typeof strategy !== 'object' || typeof strategy.name !== 'string')
    throw new TypeError(`herdless: a hedge strategy must be a name or { name, hedge }, got ${String(strategy)}`);
  checkSimulatedHedge(strategy.hedge);
}

/** One run: the server, and each call's first attempt, hedges and answer, through the hedge's own decisions. */
function runHedge(
  s: TailSettings,
  strategy: HedgeStrategy,
  healthyP95Ms: number,
): { figures: HedgeFigures; latency: Float64Array } {
  const name = typeof strategy === 'string' ? strategy : strategy.name;
  const unbounded = strategy === 'unbounded';
  const options: SimulatedHedge | undefined =
    strategy === 'no-hedge' || unbounded ? undefined : typeof strategy === 'string' ? {} : strategy.hedge;
  const budgeted = strategy === 'hedge+budget' || (typeof strategy === 'object' && strategy.budget === true);
  const maxHedges = options?.maxHedges ?? 1;
  const server = new TailServer(s, 1 + maxHedges);
  const { q, calls, callDone, callInstance, callStart } = server;
  let t = 0;
  const now = () => t;
  // Per process: its hedge and, with a budget, the policy retry() would have, so calls settle as retry() settles them.
  const hedges: (Hedge | undefined)[] = new Array(s.instances);
  const policies = Array.from({ length: budgeted ? s.instances : 1 }, () =>
    createPolicy({
      maxAttempts: 1,
      ...(budgeted && { budget: createRetryBudget({ now, slowMs: 10 * s.medianMs }) }),
    }),
  );
  const retries = new ClientRetries(calls, policies, undefined, budgeted ? new Uint32Array(callInstance) : undefined);
  const hedgeOf = (i: number): Hedge | undefined => {
    if (!options) return undefined;
    let h = hedges[i];
    if (!h) {
      const budget = budgeted ? (policies[i]?.budget as RetryBudget | undefined) : undefined;
      h = createHedge({ ...options, now, ...(budget && { budget }) });
      hedges[i] = h;
    }
    return h;
  };
  const delays = new Float64Array(calls);
  const sent = new Uint8Array(calls);
  let inSlowdown = 0;
  let hedgesInSlowdown = 0;
  const ev = { time: 0, client: 0, kind: 0 };
  while (q.pop(ev)) {
    const { time, client, kind } = ev;
    t = time;
    if (kind === CALL) {
      if (server.slowing(time)) inSlowdown++;
      retries.start(client); // a first attempt: the budget counts it, and never refuses it
      server.send(client, time);
      const delay = unbounded ? healthyP95Ms : hedgeOf(callInstance[client] as number)?.begin();
      if (delay !== undefined) {
        delays[client] = delay;
        q.push(time + delay, client, HEDGE);
      }
    } else if (kind === HEDGE) {
      if (callDone[client]) continue;
      const h = hedgeOf(callInstance[client] as number);
      const n = (sent[client] as number) + 1;
      if (h && !h.decide(n, delays[client] as number).send) continue;
      sent[client] = n;
      if (server.slowing(callStart[client] as number)) hedgesInSlowdown++;
      server.send(client, time);
      if (n < maxHedges) q.push(time + (delays[client] as number), client, HEDGE);
    } else {
      const c = server.handle(time, client, kind);
      if (kind !== ANSWER || c < 0) continue;
      const took = time - (callStart[c] as number);
      hedgeOf(callInstance[c] as number)?.record(took);
      retries.succeeded(c, took, Number.POSITIVE_INFINITY);
    }
  }
  const { latency } = server;
  return {
    latency,
    figures: {
      strategy: name,
      calls,
      requests: server.attempts,
      extraLoad: calls === 0 ? 0 : server.attempts / calls - 1,
      extraInSlowdown: inSlowdown === 0 ? 0 : hedgesInSlowdown / inSlowdown,
      wasted: server.wasted,
      p50Ms: selectPercentile(latency, 0.5),
      p99Ms: selectPercentile(latency, 0.99),
      p999Ms: selectPercentile(latency, 0.999),
    },
  };
}
