import type { StopReason } from './errors';
import { type Guard, type Pass, Report, type Settle } from './guard';
import { nearest } from './nearest';
import { reportLater } from './report';
import { fail, finite, num, onlyKnown, optionalFn, or, unreadable, withCause } from './validate';
import { SlidingCounts, type SteadyClock, steadyClock, WINDOW } from './window';

/** A circuit breaker's state. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * Why a breaker changed state: it opened on `'consecutive-failures'` or on the `'failure-ratio'`; its break elapsed
 * (`'break-elapsed'`, open to half-open); a probe succeeded (`'probe-succeeded'`, closed) or failed
 * (`'probe-failed'`, open again); or by hand: {@link CircuitBreaker.isolate} (`'isolated'`, held open) and
 * {@link CircuitBreaker.reset} (`'reset'`, closed). The two by hand are told even when the state stays the same
 * (`from` equal to `to`: a reset of a closed breaker, an isolation of an open one), since they still clear it.
 */
export type CircuitChangeReason =
  | 'consecutive-failures'
  | 'failure-ratio'
  | 'break-elapsed'
  | 'probe-succeeded'
  | 'probe-failed'
  | 'isolated'
  | 'reset';

/** What `onStateChange` receives (frozen). */
export interface CircuitStateChange {
  readonly from: CircuitState;
  readonly to: CircuitState;
  readonly reason: CircuitChangeReason;
}

/** What {@link createCircuitBreaker} accepts; every field is optional. */
export interface CircuitBreakerOptions {
  /**
   * Also opens after this many failures that count in a row: an integer >= 1, or `Infinity` (off). Default `Infinity`:
   * a count in a row trips on a dependency that fails half its requests (5 in a row is 1 chance in 32 there) and
   * turns a partial failure into an outage; and it trips sooner in a busy process than in a quiet one.
   */
  readonly consecutiveFailures?: number | undefined;
  /**
   * Opens when the share of counted attempts that failed over `windowMs` reaches this, with at least `minimumCalls` of
   * them: a number in (0, 1]. Default `0.9`: the dependency is down, not failing part of its requests (a 50% partial
   * failure with retries still serves 87% of calls; an open breaker, none).
   */
  readonly failureRatio?: number | undefined;
  /** The fewest attempts in the window for `failureRatio` to apply: an integer >= 1. Default `10`. */
  readonly minimumCalls?: number | undefined;
  /** The window of `failureRatio`, in ms: a finite number >= 1. Default `10_000`. */
  readonly windowMs?: number | undefined;
  /** How long it stays open before letting probes through, in ms: a finite number >= 1. Default `5_000`. */
  readonly breakMs?: number | undefined;
  /**
   * Grows the break on repeated opens (open again after a failed probe), up to this, in ms: a finite number >=
   * `breakMs`. When above `breakMs`, the n-th open in a row lasts a random time in `[c, min(maxBreakMs, 2c)]` with
   * `c = min(maxBreakMs, breakMs x 2^n)`, so a fleet of breakers that opened together does not probe in lockstep.
   * Default `breakMs` (no growth, no randomness).
   */
  readonly maxBreakMs?: number | undefined;
  /** Calls let through while half-open; the others get a `CircuitOpenError`: an integer >= 1. Default `1`. */
  readonly halfOpenProbes?: number | undefined;
  /**
   * Called on every change of state, synchronously, after the change. What it throws changes nothing (the change
   * stands, and the call whose outcome caused it settles as it would have): it is reported as an EventTarget
   * listener's error is, through `globalThis.reportError` where the runtime has one (browsers, Deno, Bun), else
   * rethrown from a `setTimeout(0)` (in Node an `'uncaughtException'`). Default: none.
   */
  readonly onStateChange?: ((change: CircuitStateChange) => void) | undefined;
  /**
   * Randomness in [0, 1) for the grown breaks. Default `Math.random`, looked up at each call. A draw outside [0, 1)
   * (NaN, 5) is a RangeError naming `random()` (inside `retry()`, the failure being handled is its `cause`).
   */
  readonly random?: (() => number) | undefined;
  /**
   * The clock, in ms. Default `performance.now()`, looked up at each call (so fake timers control it). A reading that
   * is not a finite number is a TypeError or RangeError naming `now()`, thrown by `state`, `admit()` and
   * `recordFailure()` (inside `retry()`, the failure being handled is its `cause`) but only reported by
   * `recordSuccess()`, as an `onStateChange` error is, so that a success stays one; a clock that goes back reads as no
   * time passed.
   */
  readonly now?: (() => number) | undefined;
}

