/**
 * Why `retry()` stopped retrying transient failures:
 * - `'attempts'`: `maxAttempts` attempts were made;
 * - `'timeout'`: the overall deadline (`timeoutMs`) passed, or the next sleep would have ended at or after it;
 * - `'retry-after'`: the server asked to wait longer than `maxRetryAfterMs`;
 * - `'budget'`: the retry budget (`budget`) refused the retry;
 * - `'circuit-open'`: the circuit breaker (`breaker`) opened between attempts.
 */
export type StopReason = 'attempts' | 'timeout' | 'retry-after' | 'budget' | 'circuit-open';

/** What {@link RetryError}'s constructor takes. */
export interface RetryErrorInit {
  /** Why retrying stopped. */
  readonly reason: StopReason;
  /** The failed attempts' errors, in order; the last is the `cause`. Must not be empty. */
  readonly errors: readonly unknown[];
  /** How many attempts were made (a retried result counts as an attempt but has no error). */
  readonly attempts: number;
  /** Milliseconds from the call to `retry()` until it gave up. */
  readonly elapsedMs: number;
  /** A few words on the stop, put in the message (default: the reason). */
  readonly detail?: string | undefined;
}

import { isObject } from './classify';
import { safeString } from './validate';

/** An error's own words: its `message` when it has a string one (an Error, or a plain `{ message }`), else its text. */
function messageOf(error: unknown): string {
  try {
    const message = (error as { message?: unknown } | null)?.message;
    // fetch's network errors say only "fetch failed": what failed (ECONNREFUSED, ...) is the cause's code.
    const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
    if (typeof message === 'string') return typeof code === 'string' ? `${message} (${code})` : message;
  } catch {
    // a throwing `message` getter or a revoked Proxy: fall back to the tag
  }
  return safeString(error);
}

/**
 * How many failures a RetryError keeps from the start of a call, and how many from its end. An enum, not a const:
 * esbuild writes the number where it is used, and no variable ships for it.
 */
enum Kept {
  ERRORS = 10,
}

/**
 * Adds a failure to one call's `log`, in bounded memory: the first {@link Kept.ERRORS} and the last
 * {@link Kept.ERRORS} stay, in the order they happened, so a call retried a million times (zero delays,
 * `maxAttempts: Infinity`) holds 20 errors, not a million. A function on a plain array, not a class: 50 B less of
 * `{ retry }` gzipped.
 */
export function keep(log: unknown[], error: unknown): void {
  // Past 2 * Kept.ERRORS, the oldest of the last ones goes: the first Kept.ERRORS stay, then the latest ones.
  if (log.push(error) > 2 * Kept.ERRORS) log.splice(Kept.ERRORS, 1);
}

/**
 * The brands, shared by both builds (ESM and CJS) of herdless. An enum, not consts: esbuild writes the strings where
 * they are used, and no variable ships for them.
 */
enum Brand {
  /**
   * RetryError's: what makes `instanceof RetryError` true for a RetryError of either build (ESM or CJS) of herdless: a prototype
   * getter with a namespaced string key, as global as a `Symbol.for` key, and unlike a computed key it lets bundlers
   * drop the class when it is not imported.
   */
  RETRY = 'herdless.RetryError',
  /** The brand of {@link permanent}'s wrapper. */
  PERMANENT = 'herdless.permanent',
}

/**
 * The rejection of `retry()` when it gives up on transient failures. A non-transient error is rethrown as it
 * is, and the caller's abort rejects with `signal.reason`: neither is wrapped in a RetryError.
 *
 * `retry()`'s default classifier treats a RetryError as permanent, so nested `retry()` calls do not multiply
 * each other's attempts. `instanceof RetryError` holds for a RetryError from either build of herdless (ESM or CJS,
 * when both are loaded in one process: the dual-package hazard), through a shared `Symbol.for` brand.
 *
 * @example
 * ```ts
 * import { retry, RetryError } from 'herdless';
 * try {
 *   await retry(() => fetchReport(), { maxAttempts: 4 });
 * } catch (error) {
 *   if (error instanceof RetryError) console.warn(error.reason, error.attempts, error.cause);
 *   throw error;
 * }
 * ```
 */
