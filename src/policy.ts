import type { CircuitBreaker } from './breaker';
import type { RetryBudget } from './budget';
import { isTransient } from './classify';
import { type Backoff, type BackoffOptions, type Jitter, normalizeBackoff } from './delay';
import type { StopReason } from './errors';
import { Brand } from './guard';
import { nearest } from './nearest';
import { readRetryAfter } from './retry-after';
import { fail, having, notNumber, onlyKnown, optionalFn, positive, unreadable } from './validate';

/** What `retry()` passes to each attempt. */
export interface RetryContext {
  /** The 1-based number of this attempt. */
  readonly attempt: number;
  /**
   * Aborted when the caller's signal aborts, when the overall deadline passes, or when this attempt's own timeout
   * passes. Pass it on (`fetch(url, { signal })`) so the abandoned work stops too. Fresh for each attempt, and
   * created only if read: a getter, so a spread (`{ ...ctx }`) leaves it out.
   */
  readonly signal: AbortSignal;
  /** Milliseconds since `retry()` was called, when this attempt started (0 for the first). */
  readonly elapsedMs: number;
}

/** What `onFailure` receives after every failed attempt (frozen). */
export interface FailureEvent {
  /** The attempt that failed, 1-based. */
  readonly attempt: number;
  /**
   * Its error (a `TimeoutError` DOMException for an attempt abandoned by its timeout or the deadline; for
   * `throw permanent(err)`, `err` itself); `undefined` when a result was retried.
   */
  readonly error: unknown;
  /** The result that `shouldRetryResult` rejected; else `undefined`. */
  readonly value?: unknown;
  /**
   * `maxAttempts - attempt`: how many attempts the policy still allows (`Infinity` when `maxAttempts` is). 0 on the
   * last attempt; the deadline, a permanent error or the server's wait may still stop sooner.
   */
  readonly attemptsLeft: number;
  /** Milliseconds since `retry()` was called. */
  readonly elapsedMs: number;
}

/** What `onRetry` receives before each sleep (frozen). */
export interface RetryEvent {
  /** The attempt that failed. */
  readonly attempt: number;
  /** `maxAttempts - attempt`: attempts still allowed after this one (`Infinity` when `maxAttempts` is). */
  readonly attemptsLeft: number;
  /** Its error; `undefined` when the retry is for a result that `shouldRetryResult` rejected. */
  readonly error: unknown;
  /** The retried result, when the retry is for a result; else `undefined`. */
  readonly value?: unknown;
  /** The sleep that follows, in ms, exactly (the server's Retry-After, if any, plus the backoff). */
  readonly delayMs: number;
  /** Milliseconds since `retry()` was called. */
  readonly elapsedMs: number;
}

/**
 * What `onSettle` receives, once per call, when the call's outcome is decided (frozen): the decision as a value.
 *
 * | the call                                                     | `ok`    | `reason`          | `error`              | `value`       |
 * | ------------------------------------------------------------ | ------- | ----------------- | -------------------- | ------------- |
 * | succeeds                                                     | `true`  | `undefined`       | `undefined`          | the value     |
 * | gives up on failures (rejects with a `RetryError`)           | `false` | the error's `reason` | the `RetryError`  | `undefined`   |
 * | gives up on retried results (resolves with the last one)     | `true`  | why it stopped    | `undefined`          | the last result |
 * | rejects otherwise (a permanent error, the caller's abort, a `CircuitOpenError`, what a callback threw) | `false` | `undefined` | what it rejects with | `undefined` |
 */
export interface SettleEvent {
  /** Whether the call resolves (with `value`); else it rejects with `error`. */
  readonly ok: boolean;
  /**
   * Why the call gave up (`'attempts'`, `'timeout'`, `'retry-after'`, `'budget'`, `'circuit-open'`), for a
   * `RetryError` and for a call that resolves with a result `shouldRetryResult` still rejected; else `undefined`.
   */
  readonly reason: StopReason | undefined;
  /** The attempts made: `fn` was called this many times (0 when a `breaker` refused the first). */
  readonly attempts: number;
  /** Milliseconds since `retry()` was called. */
  readonly elapsedMs: number;
  /** What the call rejects with, when it rejects; else `undefined`. */
  readonly error: unknown;
  /** What the call resolves with, when it resolves; else `undefined`. */
  readonly value?: unknown;
}

/**
 * Everything `retry()` accepts. Every field is optional; the defaults make three attempts with full jitter.
 * Validate and freeze a policy once with {@link createPolicy} to reuse it.
 */