/**
 * What {@link CircuitBreaker.admit} grants an attempt: report its outcome through it with one of {@link recordSuccess},
 * {@link recordFailure} or {@link release}. Only the first of them counts: each attempt gets a permit of its own, and
 * later reports through it do nothing (so a probe released twice frees one probe slot, not two). It belongs to the
 * state (the generation) the breaker was in when it admitted the attempt: once the breaker has changed state since,
 * what it reports is stale and ignored (see {@link createCircuitBreaker}).
 */
export interface CircuitPermit {
  /**
   * The attempt succeeded: resets the failures in a row; closes a half-open breaker. Never throws: a broken `now()`
   * (read to count the success toward a `failureRatio`) is reported as an `onStateChange` error is (through
   * `globalThis.reportError`, else rethrown from a `setTimeout(0)`) and the success is not counted (the breaker is left
   * as it was), so that a caller never mistakes work that was done for work to redo.
   */
  recordSuccess(): void;
  /**
   * The attempt failed in a way that counts (transient): may open the breaker; re-opens a half-open one. A broken
   * `now()` or `random()` is thrown here, as a TypeError or RangeError naming it (inside `retry()`, with the failure
   * as its `cause`), and the breaker does not change state on that failure.
   */
  recordFailure(): void;
  /**
   * The attempt ended in a way that says nothing of the dependency (a permanent error, an abort): frees its probe
   * slot. Reads no clock and never throws.
   */
  release(): void;
}

/**
 * A circuit breaker shared by every call that passes it (`retry(fn, { breaker })`). `retry()` asks {@link admit}
 * before each attempt and reports each attempt's outcome through the permit it got; use the same methods to guard
 * other work by hand.
 *
 * @example
 * ```ts
 * const permit = breaker.admit();
 * if (permit instanceof CircuitOpenError) throw permit;
 * try {
 *   const value = await work();
 *   permit.recordSuccess();
 *   return value;
 * } catch (error) {
 *   permit.recordFailure();
 *   throw error;
 * }
 * ```
 */
export interface CircuitBreaker extends Guard {
  /** `'closed'` (calls go through), `'open'` (refused) or `'half-open'` (`halfOpenProbes` calls let through). */
  readonly state: CircuitState;
  /**
   * Asks to start an attempt: a {@link CircuitPermit} when it may (a half-open breaker counts it as a probe), else the
   * {@link CircuitOpenError} to reject with. Each permit should end in one of its three methods (the first one counts).
   */
  admit(): CircuitPermit | CircuitOpenError;
  /**
   * Holds the breaker open until {@link reset}: {@link state} is `'open'` and {@link admit} returns a
   * {@link CircuitOpenError} whose `remainingMs` is `Infinity` (no probe is due: none is let through, however long it
   * stays), so `retry()` calls reject at once without calling `fn` and calls already retrying stop with
   * `'circuit-open'`. Permits granted before are stale (what they report is ignored). Tells `onStateChange`
   * (`reason: 'isolated'`) unless it is isolated already, in which case it does nothing. Reads no clock and never
   * throws (only `onStateChange`'s own error is reported, as for any change).
   *
   * Choose it for an operator's kill switch (the dependency is known to be down or under maintenance, or must be
   * spared while it recovers), or in a test that needs an open breaker without driving failures through it.
   *
   * @example
   * ```ts
   * breaker.isolate(); // maintenance: every call through it fails fast with CircuitOpenError
   * // ... later
   * breaker.reset(); // back in service, closed
   * ```
   */
  isolate(): void;
  /**
   * Closes the breaker as though it was just created: every counter cleared (the failures in a row, the
   * `failureRatio` window, the grown break's exponent, the probes), out of {@link isolate} too, and a new generation,
   * so that what permits granted before report is ignored. Also forgets its clock's last reading, so that a clock that
   * starts again from 0 (a fresh fake clock in the next test) is read as it is, not as no time passed. Tells
   * `onStateChange` (`reason: 'reset'`, `to: 'closed'`) every time, even when it was closed already. Reads no clock and
   * never throws (only `onStateChange`'s own error is reported, as for any change).
   *
   * Choose it in a test's `beforeEach` when a breaker lives at module level (so a test that opened it does not leak
   * into the next), to end an {@link isolate}, or for an operator who knows the dependency is back and will not wait
   * for the break to elapse and a probe to pass.
   *
   * @example
   * ```ts
   * // api.ts
   * export const breaker = createCircuitBreaker();
   * // api.test.ts
   * beforeEach(() => breaker.reset()); // closed, and ready for this test's fake clock starting at 0
   * ```
   */
  reset(): void;
}

