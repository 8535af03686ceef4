import { type CircuitBreakerOptions, createCircuitBreaker } from '../breaker';
import { createRetryBudget, type RetryBudgetOptions } from '../budget';
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
 */
export const PRESETS = {
  'no-retries': { name: 'no-retries', policy: { maxAttempts: 1 }, budget: false, breaker: false },
  plain: { name: 'plain', policy: { jitter: 'full' }, budget: false, breaker: false },
  recommended: { name: 'recommended', policy: { jitter: 'full' }, budget: true, breaker: false },
} as const satisfies Record<string, ResolvedStrategy>;

/** A preset's name: `no-retries`, `plain` or `recommended`. */
export type PresetName = keyof typeof PRESETS;

/** A built-in strategy's name. */
export type StrategyName = keyof typeof STRATEGIES;

/** What a built-in strategy may add: a retry budget, a circuit breaker, or both (`full+budget+breaker`). */
export type Protection = '+budget' | '+breaker' | '+budget+breaker' | '+breaker+budget';

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
    };

/** A strategy's name, backoff options, Retry-After rule, and whether its clients share a budget and a breaker. */
export interface ResolvedStrategy {
  readonly name: string;
  readonly policy: RetryOptions;
  readonly retryAfter?: RetryAfterRule | undefined;
  readonly budget: boolean | Omit<RetryBudgetOptions, 'now'>;
  readonly breaker: boolean | Omit<CircuitBreakerOptions, 'now'>;
}

/** The name, backoff options and protections of a strategy. */
export function resolveStrategy(strategy: Strategy): ResolvedStrategy {
  if (typeof strategy !== 'string')
    return { ...strategy, budget: strategy.budget ?? false, breaker: strategy.breaker ?? false };
  if (Object.hasOwn(PRESETS, strategy)) return PRESETS[strategy as PresetName];
  const [base = '', ...extras] = strategy.split('+');
  const policy = (STRATEGIES as Record<string, RetryOptions>)[base];
  const known = extras.every((e, i) => (e === 'budget' || e === 'breaker') && extras.indexOf(e) === i);
  if (!policy || !known) {
    throw new RangeError(
      `herdless: unknown strategy '${strategy}' (known: ${Object.keys(STRATEGIES).join(', ')}, each optionally with +budget and/or +breaker; or ${Object.keys(PRESETS).join(', ')})`,
    );
  }
  return { name: strategy, policy, budget: extras.includes('budget'), breaker: extras.includes('breaker') };
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
