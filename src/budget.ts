import { isThrottled } from './classify';
import { HELD_SHARE } from './decide';
import { type Guard, type Pass, Report, type Settle } from './guard';
import { nearest } from './nearest';
import { reportLater } from './report';
import { fail, finite, num, onlyKnown, optionalFn, or, unreadable, withCause } from './validate';
import { SlidingCounts, type SteadyClock, steadyClock, WINDOW } from './window';

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
  /**
   * A failure that took at least this long, in ms, says the dependency is queueing, and gets no retry (nor does one
   * whose attempt timeout abandoned it), unless it is an isolated one (at most 1 in 100 of the last
   * `failureWindowMs`'s attempts, this one included, with `minimumCalls` of them) or fast answers overtook it (see
   * {@link createRetryBudget}); when every attempt of that window failed so, it is held instead (see `failureRatio`):
   * a finite number > 0. Default: half the attempt's
   * `attemptTimeoutMs`; without one, half of what was left of the call's deadline when the attempt started, and an
   * attempt the deadline cut counts as slow; with neither, only a throttling answer that names no wait (see
   * `isThrottled`) does. An attempt that the call's own deadline cut before its `attemptTimeoutMs` counts at the time it
   * took: a call near its deadline says nothing of a queue. Give attempts an `attemptTimeoutMs` for this rule to see
   * one. The time is the attempt's own, measured by `retry()` on `performance.now()` from when the breaker let it
   * through to when it settled (the caller's hooks, `isTransient`, `onFailure`, not included), not on this budget's
   * `now`.
   */
  readonly slowMs?: number | undefined;
  /**
   * When at least this share of this budget's own attempts failed over the last `failureWindowMs` (with at least
   * `minimumCalls` of them), the dependency is down, and a retry waits out the trouble: it is held for at least as
   * long as the trouble has lasted so far (as this budget saw it; a window with no attempt forgets it), spread up to
   * twice that, as a server's Retry-After is (the spread at most `capMs`), or its own backoff if that is longer, so
   * that the calls held come back spread out, and the fewer the longer it goes on; a held retry that finds the
   * dependency queueing as it is about to start is refused. A hold is cut so that its sleep ends by half the time left
   * before the call's deadline; a trouble older than the call's whole deadline ends the call (`'budget'`: it cannot
   * wait it out; not a failure whose server named its wait, which `retry()` keeps to the deadline), and a hold longer
   * than the time left is not taken (the retry sleeps as unheld: its backoff, or the server's wait); one taken over its
   * `maxRetryAfterMs` ends the call (`'budget'`). While some of those attempts are also slow, the dependency queues and
   * sheds: the retry is refused, not held. While all of them are (every attempt hung; no throttling answer in the
   * window), in a process that sent at least `minimumCalls` first attempts over `windowMs` and one since the attempt
   * that hung began (its traffic goes on), the retry is held as for a dependency that is down, and starts only once 3
   * fast answers begun after the latest slow attempt have come back (a hang and a queue whose every attempt times out
   * look alike until then); else it is refused as it is about to start, after its hold (the trouble's age or more,
   * spread, paced: give calls a deadline to bound it). One whose hold its deadline would cut (past a quarter of the
   * time left) is refused at once: it would go early, with every other such one, on the first fast answers.
   * A number in (0, 1]. Default `0.85`.
   */
  readonly failureRatio?: number | undefined;
  /**
   * The window of `failureRatio` (and of what counts as an isolated slow failure), in ms: a finite number >= 1.
   * Default `3_000`: long enough for a quiet process (one of 1,000 sharing a dependency) to see a few attempts, short
   * enough that the traffic before the trouble does not dilute the share (in the matrix, 5 s let the 100-instance
   * shedding cell slip from 29% to 18% served; 1 s left the 1,000-instance one at 18%).
   */
  readonly failureWindowMs?: number | undefined;
  /**
   * The fewest attempts in that window for `failureRatio` to apply: an integer >= 1, or `Infinity` (the rule off).
   * Default `4`: a call of its own with up to 4 attempts is never stopped by this rule alone, and a quiet process
   * still acts on a few attempts that all failed. Also the fewest first attempts over `windowMs` for a hang to be held
   * (see `failureRatio`).
   */
  readonly minimumCalls?: number | undefined;
  /**
   * An optional cap on volume: retries at most `ratio` per first attempt over `windowMs` (plus `minPerSecond`), as
   * Finagle's budget: a number >= 0, or `Infinity` for no cap. Default `Infinity`. A cap counted per process bounds
   * nothing in a fleet of many (see the README): the two rules above are what protect the dependency.
   */
  readonly ratio?: number | undefined;
  /**
   * With a finite `ratio`: retries a second allowed whatever the traffic, so a quiet client can still retry: a finite
   * number >= 0. Default `0`. Over the window this is a reserve of `minPerSecond x windowMs / 1000` retries.
   */
  readonly minPerSecond?: number | undefined;
  /** The sliding window of `ratio`, in ms: a finite number >= 1. Default `10_000`. */
  readonly windowMs?: number | undefined;
  /**
   * The clock, in ms. Default `performance.now()`, looked up at each call (so fake timers control it). A reading that
   * is not a finite number is a TypeError or RangeError naming `now()` (inside `retry()`, the failure being handled
   * is its `cause`), except when a success is counted: a success stays a success, and the clock's error is reported
   * (`reportError`, or thrown from a timer) instead. A clock that goes back reads as no time passed until it passes
   * its highest reading again (a custom clock that NTP steps back an hour freezes the windows for that hour).
   */
  readonly now?: (() => number) | undefined;
}

