import { fail, finite, num, onlyKnown, optionalFn, or } from './validate';
import { SlidingCounts } from './window';

/** A circuit breaker's state. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * Why a breaker changed state: it opened on `'consecutive-failures'` or on the `'failure-ratio'`; its break elapsed
 * (`'break-elapsed'`, open to half-open); a probe succeeded (`'probe-succeeded'`, closed) or failed
 * (`'probe-failed'`, open again).
 */
export type CircuitChangeReason =
  | 'consecutive-failures'
  | 'failure-ratio'
  | 'break-elapsed'
  | 'probe-succeeded'
  | 'probe-failed';

/** What `onStateChange` receives (frozen). */
export interface CircuitStateChange {
  readonly from: CircuitState;
  readonly to: CircuitState;
  readonly reason: CircuitChangeReason;
}

/** What {@link createCircuitBreaker} accepts; every field is optional. */
export interface CircuitBreakerOptions {
  /** Opens after this many failures that count in a row: an integer >= 1. Default `5`. */
  readonly consecutiveFailures?: number | undefined;
  /**
   * Also opens when the share of counted attempts that failed over `windowMs` reaches this, with at least
   * `minimumCalls` of them: a number in (0, 1]. Default: none (only `consecutiveFailures`).
   */
  readonly failureRatio?: number | undefined;
  /** The fewest attempts in the window for `failureRatio` to apply: an integer >= 1. Default `10`. */
  readonly minimumCalls?: number | undefined;
  /** The window of `failureRatio`, in ms: a finite number > 0. Default `10_000`. */
  readonly windowMs?: number | undefined;
  /** How long it stays open before letting probes through, in ms: a finite number > 0. Default `5_000`. */
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
  /** Called on every change of state (synchronously; what it throws reaches the call that caused the change). */
  readonly onStateChange?: ((change: CircuitStateChange) => void) | undefined;
  /** Randomness in [0, 1) for the grown breaks. Default `Math.random`, looked up at each call. */
  readonly random?: (() => number) | undefined;
  /** The clock, in ms. Default `performance.now()`, looked up at each call (so fake timers control it). */
  readonly now?: (() => number) | undefined;
}

/**
 * A circuit breaker shared by every call that passes it (`retry(fn, { breaker })`). `retry()` asks {@link admit}
 * before each attempt and reports each attempt's outcome; use the same methods to guard other work by hand.
 */
export interface CircuitBreaker {
  /** `'closed'` (calls go through), `'open'` (refused) or `'half-open'` (`halfOpenProbes` calls let through). */
  readonly state: CircuitState;
  /**
   * Asks to start an attempt: `undefined` when it may (a half-open breaker counts it as a probe), else the
   * {@link CircuitOpenError} to reject with. Each admitted attempt must end in exactly one of
   * {@link recordSuccess}, {@link recordFailure} or {@link release}.
   */
  admit(): CircuitOpenError | undefined;
  /** An admitted attempt succeeded: resets the failures in a row; closes a half-open breaker. */
  recordSuccess(): void;
  /** An admitted attempt failed in a way that counts (transient): may open the breaker; re-opens a half-open one. */
  recordFailure(): void;
  /** An admitted attempt ended in a way that says nothing of the dependency (a permanent error, an abort). */
  release(): void;
}

/**
 * What `retry()` rejects with when its breaker is open at its first attempt (without calling `fn`). Permanent for the
 * default `isTransient`, so an outer retry does not hammer an open breaker.
 */
export class CircuitOpenError extends Error {
  override readonly name = 'CircuitOpenError';
  /** How long until the breaker lets a probe through, in ms; 0 when it is half-open with every probe in flight. */
  readonly remainingMs: number;

  constructor(remainingMs: number) {
    super(
      remainingMs > 0
        ? `herdless: circuit open, next probe in ${Math.ceil(remainingMs)} ms`
        : 'herdless: circuit half-open, probes in flight',
    );
    this.remainingMs = remainingMs;
  }
}

class Breaker implements CircuitBreaker {
  readonly #consecutiveFailures: number;
  readonly #failureRatio: number;
  readonly #minimumCalls: number;
  readonly #breakMs: number;
  readonly #maxBreakMs: number;
  readonly #halfOpenProbes: number;
  readonly #onStateChange: CircuitBreakerOptions['onStateChange'];
  readonly #random: (() => number) | undefined;
  readonly #now: () => number;
  /** a: counted attempts, b: their failures, over the window; only with a failureRatio. */
  readonly #counts: SlidingCounts | undefined;
  #state: CircuitState = 'closed';
  #failuresInARow = 0;
  /** Opens since the breaker last closed: the exponent of the grown break. */
  #opens = 0;
  #openUntil = 0;
  #probes = 0;

