import { createPolicy, type RetryOptions } from '../policy';
import { MAX_WORK, SimulationLimitError } from './limits';
import { EventQueue } from './queue';
import { ClientRetries } from './retries';
import { createRng } from './rng';
import type { Filled } from './settings';
import { resolveStrategy, type Strategy, unhedged } from './strategies';

/**
 * The contention scenario's settings: the optimistic-concurrency model of Marc Brooker's "Exponential Backoff And
 * Jitter" (AWS Architecture Blog, 2015). Every field is optional.
 */
export interface ContentionOptions {
  /** The numbers of clients to simulate, one point each. Default 10, 20, ..., 100. */
  readonly clients?: readonly number[] | undefined;
  /** Runs averaged per point. Default 100. */
  readonly runs?: number | undefined;
  /**
   * The post's backoff base, in ms, for the strategies that do not set their own. Default 5, as in the post. Mapped
   * onto herdless's formula as the post's simulator uses it: exponential strategies get `baseMs = base * factor`
   * (10 ms), so their first ceiling is the post's `base * 2 ** 1`; decorrelated jitter gets `base`.
   */
  readonly baseMs?: number | undefined;
  /** Backoff cap, in ms, likewise. Default 2,000, as in the post. */
  readonly capMs?: number | undefined;
  /** A network hop takes |Normal(hopMeanMs, hopSdMs)| ms. Default 10. */
  readonly hopMeanMs?: number | undefined;
  /** See `hopMeanMs`. Default 2. */
  readonly hopSdMs?: number | undefined;
  /** Strategies to compare. Default: immediate (the post's "no backoff"), none, full, equal, decorrelated. */
  readonly strategies?: readonly Strategy[] | undefined;
  /** The seed. Default 1. */
  readonly seed?: number | undefined;
  /** Called after each point with how many are done. */
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
}

/** The mean work and completion time of one strategy at one number of clients. */
export interface ContentionPoint {
  /** How many clients contended. */
  readonly clients: number;
  /** The strategy's name. */
  readonly strategy: string;
  /** Mean conditional writes sent, per run: the post's "work". */
  readonly calls: number;
  /** Mean time until the last client's write succeeded, in ms. */
  readonly timeMs: number;
}

/** What {@link simulateContention} returns: the settings used (defaults filled in) and a point per N and strategy. */
export interface ContentionResult {
  readonly scenario: 'contention';
  readonly settings: Filled<Omit<ContentionOptions, 'strategies' | 'onProgress'>>;
  readonly results: readonly ContentionPoint[];
}

const READ_ARRIVES = 0;
const READ_RETURNS = 1;
const WRITE_ARRIVES = 2;
const WRITE_OK = 3;
const WRITE_FAILED = 4;

/**
 * N clients read a row's version and write it back conditionally; a write fails when another write landed since the
 * read, and its client backs off (by herdless's own `decide`) and tries again, until every client has written once.
 * All clients start at time 0. Runs `runs` times per point, with the same seeds for every strategy.
 *
 * @example
 * ```ts
 * import { contentionTable, simulateContention } from 'herdless/simulate';
 * console.log(contentionTable(simulateContention({ clients: [25, 50], runs: 20 })));
 * ```
 */
