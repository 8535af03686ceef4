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

/** A built-in strategy's name. */
export type StrategyName = keyof typeof STRATEGIES;

/**
 * A strategy: a built-in name, or your own policy under a name of your choice. `retryAfter: 'floor-plus-backoff'`
 * runs a policy under the Retry-After rule herdless had before, for comparison (simulator-only; see
 * {@link RetryAfterRule}); only the outage scenario's `retryAfterMs` makes a difference to it.
 */
export type Strategy =
  | StrategyName
  | { readonly name: string; readonly policy: RetryOptions; readonly retryAfter?: RetryAfterRule };

/** The name and backoff options of a strategy. */
export function resolveStrategy(strategy: Strategy): {
  name: string;
  policy: RetryOptions;
  retryAfter?: RetryAfterRule;
} {
  if (typeof strategy === 'string') {
    const policy = (STRATEGIES as Record<string, RetryOptions>)[strategy];
    if (!policy) {
      throw new RangeError(`herdless: unknown strategy '${strategy}' (known: ${Object.keys(STRATEGIES).join(', ')})`);
    }
    return { name: strategy, policy };
  }
  return strategy;
}