/**
 * What `retry()` rejects with when its breaker is open at its first attempt (without calling `fn`). Permanent for the
 * default `isTransient`, so an outer retry does not hammer an open breaker. `instanceof CircuitOpenError` holds for
 * one from either build of herdless (ESM or CJS, both loaded in one process), as for `RetryError`, so the by-hand
 * guard `if (permit instanceof CircuitOpenError) throw permit` works whichever build made the breaker.
 */
export class CircuitOpenError extends Error {
  override readonly name = 'CircuitOpenError';
  /**
   * How long until the breaker lets a probe through, in ms. While half-open with every probe in flight: how long
   * until that round of probes is abandoned at the latest (a probe that reports frees its slot sooner). `Infinity`
   * while the breaker is held open by `isolate()`: no probe is due until a `reset()`.
   */
  readonly remainingMs: number;

  /**
   * @param remainingMs - {@link CircuitOpenError.remainingMs}.
   * @param halfOpen - Whether the breaker is half-open with every probe slot taken (the message says so), rather than
   *   open. Default `false`.
   */
  constructor(remainingMs: number, halfOpen = false) {
    super(
      halfOpen
        ? `herdless: circuit half-open, probes in flight (a probe slot frees within ${Math.ceil(remainingMs)} ms)`
        : remainingMs === Number.POSITIVE_INFINITY
          ? 'herdless: circuit isolated, held open until reset()'
          : `herdless: circuit open, next probe in ${Math.ceil(remainingMs)} ms`,
    );
    this.remainingMs = remainingMs;
  }

  /**
   * The brand shared by both builds (ESM and CJS), on the prototype: a namespaced string key, as RetryError's (see
   * errors.ts, whose check this repeats here so that the class stays self-contained: `{ retry }` alone does not grow).
   */
  // Stryker disable next-line StringLiteral: as RetryError's brand, a key Stryker cannot mutate.
  get 'herdless.CircuitOpenError'(): true {
    return true;
  }

  /** True for a CircuitOpenError of this build or of the other one (ESM or CJS); subclasses check as usual. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    const brand = 'herdless.CircuitOpenError';
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class instanceof asked about, maybe a subclass
    if (!Object.hasOwn(this.prototype, brand)) return Function.prototype[Symbol.hasInstance].call(this, value);
    try {
      return typeof value === 'object' && value !== null && (value as Record<string, unknown>)[brand] === true;
    } catch {
      return false; // a revoked Proxy, a throwing getter
    }
  }
}

/** What a permit reports: {@link Report.SUCCESS}, {@link Report.FAILURE} or {@link Report.RELEASE} (the guard's numbering). */
type Outcome = Exclude<Settle, Report.START>;

/**
 * One attempt's permit: an object per admission (two fields, methods on the prototype), so that its first report is
 * the only one that counts: a permit shared by the probes of a generation could not tell a probe's second report
 * from another probe's first.
 */
class Permit implements CircuitPermit {
  /** Its breaker's report function; undefined once it has reported. */
  #report: ((generation: number, outcome: Outcome) => void) | undefined;
  readonly #generation: number;

  constructor(report: (generation: number, outcome: Outcome) => void, generation: number) {
    this.#report = report;
    this.#generation = generation;
  }