export function simulateContention(options: ContentionOptions = {}): ContentionResult {
  const settings = {
    clients: options.clients ?? [10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
    runs: options.runs ?? 100,
    baseMs: options.baseMs ?? 5,
    capMs: options.capMs ?? 2_000,
    hopMeanMs: options.hopMeanMs ?? 10,
    hopSdMs: options.hopSdMs ?? 2,
    seed: options.seed ?? 1,
  };
  const strategies = unhedged(
    (options.strategies ?? (['immediate', 'none', 'full', 'equal', 'decorrelated'] as const)).map(resolveStrategy),
    'contention',
  );
  for (const clients of settings.clients) {
    if (!(Number.isInteger(clients) && clients >= 1))
      throw new RangeError(`herdless: clients must be integers >= 1, got ${String(clients)}`);
  }
  if (!(Number.isInteger(settings.runs) && settings.runs >= 1))
    throw new RangeError(`herdless: runs must be an integer >= 1, got ${String(settings.runs)}`);
  // Each contended round costs every client against every other: the work grows with clients squared.
  const work = settings.clients.reduce((sum, c) => sum + c * c, 0) * settings.runs * strategies.length;
  if (work > MAX_WORK) {
    throw new SimulationLimitError(
      `herdless: simulateContention: clients squared (summed over ${settings.clients.length} points) x ${settings.runs} runs x ${strategies.length} strategies is ${work}, more than ${MAX_WORK}: fewer or smaller points, or fewer runs`,
    );
  }
  const results: ContentionPoint[] = [];
  let done = 0;
  for (const clients of settings.clients) {
    for (const { name, policy } of strategies) {
      let calls = 0;
      let time = 0;
      const backoff = postBackoff(policy, settings.baseMs, settings.capMs);
      for (let run = 0; run < settings.runs; run++) {
        const rng = createRng(settings.seed * 7_919 + clients * 104_729 + run);
        const one = runContention(
          clients,
          settings,
          createPolicy({ ...backoff, maxAttempts: Number.MAX_SAFE_INTEGER, random: rng.next }),
          rng,
        );
        calls += one.calls;
        time += one.timeMs;
      }
      results.push({ clients, strategy: name, calls: calls / settings.runs, timeMs: time / settings.runs });
    }
    options.onProgress?.(++done, settings.clients.length);
  }
  return { scenario: 'contention', settings, results };
}

/**
 * The post's base and cap, for a strategy that does not set its own (immediate and fixed do), mapped exactly onto
 * herdless's formula. The post's simulator numbers its first retry 1 and takes `base * 2 ** attempt` as the ceiling, so
 * its first ceiling is already `2 * base`; herdless's attempt-1 ceiling is `baseMs`. An exponential strategy therefore
 * gets `baseMs = base * factor` (10 ms for the post's 5), which makes every ceiling equal to the post's. Decorrelated
 * jitter is the same formula in both (it starts from `base` and ignores the attempt number), so it keeps `base`.
 */
export function postBackoff(policy: RetryOptions, baseMs: number, capMs: number): RetryOptions {
  if (policy.baseMs !== undefined) return policy;
  const first = policy.jitter === 'decorrelated' ? baseMs : baseMs * (policy.factor ?? 2);
  return { ...policy, baseMs: first, capMs };
}

function runContention(
  n: number,
  s: ContentionResult['settings'],
  policy: ReturnType<typeof createPolicy>,
  rng: ReturnType<typeof createRng>,
): { calls: number; timeMs: number } {
  const hop = () => rng.hop(s.hopMeanMs, s.hopSdMs);
  const queue = new EventQueue();
  const read = new Float64Array(n);
  const retries = new ClientRetries(n, policy);
  let version = 0;
  let calls = 0;
  let timeMs = 0;
  for (let c = 0; c < n; c++) queue.push(hop(), c, READ_ARRIVES);
  const event = { time: 0, client: 0, kind: 0 };
  while (queue.pop(event)) {
    const { time, client, kind } = event;
    if (kind === READ_ARRIVES) {
      read[client] = version;
      queue.push(time + hop(), client, READ_RETURNS);
    } else if (kind === READ_RETURNS) {
      queue.push(time + hop(), client, WRITE_ARRIVES);
    } else if (kind === WRITE_ARRIVES) {
      calls++;
      const ok = read[client] === version;
      if (ok) version++;
      queue.push(time + hop(), client, ok ? WRITE_OK : WRITE_FAILED);
    } else if (kind === WRITE_OK) {
      timeMs = time;
    } else {
      const d = retries.failed(client, 0);
      // Attempts are unbounded and there is no deadline: herdless always decides to retry here.
      if (!d.retry)
        throw new Error(`herdless: a contention client stopped (${d.reason}), which the model never allows`);
      queue.push(time + hop() + d.delayMs, client, READ_ARRIVES);
    }
  }
  return { calls, timeMs };
}