export class RetryError extends Error {
  override readonly name = 'RetryError';
  /** Why retrying stopped: `'attempts'`, `'timeout'`, `'retry-after'`, `'budget'` or `'circuit-open'`. */
  declare readonly reason: StopReason;
  /**
   * The failed attempts' errors, in order (frozen): all of them when there were at most 20, else the first 10 and
   * the last 10, so memory stays bounded whatever the number of attempts. `attempts` still counts every attempt.
   */
  declare readonly errors: readonly unknown[];
  /** How many attempts were made, every one counted. */
  declare readonly attempts: number;
  /** Milliseconds from the call to `retry()` until it gave up. */
  declare readonly elapsedMs: number;
  /** The last attempt's error. */
  declare readonly cause: unknown;

  constructor(init: RetryErrorInit) {
    const { reason, errors, attempts, elapsedMs } = init;
    const cause = errors.at(-1);
    super(
      `gave up after ${attempts} attempt${attempts === 1 ? '' : 's'} over ${Math.round(elapsedMs)} ms (${init.detail ?? reason}): ${messageOf(cause)}`,
      { cause },
    );
    Object.assign(this, { reason, errors: Object.freeze([...errors]), attempts, elapsedMs });
  }

  /** The brand, on the prototype (not an own property: it stays out of spreads and comparisons). */
  // Stryker disable next-line StringLiteral: Stryker cannot place a mutant in a method's key (its run fails there).
  get 'herdless.RetryError'(): true {
    return true;
  }

  /** True for a RetryError of this build or of the other one (ESM or CJS); subclasses check as usual. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // A subclass (whose prototype does not hold the brand itself) checks as usual. No reference to RetryError by
    // name here: it would make bundlers rename the class, and consoles print `_RetryError`.
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class instanceof asked about, maybe a subclass
    if (!Object.hasOwn(this.prototype, Brand.RETRY)) return Function.prototype[Symbol.hasInstance].call(this, value);
    return branded(value, Brand.RETRY);
  }
}

/** Whether `value` is an object carrying the brand `key` (from either build); never throws (a revoked Proxy, a
 * throwing getter: not branded). */
function branded(value: unknown, key: string): boolean {
  try {
    return isObject(value) && value[key] === true;
  } catch {
    return false;
  }
}

/** What {@link permanent} returns: an Error (so that a stray one still has a stack and a message) holding `error`. */
class PermanentError extends Error {
  override readonly name = 'PermanentError';
  constructor(readonly error: unknown) {
    super(`herdless: permanent failure (thrown with permanent() outside retry()?): ${messageOf(error)}`, {
      cause: error,
    });
  }
  // Stryker disable next-line StringLiteral: as RetryError's brand, a key Stryker cannot mutate.
  get 'herdless.permanent'(): true {
    return true;
  }
}

/**
 * Marks an error as permanent: `throw permanent(err)` from `fn` stops retrying at once, and `retry()` rejects with
 * `err` itself, whatever `isTransient` would say (p-retry's `AbortError`, Go's `backoff.Permanent`). `onFailure`
 * still sees the failure, with `err` as its error. Recognised from either build of herdless (ESM or CJS).
 *
 * Nesting: an inner `retry()` unwraps it and rejects with `err`; an outer `retry()` around it then sees `err` itself
 * and classifies it as usual. To stop the outer one too, throw `permanent(err)` again from the outer `fn`.
 *
 * Choose it when `fn` knows better than any classifier (a 404 that means "gone", a validation error from your own
 * API); choose `isTransient` when the rule is about kinds of errors and belongs to the policy.
 *
 * @example
 * ```ts
 * import { permanent, retry } from 'herdless';
 * const user = await retry(async () => {
 *   const res = await fetch(url);
 *   if (res.status === 404) throw permanent(new Error('no such user'));
 *   if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status}`), { response: res });
 *   return res.json();
 * });
 * ```
 */
export function permanent(error: unknown): Error {
  return new PermanentError(error);
}

/**
 * Whether `value` is {@link permanent}'s wrapper (from either build), whose `error` is the error it wrapped (`retry()`
 * reads it, and takes a look-alike whose `error` getter throws for no wrapper).
 */
export function isPermanent(value: unknown): value is { readonly error: unknown } {
  return branded(value, Brand.PERMANENT);
}
