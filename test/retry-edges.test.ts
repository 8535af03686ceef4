import { describe, expect, it, vi } from 'vitest';
import { createCircuitBreaker, type RetryContext, RetryError, retry } from '../src/index';
import { settle, useFakeClock } from './helpers';

// Behaviour of retry() that mutation testing (issue 10) found unpinned: each test here fails on a mutant of
// src/retry.ts that every other test let through.
const fake = useFakeClock();

describe('retry: an abandoned attempt', () => {
  it('keeps the reason it was abandoned for when the caller aborts during the next sleep, even if it reads its signal only then', async () => {
    const contexts: RetryContext[] = [];
    const controller = new AbortController();
    const run = settle(
      retry(
        (ctx) => {
          contexts.push(ctx); // the signal is not read now
          return new Promise<never>(() => {});
        },
        {
          attemptTimeoutMs: 100,
          maxAttempts: 2,
          baseMs: 10_000,
          capMs: 10_000,
          random: () => 0.5,
          signal: controller.signal,
        },
      ),
    );
    await fake.clock.tickAsync(100); // attempt 1 timed out: asleep before attempt 2
    const reason = new Error('caller left');
    controller.abort(reason);
    await fake.clock.tickAsync(0);
    expect(run.result).toMatchObject({ status: 'rejected', reason });
    expect(contexts).toHaveLength(1);
    const signal = (contexts[0] as RetryContext).signal; // read after both
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toMatchObject({ name: 'TimeoutError', message: 'herdless: attemptTimeoutMs 100 passed' });
  });
});

/** An error the default classifier retries. */
const transient = () => Object.assign(new Error('blip'), { status: 503 });
const never = () => new Promise<never>(() => {});

describe('retry: a callback still running at the deadline', () => {
  it('shouldRetryResult: resolves with the value, without calling onFailure (the attempt did not fail)', async () => {
    const onFailure = vi.fn();
    const run = settle(retry(() => 'value', { timeoutMs: 100, shouldRetryResult: never, onFailure }));
    await fake.clock.tickAsync(100);
    expect(run.result).toMatchObject({ status: 'fulfilled', value: 'value' });
    expect(onFailure).not.toHaveBeenCalled();
  });

  it('onFailure: gives up with timeout, without asking isTransient (a permanent verdict would have thrown the error)', async () => {
    const error = new Error('not retried');
    const isTransient = vi.fn(() => false);
    const run = settle(
      retry(
        () => {
          throw error;
        },
        { timeoutMs: 100, isTransient, onFailure: never },
      ),
    );
    await fake.clock.tickAsync(100);
    expect(run.result.status).toBe('rejected');
    expect(run.result.reason).toBeInstanceOf(RetryError);
    expect(run.result.reason).toMatchObject({ reason: 'timeout', attempts: 1, errors: [error] });
    expect(isTransient).not.toHaveBeenCalled();
  });

  it('isTransient: gives up with timeout and tells the breaker nothing (it says nothing of the dependency)', async () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 1 });
    const retryAfter = vi.fn(() => undefined);
    const run = settle(
      retry(
        () => {
          throw transient();
        },
        { timeoutMs: 100, isTransient: never, breaker, retryAfter },
      ),
    );
    await fake.clock.tickAsync(100);
    expect(run.result.reason).toMatchObject({ reason: 'timeout', attempts: 1 });
    expect(breaker.state).toBe('closed');
    expect(retryAfter).not.toHaveBeenCalled(); // no retry was weighed after the deadline
    expect(breaker.admit()).toBeUndefined(); // and the probe slot was released
  });
});

describe('retry: onFailure aborting the call', () => {
  it.each([
    ['a failure', () => Promise.reject(transient())],
    ['a retried result', () => 'again'],
  ])('after %s, rejects with the reason at once: no isTransient, no onRetry, no other attempt', async (_, fn) => {
    const controller = new AbortController();
    const reason = new Error('enough');
    const isTransient = vi.fn(() => true);
    const onRetry = vi.fn();
    const attempt = vi.fn(fn);
    const run = settle(
      retry(attempt, {
        signal: controller.signal,
        baseMs: 0,
        isTransient,
        shouldRetryResult: (value) => value === 'again',
        onFailure: () => controller.abort(reason),
        onRetry,
      }),
    );
    await fake.clock.tickAsync(0);
    expect(run.result).toMatchObject({ status: 'rejected', reason });
    expect(attempt).toHaveBeenCalledTimes(1);
    expect(isTransient).not.toHaveBeenCalled();
    expect(onRetry).not.toHaveBeenCalled();
  });
});
