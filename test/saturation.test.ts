import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createCircuitBreaker,
  createRetryBudget,
  givenUp,
  type RetryBudget,
  type RetryError,
  retry,
  retryingFetch,
} from '../src/index';
import { settle, useFakeClock } from './helpers';

const fake = useFakeClock();

const transient = () => Object.assign(new Error('busy'), { status: 503 });

/** fn that fails (a 503) after `ms` on the fake clock, `fails` times, then succeeds. */
function failingAfter(ms: number, fails = Infinity) {
  let calls = 0;
  const fn = () =>
    new Promise<string>((resolve, reject) => {
      const n = ++calls;
      setTimeout(() => (n <= fails ? reject(transient()) : resolve('ok')), ms);
    });
  return { fn, calls: () => calls };
}

describe('createRetryBudget: a slow failure gets no retry', () => {
  it('a failure that took half the attempt timeout or more is not retried; a faster one is', async () => {
    const budget = createRetryBudget();
    const slow = failingAfter(500);
    const run = settle(retry(slow.fn, { budget, attemptTimeoutMs: 1_000, maxAttempts: 3 }));
    await fake.clock.runAllAsync();
    expect(run.result.status).toBe('rejected');
    expect((run.result.reason as RetryError).reason).toBe('budget');
    expect(slow.calls()).toBe(1);

    const fast = failingAfter(499, 2);
    const ok = settle(retry(fast.fn, { budget, attemptTimeoutMs: 1_000, maxAttempts: 3 }));
    await fake.clock.runAllAsync();
    expect(ok.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
    expect(fast.calls()).toBe(3);
  });

  it('an attempt its timeout abandoned is not retried', async () => {
    const budget = createRetryBudget();
    let calls = 0;
    const hang = () => {
      calls++;
      return new Promise<never>(() => {});
    };
    const run = settle(retry(hang, { budget, attemptTimeoutMs: 200, maxAttempts: 5 }));
    await fake.clock.runAllAsync();
    expect((run.result.reason as RetryError).reason).toBe('budget');
    expect((run.result.reason as RetryError).errors[0]).toMatchObject({ name: 'TimeoutError' });
    expect(calls).toBe(1);
  });

  it('an isolated slow failure (at most 1 in 100 of the last 3 s of attempts) is still retried', async () => {
    const budget = createRetryBudget();
    for (let i = 0; i < 99; i++) await retry(() => 'ok', { budget, attemptTimeoutMs: 1_000 }); // fast successes
    let calls = 0;
    const hangOnce = () => (calls++ === 0 ? new Promise<string>(() => {}) : 'ok');
    const run = settle(retry(hangOnce, { budget, attemptTimeoutMs: 200, maxAttempts: 3 }));
    await fake.clock.runAllAsync();
    expect(run.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
    expect(calls).toBe(2);
    // A second slow one in the same second is 2 in 101: the dependency is queueing, not one hung connection.
    const again = settle(retry(() => new Promise<never>(() => {}), { budget, attemptTimeoutMs: 200, maxAttempts: 3 }));
    await fake.clock.runAllAsync();
    expect((again.result.reason as RetryError).reason).toBe('budget');
  });

  it('without an attempt timeout, the time left of the deadline is what the attempt was allowed', async () => {
    const budget = createRetryBudget();
    const slow = failingAfter(600); // 600 of the 1,000 ms left: slow
    const run = settle(retry(slow.fn, { budget, timeoutMs: 1_000, maxAttempts: 3 }));
    await fake.clock.runAllAsync();
    expect((run.result.reason as RetryError).reason).toBe('budget');
    // With neither, a failure is never slow by its time (nothing says how long it may take).
    const unbounded = failingAfter(60_000, 1);
    const ok = settle(retry(unbounded.fn, { budget, maxAttempts: 2 }));
    await fake.clock.runAllAsync();
    expect(ok.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
  });

  it('slowMs sets the threshold, above or below half the time allowed', async () => {
    const budget = createRetryBudget({ slowMs: 100 });
    const run = settle(retry(failingAfter(100).fn, { budget, maxAttempts: 3 }));
    await fake.clock.runAllAsync();
    expect((run.result.reason as RetryError).reason).toBe('budget');
    const lenient = createRetryBudget({ slowMs: 900 });
    const late = settle(retry(failingAfter(600, 1).fn, { budget: lenient, attemptTimeoutMs: 1_000, maxAttempts: 3 }));
    await fake.clock.runAllAsync();
    expect(late.result).toMatchObject({ status: 'fulfilled', value: 'ok' }); // 600 ms of 1 s: under its 900
  });

  it("an attempt's time is its own: a slow onFailure or isTransient does not make a fast failure slow (review)", async () => {
    const budget = createRetryBudget();
    const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
    const f = failingAfter(0, 1);
    const run = settle(
      retry(f.fn, {
        budget,
        attemptTimeoutMs: 1_000,
        maxAttempts: 3,
        onFailure: () => wait(600),
        isTransient: async () => {
          await wait(600);
          return true;
        },
      }),
    );
    await fake.clock.runAllAsync();
    expect(run.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
  });

  it('a budget clock that breaks at a success never turns it into a rejection: it is reported, the value returned (review)', async () => {
    let t = 0;
    const budget = createRetryBudget({ now: () => t });
    const reported: unknown[] = [];
    const saved = (globalThis as { reportError?: unknown }).reportError;
    (globalThis as { reportError?: unknown }).reportError = (e: unknown) => reported.push(e);
    try {
      const value = await retry(
        () => {
          t = Number.NaN;
          return 'done';
        },
        { budget },
      );
      expect(value).toBe('done');
      expect(reported).toHaveLength(1);
      expect(String(reported[0])).toMatch(/now\(\) must be a finite number, got NaN/);
    } finally {
      (globalThis as { reportError?: unknown }).reportError = saved;
    }
  });

  it('property: whatever the times, a retry follows a failure exactly when it was fast (and few others failed)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 999 }), fc.integer({ min: 1, max: 5_000 }), async (ms, allowed) => {
        const budget = createRetryBudget();
        const f = failingAfter(ms, 1);
        const run = settle(retry(f.fn, { budget, attemptTimeoutMs: allowed, maxAttempts: 2, baseMs: 0 }));
        await fake.clock.runAllAsync();
        const fast = ms < allowed / 2;
        expect(run.result.status).toBe(fast ? 'fulfilled' : 'rejected');
        if (!fast) expect((run.result.reason as RetryError).reason).toBe('budget');
      }),
      { numRuns: 60 },
    );
  });
});

