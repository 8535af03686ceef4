import { type Decision, decide } from '../decide';
import type { RetryPolicy } from '../policy';

/**
 * How a simulated client combines a server's Retry-After with its own backoff:
 * - `'spread'` (default): herdless's rule, the server's wait plus a spread that grows with it (see `decide`);
 * - `'floor-plus-backoff'`: a reference for comparison, simulator-only: the rule herdless had before, the server's
 *   wait as a floor plus the attempt's jittered backoff on top. The library has no such option.
 */
export type RetryAfterRule = 'spread' | 'floor-plus-backoff';

/**
 * Every simulated client's retry state: how many attempts have failed and the last backoff (for decorrelated
 * jitter). One place asks herdless's own `decide()` for both scenarios, so they cannot drift apart.
 */
export class ClientRetries {
  readonly #policy: RetryPolicy<never>;
  readonly #rule: RetryAfterRule;
  readonly #failed: Uint32Array;
  /** The last backoff per client; NaN for none yet. */
  readonly #previous: Float64Array;

  constructor(clients: number, policy: RetryPolicy<never>, rule: RetryAfterRule = 'spread') {
    this.#policy = policy;
    this.#rule = rule;
    this.#failed = new Uint32Array(clients);
    this.#previous = new Float64Array(clients).fill(Number.NaN);
  }

  /**
   * A client's attempt failed, `elapsedMs` after its first, the server asking for `retryAfterMs` (or not): what
   * herdless decides, remembered for next time.
   */
  failed(client: number, elapsedMs: number, retryAfterMs?: number): Decision {
    const attempt = (this.#failed[client] as number) + 1;
    this.#failed[client] = attempt;
    const stored = this.#previous[client] as number;
    const previous = Number.isNaN(stored) ? undefined : stored;
    const d =
      this.#rule === 'floor-plus-backoff' && retryAfterMs !== undefined && retryAfterMs <= this.#policy.maxRetryAfterMs
        ? floorPlusBackoff(this.#policy, attempt, elapsedMs, retryAfterMs, previous)
        : decide(this.#policy, attempt, elapsedMs, retryAfterMs, previous);
    if (d.retry) this.#previous[client] = d.backoffMs ?? Number.NaN;
    return d;
  }
}

/**
 * The `'floor-plus-backoff'` reference: `decide()` with no server wait, as though the wait had already passed, and
 * the wait added under its backoff. The same checks in the same order (attempts, then the deadline) as `decide()`
 * made under that rule; the caller has checked the wait against `maxRetryAfterMs`.
 */
function floorPlusBackoff(
  policy: RetryPolicy<never>,
  attempt: number,
  elapsedMs: number,
  retryAfterMs: number,
  previous: number | undefined,
): Decision {
  const d = decide(policy, attempt, elapsedMs + retryAfterMs, undefined, previous);
  return d.retry ? { retry: true, delayMs: retryAfterMs + d.delayMs, backoffMs: d.backoffMs } : d;
}
