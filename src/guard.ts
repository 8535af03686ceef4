import type { StopReason } from './errors';
import type { RetryPolicy } from './policy';

/**
 * What happens to an attempt a guard admitted, as `retry()` reports it through the attempt's {@link Ticket}:
 * it succeeded, it failed in a way that counts (a failure the policy's `isTransient` calls transient, a retried
 * result, an attempt abandoned by its timeout or the deadline), it ended saying nothing of the dependency or never
 * started (`RELEASE`: a permanent error, an abort, the deadline before it began), or it is about to start (`START`).
 * The first three are a breaker's permit's outcomes, in its numbering.
 */
export const SUCCESS = 0;
export const FAILURE = 1;
export const RELEASE = 2;
export const START = 3;
export type Settle = typeof SUCCESS | typeof FAILURE | typeof RELEASE | typeof START;

/**
 * One attempt's pass through a guard: `retry()` settles it with {@link START} just before the attempt, then once with
 * its outcome, and with {@link RELEASE} in every exit path (only the first outcome counts: a ticket settled already
 * ignores it; released before `START`, what it held is given back). Only `START` refuses: a retry by returning the
 * reason the call stops with (`'circuit-open'`: the breaker opened during the sleep), a first attempt by throwing what
 * the call rejects with (a `CircuitOpenError`); it may also throw a broken clock's error, as may `FAILURE`.
 * `SUCCESS` and `RELEASE` never throw.
 */
export interface Ticket {
  settle(event: Settle): StopReason | undefined;
}

/**
 * The one interface `retry()` (and the simulator) use for what bounds retry volume: a retry budget and a circuit
 * breaker each implement it, so that their logic lives in their own modules and is bundled only when
 * `createRetryBudget` or `createCircuitBreaker` is imported. `retry()` asks for attempt 1 before it starts, and for a
 * retry when it decides on it, before the sleep (a refusal then is the stop reason); `next` is the guard asked after
 * this one (a breaker stands in front of the policy's budget, and a refusal of either refuses the attempt).
 */
export interface Guard {
  ask(attempt: number, next?: Guard): Ticket | StopReason;
}

/** Asks the policy's guards (its breaker, then its budget) for `attempt`: a ticket, a refusal, or none to ask. */
export function admit(policy: RetryPolicy<never>, attempt: number): Ticket | StopReason | undefined {
  const budget = policy.budget as Guard | undefined;
  return ((policy.breaker as Guard | undefined) ?? budget)?.ask(attempt, budget);
}
