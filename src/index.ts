/**
 * The core: `retry()`, `retryingFetch`, the policy, the error classifiers, the retry budget and the circuit breaker.
 *
 * @module herdless
 */
export {
  type CircuitBreaker,
  type CircuitBreakerOptions,
  type CircuitChangeReason,
  CircuitOpenError,
  type CircuitPermit,
  type CircuitState,
  type CircuitStateChange,
  createCircuitBreaker,
} from './breaker';
export { createRetryBudget, type RetryBudget, type RetryBudgetOptions, type RetryPermit } from './budget';
export { getStatus, isNetworkError, isThrottled, isTransient, isTransientStatus } from './classify';
export { type Backoff, type BackoffOptions, computeDelay, type Jitter } from './delay';
export { permanent, RetryError, type RetryErrorInit, type StopReason } from './errors';
export type { Guard, Pass, Settle } from './guard';
export { type Fetch, type FetchInput, givenUp, type RetryingFetchOptions, retryingFetch } from './http/fetch';
export {
  createPolicy,
  type FailureEvent,
  type RetryContext,
  type RetryEvent,
  type RetryOptions,
  type RetryPolicy,
  type SettleEvent,
} from './policy';
export { retry } from './retry';
export { parseRetryAfter, readRetryAfter } from './retry-after';