describe('createRetryBudget: a 429 without a wait says the dependency is saturated', () => {
  const tooMany = (retryAfter?: string) =>
    Object.assign(new Error('too many'), {
      status: 429,
      ...(retryAfter === undefined ? {} : { headers: { 'retry-after': retryAfter } }),
    });

  it('a fast 429 with no Retry-After is not retried (as a timeout is not), a fast 503 is', async () => {
    const budget = createRetryBudget();
    let calls = 0;
    const run = settle(
      retry(
        () => {
          calls++;
          return Promise.reject(tooMany());
        },
        { budget, maxAttempts: 3 },
      ),
    );
    await fake.clock.runAllAsync();
    expect(run.result.status).toBe('rejected');
    expect((run.result.reason as RetryError).reason).toBe('budget');
    expect(calls).toBe(1);

    const fast = failingAfter(1, 2); // a 503 in 1 ms: says nothing of saturation
    const ok = settle(retry(fast.fn, { budget, maxAttempts: 3 }));
    await fake.clock.runAllAsync();
    expect(ok.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
  });

  it('a 429 that names its wait is the server scheduling the retry: herdless waits it, and the budget pays', async () => {
    const budget = createRetryBudget();
    let calls = 0;
    const run = settle(retry(() => (calls++ === 0 ? Promise.reject(tooMany('2')) : 'ok'), { budget, maxAttempts: 3 }));
    await fake.clock.tickAsync(1_999);
    expect(calls).toBe(1); // still waiting the server's 2 s
    await fake.clock.runAllAsync();
    expect(run.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
    expect(calls).toBe(2);
  });

  it('an isolated 429 among many fast answers is still retried, as an isolated slow failure is', async () => {
    const budget = createRetryBudget();
    for (let i = 0; i < 99; i++) await retry(() => 'ok', { budget });
    let calls = 0;
    const run = settle(retry(() => (calls++ === 0 ? Promise.reject(tooMany()) : 'ok'), { budget, maxAttempts: 3 }));
    await fake.clock.runAllAsync();
    expect(run.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
    expect(calls).toBe(2);
  });

  it('retryingFetch: a 429 Response with no Retry-After is sent once; with one, it is retried after the wait', async () => {
    const budget = createRetryBudget();
    const sent: string[] = [];
    const answer = (headers: Record<string, string>) => async (input: RequestInfo | URL) => {
      sent.push(String(input));
      return new Response('slow down', { status: 429, headers });
    };
    const bare = settle(retryingFetch({ budget, maxAttempts: 3, fetch: answer({}) })('http://x.test/a'));
    await fake.clock.runAllAsync();
    expect(givenUp(bare.result.value)).toBe('budget');
    expect(sent).toEqual(['http://x.test/a']);
    const waited = settle(
      retryingFetch({ budget, maxAttempts: 2, fetch: answer({ 'retry-after': '1' }) })('http://x.test/b'),
    );
    await fake.clock.runAllAsync();
    expect(givenUp(waited.result.value)).toBe('attempts');
    expect(sent).toEqual(['http://x.test/a', 'http://x.test/b', 'http://x.test/b']);
  });

  it('a Retry-After of 0 names no wait: the 429 still reads as saturation', async () => {
    const budget = createRetryBudget();
    let calls = 0;
    const run = settle(
      retry(
        () => {
          calls++;
          return Promise.reject(tooMany('0'));
        },
        { budget, maxAttempts: 3 },
      ),
    );
    await fake.clock.runAllAsync();
    expect((run.result.reason as RetryError).reason).toBe('budget');
    expect(calls).toBe(1);
  });

  it.each([
    ['AWS ThrottlingException', { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } }],
    ['gRPC RESOURCE_EXHAUSTED', { code: 8, details: 'quota', metadata: {} }],
  ])('%s with no wait is not retried either (isThrottled)', async (_name, shape) => {
    const budget = createRetryBudget();
    let calls = 0;
    const fn = () => {
      calls++;
      return Promise.reject(Object.assign(new Error('throttled'), shape));
    };
    const run = settle(retry(fn, { budget, maxAttempts: 3 }));
    await fake.clock.runAllAsync();
    expect((run.result.reason as RetryError).reason).toBe('budget');
    expect(calls).toBe(1);
  });

  it('a retryAfter reader that throws: the failure is still counted by the breaker, then its error rejects', async () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 1, breakMs: 1_000 });
    const hook = new Error('hook');
    const run = settle(
      retry(() => Promise.reject(transient()), {
        breaker,
        retryAfter: () => {
          throw hook;
        },
      }),
    );
    await fake.clock.runAllAsync();
    expect(run.result.reason).toBe(hook);
    expect(breaker.state).toBe('open'); // the 503 counted: the broken reader did not blind the breaker
  });

  it('without a budget nothing changes: a 429 is retried with backoff', async () => {
    let calls = 0;
    const run = settle(retry(() => (calls++ < 2 ? Promise.reject(tooMany()) : 'ok'), { maxAttempts: 3 }));
    await fake.clock.runAllAsync();
    expect(run.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
    expect(calls).toBe(3);
  });
});

