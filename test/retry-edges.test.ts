import { describe, expect, it, vi } from 'vitest';
import { createCircuitBreaker, createRetryBudget, type RetryContext, RetryError, retry } from '../src/index';
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
    expect(breaker.admit()).not.toBeInstanceOf(Error); // it still admits calls
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

describe('retry: onRetry', () => {
  it('aborting the call synchronously rejects with the reason, even when its time also ran past the deadline', async () => {
    const controller = new AbortController();
    const reason = new Error('enough');
    const run = settle(
      retry(() => Promise.reject(transient()), {
        signal: controller.signal,
        timeoutMs: 1_000,
        onRetry: () => {
          fake.clock.tick(1_000); // a slow synchronous onRetry: the deadline passed inside it
          controller.abort(reason);
        },
      }),
    );
    await fake.clock.tickAsync(0);
    expect(run.result).toMatchObject({ status: 'rejected', reason });
  });

  it('that ends exactly where the sleep would reach the deadline gives up then, not after sleeping', async () => {
    const run = settle(
      retry(() => Promise.reject(transient()), {
        timeoutMs: 1_000,
        jitter: 'none',
        baseMs: 100,
        capMs: 100,
        onRetry: () => new Promise<void>((resolve) => setTimeout(resolve, 900)), // 900 + the 100 ms sleep = 1,000
      }),
    );
    await fake.clock.tickAsync(900);
    expect(run.result.status).toBe('rejected');
    expect(run.result.reason).toMatchObject({ reason: 'timeout', attempts: 1, elapsedMs: 900 });
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('that leaves time before the deadline lets the retry go on', async () => {
    let n = 0;
    const onRetry = vi.fn();
    const run = settle(
      retry(() => (++n === 1 ? Promise.reject(transient()) : 'ok'), {
        timeoutMs: 1_000,
        jitter: 'none',
        baseMs: 100,
        capMs: 100,
        onRetry,
      }),
    );
    await fake.clock.tickAsync(100);
    expect(run.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
    expect(onRetry).toHaveBeenCalledTimes(1);
  });
});

describe('retry: what it gives up with', () => {
  it("a broken random's error keeps the failure as its cause, which a caller can delete or replace as on any Error", async () => {
    const failure = transient();
    const error = await retry(() => Promise.reject(failure), { random: () => 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).cause).toBe(failure);
    expect(Reflect.defineProperty(error as Error, 'cause', { value: 'replaced' })).toBe(true);
    expect(Reflect.deleteProperty(error as Error, 'cause')).toBe(true);
  });

  it('an empty budget: the RetryError names the budget, not a Retry-After', async () => {
    const budget = createRetryBudget({ ratio: 0, minPerSecond: 0 });
    const error = await retry(() => Promise.reject(transient()), { budget }).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'budget', attempts: 1 });
    expect((error as Error).message).toBe('gave up after 1 attempt over 0 ms (budget): blip');
  });

  it('a retryAfter of 0 ms is a hint like any other: retried at once', async () => {
    let n = 0;
    const run = settle(
      retry(() => (++n === 1 ? Promise.reject(transient()) : 'ok'), { retryAfter: () => 0, baseMs: 0, capMs: 0 }),
    );
    await fake.clock.tickAsync(0);
    expect(run.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
  });
});

describe('retry: zero-delay retries', () => {
  it('a sleep between them starts the count afresh: no yield after it, only the sleep set a timer', async () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    let n = 0;
    const run = settle(
      retry(
        () => {
          n++;
          // 20 zero-delay retries, one of 5 ms after attempt 21, then 19 more: never 1,000 in a row, no time among them
          if (n < 41) throw Object.assign(transient(), { wait: n === 21 ? 5 : 0 });
          return 'ok';
        },
        { baseMs: 0, capMs: 0, maxAttempts: 41, retryAfter: (e) => (e as { wait?: number }).wait },
      ),
    );
    await fake.clock.tickAsync(5);
    expect(run.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
    expect(spy.mock.calls.map(([, ms]) => ms)).toEqual([5]);
  });
});

describe('retry: a late timer', () => {
  it('a sleep that ends at the deadline (its timer late by a blocked event loop) gives up without another attempt', async () => {
    const fn = vi.fn(() => Promise.reject(transient()));
    setTimeout(() => fake.clock.tick(1), 99); // set first, so it runs just before the sleep's timer: 1 ms of blocking
    const run = settle(retry(fn, { timeoutMs: 100, baseMs: 0, capMs: 0, retryAfter: () => 99 }));
    await fake.clock.tickAsync(100);
    expect(run.result.reason).toMatchObject({ reason: 'timeout', attempts: 1, elapsedMs: 100 });
    expect(fn).toHaveBeenCalledTimes(1);
  });
});

describe('retry: zero-delay retries that take time', () => {
  it('yield as soon as 4 ms passed since the first of them, not only after more', async () => {
    let calls = 0;
    const run = settle(
      retry(
        () => {
          calls++;
          if (calls === 17) fake.clock.tick(4); // the first 16 take no time; the 17th takes exactly 4 ms
          throw new Error('busy');
        },
        { baseMs: 0, capMs: 0, maxAttempts: 40 },
      ),
    );
    for (let i = 0; i < 100; i++) await Promise.resolve();
    expect(calls).toBe(17);
    expect(fake.clock.countTimers()).toBe(1); // the yield's setTimeout(0)
    await fake.clock.runAllAsync();
    expect(run.result.reason).toMatchObject({ reason: 'attempts', attempts: 40 });
  });

  it('yield once 16 of them ran and 4 ms passed since the first: not one later', async () => {
    let calls = 0;
    const run = settle(
      retry(
        () => {
          calls++;
          fake.clock.tick(1); // each attempt: 1 ms of synchronous work, so the 4 ms pass long before the 16th
          throw new Error('busy');
        },
        { baseMs: 0, capMs: 0, maxAttempts: 40 },
      ),
    );
    for (let i = 0; i < 100; i++) await Promise.resolve();
    expect(calls).toBe(16); // the retry after the 16th attempt is the 16th in a row: it yields
    expect(fake.clock.countTimers()).toBe(1); // the yield's setTimeout(0)
    await fake.clock.runAllAsync();
    expect(run.result.reason).toMatchObject({ reason: 'attempts', attempts: 40 });
  });
});

describe('retry: the first attempt, an abort mid-attempt, a broken breaker clock', () => {
  it('attemptTimeoutMs counts from when the breaker let the attempt through, not before its onStateChange (review)', async () => {
    const breaker = createCircuitBreaker({
      consecutiveFailures: 1,
      breakMs: 20,
      onStateChange: ({ to }) => {
        if (to === 'half-open') fake.clock.tick(80); // a slow listener, on the fake clock
      },
    });
    await settle(
      retry(() => Promise.reject(Object.assign(new Error('down'), { status: 503 })), { breaker, maxAttempts: 1 }),
    );
    await fake.clock.tickAsync(40);
    const started = performance.now();
    const run = settle(
      retry(() => new Promise((resolve) => setTimeout(resolve, 50, 'ok')), {
        breaker,
        attemptTimeoutMs: 100,
        maxAttempts: 1,
      }),
    );
    await fake.clock.tickAsync(60);
    expect(run.result.value).toBe('ok');
    expect(performance.now() - started).toBe(140); // 80 in onStateChange, then fn's 50 (and 10 more ticked)
  });

  it('the first attempt has elapsedMs 0, even on a clock that moves at every reading', async () => {
    let t = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => (t += 1));
    const contexts: RetryContext[] = [];
    await retry((ctx) => {
      contexts.push(ctx);
      return 'ok';
    });
    expect(contexts.map((c) => c.elapsedMs)).toEqual([0]);
    vi.restoreAllMocks();
  });

  it('an abort while an attempt runs rejects with the reason and asks no callback about the attempt', async () => {
    const controller = new AbortController();
    const reason = new Error('gone');
    const shouldRetryResult = vi.fn(() => false);
    const onFailure = vi.fn();
    const run = settle(
      retry(() => new Promise<string>(() => {}), { signal: controller.signal, shouldRetryResult, onFailure }),
    );
    await fake.clock.tickAsync(10);
    controller.abort(reason);
    await fake.clock.tickAsync(0);
    expect(run.result).toMatchObject({ status: 'rejected', reason });
    expect(shouldRetryResult).not.toHaveBeenCalled();
    expect(onFailure).not.toHaveBeenCalled();
  });

  it('a breaker whose clock breaks before the first attempt: rejects with its error as it is, no cause', async () => {
    let broken = false;
    const breaker = createCircuitBreaker({ consecutiveFailures: 1, now: () => (broken ? Number.NaN : 0) });
    const permit = breaker.admit();
    if (!(permit instanceof Error)) permit.recordFailure(); // open, so admit() reads the clock
    broken = true;
    const fn = vi.fn();
    const error = (await retry(fn, { breaker }).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^herdless: now\(\) must be a finite number, got NaN/);
    expect(Object.hasOwn(error, 'cause')).toBe(false);
    expect(fn).not.toHaveBeenCalled();
  });

  it('a breaker whose clock breaks before a retry: rejects with its error, the failure as its cause', async () => {
    let broken = false;
    const failure = transient();
    const fn = vi.fn(() => Promise.reject(failure));
    const breaker = createCircuitBreaker({ consecutiveFailures: 2, now: () => (broken ? Number.NaN : 0) });
    const run = settle(
      retry(fn, {
        breaker,
        baseMs: 20,
        capMs: 20,
        jitter: 'none',
        onRetry: () => {
          // Another call's failure opens it during this call's sleep, then its clock breaks: the next admit() reads it.
          const other = breaker.admit();
          if (!(other instanceof Error)) other.recordFailure();
          broken = true;
        },
      }),
    );
    await fake.clock.tickAsync(20);
    expect(run.result.status).toBe('rejected');
    const error = run.result.reason as Error;
    expect(error.message).toMatch(/^herdless: now\(\) must be a finite number, got NaN/);
    expect(error.cause).toBe(failure);
    expect(fn).toHaveBeenCalledTimes(1);
  });
});

describe('retry: an abort during isTransient or shouldRetryResult stops the call there', () => {
  const reason = new Error('aborted by caller');
  for (const pending of [false, true]) {
    const how = pending ? 'while its promise is pending' : 'from inside it, synchronously';
    it(`isTransient, ${how}: rejects with the reason, and onRetry is never called`, async () => {
      const controller = new AbortController();
      const onRetry = vi.fn();
      const isTransient = () => {
        if (!pending) controller.abort(reason);
        return pending ? new Promise<boolean>(() => {}) : true;
      };
      const run = settle(
        retry(() => Promise.reject(new Error('blip')), { signal: controller.signal, isTransient, onRetry, baseMs: 0 }),
      );
      for (let i = 0; i < 5; i++) await Promise.resolve();
      if (pending) controller.abort(reason);
      await fake.clock.runAllAsync();
      expect(run.result.reason).toBe(reason);
      expect(onRetry).not.toHaveBeenCalled();
    });

    it(`shouldRetryResult, ${how}: rejects with the reason, and onFailure is never called`, async () => {
      const controller = new AbortController();
      const onFailure = vi.fn();
      const shouldRetryResult = () => {
        if (!pending) controller.abort(reason);
        return pending ? new Promise<boolean>(() => {}) : true;
      };
      const run = settle(retry(() => 'value', { signal: controller.signal, shouldRetryResult, onFailure, baseMs: 0 }));
      for (let i = 0; i < 5; i++) await Promise.resolve();
      if (pending) controller.abort(reason);
      await fake.clock.runAllAsync();
      expect(run.result.reason).toBe(reason);
      expect(onFailure).not.toHaveBeenCalled();
    });
  }
});

describe('retry: a signal aborted before the call', () => {
  it('rejects with its reason without touching the budget (no deposit for a call that never starts)', async () => {
    const budget = createRetryBudget({ ratio: 1, minPerSecond: 0 });
    const reason = new Error('aborted before');
    const fn = vi.fn();
    await expect(retry(fn, { signal: AbortSignal.abort(reason), budget })).rejects.toBe(reason);
    expect(budget.available()).toBe(0);
    expect(fn).not.toHaveBeenCalled();
  });
});
