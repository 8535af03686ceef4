/** The demo's settings and figures: what a run is asked, its acts, and what each lane reports. */

import type { OverloadFigures } from '../src/simulate/overload';

export interface DemoOptions {
  /**
   * Requests the server serves per second, one at a time, first in first out. Default 20: a small service, so that
   * every lane's clients and server share one thread of a loaded 2-core machine without slowing each other.
   */
  readonly capacity?: number;
  /** Each attempt's timeout, from send to response, in ms. Default 1,000. */
  readonly attemptTimeoutMs?: number;
  /** Each logical request's attempts (but for the `no-retries` lane's one). Default 3. */
  readonly maxAttempts?: number;
  /** The naive loop's wait between attempts, in ms. Default 500. */
  readonly fixedDelayMs?: number;
  /** Steady traffic before the trouble (the slowdown, the partial failure), in ms. Default 2,000. */
  readonly warmupMs?: number;
  /** The overload act: the demand (Poisson arrivals of logical requests) as a share of capacity. Default 0.8. */
  readonly load?: number;
  /** The overload act: how long the slowdown lasts, in ms. Default 4,000. */
  readonly slowdownMs?: number;
  /** The overload act: the server's capacity during the slowdown, as a share of `capacity`. Default 0.1. */
  readonly slowdownCapacity?: number;
  /** The overload act: how long traffic goes on after the slowdown, in ms. Default 20,000. */
  readonly afterMs?: number;
  /** The partial-failure acts, one per load (a share of capacity). Default `[0.5, 0.8]`; `[]` for none. */
  readonly partialLoads?: readonly number[];
  /** The partial-failure acts: the share of the requests served that fail (a fast 503). Default 0.5. */
  readonly failureRate?: number;
  /** The partial-failure acts: how long the failure lasts, in ms. Default 8,000. */
  readonly partialMs?: number;
  /** The partial-failure acts: how long traffic goes on after the failure, in ms. Default 2,000. */
  readonly partialAfterMs?: number;
  /** The width of a window of the chart (load), in ms. Default 500. */
  readonly chartWindowMs?: number;
  /** The width of a window of recovery (goodput must be 95% for 5 of them in a row), in ms. Default 1,000. */
  readonly recoveryWindowMs?: number;
  /** The seed of the arrival times (the same for every lane of an act) and of the failures. Default 1. */
  readonly seed?: number;
}

/** The settings a run used, every default filled in. */
export type DemoSettings = Required<DemoOptions>;

/**
 * `--quick`: the same story, shorter (for CI and the tests): 16 s of traffic after the slowdown instead of 20 (and
 * recovery counted in half-second windows, 2.5 s in a row), and 5 s partial failures with 1 s after them. Not shorter
 * after the slowdown: the 2.8 s of work it queues drains at the server's spare 20%, under the attempt timeout about
 * 11 s after it, and recovery needs its 2.5 s after that (at 13 s it read "never" for every lane). The rest
 * stays as it is. The attempt timeout and the server's speed: how often a request waits longer than its attempt
 * timeout, or than half of it (which the budget calls slow), is set by their ratio, so a shorter timeout would tell
 * another story (at 50% load with retries, the server is 87% busy; with a 500 ms timeout 1 attempt in 20 then times
 * out, and plain retries collapse it). The slowdown: the budget keeps the library's defaults (it is the recommended
 * setup), and its 3 s window is not shorter in a shorter run.
 */
export const QUICK: DemoOptions = {
  afterMs: 16_000,
  partialMs: 5_000,
  partialAfterMs: 1_000,
  chartWindowMs: 250,
  recoveryWindowMs: 500,
};

/** Fills in the defaults. */
export function demoSettings(options: DemoOptions = {}): DemoSettings {
  return {
    capacity: options.capacity ?? 20,
    attemptTimeoutMs: options.attemptTimeoutMs ?? 1_000,
    maxAttempts: options.maxAttempts ?? 3,
    fixedDelayMs: options.fixedDelayMs ?? 500,
    warmupMs: options.warmupMs ?? 2_000,
    load: options.load ?? 0.8,
    slowdownMs: options.slowdownMs ?? 4_000,
    slowdownCapacity: options.slowdownCapacity ?? 0.1,
    afterMs: options.afterMs ?? 20_000,
    partialLoads: options.partialLoads ?? [0.5, 0.8],
    failureRate: options.failureRate ?? 0.5,
    partialMs: options.partialMs ?? 8_000,
    partialAfterMs: options.partialAfterMs ?? 2_000,
    chartWindowMs: options.chartWindowMs ?? 500,
    recoveryWindowMs: options.recoveryWindowMs ?? 1_000,
    seed: options.seed ?? 1,
  };
}