  constructor(options: CircuitBreakerOptions) {
    if (options === null || typeof options !== 'object') fail(TypeError, 'the breaker options', 'an object', options);
    const integer = (name: string, value: unknown) =>
      num(name, value, 'an integer >= 1', (n) => Number.isInteger(n) && n >= 1);
    this.#consecutiveFailures = integer('consecutiveFailures', or(options.consecutiveFailures, 5));
    const ratio = options.failureRatio;
    if (ratio !== undefined) num('failureRatio', ratio, 'a number in (0, 1]', (n) => n > 0 && n <= 1);
    this.#failureRatio = or(ratio, Number.NaN);
    this.#minimumCalls = integer('minimumCalls', or(options.minimumCalls, 10));
    const windowMs = finite('windowMs', or(options.windowMs, 10_000), Number.MIN_VALUE, 'a finite number > 0');
    this.#breakMs = finite('breakMs', or(options.breakMs, 5_000), Number.MIN_VALUE, 'a finite number > 0');
    this.#maxBreakMs = finite(
      'maxBreakMs',
      or(options.maxBreakMs, this.#breakMs),
      this.#breakMs,
      `a finite number >= breakMs (${this.#breakMs})`,
    );
    this.#halfOpenProbes = integer('halfOpenProbes', or(options.halfOpenProbes, 1));
    this.#onStateChange = optionalFn('onStateChange', options.onStateChange);
    this.#random = optionalFn('random', options.random);
    this.#now = or(optionalFn('now', options.now), () => performance.now());
    this.#counts = ratio === undefined ? undefined : new SlidingCounts(windowMs);
    onlyKnown(options, KNOWN, 'circuit breaker');
  }

  get state(): CircuitState {
    if (this.#state === 'open' && this.#now() >= this.#openUntil) {
      this.#probes = 0;
      this.#change('half-open', 'break-elapsed');
    }
    return this.#state;
  }

  admit(): CircuitOpenError | undefined {
    const state = this.state;
    if (state === 'closed') return undefined;
    if (state === 'half-open' && this.#probes < this.#halfOpenProbes) {
      this.#probes++;
      return undefined;
    }
    return new CircuitOpenError(state === 'open' ? this.#openUntil - this.#now() : 0);
  }

  recordSuccess(): void {
    const state = this.state;
    if (state === 'closed') {
      this.#failuresInARow = 0;
      this.#count(0);
    } else if (state === 'half-open') {
      this.#failuresInARow = 0;
      this.#opens = 0;
      this.#counts?.clear();
      this.#change('closed', 'probe-succeeded');
    } // open: an attempt admitted before it opened; its outcome is stale
  }

  recordFailure(): void {
    const state = this.state;
    if (state === 'half-open') this.#open('probe-failed');
    else if (state === 'closed') {
      this.#failuresInARow++;
      const counts = this.#count(1);
      if (this.#failuresInARow >= this.#consecutiveFailures) this.#open('consecutive-failures');
      else if (counts !== undefined && counts.a >= this.#minimumCalls && counts.b >= this.#failureRatio * counts.a) {
        this.#open('failure-ratio');
      }
    }
  }

  release(): void {
    if (this.state === 'half-open' && this.#probes > 0) this.#probes--;
  }

  #count(failed: number): SlidingCounts | undefined {
    const counts = this.#counts;
    if (counts !== undefined) {
      counts.advance(this.#now());
      counts.add(1, failed);
    }
    return counts;
  }

  #open(reason: CircuitChangeReason): void {
    let breakMs = this.#breakMs;
    if (this.#maxBreakMs > breakMs) {
      const ceiling = Math.min(this.#maxBreakMs, breakMs * 2 ** this.#opens);
      const r = (this.#random ?? Math.random)();
      breakMs = ceiling + r * (Math.min(this.#maxBreakMs, 2 * ceiling) - ceiling);
    }
    this.#opens++;
    this.#openUntil = this.#now() + breakMs;
    this.#failuresInARow = 0;
    this.#probes = 0;
    this.#change('open', reason);
  }

  #change(to: CircuitState, reason: CircuitChangeReason): void {
    const from = this.#state;
    this.#state = to;
    this.#onStateChange?.(Object.freeze({ from, to, reason }));
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
 * A circuit breaker: after `consecutiveFailures` failures in a row (or, if set, a `failureRatio` over `windowMs`) it
 * opens, and `retry()` calls then reject at once with {@link CircuitOpenError} without calling `fn`; calls already
 * retrying give up with a `RetryError` whose reason is `'circuit-open'`. After `breakMs` it lets `halfOpenProbes`
 * calls through: a probe's success closes it, its failure opens it again. It counts each attempt's outcome (not a
 * whole `retry()` call), and only failures that the policy's `isTransient` calls transient (a 404 is not the
 * dependency being down); a success resets the count. Sets no timers: the break is checked when asked.
 *
 * Choose it when a dependency can be down for long: it stops the calls (first attempts too) instead of only the
 * retries, and it fails fast so callers can fall back. Pair it with a retry budget for overloads short of an outage.
 *
 * @example
 * ```ts
 * import { createCircuitBreaker, retry } from 'herdless';
 * const breaker = createCircuitBreaker({ consecutiveFailures: 5, breakMs: 5_000 });
 * const user = await retry(() => api.getUser(id), { breaker });
 * ```
 *
 * @throws TypeError or RangeError naming the option, for a bad option.
 */
export function createCircuitBreaker(options: CircuitBreakerOptions = {}): CircuitBreaker {
  return new Breaker(options);
}
