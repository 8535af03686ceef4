/**
 * Why `retry()` stopped retrying transient failures:
 * - `'attempts'`: `maxAttempts` attempts were made;
 * - `'timeout'`: the overall deadline (`timeoutMs`) passed, or the next sleep would have ended at or after it;
 * - `'retry-after'`: the server asked to wait longer than `maxRetryAfterMs`.
 */
export type StopReason = 'attempts' | 'timeout' | 'retry-after';

/** What {@link RetryError}'s constructor takes. */
export interface RetryErrorInit {
  /** Why retrying stopped. */
  readonly reason: StopReason;
  /** Every failed attempt's error, in order; the last is the `cause`. Must not be empty. */
  readonly errors: readonly unknown[];
  /** How many attempts were made (a retried result counts as an attempt but has no error). */
  readonly attempts: number;
  /** Milliseconds from the call to `retry()` until it gave up. */
  readonly elapsedMs: number;
  /** A few words on the stop, put in the message (default: the reason). */
  readonly detail?: string | undefined;
}

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === 'string' ? error : String(error);

/**
 * The rejection of `retry()` when it gives up on transient failures. A non-transient error is rethrown as it
 * is, and the caller's abort rejects with `signal.reason`: neither is wrapped in a RetryError.
 *
 * `retry()`'s default classifier treats a RetryError as permanent, so nested `retry()` calls do not multiply
 * each other's attempts.
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
  /** Why retrying stopped: `'attempts'`, `'timeout'` or `'retry-after'`. */
  readonly reason: StopReason;
  /** Every failed attempt's error, in order (frozen). */
  readonly errors: readonly unknown[];
  /** How many attempts were made. */
  readonly attempts: number;
  /** Milliseconds from the call to `retry()` until it gave up. */
  readonly elapsedMs: number;
  /** The last attempt's error. */
  declare readonly cause: unknown;

  constructor(init: RetryErrorInit) {
    const { reason, errors, attempts, elapsedMs } = init;
    const cause = errors[errors.length - 1];
    const plural = attempts === 1 ? '' : 's';
    super(
      `gave up after ${attempts} attempt${plural} over ${Math.round(elapsedMs)} ms (${init.detail ?? reason}): ${messageOf(cause)}`,
      { cause },
    );
    this.reason = reason;
    this.errors = Object.freeze([...errors]);
    this.attempts = attempts;
    this.elapsedMs = elapsedMs;
  }
}