export interface RetryOptions<T = unknown> extends BackoffOptions {
  /** Attempts in all, counting the first call: an integer >= 1, or Infinity with a finite `timeoutMs`. Default `3`. */
  readonly maxAttempts?: number | undefined;
  /**
   * Overall deadline in ms, across attempts and sleeps: > 0. Default `Infinity` (none). A sleep that would end at or
   * after it is not started (`retry()` gives up at once); an attempt still running when it passes is aborted and
   * abandoned then.
   */
  readonly timeoutMs?: number | undefined;
  /**
   * Each attempt's own timeout in ms: > 0. Default `Infinity` (none). When it passes, the attempt's signal is aborted
   * with a `TimeoutError`, the attempt is abandoned and counts as a transient failure.
   */
  readonly attemptTimeoutMs?: number | undefined;
  /**
   * The caller's signal. Already aborted: `retry()` rejects with `signal.reason` without calling `fn`. Aborted later:
   * it rejects at once with `signal.reason` (same object), aborts the attempt's signal and clears its timer.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * Decides whether an error is worth another attempt. Default: the exported `isTransient`. May be async; if it
   * throws, `retry()` rejects with what it threw.
   */
  readonly isTransient?: ((error: unknown, attempt: number) => boolean | PromiseLike<boolean>) | undefined;
  /**
   * Retries on a resolved value too, when this returns true (a 503 `Response`, say). Out of attempts, `retry()`
   * resolves with the last value. Default: none (every value is a success).
   */
  readonly shouldRetryResult?: ((value: T, attempt: number) => boolean | PromiseLike<boolean>) | undefined;
  /**
   * The longest Retry-After (or `retry-after-ms`) to honour, in ms: > 0. Default `60_000`. A server asking for more
   * makes `retry()` give up at once with reason `'retry-after'`.
   */
  readonly maxRetryAfterMs?: number | undefined;
  /**
   * Called before each sleep, and awaited: only when a retry follows. Choose it for metrics on retries ("retrying
   * in 420 ms") and status updates. If it throws, `retry()` rejects with what it threw. Default: none.
   */
  readonly onRetry?: ((event: RetryEvent) => void | PromiseLike<void>) | undefined;
  /**
   * Called after every failed attempt, awaited, before `isTransient` is asked: the last one, a permanent one, an
   * attempt timeout and a result that `shouldRetryResult` rejected included (not the caller's abort, which is not a
   * failure). Choose it to log every failure (`attemptsLeft` tells the last one). If it throws, `retry()` rejects
   * with what it threw. Bounded by the deadline and the caller's abort, like every callback. Default: none.
   */
  readonly onFailure?: ((event: FailureEvent) => void | PromiseLike<void>) | undefined;
  /**
   * Called once per call, synchronously, when its outcome is decided, after its last attempt and before it settles,
   * with that outcome as a value ({@link SettleEvent}: a success and its attempts, a give-up and its `reason`, any
   * other rejection). Not awaited, and it cannot change the outcome: what it throws (or a promise it returns rejects
   * with) is reported as a breaker's `onStateChange` error is, through `globalThis.reportError`, else rethrown from a
   * `setTimeout(0)`, and the call settles as it would have. Not called for a call rejected before it starts (bad
   * options, a signal already aborted). Choose it for one metric or log line per call (successes and give-ups by
   * reason); `onFailure` and `onRetry` see each attempt. Default: none.
   */
  readonly onSettle?: ((event: SettleEvent) => void) | undefined;
  /**
   * How long the server asked to wait, in ms, read from a failed attempt's error or a retried result: a number >= 0
   * (Infinity: "not within maxRetryAfterMs"), or `undefined` for no hint. Default: {@link readRetryAfter}
   * (`Retry-After`, `retry-after-ms` and the other headers it knows). Plug in your own for an API that says it
   * elsewhere (`X-Backoff-Seconds`, a field of a JSON error body); the jitter on top and `maxRetryAfterMs` apply as
   * to the default.
   */
  readonly retryAfter?: ((errorOrValue: unknown) => number | undefined) | undefined;
  /**
   * `true`: herdless's timers (sleeps, attempt timeouts, the deadline) do not keep the process alive, where the
   * runtime's timers have `unref` (Node, Bun, Deno; elsewhere it does nothing). Choose it for background retries
   * that must not delay a graceful shutdown: a pending `retry()` may then never settle, because the process exits
   * first. Default `false`.
   */
  readonly unref?: boolean | undefined;
  /**
   * A retry budget from {@link createRetryBudget}, shared by the calls that pass it: each call's first attempt
   * deposits, each retry withdraws (when the failure before it is counted, before the sleep; given back if the retry
   * then never starts), and a retry it refuses makes `retry()` give up at once with reason `'budget'` (unless the call
   * stops anyway: no attempts left, the server's wait, the deadline).
   * Default: none (retries bounded only by `maxAttempts` and `timeoutMs`). A circuit breaker here is a TypeError naming
   * `budget`.
   */
  readonly budget?: RetryBudget | undefined;
  /**
   * A circuit breaker from {@link createCircuitBreaker}, shared by the calls that pass it. While it is open, a call
   * rejects at once with a `CircuitOpenError` without calling `fn`, and a call between attempts gives up with reason
   * `'circuit-open'`. Each attempt's outcome is reported to it: a success, or a failure this policy's `isTransient`
   * calls transient (a timed-out attempt or a retried result counts as one too). Default: none. A retry budget here,
   * or the object given as `budget`, is a TypeError naming `breaker`.
   */
  readonly breaker?: CircuitBreaker | undefined;
}

