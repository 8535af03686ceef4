import { type CircuitBreakerOptions, createCircuitBreaker } from '../breaker';
import { createRetryBudget, type RetryBudget, type RetryBudgetOptions } from '../budget';
import { createHedge, type Hedge, type HedgeOptions } from '../hedge/index';
import type { RetryOptions } from '../policy';
import type { RetryAfterRule } from './retries';

/**
 * The retry strategies the simulator compares, each a herdless policy, so every delay and give-up comes from the
 * library's own `computeDelay` and limits:
 * - `immediate`: retry at once (what a bare loop does);
 * - `fixed`: a fixed 500 ms between attempts;
 * - `none`: exponential backoff without jitter;
 * - `full`, `equal`, `decorrelated`: herdless's jittered backoff.
 */
export const STRATEGIES = {
  immediate: { jitter: 'none', baseMs: 0, capMs: 0 },
  fixed: { jitter: 'none', baseMs: 500, capMs: 500, factor: 1 },
  none: { jitter: 'none' },
  full: { jitter: 'full' },
  equal: { jitter: 'equal' },
  decorrelated: { jitter: 'decorrelated' },
} as const satisfies Record<string, RetryOptions>;

/**
 * The matrix's references and the recommended setup, by name:
 * - `no-retries`: `maxAttempts: 1`, what a client that never retries sends (the safety reference);
 * - `plain`: full jitter with no protection (the benefit reference);
 * - `recommended`: exactly the setup the README recommends for a dependency: full jitter, an attempt timeout (the
 *   scenario's), and a `createRetryBudget()` with the library's defaults, one per instance. No circuit breaker: judged
 *   on drawn troubles (`herdless simulate --scenario explore`), adding one made the setup unsafe in 9% of the
 *   development range's cells (its break and probe hold callers off after the dependency is back) and gained nothing.
 * - `recommended+hedge`: the recommended setup with a `createHedge({ budget })` per instance (herdless/hedge, its
 *   defaults, given the instance's budget as its guide recommends): each of `retry()`'s attempts a round whose
 *   second attempt goes out when the first has not answered by this process's p95.
 */
export const PRESETS = {
  'no-retries': { name: 'no-retries', policy: { maxAttempts: 1 }, budget: false, breaker: false },
  plain: { name: 'plain', policy: { jitter: 'full' }, budget: false, breaker: false },
  recommended: { name: 'recommended', policy: { jitter: 'full' }, budget: true, breaker: false },
  'recommended+hedge': {
    name: 'recommended+hedge',
    policy: { jitter: 'full' },
    budget: true,
    breaker: false,
    hedge: true,
  },
} as const satisfies Record<string, ResolvedStrategy>;

/** A preset's name: `no-retries`, `plain`, `recommended` or `recommended+hedge`. */
export type PresetName = keyof typeof PRESETS;

/** A built-in strategy's name. */
export type StrategyName = keyof typeof STRATEGIES;

/**
 * What a built-in strategy may add: a retry budget, a circuit breaker, or both (`full+budget+breaker`), and then a
 * hedge (`full+budget+hedge`, `full+hedge`).
 */
export type Protection =
  | '+budget'
  | '+breaker'
  | '+budget+breaker'
  | '+breaker+budget'
  | '+hedge'
  | '+budget+hedge'
  | '+breaker+hedge'
  | '+budget+breaker+hedge'
  | '+breaker+budget+hedge';

/**
 * A strategy: a built-in name, optionally with `+budget` and/or `+breaker` (each simulated run then shares one
 * `createRetryBudget()` and/or `createCircuitBreaker()` with the library's defaults among all its clients, on the
 * simulation's clock), or your own policy under a name of your choice. `retryAfter: 'floor-plus-backoff'` runs a
 * policy under the Retry-After rule herdless had before, for comparison (simulator-only; see {@link RetryAfterRule});
 * only the outage scenario's `retryAfterMs` makes a difference to it.
 */
export type Strategy =
  | PresetName
  | StrategyName
  | `${StrategyName}${Protection}`
  | {
      readonly name: string;
      readonly policy: RetryOptions;
      readonly retryAfter?: RetryAfterRule | undefined;
      /** `true` for a `createRetryBudget()` with the defaults, or the options of one (without `now`). */
      readonly budget?: boolean | Omit<RetryBudgetOptions, 'now'> | undefined;
      /** `true` for a `createCircuitBreaker()` with the defaults, or the options of one (without `now`). */
      readonly breaker?: boolean | Omit<CircuitBreakerOptions, 'now'> | undefined;
      /**
       * `true` for a `createHedge()` with the defaults, or the options of one (see {@link SimulatedHedge}), given the
       * instance's budget if it has one.
       */
      readonly hedge?: boolean | SimulatedHedge | undefined;
    };

/**
 * The hedge options a simulated strategy may set: `createHedge()`'s, but the clock and the budget (the simulation's
 * and the instance's), and at most 7 hedges per round.
 */
