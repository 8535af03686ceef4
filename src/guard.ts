import type { StopReason } from './errors';

/**
 * The events of {@link Settle} by name, for the code that reports and reads them. An enum, not consts: esbuild writes
 * the numbers where they are used, and no variable ships for them.
 */
export enum Report {
  SUCCESS = 0,
  FAILURE = 1,
  RELEASE = 2,
  START = 3,
}
/**
 * What `retry()` reports through a call's {@link Pass}: an attempt is about to start (`START`, 3), it succeeded
 * (`SUCCESS`, 0), it failed in a way that counts (`FAILURE`, 1: a failure the policy's `isTransient` calls transient, a
 * retried result, an attempt abandoned by its timeout or the deadline), or the call ends (`RELEASE`, 2: whatever is
 * still held is let go). `SUCCESS`, `FAILURE` and `RELEASE` are also a breaker's permit's outcomes, in its numbering.
 */
export type Settle = 0 | 1 | 2 | 3;

/**
 * One `retry()` call's pass through a guard (its breaker, its budget, or a breaker in front of a budget). `retry()`
 * settles it with `START` before each attempt, then with the attempt's outcome (`SUCCESS` or `FAILURE`; nothing for an
 * outcome that says nothing of the dependency: a permanent error, an abort, a callback cut by the deadline), and with
 * `RELEASE` in every exit path, which lets go of what the pass still holds (the last attempt's unreported permit, a
 * retry paid for that never started: refunded).
 *
 * It refuses by returning the reason the call stops with, or holds a retry by returning a number (the number is
 * new: code that reads what a pass returns must tell a string from a number):
 * - `FAILURE` returns whether a retry may follow, asked before the sleep so a refused retry never sleeps first
 *   (`'circuit-open'` unless the breaker is closed, then `'budget'` unless the budget pays for it), or a number of ms
 *   > 0, the least the retry must wait (a budget holding it while the dependency is down; `retry()` takes it as
 *   `decide()`'s `holdMs`; a number that is not > 0 is no hold); the call's own reasons to stop (attempts, the
 *   server's wait, the deadline) come first, and `RELEASE` refunds what was paid;
 * - `START` of a retry returns `'circuit-open'` when the breaker opened during the sleep, or `'budget'` when the
 *   budget held it and the dependency has begun to queue since (or, held through a hang, no fast answer has come
 *   back); `START` of the first
 *   attempt throws what the call rejects with (a `CircuitOpenError`), first attempts never being retried.
 * `START` and `FAILURE` may also throw a broken clock's or `random`'s error; `SUCCESS` and `RELEASE` never throw.
 */
export interface Pass {
  /**
   * @param failure - With `START` of a retry: the failure it follows (the cause of a broken clock's error). With
   *   `FAILURE`: the failure itself (a budget reads whether it is a throttling answer, see `isThrottled`).
   * @param attemptMs - With `SUCCESS` and `FAILURE`: how long the attempt took, in ms; `Infinity` when its timeout (or the deadline)
   *   abandoned it. What a budget reads to tell a dependency that answers fast from one that queues.
   * @param allowedMs - With `SUCCESS` and `FAILURE`: the time the attempt was allowed (its `attemptTimeoutMs`, or what was left of the
   *   deadline), `Infinity` for no limit.
   * @param retryAfterMs - With `FAILURE`: the server's wait read from the failure (`retryAfter`), in ms; `undefined`
   *   for none. A throttling answer that names no wait (none, or 0) says the dependency is saturated however fast it
   *   came: a budget reads it as queueing (see `isThrottled`). Forward it, with the other arguments, from a
   *   wrapper's pass (`(...args) => pass.settle(...args)`): a wrapper that names only the first four drops it, and a
   *   429 that names a wait then reads as one that names none (refused while the budget counts it as queueing).
   * @param deadlineMs - With `FAILURE`: the call's deadline (its `timeoutMs`, the whole of it), in ms (`Infinity` with
   *   none). A budget ends the call (`'budget'`) when the dependency is down and the trouble has already lasted longer
   *   than that (the call cannot wait it out), unless the server named its wait. Forward it too: a wrapper that names
   *   only the first five drops it, and such a call keeps retrying at its backoff into a dependency that is down.
   */
  settle(
    event: Settle,
    failure?: unknown,
    attemptMs?: number,
    allowedMs?: number,
    retryAfterMs?: number,
    deadlineMs?: number,
  ): StopReason | number | undefined;
}

/**
 * What `retry()` needs of a `budget` or a `breaker`: a retry budget and a circuit breaker each implement it, so that
 * their logic lives in their own modules, bundled only when `createRetryBudget` or `createCircuitBreaker` is imported.
 * `next` is the guard that stands behind this one (a breaker's: the policy's budget, asked only when the breaker lets
 * the attempt through). `retry()` opens one {@link Pass} per call and settles it through the call.
 *
 * To wrap a budget or a breaker (to count what it refuses, say), delegate `open` to the real one and wrap the pass it
 * returns; the other methods delegate as they are:
 *
 * @example
 * ```ts
 * const real = createRetryBudget();
 * let refused = 0;
 * const counted: RetryBudget = {
 *   deposit: () => real.deposit(),
 *   tryWithdraw: () => real.tryWithdraw(),
 *   available: () => real.available(),
 *   reset: () => real.reset(),
 *   open(next) {
 *     const pass = real.open(next);
 *     // A string is a refusal (the reason); a number, a hold (a retry the budget makes wait that long, in ms).
 *     return { settle: (...args) => { const stop = pass.settle(...args); if (typeof stop === 'string') refused++; return stop; } };
 *   },
 * };
 * ```
 */
export interface Guard {
  open(next?: Guard): Pass;
}

/**
 * The brand that tells a budget from a breaker, whichever build (ESM or CJS) made it: a prototype getter with this
 * namespaced string key on `createRetryBudget()`'s and `createCircuitBreaker()`'s objects, whose value is the option it
 * goes in (`'budget'`, `'breaker'`), as `RetryError` carries its own (see errors.ts). `retry()` refuses either one in the
 * other's option with a TypeError naming it (a breaker used as a budget would be settled as one, and open when set to;
 * a budget used as a breaker would never ask the budget behind it). A wrapper that delegates carries no brand, and is
 * told by its shape alone. An enum, as {@link Report}.
 */
export enum Brand {
  GUARD = 'herdless.guard',
}
