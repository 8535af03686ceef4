import { type Decision, decide } from './decide';
import { isPermanent, keep, RetryError, type StopReason } from './errors';
import { type Pass, Report, type Settle } from './guard';
import { type RetryContext, type RetryOptions, type RetryPolicy, type SettleEvent, toPolicy } from './policy';
import { reportLater } from './report';
import { fail, withCause } from './validate';
import { ABORTED, guard, isThenable, now, TIMED_OUT, Watch } from './wait';

/**
 * One attempt's context. Its AbortController is created only if `fn` reads `signal` (it costs microseconds); reading
 * it makes the call listen to the caller's signal at once, so that an abort reaches it synchronously.
 */
class Attempt implements RetryContext {
  #controller: AbortController | undefined;
  /** Why it was stopped, boxed (a reason may be anything); undefined while it runs. */
  #stopped: [unknown] | undefined;
  readonly #watch: Watch<Attempt> | undefined;

  declare readonly attempt: number;
  declare readonly elapsedMs: number;

  // Declared fields, assigned here: no class field declarations to ship (parameter properties emit both).
  constructor(attempt: number, elapsedMs: number, watch?: Watch<Attempt>) {
    this.attempt = attempt;
    this.elapsedMs = elapsedMs;
    this.#watch = watch;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      this.#watch?.listen();
      if (this.#stopped) this.#controller.abort(this.#stopped[0]);
    }
    return this.#controller.signal;
  }