export type SimulatedHedge = Omit<HedgeOptions, 'now' | 'budget' | 'onHedge'>;

/** A strategy's name, backoff options, Retry-After rule, and whether its clients share a budget and a breaker. */
export interface ResolvedStrategy {
  readonly name: string;
  readonly policy: RetryOptions;
  readonly retryAfter?: RetryAfterRule | undefined;
  readonly budget: boolean | Omit<RetryBudgetOptions, 'now'>;
  readonly breaker: boolean | Omit<CircuitBreakerOptions, 'now'>;
  /** A hedge per instance (herdless/hedge): see {@link SimulatedHedge}. Default none. */
  readonly hedge?: boolean | SimulatedHedge | undefined;
}

/** The name, backoff options and protections of a strategy. */
export function resolveStrategy(strategy: Strategy): ResolvedStrategy {
  if (typeof strategy !== 'string') {
    const hedge = strategy.hedge ?? false;
    if (hedge !== false) checkSimulatedHedge(hedge === true ? {} : hedge);
    return { ...strategy, budget: strategy.budget ?? false, breaker: strategy.breaker ?? false, hedge };
  }
  if (Object.hasOwn(PRESETS, strategy)) return PRESETS[strategy as PresetName];
  const [base = '', ...extras] = strategy.split('+');
  const policy = (STRATEGIES as Record<string, RetryOptions>)[base];
  // The hedge comes last: it is given the budget, so it is named after it.
  const hedge = extras.at(-1) === 'hedge';
  const guards = hedge ? extras.slice(0, -1) : extras;
  const known = guards.every((e, i) => (e === 'budget' || e === 'breaker') && guards.indexOf(e) === i);
  if (!policy || !known) {
    throw new RangeError(
      `herdless: unknown strategy '${strategy}' (known: ${Object.keys(STRATEGIES).join(', ')}, each optionally with +budget and/or +breaker, then +hedge; or ${Object.keys(PRESETS).join(', ')})`,
    );
  }
  return {
    name: strategy,
    policy,
    budget: guards.includes('budget'),
    breaker: guards.includes('breaker'),
    ...(hedge && { hedge }),
  };
}

/**
 * The strategies of a scenario that does not follow hedges (the outage's clients, the contention's conditional writes,
 * which must never be hedged): a RangeError naming the first with a hedge, rather than a row that says it hedged.
 */
export function unhedged(strategies: readonly ResolvedStrategy[], scenario: string): readonly ResolvedStrategy[] {
  const hedged = strategies.find((s) => s.hedge);
  if (hedged) {
    throw new RangeError(
      `herdless: the ${scenario} scenario does not simulate hedges ('${hedged.name}'): hedging runs in the overload, partial, matrix, explore and hedge scenarios`,
    );
  }
  return strategies;
}

/** The most hedges per round the simulator follows (a round's attempts are bits of a byte). */
const MAX_SIMULATED_HEDGES = 7;

/** A simulated hedge's options, checked before a run: `createHedge()`'s errors, and at most 7 hedges a round. */
export function checkSimulatedHedge(options: SimulatedHedge): void {
  createHedge(options); // a bad option named now, not mid-run
  const maxHedges = options.maxHedges ?? 1;
  if (maxHedges > MAX_SIMULATED_HEDGES)
    throw new RangeError(`herdless: a simulated hedge's maxHedges must be at most 7, got ${maxHedges}`);
}

/**
 * One simulated instance's protections: its policy options (the strategy's backoff, and a fresh budget and breaker
 * if it has them, with the library's defaults or its options, on the simulation's clock `now`) and its hedge, if it
 * has one, given that budget (as the hedging guide recommends).
 */
export function protectInstance(
  strategy: ResolvedStrategy,
  now: () => number,
): { readonly policy: RetryOptions; readonly hedge: Hedge | undefined } {
  const policy = protectedPolicy(strategy, now);
  const { hedge } = strategy;
  if (!hedge) return { policy, hedge: undefined };
  const budget = policy.budget as RetryBudget | undefined;
  return { policy, hedge: createHedge({ ...(hedge === true ? {} : hedge), now, ...(budget && { budget }) }) };
}

/**
 * The policy options of one simulated run of `strategy`: its backoff plus, if it has them, a fresh budget and breaker
 * shared by all its clients, with the library's defaults, on the simulation's clock `now`.
 */
export function protectedPolicy(strategy: ResolvedStrategy, now: () => number): RetryOptions {
  return {
    ...strategy.policy,
    ...(strategy.budget
      ? { budget: createRetryBudget({ ...(strategy.budget === true ? {} : strategy.budget), now }) }
      : {}),
    ...(strategy.breaker
      ? { breaker: createCircuitBreaker({ ...(strategy.breaker === true ? {} : strategy.breaker), now }) }
      : {}),
  };
}
