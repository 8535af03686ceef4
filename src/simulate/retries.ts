import { CircuitOpenError } from '../breaker';
import { type Decision, decide } from '../decide';
import type { StopReason } from '../errors';
import { FAILURE, type Guard, type Pass, RELEASE, START, SUCCESS } from '../guard';
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
 * jitter). One place asks herdless's own `decide()` for every scenario, and settles each attempt's ticket with the
 * policy's circuit breaker and retry budget as `retry()` does, so the simulator cannot drift from the library.
 */
export class ClientRetries {
  readonly #policy: RetryPolicy<never>;
  readonly #rule: RetryAfterRule;
  readonly #failed: Uint32Array;
  /** The last backoff per client; NaN for none yet. */
  readonly #previous: Float64Array;
  /** Each client's pass through the policy's breaker and budget (see `Pass`), while its call goes on. */
  readonly #passes: (Pass | undefined)[];

  constructor(clients: number, policy: RetryPolicy<never>, rule: RetryAfterRule = 'spread') {
    this.#policy = policy;
    this.#rule = rule;
    this.#failed = new Uint32Array(clients);
    this.#previous = new Float64Array(clients).fill(Number.NaN);
    this.#passes = new Array(clients);
  }

  /**
   * A client is about to send an attempt: whether the breaker admits it (as `retry()` asks before each attempt); a
   * first attempt also deposits in the budget. A refused first attempt is `retry()`'s CircuitOpenError; a refused
   * retry, its `'circuit-open'` stop, which gives back what the retry spent of the budget, as `retry()` does.
   */
  start(client: number): boolean {
    const { breaker, budget } = this.#policy as { breaker?: Guard; budget?: Guard };
    if (this.#failed[client] === 0) this.#passes[client] = (breaker ?? budget)?.open(budget); // as retry() opens it
    const pass = this.#passes[client];
    // An open breaker refuses without making the CircuitOpenError retry() would reject with (a stack trace each).
    let refused = this.#policy.breaker?.state === 'open';
    if (!refused) {
      try {
        refused = pass?.settle(START) !== undefined;
      } catch (error) {
        if (!(error instanceof CircuitOpenError)) throw error;
        refused = true; // a first attempt refused
      }
    }
    if (refused) this.#end(client, RELEASE);
    return !refused;
  }

  /** An admitted attempt succeeded: reported to the breaker. */
  succeeded(client: number): void {
    this.#end(client, SUCCESS);
  }

  /** The client's call ends: its pass settled as `retry()` settles it on its way out. */
  #end(client: number, event: typeof SUCCESS | typeof RELEASE): void {
    this.#passes[client]?.settle(event);
    this.#passes[client] = undefined;
  }

  /**
   * A client's attempt failed (transiently), `elapsedMs` after its first, the server asking for `retryAfterMs` (or
   * not): reported to the breaker, then what herdless decides, remembered for next time; as in `retry()`, the call's
   * own reasons to stop come first, then the breaker's or the budget's refusal.
   */
  failed(client: number, elapsedMs: number, retryAfterMs?: number): Decision {
    const refusal = this.#passes[client]?.settle(FAILURE);
    const attempt = (this.#failed[client] as number) + 1;
    this.#failed[client] = attempt;
    const stored = this.#previous[client] as number;
    const previous = Number.isNaN(stored) ? undefined : stored;
    const d =
      this.#rule === 'floor-plus-backoff' && retryAfterMs !== undefined && retryAfterMs <= this.#policy.maxRetryAfterMs
        ? floorPlusBackoff(this.#policy, attempt, elapsedMs, retryAfterMs, previous)
        : decide(this.#policy, attempt, elapsedMs, retryAfterMs, previous);
    if (d.retry && refusal === undefined) {
      this.#previous[client] = d.backoffMs ?? Number.NaN;
      return d;
    }
    this.#end(client, RELEASE);
    return d.retry ? { retry: false, reason: refusal as StopReason } : d;
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
  return d.retry ? { ...d, delayMs: retryAfterMs + d.delayMs } : d;
}
