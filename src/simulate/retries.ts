import { type Decision, decide } from '../decide';
import type { RetryPolicy } from '../policy';

/**
 * Every simulated client's retry state: how many attempts have failed and the last backoff (for decorrelated
 * jitter). One place asks herdless's own `decide()` for every scenario, and talks to the policy's circuit breaker
 * and retry budget as `retry()` does, so the simulator cannot drift from the library.
 */
export class ClientRetries {
  readonly #policy: RetryPolicy<never>;
  readonly #failed: Uint32Array;
  /** The last backoff per client; NaN for none yet. */
  readonly #previous: Float64Array;

  constructor(clients: number, policy: RetryPolicy<never>) {
    this.#policy = policy;
    this.#failed = new Uint32Array(clients);
    this.#previous = new Float64Array(clients).fill(Number.NaN);
  }

  /**
   * A client is about to send an attempt: whether the breaker admits it (as `retry()` asks before each attempt); a
   * first attempt also deposits in the budget. A refused first attempt is `retry()`'s CircuitOpenError; a refused
   * retry, its `'circuit-open'` stop.
   */
  start(client: number): boolean {
    const { breaker, budget } = this.#policy;
    // An open breaker refuses without making the CircuitOpenError retry() would reject with (a stack trace each).
    if (breaker !== undefined && (breaker.state === 'open' || breaker.admit() !== undefined)) return false;
    if (this.#failed[client] === 0) budget?.deposit();
    return true;
  }

  /** An admitted attempt succeeded: reported to the breaker. */
  succeeded(): void {
    this.#policy.breaker?.recordSuccess();
  }

  /**
   * A client's attempt failed (transiently), `elapsedMs` after its first: reported to the breaker, then what herdless
   * decides, remembered for next time.
   */
  failed(client: number, elapsedMs: number): Decision {
    this.#policy.breaker?.recordFailure();
    const attempt = (this.#failed[client] as number) + 1;
    this.#failed[client] = attempt;
    const previous = this.#previous[client] as number;
    const d = decide(this.#policy, attempt, elapsedMs, undefined, Number.isNaN(previous) ? undefined : previous);
    if (d.retry) this.#previous[client] = d.backoffMs;
    return d;
  }
}