/** A lane's client: the naive loop, or a preset of the simulator (`no-retries`, `plain`, `recommended`). */
export type LaneName = 'naive' | 'no-retries' | 'plain' | 'recommended';

/**
 * One act of the demo: steady traffic at `load`, `warmupMs` of it, then the trouble for `troubleMs` (the server
 * slowed to `slowdownCapacity`, or failing `failureRate` of what it serves), then `afterMs` more; every lane at once,
 * each against its own server, on the same arrival times.
 */
export interface Act {
  /** `'overload'` (the slowdown) or `'partial'` (the partial failure), as the simulator's scenarios. */
  readonly scenario: 'overload' | 'partial';
  readonly load: number;
  readonly warmupMs: number;
  readonly troubleMs: number;
  readonly afterMs: number;
  /** The server's capacity during the trouble, as a share of the settings' `capacity`: 1 for none. */
  readonly slowdownCapacity: number;
  /** The share of the requests served during the trouble that fail (a fast 503): 0 for none. */
  readonly failureRate: number;
  readonly lanes: readonly LaneName[];
}

/**
 * The acts of a run: the overload (the naive loop, no retries, full jitter and the recommended setup through a
 * slowdown), then a
 * partial failure at each of `partialLoads` (no retries, full jitter and the recommended setup).
 */
export function acts(s: DemoSettings): Act[] {
  return [
    {
      scenario: 'overload',
      load: s.load,
      warmupMs: s.warmupMs,
      troubleMs: s.slowdownMs,
      afterMs: s.afterMs,
      slowdownCapacity: s.slowdownCapacity,
      failureRate: 0,
      lanes: ['naive', 'no-retries', 'plain', 'recommended'],
    },
    ...s.partialLoads.map(
      (load): Act => ({
        scenario: 'partial',
        load,
        warmupMs: s.warmupMs,
        troubleMs: s.partialMs,
        afterMs: s.partialAfterMs,
        slowdownCapacity: 1,
        failureRate: s.failureRate,
        lanes: ['no-retries', 'plain', 'recommended'],
      }),
    ),
  ];
}

/**
 * One lane's figures: the simulator's overload figures where they mean the same (`strategy`, `calls`,
 * `amplification` as requests arriving over what the server can serve, `goodput`, `goodputDuring`, `p99Ms`,
 * `refused`, `budgetStops`, `wasted`), measured here on a real server, and the demo's own counts.
 */
export interface DemoFigures
  extends Pick<
    OverloadFigures,
    | 'strategy'
    | 'calls'
    | 'amplification'
    | 'goodput'
    | 'goodputDuring'
    | 'p99Ms'
    | 'refused'
    | 'budgetStops'
    | 'wasted'
  > {
  /** The lane's client (see {@link LaneName}); `strategy` is its name as printed. */
  readonly lane: LaneName;
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
  /** Requests the server answered with a 503 (the partial failure). */
  readonly failed: number;
  /**
   * From the end of the trouble until the share of the requests begun in each `recoveryWindowMs` that succeed is
   * back to 95% for 5 windows in a row, in ms; null when it never is while traffic lasts (and when the traffic after
   * the trouble lasts fewer than 5 windows, as in the partial acts, whose tables do not show it).
   */
  readonly recoveryMs: number | null;
  /** The work queued at the server when traffic ended, in ms: how far behind it was. */
  readonly behindMs: number;
  /**
   * Calls that failed in a way the story does not expect (not a timeout, a 503, nor a refusal by the budget or the
   * breaker): 0 on a sound run.
   */
  readonly errors: number;
  /** Requests arriving at the server per `chartWindowMs`, from time 0. */
  readonly load: readonly number[];
}
