import { type Decision, decide } from '../decide';
import type { RetryPolicy } from '../policy';

/**
 * Every simulated client's retry state: how many attempts have failed and the last backoff (for decorrelated
 * jitter). One place asks herdless's own `decide()` for both scenarios, so they cannot drift apart.
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

  /** A client's attempt failed, `elapsedMs` after its first: what herdless decides, remembered for next time. */
  failed(client: number, elapsedMs: number): Decision {
    const attempt = (this.#failed[client] as number) + 1;
    this.#failed[client] = attempt;
    const previous = this.#previous[client] as number;
    const d = decide(this.#policy, attempt, elapsedMs, undefined, Number.isNaN(previous) ? undefined : previous);
    if (d.retry) this.#previous[client] = d.backoffMs;
    return d;
  }
}
