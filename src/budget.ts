import { FAILURE, type Guard, type Pass, RELEASE, type Settle, START } from './guard';
import { nearest } from './nearest';
import { fail, finite, onlyKnown, optionalFn, or } from './validate';
import { SlidingCounts, type SteadyClock, steadyClock } from './window';

/**
 * What a retry budget grants a retry: call {@link release} if the retry it paid for never starts. Giving it back
 * restores the budget as though it was never spent (if the withdrawal has since left the window, there is nothing to
 * give back). Only the first call counts: a permit gives back the one retry it paid for, however often it is released.
 */
export interface RetryPermit {
  /** The retry never started: gives it back (once; later calls do nothing). Reads no clock and never throws. */
  release(): void;
}

/** What {@link createRetryBudget} accepts; every field is optional. */
export interface RetryBudgetOptions {
  /** Retries allowed per first attempt over the window: a finite number >= 0. Default `0.1` (10%). */
  readonly ratio?: number | undefined;
  /**
   * Retries a second allowed whatever the traffic, so a quiet client can still retry: a finite number >= 0. Default
   * `10`. Over the window this is a reserve of `minPerSecond x windowMs / 1000` retries (100 by default).
   */
  readonly minPerSecond?: number | undefined;
  /** The sliding window, in ms: a finite number > 0. Default `10_000`. */
  readonly windowMs?: number | undefined;
  /**
   * The clock, in ms. Default `performance.now()`, looked up at each call (so fake timers control it). A reading that
   * is not a finite number is a TypeError or RangeError naming `now()` (inside `retry()`, the failure being handled
   * is its `cause`); a clock that goes back reads as no time passed.
   */
  readonly now?: (() => number) | undefined;
}

/**
 * A retry budget shared by every call that passes it (`retry(fn, { budget })`). First attempts deposit, retries
 * withdraw. Safe to share by any number of concurrent calls: each check-and-spend is one synchronous step.
 */
export interface RetryBudget {
  /** Records a first attempt (never refused). `retry()` calls it before each call's first attempt. */
  deposit(): void;
  /**
   * Spends one retry if the budget holds one and returns a permit for it, else returns `false`. `retry()` calls
   * it when it counts a failure that a retry may follow (before the sleep) and calls the permit's `release()` if that
   * retry never starts (the call stopped anyway, or an abort, the deadline or a throwing `onRetry` cancelled it),
   * which gives the retry back.
   */
  tryWithdraw(): RetryPermit | false;
  /** The whole retries the budget holds now: `floor(ratio x firsts + minPerSecond x windowMs / 1000 - retries)`. */
  available(): number;
  /**
   * Makes the budget full again, as just created: the first attempts and retries counted so far are forgotten, and
   * so is its clock's last reading, so a clock that starts again from 0 (a fresh fake clock in the next test) is read
   * as it is rather than as no time passed. A permit granted before gives nothing back to the new window when it is
   * released (it spent from a window that no longer counts). Reads no clock and never throws.
   *
   * Choose it in a test's `beforeEach` when a budget lives at module level (so each test starts with a full budget
   * on its own fake clock), or for an operator's "forget the incident" action; a budget left alone refills on its own
   * as its window slides.
   *
   * @example
   * ```ts
   * // api.ts
   * export const budget = createRetryBudget();
   * // api.test.ts
   * beforeEach(() => budget.reset());
   * ```
   */
  reset(): void;
}

/**
 * A call's pass through a budget: its first attempt deposits; each counted failure withdraws for the retry that may
 * follow (or refuses it with `'budget'`), and that retry starting spends it for good; the call's end (`RELEASE`) gives
 * back a withdrawal whose retry never started (the call stopped for another reason, an abort, the deadline, onRetry,
 * the breaker).
 */
class BudgetPass implements Pass {
  /** The withdrawal for the retry that may follow, `false` for none, `undefined` before the first attempt. */
  #held: RetryPermit | false | undefined;
  readonly #budget: RetryBudget;

