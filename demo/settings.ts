/** The demo's settings and figures: what a run is asked, and what each lane reports. */

import type { OverloadFigures } from '../src/simulate/overload';

export interface DemoOptions {
  /**
   * Requests the server serves per second, one at a time, first in first out. Default 20: a small service, so that
   * every lane's clients and server share one thread of a loaded 2-core machine without slowing each other.
   */
  readonly capacity?: number;
  /** The demand (Poisson arrivals of logical requests) as a share of capacity. Default 0.8. */
  readonly load?: number;
  /** Each attempt's timeout, from send to response, in ms. Default 1,000. */
  readonly attemptTimeoutMs?: number;
  /** Each logical request's attempts. Default 3. */
  readonly maxAttempts?: number;
  /** Steady traffic before the slowdown, in ms. Default 2,000. */
  readonly warmupMs?: number;
  /** How long the slowdown lasts, in ms. Default 4,000. */
  readonly slowdownMs?: number;
  /** The server's capacity during the slowdown, as a share of `capacity`. Default 0.1. */
  readonly slowdownCapacity?: number;
  /** How long traffic goes on after the slowdown, in ms. Default 14,000. */
  readonly afterMs?: number;
  /** The naive loop's wait between attempts, in ms. Default 500. */
  readonly fixedDelayMs?: number;
  /** herdless's first backoff ceiling (`baseMs`), in ms. Default 100 (the library's default). */
  readonly baseMs?: number;
  /** The budget's window (`windowMs`), in ms. Default 10,000 (the library's default). */
  readonly budgetWindowMs?: number;
  /**
   * The budget's reserve (`minPerSecond`). Default 1: the library's 10 is sized for a client that sends hundreds of
   * requests a second, and would be 60% of this client's 16.
   */
  readonly budgetMinPerSecond?: number;
  /** The breaker's break (`breakMs`), in ms. Default 5,000 (the library's default). */
  readonly breakMs?: number;
  /** The width of a window of the chart (load), in ms. Default 500. */
  readonly chartWindowMs?: number;
  /** The width of a window of recovery (goodput must be 95% for 5 of them in a row), in ms. Default 1,000. */
  readonly recoveryWindowMs?: number;
  /** The seed of the arrival times (the same for every lane). Default 1. */
  readonly seed?: number;
}

/** The settings a run used, every default filled in. */
export type DemoSettings = Required<DemoOptions>;

/** `--quick`: the same story at half the time scale (every duration halved), for CI and the tests. */
export const QUICK: DemoOptions = {
  attemptTimeoutMs: 500,
  fixedDelayMs: 250,
  baseMs: 50,
  warmupMs: 1_000,
  slowdownMs: 2_000,
  afterMs: 4_000,
  budgetWindowMs: 5_000,
  breakMs: 2_500,
  chartWindowMs: 250,
  recoveryWindowMs: 500,
};

/** Fills in the defaults. */
export function demoSettings(options: DemoOptions = {}): DemoSettings {
  return {
    capacity: options.capacity ?? 20,
    load: options.load ?? 0.8,
    attemptTimeoutMs: options.attemptTimeoutMs ?? 1_000,
    maxAttempts: options.maxAttempts ?? 3,
    warmupMs: options.warmupMs ?? 2_000,
    slowdownMs: options.slowdownMs ?? 4_000,
    slowdownCapacity: options.slowdownCapacity ?? 0.1,
    afterMs: options.afterMs ?? 14_000,
    fixedDelayMs: options.fixedDelayMs ?? 500,
    baseMs: options.baseMs ?? 100,
    budgetWindowMs: options.budgetWindowMs ?? 10_000,
    budgetMinPerSecond: options.budgetMinPerSecond ?? 1,
    breakMs: options.breakMs ?? 5_000,
    chartWindowMs: options.chartWindowMs ?? 500,
    recoveryWindowMs: options.recoveryWindowMs ?? 1_000,
    seed: options.seed ?? 1,
  };
}

/**
 * One lane's figures: the simulator's overload figures where they mean the same (`strategy`, `calls`,
 * `amplification` as requests arriving over what the server can serve, `goodput`, `p99Ms`, `refused`, `budgetStops`,
 * `wasted`), measured here on a real server, and the demo's own counts.
 */
export interface DemoFigures
  extends Pick<
    OverloadFigures,
    'strategy' | 'calls' | 'amplification' | 'goodput' | 'p99Ms' | 'refused' | 'budgetStops' | 'wasted'
  > {
  /** Attempts the clients made (fetch calls). */
  readonly attempts: number;
  /**
   * Requests that left the clients (written to a socket) and those the server received: `sent` is `received` plus
   * `abandonedInFlight` when nothing was lost. `sent` is fewer than `attempts` when a machine too busy to connect in
   * time abandoned some before they left.
   */
  readonly sent: number;
  readonly received: number;
  /**
   * Requests written to a socket whose client then aborted the attempt (it timed out) and closed the connection, and
   * that the server did not find when it read that connection to its end: abandoned in flight, not a lost count.
   * Matched by id and connection; usually 0, as a node:http server still reads a request from a connection its client
   * closed after writing it.
   */
  readonly abandonedInFlight: number;
  /** Requests written and never read whose attempt the client did not abort: 0 on a sound run. */
  readonly lost: number;
  /** Requests the server read that no client wrote, or read more often than written: 0 on a sound run. */
  readonly unexpected: number;
  /**
   * From the end of the slowdown until the share of the requests begun in each `recoveryWindowMs` that succeed is
   * back to 95% for 5 windows in a row, in ms; null when it never is while traffic lasts.
   */
  readonly recoveryMs: number | null;
  /** The work queued at the server when traffic ended, in ms: how far behind it was. */
  readonly behindMs: number;
  /** Calls that failed in a way the story does not expect (not a timeout, a 503 or a refusal): 0 on a sound run. */
  readonly errors: number;
  /** Requests arriving at the server per `chartWindowMs`, from time 0. */
  readonly load: readonly number[];
}
