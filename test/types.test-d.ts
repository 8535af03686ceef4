import { describe, expectTypeOf, it } from 'vitest';
import {
  type BackoffOptions,
  type CircuitBreaker,
  CircuitOpenError,
  type CircuitPermit,
  type CircuitState,
  type CircuitStateChange,
  computeDelay,
  createCircuitBreaker,
  createPolicy,
  createRetryBudget,
  type FailureEvent,
  getStatus,
  isNetworkError,
  isThrottled,
  isTransient,
  isTransientStatus,
  type Jitter,
  parseRetryAfter,
  permanent,
  type RetryBudget,
  type RetryContext,
  RetryError,
  type RetryEvent,
  type RetryOptions,
  type RetryPermit,
  type RetryPolicy,
  readRetryAfter,
  retry,
  type StopReason,
} from '../src/index';

describe('public types', () => {
  it('computeDelay', () => {
    expectTypeOf(computeDelay).parameters.toEqualTypeOf<
      [attempt: number, policy?: BackoffOptions | undefined, previousDelayMs?: number | undefined]
    >();
    expectTypeOf(computeDelay).returns.toEqualTypeOf<number>();
    expectTypeOf<Jitter>().toEqualTypeOf<'none' | 'full' | 'equal' | 'decorrelated'>();
    // @ts-expect-error an unknown jitter is a type error
    computeDelay(1, { jitter: 'random' });
  });

  it('retry infers the value type from fn, sync or async, and types the callbacks with it', () => {
    expectTypeOf(retry(async () => 1)).toEqualTypeOf<Promise<number>>();
    expectTypeOf(retry(() => 'x')).toEqualTypeOf<Promise<string>>();
    retry(async () => ({ status: 200 }), {
      shouldRetryResult: (value, attempt) => {
        expectTypeOf(value).toEqualTypeOf<{ status: number }>();
        expectTypeOf(attempt).toEqualTypeOf<number>();
        return value.status === 503;
      },
      isTransient: async (error, attempt) => {
        expectTypeOf(error).toEqualTypeOf<unknown>();
        expectTypeOf(attempt).toEqualTypeOf<number>();
        return true;
      },
      onRetry: (event) => {
        expectTypeOf(event).toEqualTypeOf<RetryEvent>();
      },
    });
    retry((ctx) => {
      expectTypeOf(ctx).toEqualTypeOf<RetryContext>();
      expectTypeOf(ctx.signal).toEqualTypeOf<AbortSignal>();
      expectTypeOf(ctx.attempt).toEqualTypeOf<number>();
      expectTypeOf(ctx.elapsedMs).toEqualTypeOf<number>();
    });
  });

  it('options are checked', () => {
    // @ts-expect-error a misspelt option is a type error as well as a TypeError at run time
    retry(() => 1, { maxAttemps: 3 });
    // @ts-expect-error wrong type
    retry(() => 1, { timeoutMs: '1s' });
    const options: RetryOptions = { maxAttempts: 3, signal: new AbortController().signal };
    expectTypeOf(options).toExtend<BackoffOptions>();
  });

  it('createPolicy returns a readonly policy that retry accepts', () => {
    const policy = createPolicy({ maxAttempts: 2 });
    expectTypeOf(policy).toEqualTypeOf<RetryPolicy<unknown>>();
    expectTypeOf(policy.maxAttempts).toEqualTypeOf<number>();
    // @ts-expect-error the policy is readonly
    policy.maxAttempts = 3;
    expectTypeOf(retry(() => 1, createPolicy())).toEqualTypeOf<Promise<number>>();
  });

  it('RetryError and the classifiers', () => {
    const error = new RetryError({ reason: 'attempts', errors: [], attempts: 1, elapsedMs: 0 });
    expectTypeOf(error.reason).toEqualTypeOf<StopReason>();
    expectTypeOf<StopReason>().toEqualTypeOf<'attempts' | 'timeout' | 'retry-after' | 'budget' | 'circuit-open'>();
    expectTypeOf(error.errors).toEqualTypeOf<readonly unknown[]>();
    expectTypeOf(error).toExtend<Error>();
    expectTypeOf(isTransient).toEqualTypeOf<(error: unknown) => boolean>();
    expectTypeOf(isNetworkError).toEqualTypeOf<(error: unknown) => boolean>();
    expectTypeOf(isThrottled).toEqualTypeOf<(error: unknown) => boolean>();
    expectTypeOf(isTransientStatus).toEqualTypeOf<(status: number) => boolean>();
    expectTypeOf(getStatus).returns.toEqualTypeOf<number | undefined>();
    expectTypeOf(parseRetryAfter).returns.toEqualTypeOf<number | undefined>();
    expectTypeOf(readRetryAfter).returns.toEqualTypeOf<number | undefined>();
  });

  it('budget and breaker', () => {
    const budget = createRetryBudget({ ratio: 0.2, minPerSecond: 1, windowMs: 5_000, now: () => 0 });
    expectTypeOf(budget).toEqualTypeOf<RetryBudget>();
    expectTypeOf(budget.available()).toEqualTypeOf<number>();
    expectTypeOf(budget.tryWithdraw()).toEqualTypeOf<RetryPermit | false>();
    const breaker = createCircuitBreaker({
      consecutiveFailures: 3,
      failureRatio: 0.5,
      onStateChange: (change) => {
        expectTypeOf(change).toEqualTypeOf<CircuitStateChange>();
        expectTypeOf(change.to).toEqualTypeOf<CircuitState>();
      },
    });
    expectTypeOf(breaker).toEqualTypeOf<CircuitBreaker>();
    expectTypeOf(breaker.state).toEqualTypeOf<'closed' | 'open' | 'half-open'>();
    expectTypeOf(breaker.admit()).toEqualTypeOf<CircuitPermit | CircuitOpenError>();
    const permit = breaker.admit();
    // @ts-expect-error a refusal has no outcome to report: narrow it first
    permit.recordSuccess();
    if (!(permit instanceof CircuitOpenError)) expectTypeOf(permit.recordFailure).toEqualTypeOf<() => void>();
    expectTypeOf(new CircuitOpenError(5).remainingMs).toEqualTypeOf<number>();
    expectTypeOf(retry(() => 1, { budget, breaker })).toEqualTypeOf<Promise<number>>();
    expectTypeOf(createPolicy({ budget, breaker }).budget).toEqualTypeOf<RetryBudget | undefined>();
    // @ts-expect-error a budget is a RetryBudget, not a number
    retry(() => 1, { budget: 0.1 });
    // @ts-expect-error an unknown breaker option is a type error
    createCircuitBreaker({ threshold: 5 });
    // @ts-expect-error state is readonly
    breaker.state = 'open';
  });

  it('the hooks peers users reach for: onFailure, permanent, retryAfter, unref', () => {
    retry(() => 1, {
      onFailure: (event) => {
        expectTypeOf(event).toEqualTypeOf<FailureEvent>();
        expectTypeOf(event.attemptsLeft).toEqualTypeOf<number>();
        expectTypeOf(event.error).toEqualTypeOf<unknown>();
      },
      onRetry: (event) => {
        expectTypeOf(event.attemptsLeft).toEqualTypeOf<number>();
      },
      retryAfter: (errorOrValue) => {
        expectTypeOf(errorOrValue).toEqualTypeOf<unknown>();
        return undefined;
      },
      unref: true,
    });
    expectTypeOf(permanent).toEqualTypeOf<(error: unknown) => Error>();
    // @ts-expect-error unref is a boolean
    retry(() => 1, { unref: 1 });
    // @ts-expect-error a retryAfter reader returns milliseconds or undefined
    retry(() => 1, { retryAfter: () => 'soon' });
    const policy = createPolicy({ unref: true });
    expectTypeOf(policy.unref).toEqualTypeOf<boolean>();
    expectTypeOf(policy.retryAfter).toEqualTypeOf<(errorOrValue: unknown) => number | undefined>();
  });
});

describe('a budget or breaker of your own is what retry() needs: a Guard', () => {
  it('an object with only the counting methods is not a RetryBudget (retry() would refuse it at run time)', () => {
    const real = createRetryBudget();
    // @ts-expect-error open() is missing: retry() could not drive it
    const _bare: RetryBudget = { deposit: () => {}, tryWithdraw: () => false, available: () => 0 };
    const wrapped: RetryBudget = {
      deposit: () => real.deposit(),
      tryWithdraw: () => real.tryWithdraw(),
      available: () => real.available(),
      open: (next) => real.open(next),
      reset: () => real.reset(),
    };
    expectTypeOf(wrapped).toMatchTypeOf<NonNullable<RetryOptions['budget']>>();
    const breaker = createCircuitBreaker();
    const mine: CircuitBreaker = {
      admit: () => breaker.admit(),
      state: breaker.state,
      open: (next) => breaker.open(next),
      isolate: () => breaker.isolate(),
      reset: () => breaker.reset(),
    };
    expectTypeOf(mine).toMatchTypeOf<NonNullable<RetryOptions['breaker']>>();
  });
});