  constructor(budget: RetryBudget) {
    this.#budget = budget;
  }

  settle(event: Settle): 'budget' | undefined {
    if (event === START) {
      if (this.#held === undefined) this.#budget.deposit();
      this.#held = false; // a retry starts: what it spent stays spent
    } else if (event === FAILURE) {
      this.#held = this.#budget.tryWithdraw();
      if (!this.#held) return 'budget';
    } else if (event === RELEASE && this.#held) this.#held.release();
    return undefined;
  }
}

class Budget implements RetryBudget, Guard {
  readonly #ratio: number;
  readonly #reserve: number;
  readonly #now: SteadyClock;
  /** a: first attempts, b: retries, in the window; replaced by {@link reset} (not readonly for that alone). */
  #counts: SlidingCounts;

  constructor(options: RetryBudgetOptions) {
    if (options === null || typeof options !== 'object') fail(TypeError, 'the budget options', 'an object', options);
    this.#ratio = finite('ratio', or(options.ratio, 0.1), 0);
    const minPerSecond = finite('minPerSecond', or(options.minPerSecond, 10), 0);
    const windowMs = finite('windowMs', or(options.windowMs, 10_000), Number.MIN_VALUE, 'a finite number > 0');
    this.#reserve = (minPerSecond * windowMs) / 1_000;
    this.#now = steadyClock(optionalFn('now', options.now));
    this.#counts = new SlidingCounts(windowMs);
    onlyKnown(options, KNOWN, 'retry budget', (key) => nearest(key, KNOWN));
  }

  #balance(): number {
    const counts = this.#counts;
    counts.advance(this.#now());
    return this.#ratio * counts.a + this.#reserve - counts.b;
  }

  deposit(): void {
    this.#counts.advance(this.#now());
    this.#counts.add(1, 0);
  }

  tryWithdraw(): RetryPermit | false {
    if (this.#balance() < 1) return false;
    const counts = this.#counts;
    counts.add(0, 1);
    let index = counts.index;
    return {
      release: () => {
        counts.remove(index, 1);
        index = Number.NEGATIVE_INFINITY; // released: a bucket that is never in the window, so a second call is a no-op
      },
    };
  }

  open(): Pass {
    return new BudgetPass(this);
  }

  available(): number {
    return Math.max(0, Math.floor(this.#balance()));
  }

  reset(): void {
    this.#counts = this.#counts.fresh(); // a permit from before releases into the old window, which nothing reads
    this.#now.reset();
  }
}

const KNOWN: ReadonlySet<string> = /* @__PURE__ */ new Set(['ratio', 'minPerSecond', 'windowMs', 'now']);

/**
 * A retry budget: over a sliding window of `windowMs`, retries may be at most `ratio` of first attempts plus
 * `minPerSecond` retries a second. First attempts are never refused; only retries spend. When a retry is refused,
 * `retry()` gives up at once with a `RetryError` whose reason is `'budget'`. This is Finagle's `RetryBudget` (and the
 * idea behind gRPC's retry throttling): when the dependency is healthy almost nothing retries and the budget is full;
 * when it fails, retries are capped at 10% extra load instead of multiplying it by `maxAttempts`.
 *
 * Choose it for any client that many calls share, to bound the load retries add during an overload: it stops a
 * retry storm without guessing a threshold. Memory is 20 numbers whatever the traffic; it sets no timers.
 *
 * @example
 * ```ts
 * import { createRetryBudget, retry } from 'herdless';
 * const budget = createRetryBudget(); // 10% of first attempts + 10 a second, over 10 s
 * const user = await retry(() => api.getUser(id), { budget });
 * ```
 *
 * @throws TypeError or RangeError naming the option, for a bad option.
 */
export function createRetryBudget(options: RetryBudgetOptions = {}): RetryBudget {
  return new Budget(options);
}