/**
 * A retry budget shared by every call that passes it (`retry(fn, { budget })`). First attempts deposit, retries
 * withdraw. Safe to share by any number of concurrent calls: each check-and-spend is one synchronous step.
 */
export interface RetryBudget extends Guard {
  /** Records a first attempt (never refused). `retry()` calls it before each call's first attempt. */
  deposit(): void;
  /**
   * Spends one retry if the budget holds one and returns a permit for it, else returns `false`. `retry()` calls
   * it when it counts a failure that a retry may follow (before the sleep) and calls the permit's `release()` if that
   * retry never starts (the call stopped anyway, or an abort, the deadline or a throwing `onRetry` cancelled it),
   * which gives the retry back.
   */
  tryWithdraw(): RetryPermit | false;
  /**
   * The whole retries the volume cap holds now: `floor(ratio x firsts + minPerSecond x windowMs / 1000 - retries)`;
   * `Infinity` with no cap (the default). The saturation rules refuse retries whatever it says.
   */
  available(): number;
  /**
   * Makes the budget full again, as just created: the first attempts and retries counted so far (the volume cap's)
   * and the recent outcomes (the saturation rule's) are forgotten, and so is its clock's last reading, so a clock that starts again from 0 (a fresh fake clock in the next test) is read
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
  /**
   * Whether this budget's recent attempts say the dependency is queueing: a slow attempt in the last
   * `failureWindowMs`, unless an isolated one or one that fast answers overtook. What a held retry about to start is
   * refused on, and what a hedge (`herdless/hedge`) is refused on: a second attempt would join the queue. Optional, for
   * wrappers written before it (a wrapper should forward it: without it, a hedge reads the budget's volume cap alone).
   * Counts nothing.
   */
  queueing?(): boolean;
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
  /**
   * The retry that may follow was held (the dependency was down): it is asked again before it starts, and if it never
   * starts, the pace step its hold took is given back as the call ends.
   */
  #waited = false;
  /**
   * The hold was given because every attempt hung (see {@link Budget.saturated}): the retry starts only once fast
   * answers say the hang has ended ({@link Budget.recovered}), not merely on no sign of a queue.
   */
  #hung = false;
  /** The pace step the hold took (see {@link Budget.paced}), and the moment its place in the pace came. */
  #step = 0;
  #until = 0;
  /**
   * When the attempt under way began, on the budget's clock (what a slow one is overtaken against); NaN if that read
   * threw (the clock's error then surfaces where it always has, as the attempt is counted).
   */
  #startedAt = Number.NaN;
  /** When the call's first attempt began, on the budget's clock (what its time left is read from); NaN: unknown. */
  #began = Number.NaN;
  /** The budget's {@link Budget.epoch} when the hold was given: a hold from before a reset() gives nothing back. */
  #epoch = 0;
  readonly #budget: Budget;

  constructor(budget: Budget) {
    this.#budget = budget;
  }

