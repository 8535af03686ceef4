import { decide } from './decide';
import { RetryError, type StopReason } from './errors';
import { type RetryContext, type RetryOptions, toPolicy } from './policy';
import { readRetryAfter } from './retry-after';
import { ABORTED, guard, NO_WORK, TIMED_OUT } from './wait';

/** The monotonic clock, looked up at call time so that a fake clock installed after import controls it. */
const now = () => performance.now();

/** One attempt's context. Its AbortController is created only if `fn` reads `signal` (it costs microseconds). */
class Attempt implements RetryContext {
  #controller: AbortController | undefined;
  #stopped = false;
  #reason: unknown;

  constructor(
    readonly attempt: number,
    readonly elapsedMs: number,
  ) {}

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#stopped) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Aborts the attempt's signal, now if it was read, else as soon as it is. */
  static stop(context: Attempt, reason: unknown): void {
    context.#stopped = true;
    context.#reason = reason;
    context.#controller?.abort(reason);
  }
}

/**
 * Calls `fn` until it succeeds, retrying transient failures with jittered exponential backoff, within the
 * policy's attempts, deadline, signal and the server's Retry-After.
 *
 * - Success: resolves with `fn`'s value (after `shouldRetryResult`, if given, accepts it).
 * - A permanent error (see `isTransient`): rejects with that very error.
 * - The caller's abort: rejects at once with `signal.reason`.
 * - Giving up on transient failures: rejects with a {@link RetryError} whose `reason` is `'attempts'`, `'timeout'` or
 *   `'retry-after'`. Giving up on retried results instead resolves with the last result.
 * - Bad options: rejects with a TypeError or RangeError naming the option, without calling `fn`.
 *
 * Nothing is left behind: every timer is cleared and every listener removed when the call settles, and an abandoned
 * attempt that rejects later is ignored. Nothing is allocated for what a call does not use: no timer without a
 * timeout, no AbortController unless `fn` reads `signal`, no `setTimeout` for a delay of 0.
 *
 * @param fn - The work, given a {@link RetryContext}; may return a value or a promise, or throw.
 * @param policy - Options (see {@link RetryOptions}) or a policy from {@link createPolicy}. Default: 3 attempts, full
 *   jitter from 100 ms, capped at 10 s, no deadline, the default `isTransient`.
 *
 * @example
 * ```ts
 * import { retry } from 'herdless';
 * const response = await retry(
 *   async ({ signal }) => {
 *     const res = await fetch('https://api.example.com/items', { signal });
 *     if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status}`), { response: res });
 *     return res;
 *   },
 *   { maxAttempts: 5, timeoutMs: 10_000, attemptTimeoutMs: 2_000 },
 * );
 * ```
 */
export async function retry<T>(
  fn: (context: RetryContext) => T | PromiseLike<T>,
  policy?: RetryOptions<T>,
): Promise<T> {
  const p = toPolicy(policy);
  const { signal, timeoutMs, attemptTimeoutMs } = p;
  if (signal?.aborted) throw signal.reason;
  const start = now();
  const guarded = signal !== undefined || attemptTimeoutMs < Infinity || timeoutMs < Infinity;
  const errors: unknown[] = [];
  let previousBackoffMs: number | undefined;
  let retryAfterMs: number | undefined;
  let last: unknown;
  let lastFailed = false;
  let reason: StopReason;
  let attempt = 1;

  for (; ; attempt++) {
    const startedMs = attempt === 1 ? 0 : now() - start;
    if (startedMs >= timeoutMs) {
      attempt--; // a late timer: the deadline passed before this attempt could start
      reason = 'timeout';
      break;
    }
    const context = new Attempt(attempt, startedMs);
    let outcome: unknown;
    let failed = false;
    try {
      const work = fn(context);
      outcome = await (guarded ? guard(Math.min(attemptTimeoutMs, timeoutMs - startedMs), signal, work) : work);
    } catch (error) {
      failed = true;
      outcome = error;
    }
    if (outcome === ABORTED) {
      Attempt.stop(context, signal?.reason);
      throw signal?.reason;
    }
    // Abandoned: by the deadline (give up) or by its own timeout (a transient failure, never classified).
    const timedOut = outcome === TIMED_OUT;
    const byDeadline = timedOut && timeoutMs - startedMs <= attemptTimeoutMs;
    if (timedOut) {
      outcome = new DOMException(
        byDeadline
          ? `herdless: deadline (timeoutMs ${timeoutMs}) passed`
          : `herdless: attemptTimeoutMs ${attemptTimeoutMs} passed`,
        'TimeoutError',
      );
      Attempt.stop(context, outcome);
      failed = true;
    } else if (failed) {
      if (!(await p.isTransient(outcome, attempt))) throw outcome;
    } else if (!p.shouldRetryResult || !(await p.shouldRetryResult(outcome as T, attempt))) {
      return outcome as T;
    }
    last = outcome;
    lastFailed = failed;
    if (failed) errors.push(outcome);
    if (signal?.aborted) throw signal.reason; // aborted while isTransient or shouldRetryResult ran
    if (byDeadline) {
      reason = 'timeout';
      break;
    }

    const elapsedMs = now() - start;
    retryAfterMs = timedOut ? undefined : readRetryAfter(outcome, Date.now());
    const decision = decide(p, attempt, elapsedMs, retryAfterMs, previousBackoffMs);
    if (!decision.retry) {
      reason = decision.reason;
      break;
    }
    const { delayMs } = decision;
    previousBackoffMs = decision.backoffMs;
    if (p.onRetry) {
      const [error, value] = failed ? [outcome, undefined] : [undefined, outcome];
      await p.onRetry(Object.freeze({ attempt, error, value, delayMs, elapsedMs }));
      if (signal?.aborted) throw signal.reason;
      if (now() - start + delayMs >= timeoutMs) {
        reason = 'timeout'; // onRetry took so long that the sleep would now cross the deadline
        break;
      }
    }
    if (delayMs > 0 && (await guard(delayMs, signal, NO_WORK)) === ABORTED) throw signal?.reason;
  }

  if (!lastFailed) return last as T;
  const detail =
    reason === 'attempts'
      ? `maxAttempts ${p.maxAttempts}`
      : reason === 'timeout'
        ? `timeoutMs ${timeoutMs}`
        : `Retry-After ${retryAfterMs} ms > maxRetryAfterMs ${p.maxRetryAfterMs}`;
  throw new RetryError({ reason, errors, attempts: attempt, elapsedMs: now() - start, detail });
}
