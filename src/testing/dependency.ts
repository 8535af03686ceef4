import { createRng, type Rng } from '../simulate/rng';
import { OutageServer } from '../simulate/server';
import { MAX_TIMER_MS } from '../wait';
import type { HerdSettings } from './options';

/** What the dependency does with one request: answer at `atMs` with a status, or reset the connection then. */
export type Answer =
  | {
      readonly kind: 'response';
      readonly atMs: number;
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: string;
    }
  | { readonly kind: 'reset'; readonly atMs: number };

const JSON_TYPE = { 'content-type': 'application/json' };
const TEXT_TYPE = { 'content-type': 'text/plain' };

/**
 * The simulated dependency: the simulator's {@link OutageServer} (it counts every arrival per window, fails the
 * outage, and sheds what is over capacity), with what a test needs on top: how the outage fails (a 503, a reset, a
 * hang), a queue instead of shedding, a partial failure rate, a slowdown, and a latency for every answer. Requests
 * must arrive in time order (they do: they arrive on one virtual clock). All randomness is the seeded `rng`.
 */
export class Dependency {
  readonly server: OutageServer;
  /** Requests answered with a success, and failed, so far. */
  served = 0;
  failed = 0;
  readonly #s: HerdSettings;
  readonly #rng: Rng;
  /** In `'queue'` mode: requests given a turn in each window, from time 0. */
  readonly #turns: number[] = [];
  /** In `'queue'` mode: the first window that may still have room (every earlier one is full or past). */
  #firstOpen = 0;
  /** Arrivals at or after `outageMs` in the window in which the outage ends, when it ends inside one. */
  #afterInEndWindow = 0;

  constructor(settings: HerdSettings, rng: Rng = createRng(settings.seed)) {
    this.#s = settings;
    this.#rng = rng;
    this.server = new OutageServer(
      settings.outageMs,
      settings.capacity,
      settings.capacityWindowMs,
      settings.retryAfterMs,
    );
  }

  /** Requests per `capacityWindowMs` as the dependency saw them arrive, from time 0. */
  get load(): readonly number[] {
    return this.server.load;
  }

  /**
   * The most requests in one window after the outage ended. The window in which it ends counts too, with only its
   * arrivals from the end on: a herd that lands 30 ms after an outage of 1,010 ms is a herd after the outage.
   */
  get peakAfterOutage(): number {
    const load = this.server.load;
    let peak = this.#afterInEndWindow;
    for (let w = Math.ceil(this.#s.outageMs / this.#s.capacityWindowMs); w < load.length; w++)
      peak = Math.max(peak, load[w] as number);
    return peak;
  }

  /** A request arrives at `timeMs` (virtual): counts it and says what the dependency answers, and when. */
  arrive(timeMs: number): Answer {
    const s = this.#s;
    const admitted = this.server.arrive(timeMs);
    const width = s.capacityWindowMs;
    if (timeMs >= s.outageMs && Math.floor(timeMs / width) < Math.ceil(s.outageMs / width)) this.#afterInEndWindow++;
    const slow = s.slowdown !== null && timeMs >= s.slowdown.fromMs && timeMs < s.slowdown.toMs;
    let latency = this.#rng.hop(s.latencyMs, s.latencyMs / 5) * (slow ? (s.slowdown as { factor: number }).factor : 1);
    // Drawn only with a tail: a herd without one draws as it always did, so its seeds keep their reports.
    if (s.tail !== null && this.#rng.next() < s.tail.share) latency *= s.tail.factor;
    // A factor that takes an answer past what setTimeout waits (it would fire at once): the answer never comes.
    latency = Math.min(latency, MAX_TIMER_MS);
    if (timeMs < s.outageMs) {
      this.failed++;
      if (s.outageFailure === 'reset') return { kind: 'reset', atMs: timeMs + latency };
      if (s.outageFailure === 'hang') return { kind: 'reset', atMs: timeMs + s.hangMs };
      const wait = this.server.retryAfter(timeMs);
      return wait === undefined
        ? this.#fail(timeMs + latency)
        : {
            kind: 'response',
            atMs: timeMs + latency,
            status: 429,
            headers: { ...TEXT_TYPE, 'retry-after': String(Math.ceil(wait / 1_000)) },
            body: 'too many requests',
          };
    }
    let startMs = timeMs;
    if (s.overflow === 'queue') {
      const window = this.#turn(Math.floor(timeMs / s.capacityWindowMs));
      startMs = Math.max(timeMs, window * s.capacityWindowMs);
    } else if (!admitted) {
      this.failed++;
      return this.#fail(timeMs + latency);
    }
    if (s.failureRate > 0 && this.#rng.next() < s.failureRate) {
      this.failed++;
      return this.#fail(startMs + latency);
    }
    this.served++;
    return { kind: 'response', atMs: startMs + latency, status: 200, headers: JSON_TYPE, body: '{"ok":true}' };
  }

  /** The first window at or after `window` with room, in which the request takes a turn (first come, first served). */
  #turn(window: number): number {
    let w = Math.max(window, this.#firstOpen);
    while ((this.#turns[w] ?? 0) >= this.#s.capacity) w++;
    this.#turns[w] = (this.#turns[w] ?? 0) + 1;
    if (w === this.#firstOpen && (this.#turns[w] as number) >= this.#s.capacity) this.#firstOpen = w + 1;
    return w;
  }

  #fail(atMs: number): Answer {
    return { kind: 'response', atMs, status: 503, headers: TEXT_TYPE, body: 'service unavailable' };
  }
}
