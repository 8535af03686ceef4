import { CircuitOpenError } from '../breaker';
import { type Decision, decide } from '../decide';
import type { StopReason } from '../errors';
import { type Guard, type Pass, Report } from '../guard';
import type { RetryPolicy } from '../policy';

/** The passes of a ClientRetries whose policies have no budget and no breaker: none. */
const EMPTY: (Pass | undefined)[] = [];

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
  /** The backoff (every instance's is the same); its guards are the first instance's. */
  readonly #policy: RetryPolicy<never>;
  /** One policy per client instance: the same backoff, each with its own budget and breaker. */
  readonly #policies: readonly RetryPolicy<never>[];
  /** Each client's instance; undefined: client `c` is of instance `c % policies.length`. */
  readonly #instance: Uint32Array | undefined;
  readonly #rule: RetryAfterRule;
  readonly #failed: Uint32Array;
  /** The last backoff per client; NaN for none yet. */
  readonly #previous: Float64Array;
  /**
   * Each client's pass through the policy's breaker and budget (see `Pass`), while its call goes on; empty when no
   * policy has either (then no call has a pass).
   */
  readonly #passes: (Pass | undefined)[] = EMPTY;
  /** Whether a policy has a budget or a breaker: else every call is admitted, and has nothing to settle. */
  readonly #guarded: boolean;

  /**
   * @param clients - How many clients (calls) there are.
   * @param policy - The policy, or one per client instance (each with its own budget and breaker, as each process of a
   *   fleet creates its own): client `c` is then of instance `c % policies.length`.
   * @param rule - How a server's Retry-After combines with the backoff.
   * @param instance - Each client's instance (an index into the policies), instead of `c % policies.length`.
   */
  constructor(
    clients: number,
    policy: RetryPolicy<never> | readonly RetryPolicy<never>[],
    rule: RetryAfterRule = 'spread',
    instance?: Uint32Array,
  ) {
    this.#instance = instance;
    this.#policies = Array.isArray(policy) ? policy : [policy as RetryPolicy<never>];
    if (this.#policies.length === 0) throw new RangeError('herdless: ClientRetries needs at least one policy');
    this.#policy = this.#policies[0] as RetryPolicy<never>;
    this.#rule = rule;
    this.#failed = new Uint32Array(clients);
    this.#previous = new Float64Array(clients).fill(Number.NaN);
    this.#guarded = this.#policies.some((p) => p.budget !== undefined || p.breaker !== undefined);
    if (this.#guarded) this.#passes = new Array(clients);
  }

  /**
   * A client is about to send an attempt: whether the breaker admits it (as `retry()` asks before each attempt); a
   * first attempt also deposits in the budget. A refused first attempt is `retry()`'s CircuitOpenError; a refused
   * retry, its `'circuit-open'` stop, which gives back what the retry spent of the budget, as `retry()` does.
   */
  start(client: number): boolean {
    if (!this.#guarded) return true;
    const at = this.#instance === undefined ? client % this.#policies.length : (this.#instance[client] as number);
    const policy = this.#policies[at] as RetryPolicy<never>;
    const { breaker, budget } = policy as { breaker?: Guard; budget?: Guard };
    if (this.#failed[client] === 0) this.#passes[client] = breaker ? breaker.open(budget) : budget?.open(); // as retry() opens it
    const pass = this.#passes[client];
    // An open breaker refuses without making the CircuitOpenError retry() would reject with (a stack trace each).
    let refusal: StopReason | undefined = policy.breaker?.state === 'open' ? 'circuit-open' : undefined;
    if (!refusal) {
      try {
        refusal = pass?.settle(Report.START) as StopReason | undefined;
      } catch (error) {
        if (!(error instanceof CircuitOpenError)) throw error;
        refusal = 'circuit-open'; // a first attempt refused
      }
    }
    this.refusedBy = refusal;
    if (refusal) this.#end(client, Report.RELEASE);
    return !refusal;
  }

  /** Why the last {@link start} refused its attempt: `'circuit-open'` or `'budget'`; undefined when it did not. */
  refusedBy: StopReason | undefined;

  /**
   * An admitted attempt succeeded, having taken `attemptMs` of the `allowedMs` it had: reported to the breaker and the
   * budget.
   */
  succeeded(client: number, attemptMs = 0, allowedMs = Infinity): void {
    if (!this.#guarded) return;
    this.#passes[client]?.settle(Report.SUCCESS, undefined, attemptMs, allowedMs);
    this.#passes[client] = undefined;
  }

  /** The client's call ends: its pass settled as `retry()` settles it on its way out. */
  #end(client: number, event: Report.SUCCESS | Report.RELEASE): void {
    if (!this.#guarded) return;
    this.#passes[client]?.settle(event);
    this.#passes[client] = undefined;
  }

  /**
   * A client's attempt failed (transiently), `elapsedMs` after its first, the server asking for `retryAfterMs` (or
   * not), the attempt having taken `attemptMs` of the `allowedMs` it had (`Infinity`: its timeout abandoned it):
   * reported to the breaker and the budget as `retry()` reports it, then what herdless decides, remembered for next
   * time; as in `retry()`, the call's own reasons to stop come first, then the breaker's or the budget's refusal.
   * `failure` is what the server answered, read as `retry()` reads it (a 429 without a wait says it is saturated).
   */
  failed(
    client: number,
    elapsedMs: number,
    retryAfterMs?: number,
    attemptMs = 0,
    allowedMs = Infinity,
    failure?: unknown,
  ): Decision {
    const verdict = this.#guarded
      ? this.#passes[client]?.settle(
          Report.FAILURE,
          failure,
          attemptMs,
          allowedMs,
          retryAfterMs,
          this.#policy.timeoutMs,
        )
      : undefined;
    // The budget may hold the retry (the dependency is down): a wait it names, which decide() takes as a server's.
    const refusal = typeof verdict === 'number' ? undefined : verdict;
    const held = typeof verdict === 'number' ? verdict : 0;
    const attempt = (this.#failed[client] as number) + 1;
    this.#failed[client] = attempt;
    const stored = this.#previous[client] as number;
    const previous = Number.isNaN(stored) ? undefined : stored;
    const d =
      this.#rule === 'floor-plus-backoff' && retryAfterMs !== undefined && retryAfterMs <= this.#policy.maxRetryAfterMs
        ? floorPlusBackoff(this.#policy, attempt, elapsedMs, retryAfterMs, previous)
        : decide(this.#policy, attempt, elapsedMs, retryAfterMs, previous, held);
    if (d.retry && refusal === undefined) {
      this.#previous[client] = d.backoffMs ?? Number.NaN;
      return d;
    }
    this.#end(client, Report.RELEASE);
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