  /**
   * Aborts the attempt's signal, now if it was read, else as soon as it is; the first reason stays (kept here, and a
   * signal aborted once ignores a second abort()).
   */
  static stop(context: Attempt, reason: unknown): void {
    context.#stopped ??= [reason];
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
 * - Giving up on transient failures: rejects with a {@link RetryError} whose `reason` is `'attempts'`, `'timeout'`,
 *   `'retry-after'`, `'budget'` or `'circuit-open'`. A `breaker` already open: rejects at once with a
 *   `CircuitOpenError`, without calling `fn`. Giving up on retried results instead resolves with the last result.
 * - Bad options: rejects with a TypeError or RangeError naming the option, without calling `fn`.
 *
 * The deadline and the caller's abort bound the whole call, callbacks included: an `isTransient`,
 * `shouldRetryResult` or `onRetry` whose promise is still pending when the deadline passes makes `retry()` give up
 * with `'timeout'` then (or resolve with a retried result), and an abort rejects at once. An abort that happens at
 * any moment before `retry()` settles wins over every other outcome.
 *
 * Nothing is left behind: every timer is cleared and every listener removed when the call settles, and an abandoned
 * attempt that rejects later is ignored. Nothing is allocated for what a call does not use: no timer without a
 * timeout, no AbortController unless `fn` reads `signal`, no `setTimeout` for a delay of 0, and neither a timer nor a
 * listener on the caller's signal for an attempt whose promise has settled by the next microtask (a cache hit). A caller's signal shared
 * by any number of concurrent calls holds one listener of herdless's, whatever their number.
 *
 * It never starves the event loop: consecutive retries with no delay (`baseMs: 0`) yield to timers and I/O with a
 * `setTimeout(0)` after 4 ms of them (16 at least) or 1,000 of them, whichever comes first, so a deadline or an abort still lands. Memory
 * per call is bounded whatever the number of attempts (see {@link RetryError.errors}).
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
export function retry<T>(fn: (context: RetryContext) => T | PromiseLike<T>, policy?: RetryOptions<T>): Promise<T> {
  let p: RetryPolicy<T>;
  let start: number;
  try {
    if (typeof fn !== 'function') fail(TypeError, 'fn', 'a function', fn);
    p = toPolicy(policy);
    if (p.signal?.aborted) throw p.signal.reason;
    start = now();
    // The common call (no signal, deadline, attempt timeout, result check, budget or breaker; a validated policy
    // holds none of these as null, so truthiness tells) makes its first attempt here and awaits it in a small function of its own: a
    // success costs about 150 ns less than awaited inside the loop (measured, Node 20: a third of such a call). A
    // failure hands over to the loop, which goes on from that attempt's error as though it had made it. Every other
    // call is the loop's from the start.
    if (
      p.signal ||
      p.shouldRetryResult ||
      p.budget ||
      p.breaker ||
      p.attemptTimeoutMs < Infinity ||
      p.timeoutMs < Infinity
    ) {
      return loop(fn, p, start, false);
    }
  } catch (error) {
    return rejected(error); // never a synchronous throw, whatever a policy's getter does
  }
  let result: T | PromiseLike<T>;
  try {
    result = fn(new Attempt(1, 0));
  } catch (error) {
    return loop(fn, p, start, true, error); // a synchronous throw: the loop's promise is the call's, no tick added
  }
  return first(result, fn, p, start);
}

/** An async function's rejected promise: a native one, whatever `globalThis.Promise` is now. */
async function rejected(error: unknown): Promise<never> {
  throw error;
}

/**
 * The first attempt's result, awaited, for a call that needs no timer, listener or guard; its rejection goes to the
 * loop (one microtask later than the loop would have seen it: its promise is awaited here).
 */
async function first<T>(
  result: T | PromiseLike<T>,
  fn: (context: RetryContext) => T | PromiseLike<T>,
  p: RetryPolicy<T>,
  start: number,
): Promise<T> {
  let value: T;
  try {
    value = await result;
  } catch (error) {
    return await loop(fn, p, start, true, error);
  }
  // Only with a hook: the event and its clock reading would otherwise be built on every success for nothing.
  if (p.onSettle)
    told(p, { ok: true, reason: undefined, attempts: 1, elapsedMs: now() - start, error: undefined, value });
  return value;
}

/**
 * Tells the policy's `onSettle` how the call ends (frozen), once; what it throws is reported, as a breaker's
 * `onStateChange` error is, never the call's outcome.
 */
export function told(p: { readonly onSettle?: ((event: SettleEvent) => void) | undefined }, event: SettleEvent): void {
  try {
    const done: unknown = p.onSettle?.(Object.freeze(event));
    if (isThenable(done)) done.then(undefined, reportLater); // a promise it returns that rejects: reported too
  } catch (error) {
    reportLater(error);
  }
}

/**
 * The retry loop: every attempt of a call, or every attempt after the first when {@link retry} made that one and it
 * failed (`handed`: its error is `failure`).
 */
async function loop<T>(
  fn: (context: RetryContext) => T | PromiseLike<T>,
  p: RetryPolicy<T>,
  start: number,
  handed: boolean,
  failure?: unknown,
): Promise<T> {
  const { signal, timeoutMs, attemptTimeoutMs } = p;
  const watch = signal && new Watch(signal, Attempt.stop);
  const guarded = !!watch || attemptTimeoutMs < Infinity || timeoutMs < Infinity;
  // A callback's promise, awaited within the call's deadline and its caller's abort.
  const bounded = <R>(result: PromiseLike<R>): PromiseLike<R | typeof TIMED_OUT | typeof ABORTED> => {
    if (!watch && timeoutMs === Infinity) return result;
    if (watch?.signal.aborted) Promise.resolve(result).catch(() => {}); // not raced: its rejection is lost quietly all the same
    return guard(timeoutMs, watch, p.unref, (value) => value, result, start);
  };
  let errors: unknown[] | undefined;
  let previousBackoffMs: number | undefined;
  let retryAfterMs: number | undefined;
  let last: unknown;
  let lastFailed = false;
  let threw = false; // the call rejects with `last`
  let reason: StopReason | undefined;
  let attempt = 0; // attempts made
  let spins = 0; // consecutive retries with no sleep, and when the first of them was decided
  let spinsFromMs = 0;
  // The call's pass through the policy's guards (its breaker, in front of its budget), and how the call's exit settles
  // it. Each guard is opened once: a budget alone has nothing behind it (opened with itself behind it, a guard that
  // forwards to `next` was settled twice per event, issue 30). Written out rather than shared with the simulator's
  // copy: a helper costs { retry } 15 B gzipped.
  const pass: Pass | undefined = p.breaker ? p.breaker.open(p.budget) : p.budget?.open();
  let end: Settle = Report.RELEASE;
  // The last attempt's own start, duration and allowed time (what a budget reads); the success's, at the call's end.
  let fromMs = 0;
  let tookMs = 0;
  let allowedMs = Infinity;
  let judgedMs = Infinity;

  try {
    for (;;) {
      const startedMs = attempt ? now() - start : 0;
      let context: Attempt | undefined;
      let outcome: unknown = failure;
      let failed = handed; // the first attempt, made and failed in retry()
      fromMs = startedMs; // when the attempt itself started (after the breaker let it through)
      tookMs = 0;
      if (handed) {
        handed = false;
        attempt++;
      } else {
        // A late timer (the deadline passed before this attempt could start), or the breaker opened during the sleep:
        // give up without this attempt (the finally refunds what it spent). A first attempt refused throws: 0 made.
        reason = startedMs >= timeoutMs ? 'timeout' : (pass?.settle(Report.START, last) as StopReason | undefined);
        if (reason) break;
        context = new Attempt(++attempt, startedMs, watch);
        if (watch) watch.current = context;
        // A timed attempt's own time starts after the breaker let it through (its onStateChange may have taken a while).
        if (guarded && pass) fromMs = now() - start;
        allowedMs = Math.min(attemptTimeoutMs, timeoutMs - fromMs);
        // What a budget judges its speed against: its own timeout, not a sliver of the call's deadline (review).
        judgedMs = attemptTimeoutMs < Infinity ? attemptTimeoutMs : allowedMs;
        try {
          outcome = await (guarded ? guard(allowedMs, watch, p.unref, fn, context, start + fromMs) : fn(context));
        } catch (error) {
          failed = true;
          outcome = error;
        }
        // How long the attempt itself took, before any hook of the caller's ran: what a budget reads.
        if (pass) tookMs = now() - start - fromMs;
      }
      // The caller's abort: rejected with below, after the loop; thrown as ABORTED, so that a signal-like object whose
      // `aborted` reads false again by then (review) still ends the call with its reason, never as a success.
      if (outcome === ABORTED) throw outcome;
      // Abandoned: by the deadline (give up) or by its own timeout (a transient failure, never classified).
      const timedOut = outcome === TIMED_OUT;
      let byDeadline = timedOut && timeoutMs - startedMs <= attemptTimeoutMs;
      let stopNow = false; // `throw permanent(error)`: reject with the error itself, after onFailure has seen it
      if (timedOut) {
        outcome = new DOMException(
          byDeadline
            ? `herdless: deadline (timeoutMs ${timeoutMs}) passed`
            : `herdless: attemptTimeoutMs ${attemptTimeoutMs} passed`,
          'TimeoutError',
        );
        Attempt.stop(context as Attempt, outcome);
        failed = true;
      } else if (failed) {
        if (isPermanent(outcome)) {
          try {
            outcome = outcome.error;
            stopNow = true;
          } catch {
            // a look-alike whose `error` getter throws is no wrapper: an error like any other
          }
        }
      } else {
        let verdict: unknown = p.shouldRetryResult?.(outcome as T, attempt);
        if (isThenable(verdict)) verdict = await bounded(verdict);
        if (signal?.aborted) throw ABORTED; // (a guard resolves ABORTED only once the signal has aborted)
        byDeadline = verdict === TIMED_OUT; // the callback was still running at the deadline
        if (!byDeadline && !verdict) {
          last = outcome; // a success: returned after the loop, once the breaker has counted it
          lastFailed = false;
          end = Report.SUCCESS; // settled below with this attempt's tookMs and judgedMs: a slow success reads as queueing
          break;
        }
      }
      // What the hooks are told: the failure, or the retried result.
      const error = failed ? outcome : undefined;
      const value = failed ? undefined : outcome;
      const attemptsLeft = p.maxAttempts - attempt;
      if (p.onFailure && (failed || !byDeadline)) {
        let done: unknown = p.onFailure(
          Object.freeze({ attempt, error, value, attemptsLeft, elapsedMs: now() - start }),
        );
        if (isThenable(done)) done = await bounded(done);
        if (signal?.aborted) throw ABORTED;
        if (done === TIMED_OUT) byDeadline = true;
      }
      if (stopNow) throw outcome; // (an abort since then wins all the same, after the loop)
      if (failed && !timedOut && !byDeadline) {
        let verdict: unknown = p.isTransient(outcome, attempt);
        if (isThenable(verdict)) verdict = await bounded(verdict);
        if (signal?.aborted) throw ABORTED;
        byDeadline = verdict === TIMED_OUT;
        if (!byDeadline && !verdict) throw outcome;
      }
      last = outcome;
      lastFailed = failed;
      if (failed) {
        errors ??= [];
        keep(errors, outcome);
      }
      const elapsedMs = now() - start;
      let decision: Decision = { retry: false, reason: 'timeout' }; // a callback cut by the deadline
      try {
        // A transient error, a retried result, or an attempt its timeout or the deadline abandoned counts against the
        // dependency (one that hangs is the breaker's first case); not a callback still running at the deadline,
        // which says nothing of it (the finally releases it, as for a permanent error or an abort).
        // With how long the attempt took of the time it had, and the server's wait: what tells a budget the dependency
        // is queueing (a throttling answer without a wait too). The server's wait first, but a reader that throws is
        // thrown only once the failure is counted: a broken hook must not blind the breaker to a failing dependency.
        let unread: [unknown] | undefined;
        try {
          if (!byDeadline) {
            const ms: unknown = timedOut ? undefined : p.retryAfter(outcome);
            // The reader's answer, checked: a number >= 0 (Infinity allowed) or undefined.
            retryAfterMs =
              ms === undefined || (typeof ms === 'number' && ms >= 0)
                ? ms
                : fail(RangeError, 'retryAfter()', 'a number >= 0 or undefined', ms);
          }
        } catch (error) {
          unread = [error];
        }
        // The budget may hold the retry (the dependency is saturated): a wait it names, taken as a server's is.
        let held = 0;
        if (timedOut || !byDeadline) {
          // Cut by the call's own deadline before its attempt timeout: it took what it took, no sign of a queue.
          const cut = timedOut && byDeadline && attemptTimeoutMs < Infinity;
          const verdict = pass?.settle(
            Report.FAILURE,
            outcome,
            timedOut && !cut ? Infinity : tookMs,
            judgedMs,
            retryAfterMs,
            timeoutMs,
          );
          if (typeof verdict === 'number') held = verdict;
          else reason = verdict;
        }
        if (unread) throw unread[0];
        if (!byDeadline) decision = decide(p, attempt, elapsedMs, retryAfterMs, previousBackoffMs, held);
      } catch (error) {
        throw withCause(error, outcome);
      }
      if (!decision.retry) {
        reason = decision.reason; // the call's own reasons to stop come first
        break;
      }
      if (reason) break; // the breaker's or the budget's refusal of this retry, before any sleep
      const { delayMs } = decision;
      previousBackoffMs = decision.backoffMs;
      if (p.onRetry) {
        let done: unknown = p.onRetry(Object.freeze({ attempt, error, value, attemptsLeft, delayMs, elapsedMs }));
        if (isThenable(done)) done = await bounded(done);
        if (signal?.aborted) throw ABORTED;
        if (done === TIMED_OUT || now() - start + delayMs >= timeoutMs) {
          reason = 'timeout'; // onRetry took so long that the sleep would now cross the deadline
          break;
        }
      }
      let sleep = delayMs > 0;
      if (sleep) spins = 0;
      else if (spins++ === 0) spinsFromMs = elapsedMs;
      else if (spins >= Spins.MAX || (spins >= Spins.MIN && elapsedMs - spinsFromMs >= Spins.MAX_MS)) {
        // No sleep for a while: yield to timers and I/O (a setTimeout(0)), so that a deadline, an abort or the rest
        // of the process still gets to run while a zero-delay policy retries at full speed.
        spins = 0;
        sleep = true;
      }
      if (sleep && (await guard(delayMs, watch, p.unref)) === ABORTED) throw ABORTED;
    }
  } catch (error) {
    threw = true; // rejected with below, after the finally
    last = error;
  } finally {
    watch?.release();
    // A success is counted; an attempt that ended saying nothing of the dependency is released; a retry the budget paid
    // for that never started (the call stopped, an abort, the deadline, onRetry, the breaker) is refunded.
    pass?.settle(end, undefined, tookMs, judgedMs);
  }

  // An abort wins over what a callback, random, the breaker or the budget threw after it, and over the outcome, from
  // inside a hook that ran after the last check too (retryAfter, random, a budget's or breaker's clock or
  // onStateChange, a success's included). The loop's own checks for an abort throw ABORTED, which lands here.
  const elapsedMs = now() - start;
  if (last === ABORTED || signal?.aborted) {
    threw = true;
    last = (signal as AbortSignal).reason;
  }
  if (threw) reason = undefined;
  else if (lastFailed) {
    threw = true;
    last = new RetryError({
      reason: reason as StopReason,
      errors: errors as unknown[],
      attempts: attempt,
      elapsedMs,
      // What the stop's rule was: for a budget or a breaker (or a guard of the caller's), its reason says it.
      detail:
        reason === 'attempts'
          ? `maxAttempts ${p.maxAttempts}`
          : reason === 'timeout'
            ? `timeoutMs ${timeoutMs}`
            : reason === 'retry-after'
              ? retryAfterMs === Infinity
                ? 'the server said not to retry'
                : `Retry-After ${Math.ceil(retryAfterMs as number)} ms > maxRetryAfterMs ${p.maxRetryAfterMs}` // ceil: for display only
              : reason, // a budget's, a breaker's or a guard's of the caller's: its reason alone says it
    });
  }
  if (p.onSettle)
    told(p, {
      ok: !threw,
      reason,
      attempts: attempt,
      elapsedMs,
      error: threw ? last : undefined,
      value: threw ? undefined : last,
    });
  if (threw) throw last;
  return last as T;
}

/**
 * When consecutive retries with no sleep make `retry()` yield to the event loop (`setTimeout(0)`). An enum, not
 * consts: esbuild writes its numbers where they are used, and no variable ships for them.
 */
enum Spins {
  /** After this many of them... */
  MAX = 1_000,
  /**
   * ...or after this many ms of them, once there were at least {@link Spins.MIN} (so that a zero delay between
   * attempts that each waited on a timer of their own, an attempt timeout say, does not add a needless yield).
   */
  MAX_MS = 4,
  MIN = 16,
}
