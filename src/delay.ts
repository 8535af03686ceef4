import { fail, finite, notNumber, num, optionalFn } from './validate';

/**
 * How a delay is spread below its exponential ceiling.
 *
 * - `'full'` (default): anywhere in `[0, ceiling)`. The lowest peak when a fleet of clients that failed together
 *   comes back, and the least work under contention (`herdless simulate`, `--scenario contention`), though not the
 *   fewest requests after an outage: choose it unless you have a reason not to.
 * - `'equal'`: in `[ceiling / 2, ceiling)`. Never retries almost at once; under contention about the same work as
 *   full jitter but a longer wait. Choose it when a near-zero delay would be harmful (a server that needs a moment
 *   to restart).
 * - `'decorrelated'`: AWS's formula, each delay random between `baseMs` and three times the previous one. Under
 *   contention more work than full jitter, done a little sooner; give it a deadline rather than a small
 *   `maxAttempts` (an unlucky client draws short delays in a row). Ignores `factor`.
 * - `'none'`: exactly the ceiling. Every client that failed together retries together: only for a single client,
 *   or for tests.
 */
export type Jitter = 'none' | 'full' | 'equal' | 'decorrelated';

/** The backoff options, shared by {@link computeDelay} and `retry()`. Every field is optional. */
export interface BackoffOptions {
  /** How to randomise the delay. Default `'full'`. See {@link Jitter} for when to pick each. */
  readonly jitter?: Jitter | undefined;
  /** The first ceiling, in ms: a finite number >= 0. Default `100`. */
  readonly baseMs?: number | undefined;
  /**
   * No backoff delay exceeds this, nor the spread added on top of a server's Retry-After, in ms: a finite number
   * >= `baseMs`. Default `10_000`.
   */
  readonly capMs?: number | undefined;
  /** The ceiling grows by this factor each attempt: a finite number >= 1. Default `2`. Not used by `'decorrelated'`. */
  readonly factor?: number | undefined;
  /**
   * The source of randomness, returning a number in `[0, 1)`. Default: `Math.random`, looked up at each call.
   * Pass a seeded generator to make delays, and a whole `retry()` run, reproducible.
   */
  readonly random?: (() => number) | undefined;
}

/** Backoff options after validation, every default filled in. */
export interface Backoff {
  readonly jitter: Jitter;
  readonly baseMs: number;
  readonly capMs: number;
  readonly factor: number;
  readonly random: () => number;
}

/** `Math.random`, looked up at call time so that a stub installed later is honoured. */
const mathRandom = () => Math.random();

type Into = { -readonly [K in keyof Backoff]: Backoff[K] };

/**
 * Validates backoff options onto `into` (default: a fresh object), every field set in one order, the option given or
 * its default (full jitter, `baseMs` 100, `capMs` 10 000, `factor` 2, `Math.random`). Throws TypeError or RangeError
 * naming the bad option. Keys that are not backoff options are ignored.
 */
export function normalizeBackoff<B extends Into>(options: BackoffOptions = {}, into: B = {} as B): B {
  if (options === null || typeof options !== 'object') fail(TypeError, 'the policy', 'an object', options);
  const { jitter, baseMs, capMs, factor, random } = options;
  // Comparisons, not an array's includes(): that was a third of a per-call policy's cost on Node 20 (callgrind).
  if (
    jitter !== undefined &&
    jitter !== 'full' &&
    jitter !== 'none' &&
    jitter !== 'equal' &&
    jitter !== 'decorrelated'
  ) {
    fail(
      typeof jitter === 'string' ? RangeError : TypeError,
      'jitter',
      "one of 'none', 'full', 'equal', 'decorrelated'",
      jitter,
    );
  }
  into.jitter = jitter ?? 'full'; // never null: that threw
  into.baseMs = baseMs === undefined ? 100 : finite('baseMs', baseMs, 0);
  const cap: unknown = capMs === undefined ? 10_000 : capMs;
  // The rule names baseMs's value, so its text is built only when it is needed.
  into.capMs =
    typeof cap === 'number' && cap >= into.baseMs && cap < Infinity
      ? cap
      : notNumber(
          capMs === undefined ? 'the default capMs' : 'capMs',
          cap,
          `a finite number >= baseMs (${into.baseMs})`,
        );
  into.factor = factor === undefined ? 2 : finite('factor', factor, 1);
  into.random = optionalFn('random', random) ?? mathRandom; // never null: that throws
  return into;
}

/** Draws from `random` and checks the draw, so that a broken generator is a clear error, not a NaN delay. */
function draw(random: () => number): number {
  const r = random();
  if (!(r >= 0 && r < 1)) fail(RangeError, 'random()', 'a number in [0, 1)', r);
  return r;
}

/**
 * The delay formula on validated options; {@link computeDelay} checks its inputs and calls this. Pure but for
 * `backoff.random`, which is called at most once, and not at all for `'none'`.
 */
