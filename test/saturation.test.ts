import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Report } from '../src/guard';
import {
  createCircuitBreaker,
  createRetryBudget,
  givenUp,
  type RetryBudget,
  type RetryError,
  retry,
  retryingFetch,
} from '../src/index';
import { delegating, settle, useFakeClock } from './helpers';

const fake = useFakeClock();

/**
 * A budget whose pace step is 10 ms for a lone call: a window of 3 ms (`windowMs`) holds at most its own first
 * attempt, and held retries start at most 0.3 per first attempt over it, one per 3 / 0.3 = 10 ms.
 */
const PACE_10 = { windowMs: 3 } as const;

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

/** fn whose attempt answers 'ok' after `ms` on the fake clock. */
const okAfter = (ms: number) => () => new Promise<string>((resolve) => setTimeout(() => resolve('ok'), ms));

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

  describe('a slow failure overtaken by fast answers is not a queue: it is retried', () => {
    /** A call whose first attempt hangs to its 1 s timeout and whose second succeeds. */
    const hangsOnce = (budget: RetryBudget) => {
      let calls = 0;
      const fn = () => (calls++ === 0 ? new Promise<string>(() => {}) : 'ok');
      return { run: settle(retry(fn, { budget, attemptTimeoutMs: 1_000, maxAttempts: 2 })), calls: () => calls };
    };
    /** `n` calls that each succeed 10 ms after they start, started `every` ms apart. */
    async function fastCalls(budget: RetryBudget, n: number, every: number) {
      for (let i = 0; i < n; i++) {
        await fake.clock.tickAsync(every);
        void retry(okAfter(10), { budget });
      }
    }

    it('three fast successes begun after the slow attempt began: a long tail, retried', async () => {
      const budget = createRetryBudget();
      const call = hangsOnce(budget);
      await fastCalls(budget, 3, 100); // begun at 100, 200, 300 ms, answered 10 ms later
      await fake.clock.runAllAsync();
      expect(call.run.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
      expect(call.calls()).toBe(2);
    });

    it('two are not enough: one or two lucky answers do not decide it', async () => {
      const budget = createRetryBudget();
      const call = hangsOnce(budget);
      await fastCalls(budget, 2, 100);
      await fake.clock.runAllAsync();
      expect((call.run.result.reason as RetryError).reason).toBe('budget');
      expect(call.calls()).toBe(1);
    });

    it('fast successes begun before the slow attempt overtook nothing: a queue serves in turn', async () => {
      const budget = createRetryBudget();
      await fastCalls(budget, 3, 100);
      await fake.clock.tickAsync(50); // all three answered before the slow attempt begins
      const call = hangsOnce(budget);
      await fake.clock.runAllAsync();
      expect((call.run.result.reason as RetryError).reason).toBe('budget');
    });

    it('a 429 with no wait is not overtaken: it says the server is saturated now, whatever answered before it', async () => {
      const budget = createRetryBudget();
      await fastCalls(budget, 3, 100); // begun at 100-300 ms, answered 10 ms later
      await fake.clock.tickAsync(100);
      let calls = 0;
      const throttled = () => {
        calls++;
        return Promise.reject(Object.assign(new Error('slow down'), { status: 429 }));
      };
      const run = settle(retry(throttled, { budget, attemptTimeoutMs: 1_000, maxAttempts: 3 }));
      await fake.clock.runAllAsync();
      expect((run.result.reason as RetryError).reason).toBe('budget');
      expect(calls).toBe(1);
    });

    it('the timeout of an attempt begun before fast answers that came back is overtaken: a hang that has ended', async () => {
      const budget = createRetryBudget();
      const call = hangsOnce(budget); // begins at 0; its 1 s timeout fires after the three below
      await fastCalls(budget, 3, 250);
      await fake.clock.runAllAsync();
      expect(call.run.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
    });

    it('reset() forgets the fast answers: a clock that starts again cannot read old ones as later (review)', async () => {
      let origin = 0;
      const budget = createRetryBudget({ now: () => performance.now() - origin });
      await fake.clock.tickAsync(5_000);
      await fastCalls(budget, 3, 100); // begun at 5.1-5.3 s on the budget's clock
      await fake.clock.tickAsync(100);
      origin = performance.now(); // the clock starts again from 0, as a fresh fake clock in the next test does
      budget.reset();
      const call = hangsOnce(budget); // begins at 0: kept, the old fast starts would overtake it
      await fake.clock.runAllAsync();
      expect((call.run.result.reason as RetryError).reason).toBe('budget');
    });
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

describe('createRetryBudget: most attempts failing holds the retry', () => {
  /** The sleeps `retry()` takes, from onRetry, for a call on `budget` against `fn`. */
  const sleeps = (fn: () => Promise<string>, options: Parameters<typeof retry>[1]) => {
    const delays: number[] = [];
    const run = settle(retry(fn, { ...options, onRetry: ({ delayMs }) => void delays.push(delayMs) }));
    return { delays, run };
  };

  it('once 85% of the last 3 s of attempts failed (4 at least), a retry waits as long as the trouble has lasted, paced', async () => {
    // random 0: the backoff is 0 and a hold of h sleeps exactly h. Each attempt fails after 1 ms. The 4th failure (at
    // 4 ms) is the first with 4 known, all failed: the trouble starts then, and the hold ends a pace step (10 ms) after
    // the trouble's age (0): at 14 ms. Each later hold ends a step after the later of the last one given and now plus
    // the trouble's age: at 15 ms, age 11, 26 + 10 = 36 ms (a sleep of 21); at 37, age 33, 80 ms (43); at 81, 168 (87).
    const dead = failingAfter(1);
    const { delays, run } = sleeps(dead.fn, { budget: createRetryBudget(PACE_10), maxAttempts: 8, random: () => 0 });
    await fake.clock.runAllAsync();
    expect(delays).toEqual([0, 0, 0, 10, 21, 43, 87]);
    expect((run.result.reason as RetryError).reason).toBe('attempts'); // maxAttempts still means what it says
    expect(dead.calls()).toBe(8);
  });

  it('the hold is spread as a Retry-After is: the age plus up to the same again, at most capMs', async () => {
    const { delays } = sleeps(failingAfter(1).fn, {
      budget: createRetryBudget(PACE_10),
      maxAttempts: 7,
      random: () => 0.5,
      baseMs: 2,
      capMs: 2,
    });
    await fake.clock.runAllAsync();
    // Backoffs of 1 ms (0.5 x 2) until the 4th failure at 7 ms: a hold of 10 (age 0, one pace step), spread to
    // 10 + 0.5 x min(capMs 2, 10) = 11 ms; at 19 ms, age 12: 22 -> 23 ms; at 43, age 36: 46 -> 47 ms.
    expect(delays).toEqual([1, 1, 1, 11, 23, 47]);
  });

  it('a success ends the trouble: the next failure is retried at its backoff, with no hold', async () => {
    const budget = createRetryBudget(PACE_10);
    const { delays } = sleeps(failingAfter(1).fn, { budget, maxAttempts: 7, random: () => 0 });
    await fake.clock.runAllAsync();
    expect(delays.at(-1)).toBeGreaterThan(0); // held
    await retry(() => Promise.resolve('ok'), { budget });
    fake.clock.tick(3_000); // the failures leave the window
    const after = sleeps(failingAfter(1, 1).fn, { budget, maxAttempts: 2, random: () => 0 });
    await fake.clock.runAllAsync();
    expect(after.delays).toEqual([0]);
    expect(after.run.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
  });

  it('a held call waits within its deadline: the hold is cut to a quarter of the time left, none for a trouble older than the time left; one over maxRetryAfterMs stops', async () => {
    const past = sleeps(failingAfter(1).fn, {
      budget: createRetryBudget(PACE_10),
      maxAttempts: 12,
      random: () => 0,
      timeoutMs: 100,
    });
    await fake.clock.runAllAsync();
    // Holds of 10 and 21 ms (as above), then at 37 ms a hold of 43 with 63 ms left: cut to a quarter, 15.75 ms. At
    // 53.75 ms the trouble is 49.75 ms old, and its hold (59.75 ms) is longer than the 46.25 ms left: not taken, its
    // retries sleep their own backoff (0, with random 0), rather than waking, cut short, with the others held as the
    // trouble ends. The trouble (from 4 ms) never gets older than the call's whole 100 ms deadline: never ended for it.
    expect(past.delays).toEqual([0, 0, 0, 10, 21, 15.75, 0, 0, 0, 0, 0]);
    expect((past.run.result.reason as RetryError).reason).toBe('attempts');
    const long = sleeps(failingAfter(1).fn, {
      budget: createRetryBudget(PACE_10),
      maxAttempts: 10,
      random: () => 0,
      maxRetryAfterMs: 5,
    });
    await fake.clock.runAllAsync();
    expect(long.delays).toEqual([0, 0, 0]); // a hold of 10 > 5
    expect((long.run.result.reason as RetryError).reason).toBe('budget');
    expect(fake.clock.countTimers()).toBe(0);
  });

  it("the seeds' blip: 1,000 calls through a 4 s outage of fast failures all come through, spread out", async () => {
    const budget = createRetryBudget(PACE_10);
    const until = performance.now() + 4_000;
    const arrivals = new Map<number, number>(); // requests per 100 ms after the outage
    let requests = 0;
    const fn = () =>
      new Promise<string>((resolve, reject) => {
        requests++;
        const t = performance.now();
        if (t >= until) {
          const w = Math.floor((t - until) / 100);
          arrivals.set(w, (arrivals.get(w) ?? 0) + 1);
        }
        setTimeout(() => (t < until ? reject(transient()) : resolve('ok')), 10);
      });
    const runs = Array.from({ length: 1_000 }, () => settle(retry(fn, { budget, maxAttempts: 10 })));
    await fake.clock.tickAsync(120_000);
    expect(runs.filter((r) => r.result.status === 'fulfilled')).toHaveLength(1_000);
    // Without the hold, the failure share refused every retry within the first 100 ms (0 of 1,000 came through).
    expect(Math.max(...arrivals.values())).toBeLessThan(100); // under 1,000 a second in any 100 ms after it
    expect(requests).toBeLessThan(10_000);
  });

  /**
   * The dependency is down: 4 fast failures start the trouble, and a call failing `fails` times, 1 s later, is held
   * 1 s (random 0); 10 ms into the hold.
   */
  async function heldCall(budget: RetryBudget, fails = Infinity) {
    for (let i = 0; i < 4; i++) await settle(retry(failingAfter(1).fn, { budget, maxAttempts: 1 }));
    await fake.clock.tickAsync(1_000);
    const dead = failingAfter(1, fails);
    const run = settle(retry(dead.fn, { budget, maxAttempts: 2, random: () => 0 }));
    await fake.clock.tickAsync(10);
    return { dead, run };
  }

  it('a held retry about to start is refused if the dependency has begun to queue during its hold', async () => {
    const budget = createRetryBudget(PACE_10);
    const { dead, run } = await heldCall(budget);
    // During the hold, another call's attempt takes 600 ms of its 1 s: the dependency came back, and queues.
    const slow = settle(retry(okAfter(600), { budget, attemptTimeoutMs: 1_000 }));
    await fake.clock.runAllAsync();
    expect(slow.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
    expect(run.result.reason).toMatchObject({ reason: 'budget', attempts: 1 });
    expect(dead.calls()).toBe(1); // refused as it was to start: it never fed the queue
  });

  it('a held retry about to start goes if fast answers begun after the slow one overtook it: no queue after all', async () => {
    const budget = createRetryBudget(PACE_10);
    const { dead, run } = await heldCall(budget, 1);
    void retry(okAfter(600), { budget, attemptTimeoutMs: 1_000 }); // slow, as in the test above
    for (let i = 0; i < 3; i++) {
      await fake.clock.tickAsync(100);
      void retry(okAfter(10), { budget, attemptTimeoutMs: 1_000 }); // begun after it, answered first
    }
    await fake.clock.runAllAsync();
    expect(run.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
    expect(dead.calls()).toBe(2);
  });

  it('a retry at its backoff is not asked again: slow successes alone never refuse a fast failure its retry', async () => {
    const budget = createRetryBudget(PACE_10);
    const fast = failingAfter(1, 1);
    const run = settle(retry(fast.fn, { budget, maxAttempts: 2, baseMs: 1_000, random: () => 0.99 }));
    await fake.clock.tickAsync(10);
    const slow = settle(
      retry(() => new Promise<string>((resolve) => setTimeout(() => resolve('ok'), 600)), {
        budget,
        attemptTimeoutMs: 1_000,
      }),
    );
    await fake.clock.runAllAsync();
    expect(slow.result.status).toBe('fulfilled');
    expect(run.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
  });

  it('a broken budget clock found as a held retry is about to start rejects with the failure it follows as cause', async () => {
    let broken = false;
    const budget = createRetryBudget({ now: () => (broken ? Number.NaN : performance.now()) });
    for (let i = 0; i < 4; i++) await settle(retry(failingAfter(1).fn, { budget, maxAttempts: 1 }));
    await fake.clock.tickAsync(100);
    const error = transient();
    const run = settle(
      retry(() => Promise.reject(error), {
        budget,
        maxAttempts: 2,
        random: () => 0,
        onRetry: ({ delayMs }) => {
          expect(delayMs).toBeGreaterThan(0); // held
          broken = true;
        },
      }),
    );
    await fake.clock.runAllAsync();
    expect(run.result.status).toBe('rejected');
    expect((run.result.reason as Error).message).toMatch(/now\(\)/);
    expect((run.result.reason as Error).cause).toBe(error);
  });

  it('a trouble from before a quiet spell is forgotten: a fresh blip is held from its own start (review)', async () => {
    const budget = createRetryBudget(PACE_10);
    // A trouble (4 fast failures), then 2 h without a call: the next trouble's age starts afresh.
    await settle(retry(failingAfter(1).fn, { budget, maxAttempts: 4, random: () => 0 }));
    await fake.clock.runAllAsync();
    fake.clock.tick(2 * 3_600_000);
    const blip = failingAfter(1, 5);
    const { delays, run } = sleeps(blip.fn, { budget, maxAttempts: 6, random: () => 0 });
    await fake.clock.runAllAsync();
    // Before the fix: held 2 h, over maxRetryAfterMs: 'budget' after 4 attempts.
    expect(run.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
    expect(delays).toEqual([0, 0, 0, 10, 21]); // the 4th failure starts this trouble; held as in the first test
  });

  it('a slow success starts no trouble: a later outage is held from its own start (review)', async () => {
    const budget = createRetryBudget(PACE_10);
    await settle(
      retry(() => new Promise<string>((resolve) => setTimeout(() => resolve('ok'), 600)), {
        budget,
        attemptTimeoutMs: 1_000,
      }),
    );
    await fake.clock.runAllAsync();
    fake.clock.tick(50_000);
    const { delays } = sleeps(failingAfter(1).fn, { budget, maxAttempts: 6, random: () => 0 });
    await fake.clock.runAllAsync();
    expect(delays).toEqual([0, 0, 0, 10, 21]);
  });

  it('with a deadline, a held call near its end is no sign of a queue; one begun after the trouble outlasted its deadline ends (review)', async () => {
    // 30 calls, one every 100 ms, on one budget; fast 503s for 3 s, then fine; each call 5 attempts, 1 s attempt
    // timeout. Holds cut near the deadline left attempts a sliver, read as slow (half of what was left, or cut by the
    // deadline): every held retry was then refused, and with a 2 s deadline the budget brought 0 of 30 through (plain:
    // 6). Holds are now judged against the attempt timeout. With a deadline the trouble fits in (5 s), the budget does
    // no worse than plain (27 through, plain 7). With one shorter than the trouble (2 s), a call that fails once the
    // trouble has lasted longer than its whole deadline ends ('budget'): the budget brings through what not retrying
    // does (0 of 30; plain 7), for 91 requests (plain 146). Before, those calls retried at their backoff: 13 through.
    const r = () => 0.5; // the same draws for both: Math.random's made the two counts differ by chance
    const run = async (budget: ReturnType<typeof createRetryBudget> | undefined, timeoutMs: number, attempts = 5) => {
      const start = performance.now();
      let requests = 0;
      const dependency = () =>
        new Promise<string>((resolve, reject) => {
          requests++;
          setTimeout(() => (performance.now() - start < 3_000 ? reject(transient()) : resolve('ok')), 2);
        });
      const calls: ReturnType<typeof settle>[] = [];
      for (let i = 0; i < 30; i++) {
        calls.push(
          settle(retry(dependency, { budget, maxAttempts: attempts, attemptTimeoutMs: 1_000, timeoutMs, random: r })),
        );
        await fake.clock.tickAsync(100);
      }
      await fake.clock.runAllAsync();
      const reasons = calls.map((c) => (c.result.reason as RetryError | undefined)?.reason ?? 'ok');
      return { through: reasons.filter((x) => x === 'ok').length, reasons, requests };
    };
    const plainLong = await run(undefined, 5_000);
    const budgetLong = await run(createRetryBudget(PACE_10), 5_000);
    expect(plainLong.through).toBeGreaterThan(0);
    expect(budgetLong.through).toBeGreaterThanOrEqual(plainLong.through);
    const plain = await run(undefined, 2_000);
    const none = await run(undefined, 2_000, 1);
    const budgeted = await run(createRetryBudget(PACE_10), 2_000);
    expect(plain.through).toBeGreaterThan(0);
    expect(budgeted.through).toBeGreaterThanOrEqual(none.through);
    expect(budgeted.requests).toBeLessThan(plain.requests);
    expect(budgeted.reasons.filter((x) => x === 'budget').length).toBeGreaterThan(10); // 19 here
  });

  it("a trouble older than a call's whole deadline ends it at its failure ('budget'), behind a breaker too", async () => {
    // One call with no deadline keeps the dependency's trouble going (from its 4th failure, at 4 ms). 200 ms in, calls
    // with a deadline begin: one of 100 ms meets a trouble about 196 ms old, older than all it could ever wait, and ends
    // at its first failure; so does one behind a breaker (which forwards the deadline, and stays closed); one of 1 s
    // could wait it out, and is retried.
    const budget = createRetryBudget(PACE_10);
    const keeper = sleeps(failingAfter(1).fn, { budget, maxAttempts: 9, random: () => 0 });
    await fake.clock.tickAsync(200);
    const short = sleeps(failingAfter(1).fn, { budget, maxAttempts: 5, random: () => 0, timeoutMs: 100 });
    const behind = sleeps(failingAfter(1).fn, {
      budget,
      breaker: createCircuitBreaker(),
      maxAttempts: 5,
      random: () => 0,
      timeoutMs: 100,
    });
    const long = sleeps(failingAfter(1).fn, { budget, maxAttempts: 2, random: () => 0, timeoutMs: 1_000 });
    await fake.clock.runAllAsync();
    for (const ended of [short, behind]) {
      expect(ended.delays).toEqual([]);
      expect((ended.run.result.reason as RetryError).reason).toBe('budget');
      expect((ended.run.result.reason as RetryError).attempts).toBe(1);
    }
    expect(long.delays).toHaveLength(1);
    expect((long.run.result.reason as RetryError).reason).toBe('attempts');
    expect((keeper.run.result.reason as RetryError).reason).toBe('attempts');
    expect(fake.clock.countTimers()).toBe(0);
  });

  it("a place in the pace later than the time left is no refusal: a quiet process's call retries at its backoff", async () => {
    // windowMs 300 s: the pace step of a lone call is 1,000 s, longer than any call's time left. The trouble (from the
    // 4th failure, at 4 ms) is young next to the 10 s left: the call is not held (it could not take its place) and
    // not refused; it sleeps its backoff (0 with random 0) until its attempts are spent.
    const { delays, run } = sleeps(failingAfter(1).fn, {
      budget: createRetryBudget({ windowMs: 300_000 }),
      maxAttempts: 8,
      random: () => 0,
      timeoutMs: 10_000,
    });
    await fake.clock.runAllAsync();
    expect(delays).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect((run.result.reason as RetryError).reason).toBe('attempts');
  });

  it("a fast failure near the call's deadline is judged against its attempt timeout, not the sliver left (review)", async () => {
    // The 2nd attempt starts at 990 ms of a 1 s deadline: 10 ms left. It fails fast, in 6 ms: over half of the
    // sliver, but a hundredth of its 1 s attempt timeout. No sign of a queue: it is retried at once (random 0), and the
    // 3rd attempt is cut by the deadline (also no sign of one); the call ends on its deadline, not refused.
    let n = 0;
    let draws = 0;
    const fn = () => new Promise<string>((_, reject) => setTimeout(() => reject(transient()), n++ === 0 ? 1 : 6));
    const run = settle(
      retry(fn, {
        budget: createRetryBudget(PACE_10),
        maxAttempts: 3,
        baseMs: 1_000,
        random: () => (draws++ === 0 ? 0.989 : 0),
        attemptTimeoutMs: 1_000,
        timeoutMs: 1_000,
      }),
    );
    await fake.clock.runAllAsync();
    expect(n).toBe(3); // refused after the 2nd before the fix ('budget')
    expect((run.result.reason as RetryError).reason).toBe('timeout');
  });

  it('a partial failure below the ratio keeps every retry: 1,000 concurrent calls, half failing, none held', async () => {
    const budget = createRetryBudget(PACE_10);
    let n = 0;
    const half = () =>
      new Promise<string>((resolve, reject) => setTimeout(() => (n++ % 2 ? resolve('ok') : reject(transient())), 5));
    const runs = Array.from({ length: 1_000 }, () =>
      settle(retry(half, { budget, maxAttempts: 4, baseMs: 10, maxRetryAfterMs: 0.001 })),
    );
    await fake.clock.tickAsync(60_000); // thousands of timers: more than runAllAsync's loop limit
    // maxRetryAfterMs 0.001: any hold would have ended its call with 'budget'.
    const refused = runs.filter((r) => (r.result.reason as RetryError | undefined)?.reason === 'budget');
    expect(refused).toHaveLength(0);
    expect(runs.filter((r) => r.result.status === 'fulfilled').length).toBeGreaterThan(900);
  });

  it('one instance among many: each budget reads only its own attempts', async () => {
    // A busy instance whose attempts all fail holds its retries; a quiet one that made one call retries its one fast
    // failure at its backoff, as a process of a fleet of 10,000 would.
    const busy = createRetryBudget(PACE_10);
    const quiet = createRetryBudget(PACE_10);
    const fast = failingAfter(1);
    const delays: number[] = [];
    const runs = Array.from({ length: 20 }, () =>
      settle(
        retry(fast.fn, { budget: busy, maxAttempts: 3, random: () => 0, onRetry: (r) => void delays.push(r.delayMs) }),
      ),
    );
    await fake.clock.runAllAsync();
    expect(delays.filter((d) => d > 0).length).toBeGreaterThan(10); // held: every backoff is 0 with random 0
    expect(runs.every((r) => r.result.status === 'rejected')).toBe(true);
    const lonely = sleeps(failingAfter(1, 1).fn, { budget: quiet, maxAttempts: 2, random: () => 0 });
    await fake.clock.runAllAsync();
    expect(lonely.delays).toEqual([0]);
    expect(lonely.run.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
  });

  it('a lone call is never held before its 4th failure: the first 3 retries keep their backoff', async () => {
    const { delays, run } = sleeps(failingAfter(1).fn, {
      budget: createRetryBudget(PACE_10),
      maxAttempts: 5,
      random: () => 0,
    });
    await fake.clock.runAllAsync();
    expect(delays).toEqual([0, 0, 0, 10]); // the 4th failure starts the trouble: a hold of one pace step
    expect((run.result.reason as RetryError).reason).toBe('attempts');
  });

  it('successes count: 10 successes then 1 fast failure is retried at its backoff', async () => {
    const budget = createRetryBudget(PACE_10);
    for (let i = 0; i < 10; i++) await retry(() => 'ok', { budget });
    const f = sleeps(failingAfter(1, 1).fn, { budget, maxAttempts: 2, random: () => 0 });
    await fake.clock.runAllAsync();
    expect(f.delays).toEqual([0]);
    expect(f.run.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
  });

  it('minimumCalls: Infinity turns the rule off; failureRatio and failureWindowMs tune it', async () => {
    const off = sleeps(failingAfter(1).fn, {
      budget: createRetryBudget({ ...PACE_10, minimumCalls: Infinity }),
      maxAttempts: 8,
      random: () => 0,
    });
    await fake.clock.runAllAsync();
    expect(off.delays).toEqual([0, 0, 0, 0, 0, 0, 0]);
    const strict = createRetryBudget({ ...PACE_10, failureRatio: 0.5, minimumCalls: 2, failureWindowMs: 100 });
    const two = sleeps(failingAfter(1).fn, { budget: strict, maxAttempts: 5, random: () => 0 });
    await fake.clock.runAllAsync();
    expect(two.delays).toEqual([0, 10, 21, 43]); // the trouble starts at the 2nd failure
  });

  it('reset() forgets the trouble: the next failure starts a new one', async () => {
    const budget = createRetryBudget(PACE_10);
    await fake.clock.runAllAsync();
    const first = sleeps(failingAfter(1).fn, { budget, maxAttempts: 6, random: () => 0 });
    await fake.clock.runAllAsync();
    expect(first.delays).toEqual([0, 0, 0, 10, 21]);
    budget.reset();
    const again = sleeps(failingAfter(1).fn, { budget, maxAttempts: 6, random: () => 0 });
    await fake.clock.runAllAsync();
    // Not held by the age of the trouble before the reset, nor behind the holds it gave.
    expect(again.delays).toEqual([0, 0, 0, 10, 21]);
  });

  it('property: a held retry never sleeps less than its backoff, and each hold at most triples the last', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        fc.integer({ min: 5, max: 9 }),
        async (r, attempts) => {
          const budget = createRetryBudget(PACE_10);
          const { delays } = sleeps(failingAfter(1).fn, {
            budget,
            maxAttempts: attempts,
            random: () => r,
            baseMs: 1,
            capMs: 1,
          });
          await fake.clock.runAllAsync();
          expect(delays).toHaveLength(attempts - 1);
          for (const d of delays) expect(d).toBeGreaterThanOrEqual(r * 1 - 1e-9);
          // After the trouble starts (the 4th failure), each hold ends a step after the age (about the last sleep
          // plus the ones before it) and is spread by up to as much again: at most threefold.
          for (let k = 5; k < delays.length; k++)
            expect(delays[k] as number).toBeLessThanOrEqual(3 * ((delays[k - 1] as number) + 1) + 1e-9);
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe('createRetryBudget: held retries are paced', () => {
  it('property: held retries start at most 0.3 per first attempt over windowMs, however many calls are held', () => {
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 3_000 }), fc.integer({ min: 1, max: 60_000 }), (n, windowMs) => {
        let now = 0;
        const budget = createRetryBudget({ windowMs, now: () => now });
        // n calls begin together (n first attempts in the window), and all fail fast a moment later.
        const passes = Array.from({ length: n }, () => {
          const pass = budget.open();
          pass.settle(Report.START);
          return pass;
        });
        now += Math.min(1, windowMs / 2);
        const holds = passes.map((pass) => pass.settle(Report.FAILURE, transient(), 1, 1_000));
        // The first 3 are too few to know the dependency is down (minimumCalls 4): retried at their backoff.
        expect(holds.slice(0, 3)).toEqual([undefined, undefined, undefined]);
        // The trouble starts at the 4th, age 0: the holds end one step apart, a step of windowMs / (0.3 x n).
        const step = windowMs / (0.3 * n);
        for (const [i, hold] of holds.slice(3).entries()) expect(hold).toBeCloseTo((i + 1) * step, 6);
      }),
      { numRuns: 100 },
    );
  });

  it('a held retry that never starts gives its step back: calls that cannot retry push no hold later', () => {
    let now = 0;
    const budget = createRetryBudget({ now: () => now });
    // 104 calls begin together; a step is 10 s over 0.3 x 104 first attempts.
    const passes = Array.from({ length: 104 }, () => {
      const pass = budget.open();
      pass.settle(Report.START);
      return pass;
    });
    const step = 10_000 / (0.3 * 104);
    let next = 0;
    /** The next call's attempt fails fast; its call then ends (its last attempt), or its held retry starts. */
    const fail = (goes = false) => {
      const pass = passes[next++] as (typeof passes)[number];
      const hold = pass.settle(Report.FAILURE, transient(), 1, 1_000) as number;
      if (!goes) pass.settle(Report.RELEASE);
      else {
        now += hold; // it sleeps its hold out
        pass.settle(Report.START);
      }
      return hold;
    };
    const ending = Array.from({ length: 100 }, () => fail());
    // 3 too few to know; then 97 holds, each given back as its call ends: every one a single step.
    for (const hold of ending.slice(3)) expect(hold).toBeCloseTo(step, 6);
    expect(fail(true)).toBeCloseTo(step, 6); // taken: the trouble is step old when it starts
    expect(fail(true)).toBeCloseTo(2 * step, 6); // its place: after the age (2 steps from the start), one step on
    const ended = fail(); // 3 steps old: 6 steps from the start, one on: 4 from now
    expect(ended).toBeCloseTo(4 * step, 6);
    expect(fail()).toBeCloseTo(ended, 6); // the step the ended call took was given back
  });

  it('a held retry that starts before its place came (its deadline cut the hold) gives its step back', () => {
    let now = 0;
    const budget = createRetryBudget({ now: () => now });
    const passes = Array.from({ length: 6 }, () => {
      const pass = budget.open();
      pass.settle(Report.START);
      return pass;
    });
    const step = 10_000 / (0.3 * 6);
    const holds = passes.map((pass) => pass.settle(Report.FAILURE, transient(), 1, 1_000));
    expect(holds.slice(3)).toEqual([step, 2 * step, 3 * step].map((ms) => expect.closeTo(ms, 6)));
    now = step / 2; // the 6th starts early (cut, or slept its backoff): its place is free again
    passes[5]?.settle(Report.START);
    const pass = budget.open();
    pass.settle(Report.START);
    // The next hold takes the 6th's place, after the 5th's (2 steps from the start), one step on (now 7 first
    // attempts: 10 s / 2.1), less the half step gone by; without the 6th's step given back, one step later still.
    expect(pass.settle(Report.FAILURE, transient(), 1, 1_000)).toBeCloseTo(2 * step + 10_000 / 2.1 - step / 2, 6);
  });

  it('a hold is never shorter than the trouble is old: the pace only spreads the calls held further', () => {
    let now = 0;
    const budget = createRetryBudget({ now: () => now });
    const calls = Array.from({ length: 3_000 }, () => {
      const pass = budget.open();
      pass.settle(Report.START);
      return pass;
    });
    for (const pass of calls.slice(0, 4)) pass.settle(Report.FAILURE, transient(), 1, 1_000); // the trouble starts
    now = 2_000; // 2 s into it, with 3,000 first attempts in the last 10 s: a step of 10,000 / 900 = 11.1 ms
    const hold = calls[4]?.settle(Report.FAILURE, transient(), 1, 1_000) as number;
    expect(hold).toBeCloseTo(2_000 + 10_000 / 900, 6);
    // 12.5 s in, the first attempts have left the 10 s window, and the failures the 3 s one: 4 more failures start a
    // new trouble (age 0), and the pace counts one first attempt (none in the window), a step of 10,000 / 0.3 ms.
    now = 12_500;
    const late = calls.slice(5, 9).map((pass) => pass.settle(Report.FAILURE, transient(), 1, 1_000));
    expect(late.slice(0, 3)).toEqual([undefined, undefined, undefined]);
    expect(late[3]).toBeCloseTo(10_000 / 0.3, 6);
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
    const counted = delegating(real, (stop) => {
      if (stop) refused++;
    });
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