  settle(
    event: Settle,
    failure?: unknown,
    attemptMs = 0,
    allowedMs = Infinity,
    retryAfterMs?: number,
    deadlineMs = Infinity,
  ): 'budget' | number | undefined {
    if (event === Report.START) {
      const waited = this.#waited;
      if (this.#held === undefined) this.#budget.deposit();
      else if (waited) {
        let queueing: boolean;
        try {
          // It waited: the dependency may have begun to queue since. One held through a hang needs more: fast answers
          // since (a hang and a queue whose every attempt times out look alike until then). Its clock is read all the
          // same, so a broken one is found before the retry (review 35).
          if (this.#hung) {
            this.#budget.time();
            queueing = !this.#budget.recovered();
          } else queueing = this.#budget.queueing();
        } catch (error) {
          throw withCause(error, failure); // a broken clock, found before a retry: the failure it follows as cause
        }
        if (queueing) return 'budget'; // not started: the RELEASE that follows gives its pace step back
        this.#waited = false;
        this.#hung = false;
      }
      this.#held = false; // a retry starts: what it spent stays spent
      try {
        this.#startedAt = this.#budget.time();
      } catch {
        this.#startedAt = Number.NaN;
      }
      if (Number.isNaN(this.#began)) this.#began = this.#startedAt;
      // A held retry starting (by over a millisecond) before its place in the pace came did not take its hold: the
      // call's deadline cut it, or the call could not wait it out and slept its backoff. Its step is given back, so
      // that the holds not taken do not push the ones taken later (review: with a 10 s deadline, the pace ran 10 s
      // ahead each second of an outage, and no call was held after its first 50 ms).
      if (waited && this.#startedAt < this.#until - 1) this.#budget.unpace(this.#step, this.#epoch);
    } else if (event === Report.FAILURE) {
      // A throttling answer (see `isThrottled`: a 429, an AWS throttling error, a gRPC RESOURCE_EXHAUSTED) with no wait
      // (no Retry-After, or one of 0) says the server is saturated now, however fast: it took as long as a timed-out
      // attempt, and began now (never overtaken). One with a wait is the server scheduling the retry: its own time.
      // Read here, from what retry() and the simulator report alike, so that { retry } alone carries none of it.
      const named = (retryAfterMs as number) > 0;
      const throttled = !named && isThrottled(failure);
      const hold = this.#budget.saturated(
        throttled ? Infinity : attemptMs,
        allowedMs,
        1,
        throttled ? Infinity : this.#startedAt,
        // A server that names its wait has scheduled the retry (decide() ends the call if the wait is past the
        // deadline): it is not ended for the trouble's age (review 34).
        named ? Infinity : deadlineMs,
        throttled,
      );
      if (hold < 0) return 'budget';
      this.#held = this.#budget.tryWithdraw();
      if (!this.#held) return 'budget';
      if (hold > 0) {
        this.#waited = true; // held through the trouble: asked again, as it starts, whether it may still go
        this.#hung = this.#budget.hung();
        this.#epoch = this.#budget.epoch();
        this.#step = this.#budget.paced();
        this.#until = this.#budget.slot();
        // Held through a hang, it could only go at its place in the pace: a hold its deadline would cut (or not take)
        // wakes early, to be refused (or, on the first fast answers, to go with every other such one: review 35). It
        // is refused now instead, rather than sleeping only to be refused (review 35b); the RELEASE that follows gives
        // back its withdrawal and its pace step, as for any held retry that never starts.
        if (this.#hung && hold > (deadlineMs - (this.#budget.time() - this.#began)) * HELD_SHARE) return 'budget';
        return hold;
      }
    } else if (event === Report.SUCCESS) {
      try {
        this.#budget.saturated(attemptMs, allowedMs, 0, this.#startedAt); // counted: how fast, and that it worked
      } catch (error) {
        reportLater(error); // a broken clock: a success stays a success (the caller must not redo done work)
      }
    } else if (event === Report.RELEASE) {
      if (this.#held) this.#held.release();
      // A held retry that never started (the call's last attempt, its deadline, an abort, a refusal as it was to
      // start): its place in the pace is given back, so calls that cannot retry do not push the others' holds later.
      if (this.#waited) {
        this.#waited = false;
        this.#hung = false;
        this.#budget.unpace(this.#step, this.#epoch);
      }
    }
    return undefined;
  }
}

class Budget implements RetryBudget, Guard {
  /** The slow threshold, in ms; NaN: half what `retry()` judges each attempt against (its attempt timeout, else what was left of the deadline). */
  readonly #slowMs: number;
  readonly #failureRatio: number;
  readonly #minimumCalls: number;
  readonly #ratio: number;
  readonly #reserve: number;
  readonly #now: SteadyClock;
  /**
   * a: first attempts, b: retries (counted only with a finite ratio, for the volume cap), over `windowMs`. The first
   * attempts also pace the holds (see {@link HELD_PACE}). Replaced by {@link reset} (not readonly for that alone), as
   * are `#outcomes` and `#speeds`.
   */
  #counts: SlidingCounts;
  /** `windowMs / HELD_PACE`: the pace step of held retries, in ms, times the first attempts in the window. */
  readonly #paceMs: number;
  /** The latest moment a held retry has been given, on this budget's clock; -Infinity for none. */
  #slot = Number.NEGATIVE_INFINITY;
  /** The pace step the last hold took, in ms: what its pass gives back if it is not taken. */
  #paced = 0;
  /** a: attempts that reported an outcome, b: the failures among them, over `failureWindowMs`. */
  #outcomes: SlidingCounts;
  /** a: the same attempts, b: the slow ones among them. */
  #speeds: SlidingCounts;
  /**
   * When each of the last {@link OVERTAKE} fast successes began, on this budget's clock (a ring): all of them later
   * than a slow attempt's start, it was overtaken.
   */
  #fastStarts: number[] = [];
  /** The slot of `#fastStarts` the next fast success fills. */
  #fastAt = 0;
  /** When the slow attempt that began last began, on this budget's clock; -Infinity for none. */
  #slowStart = Number.NEGATIVE_INFINITY;
  /** Whether the last hold {@link saturated} gave was for a hang (every attempt in the window hung). */
  #hung = false;
  /** When the latest throttling answer was counted, on this budget's clock; -Infinity for none. */
  #throttledAt = Number.NEGATIVE_INFINITY;
  /** When the latest first attempt began, on this budget's clock; -Infinity for none. */
  #firstAt = Number.NEGATIVE_INFINITY;
  readonly #failureWindowMs: number;
  /** When the trouble (a saturated failure) began, on this budget's clock; NaN while there is none. */
  #since = Number.NaN;

  constructor(options: RetryBudgetOptions) {
    if (options === null || typeof options !== 'object') fail(TypeError, 'the budget options', 'an object', options);
    const slowMs = options.slowMs;
    if (slowMs !== undefined) finite('slowMs', slowMs, Number.MIN_VALUE, 'a finite number > 0');
    this.#slowMs = or(slowMs, Number.NaN);
    this.#failureRatio = num(
      'failureRatio',
      or(options.failureRatio, 0.85),
      'a number in (0, 1]',
      (n) => n > 0 && n <= 1,
    );
    const failureWindowMs = finite('failureWindowMs', or(options.failureWindowMs, 3_000), 1, WINDOW);
    this.#minimumCalls = num(
      'minimumCalls',
      or(options.minimumCalls, 4),
      'an integer >= 1 or Infinity (off)',
      (n) => (Number.isInteger(n) && n >= 1) || n === Infinity,
    );
    const ratio = or(options.ratio, Infinity);
    this.#ratio = ratio === Infinity ? ratio : finite('ratio', ratio, 0, 'a number >= 0 or Infinity (no cap)');
    const minPerSecond = finite('minPerSecond', or(options.minPerSecond, 0), 0);
    const windowMs = finite('windowMs', or(options.windowMs, 10_000), 1, WINDOW);
    this.#reserve = (minPerSecond * windowMs) / 1_000;
    this.#now = steadyClock(optionalFn('now', options.now));
    this.#paceMs = Math.min(windowMs / HELD_PACE, Number.MAX_VALUE); // finite: a step given back never makes NaN
    this.#counts = new SlidingCounts(windowMs);
    this.#outcomes = new SlidingCounts(failureWindowMs);
    this.#failureWindowMs = failureWindowMs;
    this.#speeds = new SlidingCounts(failureWindowMs);
    onlyKnown(options, KNOWN, 'retry budget', (key) => nearest(key, KNOWN));
  }

  /**
   * Counts an attempt's outcome (`failed` 1 or 0), begun at `startedAt` on this clock (NaN: unknown; Infinity: now),
   * that took `attemptMs` of the `allowedMs` it had, and says what the retry after it may do: `0` go as the backoff
   * says; a number > 0, wait at least that long (the trouble's age: the dependency is saturated); `-1` not at all.
   */
  saturated(
    attemptMs: number,
    allowedMs: number,
    failed: number,
    startedAt: number,
    deadlineMs = Infinity,
    throttled = false,
  ): number {
    const slowMs = Number.isNaN(this.#slowMs) ? allowedMs / 2 : this.#slowMs;
    const now = this.#now();
    // When it began, as its pass read at its start (Infinity: now, no answer can have overtaken it); with no reading,
    // worked back from its time (a timed-out attempt: its whole allowance ago).
    const start = Math.min(
      now,
      !Number.isNaN(startedAt) ? startedAt : attemptMs < Infinity ? now - attemptMs : now - allowedMs,
    );
    const fast = attemptMs < slowMs;
    // A slow attempt that fast answers begun after it have already overtaken is not a queue's (a queue serves in turn):
    // a long tail, a hang that has ended, a latency the dependency adds whatever its load. It counts as fast.
    const slow = fast || this.#overtaken(start) ? 0 : 1;
    const outcomes = this.#outcomes;
    const speeds = this.#speeds;
    outcomes.advance(now);
    if (outcomes.a === 0) this.#forget(); // nothing for a whole window: a trouble before that is old news
    outcomes.add(1, failed);
    speeds.advance(now);
    speeds.add(1, slow);
    if (slow === 1) this.#slowStart = Math.max(this.#slowStart, start);
    else if (fast && !failed) {
      this.#fastStarts[this.#fastAt] = start;
      this.#fastAt = (this.#fastAt + 1) % OVERTAKE;
    }
    const known = outcomes.a >= this.#minimumCalls;
    const failing = known && outcomes.b >= this.#failureRatio * outcomes.a;
    // Every attempt of the window hung (failed slow; none a throttling answer, which names saturation) in a process
    // that sends enough to see the hang end: the dependency answers nothing. A queue whose every attempt times out
    // looks the same, until fast answers come back: held as a dependency that is down is, and let go only on them.
    if (throttled) this.#throttledAt = now;
    const hung =
      slow === 1 &&
      failed === 1 &&
      outcomes.b === outcomes.a &&
      speeds.b === speeds.a &&
      now - this.#throttledAt > this.#failureWindowMs &&
      this.#busy(now, start);
    this.#hung = hung;
    // A slow failure is the dependency queueing, unless it is an isolated one: a hung connection among many fast
    // answers (at most 1 in 100 of the window's attempts, with minimumCalls known) is still retried.
    if (slow === 1 && !hung && this.#slowSeen(known)) return -1;
    if (!failing && !hung) {
      if (!failed) this.#since = Number.NaN; // the trouble is over
      return 0;
    }
    // Most attempts failing while some are slow is a dependency that queues and sheds: refused, as a slow failure is.
    if (!hung && this.#slowSeen(true)) return -1;
    // A success counted while the window still reads failing: no retry follows it, so no hold to give (review 34: it
    // moved the pace to now + the trouble's age, a place no call took or gave back, and held the next trouble behind it).
    if (!failed) return 0;
    // Most failing and all fast is one that is down: held, to wait it out, from when this trouble began, and paced:
    // each hold ends a step after the latest one given, a step that lets this budget's held retries start at most
    // HELD_PACE for every first attempt it saw over `windowMs`. However long the trouble and many the calls held
    // through it, the retries they come back with add at most that share to this process's demand.
    if (Number.isNaN(this.#since)) this.#since = now;
    // A trouble that has already lasted longer than the call's whole deadline will likely outlast it (its age is the
    // best guess of what is left of it): the call cannot wait it out. Retrying at its backoff instead knocks on a
    // dependency that is down, and lands on it, with every call like it, the moment it comes back. Refused. (Its whole
    // deadline, not its time left: a call begun as the trouble began is never ended by this before its deadline.)
    if (now - this.#since > deadlineMs) return -1;
    const counts = this.#counts;
    counts.advance(now);
    this.#paced = this.#paceMs / Math.max(1, counts.a);
    this.#slot = Math.max(this.#slot, now + (now - this.#since)) + this.#paced;
    return this.#slot - now;
  }

  /**
   * The trouble is over, or old news: its age and its pace are forgotten, so that a later trouble is held from its own
   * start, and paced from now, not behind the holds an outage long ago gave out (review: one outage of 10 minutes left
   * the next blip's holds an hour away).
   */
  #forget(): void {
    this.#since = Number.NaN;
    this.#slot = Number.NEGATIVE_INFINITY;
  }

  /**
   * Whether this process sends enough to see a hang end: at least `minimumCalls` first attempts over `windowMs`, and
   * one begun after the attempt that hung began (traffic goes on; review 35: a burst with nothing after it, or a lone
   * call with `minimumCalls` 1, held only to be refused). A quieter one would hold a call through a hang only to
   * refuse it, with no fast answer to let it go.
   */
  #busy(now: number, start: number): boolean {
    const counts = this.#counts;
    counts.advance(now);
    return counts.a >= this.#minimumCalls && this.#firstAt > start;
  }

  /** Whether the last hold given was for a hang: its retry then starts only once {@link recovered}. */
  hung(): boolean {
    return this.#hung;
  }

  /**
   * Whether fast answers say the latest slow attempt's trouble has ended: the last {@link OVERTAKE} fast successes all
   * began after it began. What a retry held through a hang needs to start. Reads no clock.
   */
  recovered(): boolean {
    return this.#overtaken(this.#slowStart);
  }

  /** The pace step the last hold took, in ms (none: 0). */
  paced(): number {
    return this.#paced;
  }

  /** When the place the last hold was given comes, on this budget's clock (-Infinity for none). */
  slot(): number {
    return this.#slot;
  }

  /**
   * A held retry that never started gives its pace step back: the next hold takes the place it left. Not one given
   * before a reset(): that pace is gone (review 35b: it moved the next hold ahead of the new trouble's).
   */
  unpace(step: number, epoch: number): void {
    if (epoch === this.#epoch) this.#slot -= step;
  }

  /** How many times reset() was called: a hold's pace step is given back only within its epoch. */
  #epoch = 0;

  /** The current epoch (see {@link unpace}). */
  epoch(): number {
    return this.#epoch;
  }

  /** This budget's clock, read now (a steady reading: it never goes back). */
  time(): number {
    return this.#now();
  }

  /**
   * Whether this budget's recent attempts say the dependency is queueing: a slow one in the last `failureWindowMs`,
   * unless it is an isolated one among `minimumCalls` or more (at most 1 in 100), or fast answers begun after the
   * latest one began have come back since (a queue, if there was one, has drained). What a held retry about to start is
   * refused on, after its hold: the retries held through an outage must not feed the queue that forms as it ends.
   */
  queueing(): boolean {
    const now = this.#now();
    this.#outcomes.advance(now);
    this.#speeds.advance(now);
    return this.#slowSeen(this.#outcomes.a >= this.#minimumCalls) && !this.#overtaken(this.#slowStart);
  }

  /** A slow attempt in the window, unless an isolated one: at most 1 in 100 of them, with `known` (enough calls). */
  #slowSeen(known: boolean): boolean {
    const speeds = this.#speeds;
    return speeds.b > 0 && !(known && speeds.b <= ISOLATED * speeds.a);
  }

  /** Whether the last {@link OVERTAKE} fast successes all began after `start` (and so came back before now). */
  #overtaken(start: number): boolean {
    const starts = this.#fastStarts;
    if (starts.length < OVERTAKE) return false;
    for (const at of starts) if (!(at > start)) return false;
    return true;
  }

  #balance(): number {
    if (this.#ratio === Infinity) return Infinity;
    const counts = this.#counts;
    counts.advance(this.#now());
    return this.#ratio * counts.a + this.#reserve - counts.b;
  }

  deposit(): void {
    const counts = this.#counts;
    let now: number;
    try {
      now = this.#now();
    } catch (error) {
      // Without a volume cap, a first attempt is counted only to pace holds: a broken clock must not refuse it (its
      // error surfaces as the attempt's outcome is counted). With a cap, the first attempt pays into it: thrown.
      if (this.#ratio === Infinity) return;
      throw error;
    }
    counts.advance(now);
    counts.add(1, 0);
    this.#firstAt = Math.max(this.#firstAt, now);
  }

  tryWithdraw(): RetryPermit | false {
    if (this.#ratio === Infinity) return UNCAPPED;
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

  /**
   * The brand (see `Brand.GUARD` in guard.ts) by which `retry()` refuses a budget passed as its `breaker`, from either build.
   */
  // Stryker disable next-line StringLiteral: as RetryError's brand, a key Stryker cannot mutate.
  get 'herdless.guard'(): 'budget' {
    return 'budget';
  }

  available(): number {
    return Math.max(0, Math.floor(this.#balance()));
  }

  reset(): void {
    this.#counts = this.#counts.fresh(); // a permit from before releases into the old window, which nothing reads
    this.#outcomes = this.#outcomes.fresh();
    this.#speeds = this.#speeds.fresh();
    this.#fastStarts = [];
    this.#fastAt = 0;
    this.#slowStart = Number.NEGATIVE_INFINITY;
    this.#throttledAt = Number.NEGATIVE_INFINITY;
    this.#firstAt = Number.NEGATIVE_INFINITY;
    this.#forget(); // the trouble and its pace
    this.#epoch++;
    this.#now.reset();
  }
}

/** The share of slow attempts in the window at or under which a slow failure is an isolated one, and retried. */
const ISOLATED = 0.01;
/**
 * Held retries a budget lets start per first attempt it saw over `windowMs`: 0.3, so that the calls held through a
 * trouble add at most 30% to what this process asks of the dependency as they come back. Chosen on the explore
 * scenario's development cells (outages and flapping, 659 cells: 0.1 safe in 94.8% and beneficial in 92.8%; 0.2 in
 * 94.5% and 98.6%; 0.3 in 94.5% and 99.3%; 0.5 in 94.1% and 99.8%; unpaced 92.1% and 99.5%).
 */
const HELD_PACE = 0.3;
/**
 * How many fast successes, all begun after a slow attempt began and back before it settled, say that it was not a
 * queue's: a queue serves in turn, so an attempt that waited in one is not overtaken by later ones. Three, so that one
 * lucky answer does not decide it. Chosen on the development cells of `herdless simulate --scenario explore` (two gave
 * the same safety). The same evidence lets a retry held through a hang start: held with none needed, such retries cost
 * 14 cells of safety in 1,000 (a queue whose every attempt times out looks like a hang); needing it, none in 2,000,
 * for 20 more cells beneficial.
 */
const OVERTAKE = 3;

const KNOWN: ReadonlySet<string> = /* @__PURE__ */ new Set([
  'slowMs',
  'failureRatio',
  'failureWindowMs',
  'minimumCalls',
  'ratio',
  'minPerSecond',
  'windowMs',
  'now',
]);

/** The permit of a budget with no volume cap: nothing was counted, so there is nothing to give back. */
const UNCAPPED: RetryPermit = { release() {} };

/**
 * A retry budget: it lets retries through while the dependency answers fast, holds them while it is down, and refuses
 * them (the call gives up at once with a `RetryError` whose reason is `'budget'`) when this process's own attempts say
 * that it is queueing, where a retry would only add to the dependency's trouble:
 * - **a slow failure**: the attempt took at least `slowMs` (default half its `attemptTimeoutMs`: give attempts one),
 *   or its timeout abandoned it. The dependency is queueing; a retry would join the queue that made it slow, and that
 *   is how retries turn a slowdown into an outage. An isolated one is still retried (a hung connection among fast
 *   answers: at most 1 in 100 of the last `failureWindowMs`'s attempts were slow, this one included), and so is one
 *   that fast answers overtook (the last 3 fast successes all began after it began and came back before it settled: a
 *   queue serves in turn, so a slow answer overtaken by later ones is a long tail, a hang that has ended, a latency the
 *   dependency adds whatever its load). A quiet process, with no such evidence, does not retry a timeout. When every
 *   attempt of the window failed slow (no throttling answer among them) in a process that sent at least
 *   `minimumCalls` first attempts over `windowMs`, one of them since the attempt that hung began, the dependency
 *   answers nothing: the retry is held as below (one whose hold its deadline would cut is refused at once), and
 *   starts only once 3 fast answers begun after the latest slow attempt have come back. A hang and a queue whose every
 *   attempt times out look alike until then; without them the retry is refused as it is about to start (after its
 *   hold: a deadline bounds it), and so never joins a queue.
 *   A throttling answer that names no wait (no Retry-After, or 0; see `isThrottled`: a 429, an AWS throttling
 *   error, a gRPC RESOURCE_EXHAUSTED) counts as slow however fast it came: the dependency says it is saturated. One
 *   with a wait keeps its own time, and is waited as any fast failure is: retried unless most attempts are failing.
 * - **most attempts failing** (held, not refused): `failureRatio` (85%) of this budget's attempts over the last
 *   `failureWindowMs` (3 s) failed, with at least `minimumCalls` (4) of them, and at most 1 in 100 of them slow
 *   (more slow ones: it queues and sheds, and the retry is refused). The dependency is down: a retry then waits at
 *   least as long as the trouble has lasted so far, and its hold is paced: it ends a step after the last hold this
 *   budget gave, so that held retries start at most 3 for every 10 first attempts it saw over `windowMs` (10 s; a
 *   held retry that never starts gives its place back). The
 *   hold is then spread as the wait a server names with a Retry-After is (up to as long again, at most `capMs`). A
 *   short blip is waited out (in `herdless simulate`'s 4 s outage, all 1,000 calls begun in one instant succeed, with
 *   the peak after it under a tenth of capacity, the last at about 70 s), and however long the trouble and many the
 *   calls held through it, they come back adding at most 30% to what this process asks. A held retry is asked
 *   again as it is about to start: if the dependency has begun to queue meanwhile (a slow attempt in the last
 *   `failureWindowMs`, unless an isolated one), it is refused, so the calls held through an outage do not feed the
 *   queue that forms as it ends. A hold never shortens the retry's own backoff; it is cut so that its sleep ends by
 *   half the time left before the call's deadline, leaving the attempt the other half. A trouble that has lasted
 *   longer than the call's whole deadline (`timeoutMs`) ends the call with `'budget'` at its next failure (unless the
 *   server named its wait): a trouble's age is the best guess of what is left of it, so the call cannot wait it out,
 *   and retrying at its backoff instead would knock on a dependency that is down and land on it, with every call like
 *   it, as it comes back. A call begun as the trouble began is never ended by this before its deadline. A hold
 *   longer than the time left (a trouble older than that, or a place in the pace after the deadline: a quiet process)
 *   is not taken: the retry sleeps as unheld. A hold taken longer than its `maxRetryAfterMs` ends the call with
 *   `'budget'`. A window with no attempt at all forgets the trouble.
 * A fast failure otherwise (a partial failure, a bad host among many, a refused connection) is retried, so a
 * dependency that fails some of its requests while it has room keeps what retrying is for. First attempts are never
 * refused. Both rules read only this budget's own attempts, and neither counts retries against a per-process reserve,
 * so a fleet of 10,000 processes adds no more than one does. The slow rule reads each attempt's own time, so it acts
 * alike in every process; the failure-share rule needs `minimumCalls` attempts in its window, so it acts in a busy
 * process and in a fairly quiet one (in the matrix, `herdless simulate --scenario matrix`: up to 1,000 instances of
 * an 800-a-second demand), not in one of 10,000 (a third of a call in a 4 s slowdown), which then relies on the slow
 * rule and the 429s alone. An optional volume cap (`ratio`, `minPerSecond`: Finagle's `RetryBudget`) also bounds
 * retries to a share of first attempts; off by default, since a reserve counted per process adds up across a fleet.
 *
 * Choose it for every dependency that many calls share, with an `attemptTimeoutMs`: it is the setup herdless
 * recommends, judged on troubles it was not tuned on (`herdless simulate --scenario explore`). Memory is 68 numbers
 * whatever the traffic; it sets no timers.
 *
 * @example
 * ```ts
 * import { createRetryBudget, retry } from 'herdless';
 * const budget = createRetryBudget(); // no retry for a slow failure; one held while 85% of the last 3 s of attempts fail
 * const user = await retry(() => api.getUser(id), { budget, attemptTimeoutMs: 1_000 });
 * ```
 *
 * @throws TypeError or RangeError naming the option, for a bad option.
 */
export function createRetryBudget(options: RetryBudgetOptions = {}): RetryBudget {
  try {
    return new Budget(options);
  } catch (error) {
    return unreadable('retry budget', options, error);
  }
}