/** A validated, frozen policy, every default filled in: what {@link createPolicy} returns. */
export interface RetryPolicy<T = unknown> extends Backoff {
  readonly maxAttempts: number;
  readonly timeoutMs: number;
  readonly attemptTimeoutMs: number;
  readonly signal: AbortSignal | undefined;
  readonly isTransient: (error: unknown, attempt: number) => boolean | PromiseLike<boolean>;
  readonly shouldRetryResult: ((value: T, attempt: number) => boolean | PromiseLike<boolean>) | undefined;
  readonly maxRetryAfterMs: number;
  readonly onRetry: ((event: RetryEvent) => void | PromiseLike<void>) | undefined;
  readonly onFailure: ((event: FailureEvent) => void | PromiseLike<void>) | undefined;
  readonly onSettle: ((event: SettleEvent) => void) | undefined;
  readonly retryAfter: (errorOrValue: unknown) => number | undefined;
  readonly unref: boolean;
  readonly budget: RetryBudget | undefined;
  readonly breaker: CircuitBreaker | undefined;
}

/**
 * What users of other retry libraries (p-retry, async-retry, exponential-backoff, cockatiel, axios-retry, got and the
 * API SDKs' maxRetries) write, and ours; in the order that gzips smallest (only looked up by key), as classify.ts's
 * lists are.
 */
const HINTS: Readonly<Record<string, string>> = {
  randomize: 'jitter',
  timeMultiple: 'factor',
  numOfAttempts: 'maxAttempts',
  retries: 'maxAttempts (retries + 1)',
  maxDelay: 'capMs',
  startingDelay: 'baseMs',
  maxRetries: 'maxAttempts (maxRetries + 1)',
  maxTimeout: 'capMs',
  retryDelay: 'baseMs',
  minTimeout: 'baseMs',
  maxRetryTime: 'timeoutMs',
  retryCondition: 'isTransient',
  forever: 'maxAttempts: Infinity with a timeoutMs',
  retry: 'isTransient',
  shouldRetry: 'isTransient',
  onFailedAttempt: 'onFailure or onRetry',
};

/**
 * What the user probably meant by an unknown option: a hint, or a name of `names` (default: `retry()`'s options) at
 * most 2 edits away.
 */
export function suggest(key: string, names: ReadonlySet<string> = knownOptions()): string | undefined {
  return Object.hasOwn(HINTS, key) ? HINTS[key] : nearest(key, names);
}

/**
 * A validated policy. A class so that `retry()` tells one from a plain options object with a cheap `instanceof` and
 * skips the checks. Per-call options (`retry(fn, { maxAttempts: 3 })`) are checked on every call, so this is on the
 * hot path: the constructor does nothing, and {@link validate} sets every field, the option given or its default, in
 * one order (that of {@link known}), so that every policy has the one shape. (Validation inside the constructor made a
 * per-call policy cost a fifth more: callgrind, Node 20. Defaults stored by the constructor, then overwritten, cost
 * `{ retry }` 22 B gzipped, for the same speed.) {@link createPolicy} freezes it; a per-call one never leaves
 * `retry()`, so it is not frozen.
 */
class Policy<T> implements RetryPolicy<T> {
  declare jitter: Jitter;
  declare baseMs: number;
  declare capMs: number;
  declare factor: number;
  declare random: () => number;
  declare maxAttempts: number;
  declare timeoutMs: number;
  declare attemptTimeoutMs: number;
  declare signal: AbortSignal | undefined;
  declare isTransient: RetryPolicy<T>['isTransient'];
  declare shouldRetryResult: RetryPolicy<T>['shouldRetryResult'];
  declare maxRetryAfterMs: number;
  declare onRetry: RetryPolicy<T>['onRetry'];
  declare onFailure: RetryPolicy<T>['onFailure'];
  declare onSettle: RetryPolicy<T>['onSettle'];
  declare retryAfter: RetryPolicy<T>['retryAfter'];
  declare unref: boolean;
  declare budget: RetryBudget | undefined;
  declare breaker: CircuitBreaker | undefined;
}

/**
 * The options `retry()` knows: a policy's fields, in the order {@link validate} sets them (every policy has them all);
 * every other key is an error that names it. Read off the first policy validated: no list of them to keep in step.
 */