  /** Reports `outcome`, if nothing was reported through this permit yet. */
  end(outcome: Outcome): void {
    const report = this.#report;
    this.#report = undefined;
    report?.(this.#generation, outcome);
  }

  recordSuccess(): void {
    this.end(Report.SUCCESS);
  }

  recordFailure(): void {
    this.end(Report.FAILURE);
  }

  release(): void {
    this.end(Report.RELEASE);
  }
}

/**
 * A call's pass through a breaker: each attempt is admitted when it starts (the first one refused throws the
 * `CircuitOpenError`; a retry refused stops the call with `'circuit-open'`) and its outcome is reported through the
 * permit it got then; after a counted failure, a retry may follow only while the breaker is closed. `next` (the
 * budget's pass) is settled after it, and not at all for an attempt or a retry the breaker refused (so what the budget
 * paid for that retry is refunded at the end).
 */
class BreakerPass implements Pass {
  /** The last attempt's permit; undefined before the first attempt is admitted. */
  #permit: Permit | undefined;

  readonly #breaker: CircuitBreaker;
  readonly #next: Pass | undefined;

  constructor(breaker: CircuitBreaker, next: Pass | undefined) {
    this.#breaker = breaker;
    this.#next = next;
  }

  settle(
    event: Settle,
    failure?: unknown,
    attemptMs?: number,
    allowedMs?: number,
    retryAfterMs?: number,
    deadlineMs?: number,
  ): StopReason | number | undefined {
    if (event === Report.START) {
      let admitted: CircuitPermit | CircuitOpenError;
      try {
        admitted = this.#breaker.admit();
      } catch (error) {
        throw this.#permit ? withCause(error, failure) : error; // a broken clock, found before a retry or the call
      }
      if (admitted instanceof CircuitOpenError) {
        if (!this.#permit) throw admitted; // the first attempt: the call rejects with it
        return 'circuit-open';
      }
      this.#permit = admitted as Permit;
    } else {
      this.#permit?.end(event);
      if (event === Report.FAILURE && this.#breaker.state !== 'closed') return 'circuit-open';
    }
    return this.#next?.settle(event, failure, attemptMs, allowedMs, retryAfterMs, deadlineMs);
  }
}

class Breaker implements CircuitBreaker, Guard {
  readonly #consecutiveFailures: number;
  readonly #failureRatio: number;
  readonly #minimumCalls: number;
  readonly #breakMs: number;
  readonly #maxBreakMs: number;
  readonly #halfOpenProbes: number;
  readonly #onStateChange: CircuitBreakerOptions['onStateChange'];
  readonly #random: (() => number) | undefined;
  readonly #now: SteadyClock;
  /** a: counted attempts, b: their failures, over the window; only with a failureRatio. Replaced by reset(). */
  #counts: SlidingCounts | undefined;
  #state: CircuitState = 'closed';
  /**
   * Bumped by every change of state and every abandoned round of probes: a permit reports only while the generation
   * it was granted in is the current one.
   */
  #generation = 0;
  /** What a permit reports through: its generation, and 0 (success), 1 (failure) or 2 (release). */
  readonly #report = (generation: number, outcome: Outcome): void => {
    if (outcome === Report.RELEASE) {
      if (generation === this.#generation && this.#state === 'half-open' && this.#probes > 0) this.#probes--;
    } else if (outcome === Report.FAILURE) this.#record(generation, 1);
    else {
      try {
        this.#record(generation, 0);
      } catch (error) {
        reportLater(error); // a success stays a success: the caller must not redo work that was done
      }
    }
  };
  #failuresInARow = 0;
  /** Opens since the breaker last closed: the exponent of the grown break. */
  #opens = 0;
  #openUntil = 0;
  #probes = 0;
  /** Half-open with every probe slot taken: when the round is abandoned if none of them has reported. */
  #probesUntil = 0;

  constructor(options: CircuitBreakerOptions) {
    if (options === null || typeof options !== 'object') fail(TypeError, 'the breaker options', 'an object', options);
    const integer = (name: string, value: unknown) =>
      num(name, value, 'an integer >= 1', (n) => Number.isInteger(n) && n >= 1);
    const consecutive = options.consecutiveFailures;
    this.#consecutiveFailures =
      consecutive === undefined || consecutive === Infinity
        ? Infinity
        : num(
            'consecutiveFailures',
            consecutive,
            'an integer >= 1 or Infinity (off)',
            (n) => Number.isInteger(n) && n >= 1,
          );
    const ratio = or(options.failureRatio, 0.9);
    this.#failureRatio = num('failureRatio', ratio, 'a number in (0, 1]', (n) => n > 0 && n <= 1);
    this.#minimumCalls = integer('minimumCalls', or(options.minimumCalls, 10));
    const windowMs = finite('windowMs', or(options.windowMs, 10_000), 1, WINDOW);
    this.#breakMs = finite('breakMs', or(options.breakMs, 5_000), 1, WINDOW);
    this.#maxBreakMs = finite(
      'maxBreakMs',
      or(options.maxBreakMs, this.#breakMs),
      this.#breakMs,
      `a finite number >= breakMs (${this.#breakMs})`,
    );
    this.#halfOpenProbes = integer('halfOpenProbes', or(options.halfOpenProbes, 1));
    this.#onStateChange = optionalFn('onStateChange', options.onStateChange);
    this.#random = optionalFn('random', options.random);
    this.#now = steadyClock(optionalFn('now', options.now));
    this.#counts = new SlidingCounts(windowMs);
    onlyKnown(options, KNOWN, 'circuit breaker', (key) => nearest(key, KNOWN));
  }

  get state(): CircuitState {
    if (this.#state === 'open' && this.#now() >= this.#openUntil) {
      this.#probes = 0;
      this.#change('half-open', 'break-elapsed');
    }
    return this.#state;
  }

  admit(): CircuitPermit | CircuitOpenError {
    const state = this.state;
    if (state === 'open') return new CircuitOpenError(this.#openUntil - this.#now());
    if (state === 'half-open') {
      const now = this.#now();
      if (this.#probes >= this.#halfOpenProbes) {
        if (now < this.#probesUntil) return new CircuitOpenError(this.#probesUntil - now, true);
        this.#renew(); // no probe reported within breakMs: abandon them, their late outcomes are stale
        this.#probes = 0;
      }
      this.#probes++;
      this.#probesUntil = now + this.#breakMs;
    }
    return new Permit(this.#report, this.#generation);
  }

  open(next?: Guard): Pass {
    return new BreakerPass(this, next?.open());
  }

  /**
   * The brand (see `Brand.GUARD` in guard.ts) by which `retry()` refuses a breaker passed as its `budget`, from either build.
   */
  // Stryker disable next-line StringLiteral: as RetryError's brand, a key Stryker cannot mutate.
  get 'herdless.guard'(): 'breaker' {
    return 'breaker';
  }

  /** An outcome, counted only if its permit is of the current generation (never the case while open). */
  #record(generation: number, failed: number): void {
    if (generation !== this.#generation) return;
    if (this.#state === 'half-open') {
      if (failed) this.#open('probe-failed');
      else {
        this.#failuresInARow = 0;
        this.#opens = 0;
        this.#counts?.clear();
        this.#change('closed', 'probe-succeeded');
      }
      return;
    }
    const counts = this.#counts;
    counts?.advance(this.#now()); // first: a broken clock leaves the breaker as it was
    this.#failuresInARow = failed ? this.#failuresInARow + 1 : 0;
    counts?.add(1, failed);
    if (!failed) return;
    if (this.#failuresInARow >= this.#consecutiveFailures) this.#open('consecutive-failures');
    else if (counts !== undefined && counts.a >= this.#minimumCalls && counts.b >= this.#failureRatio * counts.a) {
      this.#open('failure-ratio');
    }
  }

  #open(reason: CircuitChangeReason): void {
    let breakMs = this.#breakMs;
    if (this.#maxBreakMs > breakMs) {
      const ceiling = Math.min(this.#maxBreakMs, breakMs * 2 ** this.#opens);
      const r = num('random()', (this.#random ?? Math.random)(), 'a number in [0, 1)', (n) => n >= 0 && n < 1);
      breakMs = ceiling + r * (Math.min(this.#maxBreakMs, 2 * ceiling) - ceiling);
    }
    this.#openUntil = this.#now() + breakMs;
    this.#opens++;
    this.#failuresInARow = 0;
    this.#probes = 0;
    this.#change('open', reason);
  }

  /** Starts a new generation: the permits granted so far are stale. */
  #renew(): void {
    this.#generation++;
  }

  /**
   * Moves to `to` and tells `onStateChange`. What the hook throws does not reach the call whose outcome caused the
   * change (its outcome is its own): it is reported as an EventTarget reports a listener's error.
   */
  #change(to: CircuitState, reason: CircuitChangeReason): void {
    const from = this.#state;
    this.#state = to;
    this.#renew();
    try {
      this.#onStateChange?.(Object.freeze({ from, to, reason }));
    } catch (error) {
      reportLater(error);
    }
  }

  isolate(): void {
    if (this.#openUntil === Number.POSITIVE_INFINITY) return; // isolated already
    this.#openUntil = Number.POSITIVE_INFINITY; // never elapses: the state stays 'open' until reset()
    this.#probes = 0;
    this.#change('open', 'isolated');
  }

  reset(): void {
    this.#failuresInARow = 0;
    this.#opens = 0;
    this.#openUntil = 0;
    this.#probes = 0;
    this.#probesUntil = 0;
    this.#counts = this.#counts?.fresh();
    this.#now.reset();
    this.#change('closed', 'reset');
  }
}

const KNOWN: ReadonlySet<string> = /* @__PURE__ */ new Set([
  'consecutiveFailures',
  'failureRatio',
  'minimumCalls',
  'windowMs',
  'breakMs',
  'maxBreakMs',
  'halfOpenProbes',
  'onStateChange',
  'random',
  'now',
]);

/**
 * A circuit breaker: when `failureRatio` (90%) of the attempts it counted over `windowMs` (10 s) failed, with at least
 * `minimumCalls` (10) of them (or, if set, after `consecutiveFailures` in a row), it opens, and `retry()` calls then reject at once with {@link CircuitOpenError} without calling `fn`; calls already
 * retrying give up with a `RetryError` whose reason is `'circuit-open'`. After `breakMs` it lets `halfOpenProbes`
 * calls through: a probe's success closes it, its failure opens it again. It counts each attempt's outcome (not a
 * whole `retry()` call), and only failures that the policy's `isTransient` calls transient (a 404 is not the
 * dependency being down); a success resets the count. Sets no timers: the break is checked when asked (the one
 * exception rethrows an `onStateChange` error where there is no `reportError`).
 *
 * Two rules keep it from wedging or from acting on old news:
 * - A probe that never reports does not hold its slot forever: when every slot is taken and none of the probes has
 *   reported within `breakMs` of the last one's admission, that round is abandoned and the next call probes afresh
 *   (one probe per `breakMs`, no more load than open/half-open cycles). `breakMs` doubles as the probe timeout because
 *   it is the time the breaker already waits on the dependency; give attempts an `attemptTimeoutMs` to have a hang
 *   counted as a failure sooner.
 * - An outcome counts only in the state it was admitted in: every change of state (and every abandoned round of
 *   probes) starts a new generation, and a permit of an older one reports nothing. So an attempt admitted before the
 *   breaker opened and finishing while it is half-open neither closes nor re-opens it, an abandoned probe's late
 *   outcome is ignored, and neither counts toward the closed state's failures in a row or failure ratio later: the
 *   breaker closed on a fresh probe's success, and news from before that is stale.
 *
 * Choose it when a dependency can be down for long: it stops the calls (first attempts too) instead of only the
 * retries, and it fails fast so callers can fall back. Pair it with a retry budget for overloads short of an outage.
 *
 * @example
 * ```ts
 * import { createCircuitBreaker, retry } from 'herdless';
 * const breaker = createCircuitBreaker(); // opens when 90% of 10 s of attempts (10 at least) failed, for 5 s
 * const user = await retry(() => api.getUser(id), { breaker });
 * ```
 *
 * @throws TypeError or RangeError naming the option, for a bad option.
 */
export function createCircuitBreaker(options: CircuitBreakerOptions = {}): CircuitBreaker {
  try {
    return new Breaker(options);
  } catch (error) {
    return unreadable('circuit breaker', options, error);
  }
}
