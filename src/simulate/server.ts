import { MAX_WINDOWS, SimulationLimitError } from './limits';

/**
 * The server of the outage scenario, shared by the simulator and the real-server demo so that both judge requests
 * alike: it fails every request that arrives before `outageMs`, then serves `capacity` requests per window of
 * `windowMs` and fails the rest. It counts every arrival per window (`load`). Arrivals must come in time order.
 * Given a `retryAfterMs` (the simulator's `--retry-after`), it answers the outage's failures with that wait (a 429
 * with Retry-After) and the refusals after it with none; the demo's server gives none.
 */
export class OutageServer {
  /** Requests that arrived in each window, from time 0. */
  readonly load: number[] = [];
  /** Requests that arrived in all. */
  received = 0;
  #window = -1;
  #served = 0;

  constructor(
    readonly outageMs: number,
    readonly capacity: number,
    readonly windowMs: number,
    readonly retryAfterMs = 0,
  ) {}

  /** The wait the server names with a failure at `timeMs`: its `retryAfterMs` during the outage, else none. */
  retryAfter(timeMs: number): number | undefined {
    return timeMs < this.outageMs && this.retryAfterMs > 0 ? this.retryAfterMs : undefined;
  }

  /**
   * A request arrives `timeMs` after the start: counts it, and says whether it is served. A RangeError past
   * {@link MAX_WINDOWS} windows (the load kept per window would not fit in memory).
   */
  arrive(timeMs: number): boolean {
    const w = Math.floor(timeMs / this.windowMs);
    if (w >= MAX_WINDOWS) {
      throw new SimulationLimitError(
        `herdless: a request arrived at ${Math.round(timeMs)} ms, past ${MAX_WINDOWS} windows of ${this.windowMs} ms (each a counter in memory): use wider windows or a shorter run`,
      );
    }
    this.received++;
    while (this.load.length <= w) this.load.push(0);
    this.load[w] = (this.load[w] as number) + 1;
    if (w !== this.#window) {
      this.#window = w;
      this.#served = 0;
    }
    if (timeMs < this.outageMs || this.#served >= this.capacity) return false;
    this.#served++;
    return true;
  }
}