let known: ReadonlySet<string> | undefined;

/** The options `retry()` knows (see {@link known}), read off the default policy if none was validated yet. */
export function knownOptions(): ReadonlySet<string> {
  if (!known) toPolicy(undefined);
  return known as ReadonlySet<string>;
}

/** `retry()`'s options checked (a TypeError or RangeError naming the first bad one) into a new {@link Policy}. */
function validate<T>(options: RetryOptions<T>): Policy<T> {
  const p = normalizeBackoff(options, new Policy<T>());
  const { signal, maxAttempts, unref } = options;
  p.maxAttempts = maxAttempts === undefined ? 3 : maxAttempts;
  p.timeoutMs = positive('timeoutMs', options.timeoutMs, Infinity);
  if (
    !((Number.isInteger(p.maxAttempts) && p.maxAttempts >= 1) || (p.maxAttempts === Infinity && p.timeoutMs < Infinity))
  ) {
    notNumber('maxAttempts', maxAttempts, 'an integer >= 1, or Infinity with a finite timeoutMs');
  }
  p.attemptTimeoutMs = positive('attemptTimeoutMs', options.attemptTimeoutMs, Infinity);
  p.signal = having('signal', signal, 'addEventListener', 'an AbortSignal');
  p.isTransient = optionalFn('isTransient', options.isTransient) ?? isTransient; // never null: that throws
  p.shouldRetryResult = optionalFn('shouldRetryResult', options.shouldRetryResult);
  p.maxRetryAfterMs = positive('maxRetryAfterMs', options.maxRetryAfterMs, 60_000);
  p.onRetry = optionalFn('onRetry', options.onRetry);
  p.onFailure = optionalFn('onFailure', options.onFailure);
  p.onSettle = optionalFn('onSettle', options.onSettle);
  p.retryAfter = optionalFn('retryAfter', options.retryAfter) ?? readRetryAfter;
  p.unref =
    unref === undefined ? false : typeof unref === 'boolean' ? unref : fail(TypeError, 'unref', 'a boolean', unref);
  p.budget = guardOption('budget', options.budget, 'a RetryBudget (createRetryBudget())');
  p.breaker = guardOption('breaker', options.breaker, 'a CircuitBreaker (createCircuitBreaker())', p.budget);
  known ??= new Set(Object.keys(p));
  onlyKnown(options, known, '', suggest); // called with the key alone: suggest's known names are retry()'s
  return p;
}

/**
 * A `budget` or `breaker` option checked: a guard by its shape (an `open` method), and neither the other kind, told by
 * the {@link Brand.GUARD} brand that herdless's own budget and breaker carry, nor the object given as the other option (the
 * `budget`, for the `breaker`): either would be settled twice an event, or not asked at all.
 */
function guardOption<V>(name: 'budget' | 'breaker', value: V, rule: string, budget?: unknown): V {
  const kind = (having(name, value, 'open', rule) as Record<string, unknown> | undefined)?.[Brand.GUARD];
  if ((kind ?? name) !== name || (value !== undefined && value === budget)) {
    fail(TypeError, name, `${rule}, not the ${kind ?? 'budget'}`, value);
  }
  return value;
}

/**
 * The policy `retry()` uses when given none, built on first use: nothing in the core runs validation at import, so a
 * broken default (or a mutant of one) fails the call that uses it, never the loading of the module.
 */
let defaultPolicy: RetryPolicy<unknown> | undefined;

/** A policy `retry()` can use: the one given if {@link createPolicy} made it, else a freshly validated one. */
export function toPolicy<T>(options: RetryOptions<T> | undefined): RetryPolicy<T> {
  if (options === undefined) {
    defaultPolicy ??= Object.freeze(validate({}));
    return defaultPolicy as RetryPolicy<T>;
  }
  return options instanceof Policy ? options : validate(options);
}

/**
 * Validates `retry()` options once, fills in the defaults and returns a frozen policy that `retry()` uses as it is,
 * without checking it again. Choose it for a policy shared by many calls; pass it with a per-call signal as
 * `retry(fn, { ...policy, signal })` (a spread is a plain object again, and is checked again).
 *
 * @throws TypeError for an unknown option (`maxAttemps`) or a wrong type, RangeError for a bad number; the message
 *   names the option.
 *
 * @example
 * ```ts
 * import { createPolicy, retry } from 'herdless';
 * const policy = createPolicy({ maxAttempts: 5, baseMs: 200, timeoutMs: 10_000 });
 * const user = await retry(() => api.getUser(id), policy);
 * ```
 */
export function createPolicy<T = unknown>(options: RetryOptions<T> = {}): RetryPolicy<T> {
  try {
    return options instanceof Policy ? options : Object.freeze(validate(options));
  } catch (error) {
    return unreadable('retry policy', options, error);
  }
}