export function delayFor(backoff: Backoff, attempt: number, previousDelayMs: number | undefined): number {
  const { jitter, baseMs, capMs } = backoff;
  if (jitter === 'decorrelated') {
    const previous = previousDelayMs ?? baseMs;
    // 3 * previous overflows to Infinity past 6e307, and 0 * Infinity is NaN: clamp the span to the largest double.
    const span = Math.min(Math.max(0, 3 * previous - baseMs), Number.MAX_VALUE);
    return Math.min(capMs, baseMs + draw(backoff.random) * span);
  }
  // baseMs 0 stays 0 (0 * Infinity would be NaN); factor ** (attempt - 1) may overflow to Infinity, which min() caps.
  const ceiling = baseMs === 0 ? 0 : Math.min(capMs, baseMs * backoff.factor ** (attempt - 1));
  if (jitter === 'none') return ceiling;
  const r = draw(backoff.random);
  // min(): in the subnormal range, halving rounds up and the sum could pass the ceiling by one ulp.
  return jitter === 'full' ? r * ceiling : Math.min(ceiling, ceiling / 2 + (r * ceiling) / 2);
}

/**
 * How much of the server's wait a client may add on top of it, at most (never more than `capMs`): with a Retry-After
 * of `h` ms the sleep is in `[h, h + min(capMs, RETRY_AFTER_SPREAD * h))`, between the wait and twice the wait.
 * Why 1: a server that refuses N requests at once and sizes its wait to serve them (`h = N / rate`) gets them back
 * spread over `RETRY_AFTER_SPREAD * h`, at `rate / RETRY_AFTER_SPREAD`; any factor below 1 sends them back faster
 * than it planned for. In the simulator (`herdless simulate --retry-after 2s`: 1,000 clients, 100 served per 100 ms,
 * so a 1 s spread is the least that fits; seeds 1-3, a 4 s and a 2 s outage), 0.25 peaked at 2.1-3.7 times capacity,
 * 0.5 at 0.9-1.3 times (the random clumps of an exact fit), 0.75 at 0.7-0.9 and 1 at 0.5-0.7; the old rule, the wait
 * plus the attempt's backoff, at 5.3-8.8 times.
 */
export const RETRY_AFTER_SPREAD = 1;

/**
 * The sleep after a server asked for `hintMs` (> 0): the server's wait, plus a uniform spread that grows with that
 * wait, `hintMs + random() * min(capMs, RETRY_AFTER_SPREAD * hintMs)`. Independent of the attempt number, and the
 * same for `'full'`, `'equal'` and `'decorrelated'` (a spread starting at 0 is what lets the earliest clients come
 * back at the moment the server named); `'none'` draws no randomness anywhere, so it sleeps exactly `hintMs`.
 * Exactly `hintMs` when `random()` returns 0. Pure but for `backoff.random`, called at most once.
 */
export function spreadAfter(hintMs: number, backoff: Backoff): number {
  if (backoff.jitter === 'none') return hintMs;
  return hintMs + draw(backoff.random) * Math.min(backoff.capMs, RETRY_AFTER_SPREAD * hintMs);
}

/**
 * How long to wait before the next attempt, in milliseconds (not rounded). Pure: the same inputs and `random`
 * give the same delay, and the result is always finite and within `[0, capMs]`, for any attempt.
 *
 * With `ceiling = min(capMs, baseMs * factor ** (attempt - 1))`: `'none'` waits the ceiling, `'full'`
 * `random() * ceiling`, `'equal'` `ceiling / 2 + random() * ceiling / 2`, and `'decorrelated'`
 * `min(capMs, baseMs + random() * max(0, 3 * previous - baseMs))` with `previous = previousDelayMs ?? baseMs`.
 *
 * @param attempt - The 1-based number of the attempt that just failed (1 before the first retry): an integer >= 1.
 * @param policy - Backoff options; defaults: full jitter, `baseMs` 100, `capMs` 10 000, `factor` 2, `Math.random`.
 *   Keys it does not know are ignored, so a whole `retry()` policy may be passed.
 * @param previousDelayMs - The delay returned for the previous attempt: only `'decorrelated'` uses it. Finite, >= 0.
 * @returns The delay in milliseconds.
 * @throws RangeError for a bad attempt or option value, TypeError for a wrong type; messages name the option.
 *
 * @example
 * ```ts
 * import { computeDelay } from 'herdless';
 * computeDelay(1); // somewhere in [0, 100)
 * computeDelay(5, { jitter: 'equal', baseMs: 200, capMs: 5_000 }); // in [1600, 3200)
 * let d = computeDelay(1, { jitter: 'decorrelated' });
 * d = computeDelay(2, { jitter: 'decorrelated' }, d); // in [100, 3 * d)
 * ```
 */
export function computeDelay(attempt: number, policy?: BackoffOptions, previousDelayMs?: number): number {
  num('attempt', attempt, 'an integer >= 1', (n) => Number.isInteger(n) && n >= 1);
  if (previousDelayMs !== undefined) finite('previousDelayMs', previousDelayMs, 0);
  return delayFor(normalizeBackoff(policy), attempt, previousDelayMs);
}