describe('createRetryBudget: most attempts failing', () => {
  it('once 85% of the last 3 s of attempts failed (4 at least), no failure gets a retry; later it does', async () => {
    const budget = createRetryBudget();
    const fast = failingAfter(1);
    const runs = Array.from({ length: 4 }, () => settle(retry(fast.fn, { budget, maxAttempts: 3, baseMs: 50 })));
    await fake.clock.runAllAsync();
    // The first 3 failures were retried (fewer than 4 attempts known); from the 4th on, 85% of them had failed.
    const reasons = runs.map((r) => (r.result.reason as RetryError).reason);
    expect(reasons.every((r) => r === 'budget')).toBe(true);
    expect(fast.calls()).toBe(4 + 3);
    // 3 s later the window is empty again: a fast failure is retried.
    fake.clock.tick(3_000);
    const later = failingAfter(1, 1);
    const ok = settle(retry(later.fn, { budget, maxAttempts: 2 }));
    await fake.clock.runAllAsync();
    expect(ok.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
  });

  it('a partial failure below the ratio keeps every retry: 1,000 concurrent calls, half failing, none refused', async () => {
    const budget = createRetryBudget();
    let n = 0;
    const half = () =>
      new Promise<string>((resolve, reject) => setTimeout(() => (n++ % 2 ? resolve('ok') : reject(transient())), 5));
    const runs = Array.from({ length: 1_000 }, () => settle(retry(half, { budget, maxAttempts: 4 })));
    await fake.clock.tickAsync(60_000); // thousands of timers: more than runAllAsync's loop limit
    const refused = runs.filter((r) => (r.result.reason as RetryError | undefined)?.reason === 'budget');
    expect(refused).toHaveLength(0);
    expect(runs.filter((r) => r.result.status === 'fulfilled').length).toBeGreaterThan(900);
  });

  it('one instance among many: each budget reads only its own attempts', async () => {
    // A busy instance whose attempts all fail, and a quiet one that made one call: the busy one refuses, the quiet
    // one retries its one fast failure, as a process of a fleet of 10,000 would.
    const busy = createRetryBudget();
    const quiet = createRetryBudget();
    const fast = failingAfter(1);
    const runs = Array.from({ length: 20 }, () => settle(retry(fast.fn, { budget: busy, maxAttempts: 2 })));
    await fake.clock.runAllAsync();
    expect(runs.filter((r) => (r.result.reason as RetryError).reason === 'budget').length).toBeGreaterThan(10);
    const lonely = failingAfter(1, 1);
    const ok = settle(retry(lonely.fn, { budget: quiet, maxAttempts: 2 }));
    await fake.clock.runAllAsync();
    expect(ok.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
  });

  it('a quiet process (a call every 500 ms, each failing fast) stops retrying once 4 attempts in 3 s all failed', async () => {
    const budget = createRetryBudget();
    const fast = failingAfter(1);
    const runs: ReturnType<typeof settle>[] = [];
    for (let i = 0; i < 4; i++) {
      runs.push(settle(retry(fast.fn, { budget, maxAttempts: 2, baseMs: 10 })));
      await fake.clock.tickAsync(500);
    }
    // Calls 1 and 2 retried (1 and 3 attempts known when they failed); from the 4th attempt on, every one had failed.
    expect(runs.map((r) => (r.result.reason as RetryError).reason)).toEqual([
      'attempts',
      'attempts',
      'budget',
      'budget',
    ]);
    expect(fast.calls()).toBe(6);
  });

  it('a lone call is never stopped by the failure share before its 4th attempt: maxAttempts 4 means 4', async () => {
    const budget = createRetryBudget();
    const dead = failingAfter(1);
    const run = settle(retry(dead.fn, { budget, maxAttempts: 4 }));
    await fake.clock.runAllAsync();
    expect((run.result.reason as RetryError).reason).toBe('attempts');
    expect(dead.calls()).toBe(4);
    const five = settle(retry(failingAfter(1).fn, { budget: createRetryBudget(), maxAttempts: 5 }));
    await fake.clock.runAllAsync();
    expect((five.result.reason as RetryError).reason).toBe('budget'); // 4 of 4 failed: the 5th is refused
  });

  it('successes count: 10 successes then 1 fast failure is retried', async () => {
    const budget = createRetryBudget();
    for (let i = 0; i < 10; i++) await retry(() => 'ok', { budget });
    const f = failingAfter(1, 1);
    const ok = settle(retry(f.fn, { budget, maxAttempts: 2 }));
    await fake.clock.runAllAsync();
    expect(ok.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
  });

  it('minimumCalls: Infinity turns the rule off; failureRatio and failureWindowMs tune it', async () => {
    const off = createRetryBudget({ minimumCalls: Infinity });
    const fast = failingAfter(1);
    const runs = Array.from({ length: 20 }, () => settle(retry(fast.fn, { budget: off, maxAttempts: 2 })));
    await fake.clock.runAllAsync();
    expect(runs.every((r) => (r.result.reason as RetryError).reason === 'attempts')).toBe(true);
    const strict = createRetryBudget({ failureRatio: 0.5, minimumCalls: 2, failureWindowMs: 100 });
    const two = Array.from({ length: 2 }, () => settle(retry(failingAfter(1).fn, { budget: strict, maxAttempts: 2 })));
    await fake.clock.runAllAsync();
    expect(two.map((r) => (r.result.reason as RetryError).reason)).toEqual(['attempts', 'budget']);
  });
});

describe('the breaker with its defaults', () => {
  it('stays closed through a 50% partial failure, and lets retries through', async () => {
    const breaker = createCircuitBreaker();
    let n = 0;
    const half = () =>
      new Promise<string>((resolve, reject) => setTimeout(() => (n++ % 2 ? resolve('ok') : reject(transient())), 5));
    const runs = Array.from({ length: 500 }, () => settle(retry(half, { breaker, maxAttempts: 4 })));
    await fake.clock.tickAsync(60_000);
    expect(breaker.state).toBe('closed');
    const failed = runs.filter((r) => r.result.status === 'rejected');
    expect(failed.every((r) => (r.result.reason as RetryError).reason === 'attempts')).toBe(true); // none refused
    expect(failed.length).toBeLessThan(runs.length * 0.1);
  });
});

describe('retry() reports a guarded attempt with its time and the time it had', () => {
  it('a budget sees a success as fast or slow too: slow successes alone never refuse', async () => {
    const budget = createRetryBudget();
    const slowOk = () => new Promise<string>((resolve) => setTimeout(() => resolve('ok'), 900));
    for (let i = 0; i < 20; i++) {
      const run = settle(retry(slowOk, { budget, attemptTimeoutMs: 1_000 }));
      await fake.clock.tickAsync(900);
      expect(run.result.status).toBe('fulfilled');
    }
    const f = failingAfter(1, 1);
    const ok = settle(retry(f.fn, { budget, attemptTimeoutMs: 1_000, maxAttempts: 2 }));
    await fake.clock.runAllAsync();
    expect(ok.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
  });
});

describe('a wrapped budget (the Guard example): retry() accepts what the types allow', () => {
  it('delegating open() and wrapping its pass sees every refusal, and retry() behaves as with the real one', async () => {
    const real = createRetryBudget();
    let refused = 0;
    const counted: RetryBudget = {
      deposit: () => real.deposit(),
      tryWithdraw: () => real.tryWithdraw(),
      available: () => real.available(),
      reset: () => real.reset(),
      open(next) {
        const pass = real.open(next);
        return {
          settle: (...args) => {
            const stop = pass.settle(...args);
            if (stop) refused++;
            return stop;
          },
        };
      },
    };
    const run = settle(retry(failingAfter(600).fn, { budget: counted, attemptTimeoutMs: 1_000, maxAttempts: 3 }));
    await fake.clock.runAllAsync();
    expect((run.result.reason as RetryError).reason).toBe('budget');
    expect(refused).toBe(1);
  });

  it('an object without open() is refused with a clear error, without calling fn', async () => {
    let called = 0;
    const bare = { deposit() {}, tryWithdraw: () => false as const, available: () => 0 };
    await expect(
      retry(
        () => {
          called++;
          return 1;
        },
        { budget: bare as never },
      ),
    ).rejects.toThrow(/^herdless: budget must be a RetryBudget \(createRetryBudget\(\)\)/);
    expect(called).toBe(0);
  });
});
