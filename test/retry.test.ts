import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createCircuitBreaker,
  createPolicy,
  createRetryBudget,
  type RetryContext,
  RetryError,
  type RetryEvent,
  retry,
} from '../src/index';
import { knownOptions } from '../src/policy';
import { draws, seeded, settle, useFakeClock } from './helpers';

const fake = useFakeClock();
const T0 = 1_005_000; // the fake clock's time when each test starts (see useFakeClock)

/** An error the default classifier retries. */
const transient = (message = 'blip') => Object.assign(new Error(message), { status: 503 });

/** fn that fails with the given errors in order, then returns 'ok'; records each attempt's context. */
function failing(...errors: unknown[]) {
  const contexts: RetryContext[] = [];
  const fn = vi.fn((ctx: RetryContext) => {
    contexts.push(ctx);
    const error = errors[contexts.length - 1];
    return error === undefined ? Promise.resolve('ok') : Promise.reject(error);
  });
  return { fn, contexts };
}

/** A promise that never settles. */
const never = () => new Promise<never>(() => {});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('retry: outcomes', () => {
  it('resolves with the value at the first attempt, with no timer and context attempt 1, elapsed 0', async () => {
    const { fn, contexts } = failing();
    await expect(retry(fn)).resolves.toBe('ok');
    expect(fn).toHaveBeenCalledTimes(1);
    expect(contexts[0]).toMatchObject({ attempt: 1, elapsedMs: 0 });
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('accepts a synchronous fn, and a synchronous throw', async () => {
    await expect(retry(() => 42)).resolves.toBe(42);
    const boom = new SyntaxError('bad');
    await expect(
      retry(() => {
        throw boom;
      }),
    ).rejects.toBe(boom);
  });

  it('retries transient failures after the computed delays, then resolves', async () => {
    const { fn, contexts } = failing(transient(), transient());
    const run = settle(retry(fn, { random: () => 0.5 }));
    await fake.clock.tickAsync(0);
    expect(fn).toHaveBeenCalledTimes(1);
    await fake.clock.tickAsync(49); // first delay: 0.5 * 100 = 50
    expect(fn).toHaveBeenCalledTimes(1);
    await fake.clock.tickAsync(1);
    expect(fn).toHaveBeenCalledTimes(2);
    await fake.clock.tickAsync(100); // second delay: 0.5 * 200
    expect(run.result).toEqual({ status: 'fulfilled', value: 'ok', reason: undefined });
    expect(contexts.map((c) => [c.attempt, c.elapsedMs])).toEqual([
      [1, 0],
      [2, 50],
      [3, 150],
    ]);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('rejects with a permanent error itself, after one call', async () => {
    const bad = Object.assign(new Error('not found'), { status: 404 });
    const { fn } = failing(bad);
    await expect(retry(fn)).rejects.toBe(bad);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('gives up with RetryError reason attempts, every error in order, the last as cause', async () => {
    const errors = [transient('one'), transient('two'), transient('three')];
    const { fn } = failing(...errors);
    const run = settle(retry(fn, { random: () => 0 }));
    await fake.clock.runAllAsync();
    const error = run.result.reason as RetryError;
    expect(error).toBeInstanceOf(RetryError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('RetryError');
    expect(error.reason).toBe('attempts');
    expect(error.attempts).toBe(3);
    expect(error.errors).toEqual(errors);
    expect(error.errors[0]).toBe(errors[0]);
    expect(error.cause).toBe(errors[2]);
    expect(error.elapsedMs).toBe(0);
    expect(error.message).toBe('gave up after 3 attempts over 0 ms (maxAttempts 3): three');
    expect(Object.isFrozen(error.errors)).toBe(true);
    expect(fn).toHaveBeenCalledTimes(3);
  });

  it('maxAttempts 1 never retries; the message is singular', async () => {
    const { fn } = failing(transient('x'));
    const error = await retry(fn, { maxAttempts: 1 }).catch((e: RetryError) => e);
    expect(error).toMatchObject({
      reason: 'attempts',
      attempts: 1,
      message: 'gave up after 1 attempt over 0 ms (maxAttempts 1): x',
    });
  });

  it("the message names a network error's code, which fetch keeps in its cause (new-user review)", async () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
    });
    const error = await retry(() => Promise.reject(refused), { maxAttempts: 1 }).catch((e: RetryError) => e);
    expect(error.message).toBe('gave up after 1 attempt over 0 ms (maxAttempts 1): fetch failed (ECONNREFUSED)');
    expect(error.cause).toBe(refused);
  });

  it('a thrown string is retried and kept as the cause', async () => {
    const { fn } = failing('nope', 'nope', 'nope');
    const run = settle(retry(fn, { baseMs: 0 }));
    await fake.clock.tickAsync(0);
    expect(run.result.reason).toBeInstanceOf(RetryError);
    expect(run.result.reason).toMatchObject({
      reason: 'attempts',
      attempts: 3,
      errors: ['nope', 'nope', 'nope'],
      cause: 'nope',
      message: 'gave up after 3 attempts over 0 ms (maxAttempts 3): nope',
    });
    expect(fn).toHaveBeenCalledTimes(3);
  });

  it('a delay of 0 does not go through setTimeout', async () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const { fn } = failing(transient(), transient());
    await expect(retry(fn, { baseMs: 0 })).resolves.toBe('ok');
    expect(spy).not.toHaveBeenCalled();
    expect(fn).toHaveBeenCalledTimes(3);
  });

  it('the success path creates no AbortController and no timer unless fn reads signal', async () => {
    const created = vi.fn();
    const Original = globalThis.AbortController;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        created();
      }
    };
    try {
      await retry(() => 1);
      await retry(() => 1, { maxAttempts: 5 });
      expect(created).not.toHaveBeenCalled();
      const signal = await retry((ctx) => ctx.signal);
      expect(created).toHaveBeenCalledTimes(1);
      expect(signal.aborted).toBe(false);
    } finally {
      globalThis.AbortController = Original;
    }
  });

  it('reading ctx.signal twice gives the same signal', async () => {
    // Compared outside fn: a failed expect inside it would be retried as a transient error.
    const [first, second] = await retry((ctx) => [ctx.signal, ctx.signal]);
    expect(first).toBeInstanceOf(AbortSignal);
    expect(second).toBe(first);
  });

  it('errors holds the failed attempts only, not the retried results', async () => {
    const boom = transient('late');
    const run = retry(
      (ctx) => {
        if (ctx.attempt === 3) throw boom;
        return ctx.attempt;
      },
      { shouldRetryResult: () => true, baseMs: 0 },
    );
    const error = (await run.catch((e: unknown) => e)) as RetryError;
    expect(error.errors).toEqual([boom]);
    expect(error.attempts).toBe(3);
  });

  it('each attempt gets a fresh signal', async () => {
    const signals: AbortSignal[] = [];
    const run = retry(
      (ctx) => {
        signals.push(ctx.signal);
        if (ctx.attempt < 3) throw transient();
        return 'done';
      },
      { baseMs: 0 },
    );
    await expect(run).resolves.toBe('done');
    expect(new Set(signals).size).toBe(3);
  });
});

describe('retry: isTransient, shouldRetryResult, onRetry', () => {
  it('a custom isTransient replaces the default, gets the attempt, and may be async', async () => {
    const isTransient = vi.fn(async (error: unknown, _attempt: number) => (error as Error).message === 'again');
    const { fn } = failing(new TypeError('again'), new Error('stop'));
    const run = settle(retry(fn, { isTransient, baseMs: 0 }));
    await fake.clock.tickAsync(0);
    expect(run.result.reason).toMatchObject({ message: 'stop' });
    expect(isTransient.mock.calls.map((c) => c[1])).toEqual([1, 2]);
  });

  it('rejects with what isTransient threw', async () => {
    const thrown = new Error('classifier broke');
    const { fn } = failing(transient());
    await expect(
      retry(fn, {
        isTransient: () => {
          throw thrown;
        },
      }),
    ).rejects.toBe(thrown);
  });

  it('retries a value that shouldRetryResult rejects, and resolves with the last value when out of attempts', async () => {
    const fn = vi.fn((ctx: RetryContext) => ({ status: 503, n: ctx.attempt }));
    const shouldRetryResult = vi.fn((value: { status: number }, _attempt: number) => value.status === 503);
    const run = settle(retry(fn, { shouldRetryResult, baseMs: 0 }));
    await fake.clock.tickAsync(0);
    expect(run.result).toMatchObject({ status: 'fulfilled', value: { n: 3 } });
    expect(shouldRetryResult.mock.calls.map((c) => c[1])).toEqual([1, 2, 3]);
  });

  it('stops retrying results as soon as one is accepted', async () => {
    const fn = vi.fn((ctx: RetryContext) => ctx.attempt);
    await expect(retry(fn, { shouldRetryResult: (n) => n < 2, baseMs: 0 })).resolves.toBe(2);
  });

  it('rejects with what shouldRetryResult threw, not as an attempt failure', async () => {
    const thrown = new Error('predicate broke');
    const fn = vi.fn(() => 1);
    const result = retry(fn, {
      shouldRetryResult: () => {
        throw thrown;
      },
    });
    await expect(result).rejects.toBe(thrown);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('calls onRetry before each sleep with a frozen event whose delayMs is the sleep, exactly', async () => {
    const events: RetryEvent[] = [];
    const { fn } = failing(transient('a'), transient('b'));
    const run = settle(retry(fn, { random: draws(0.25, 0.75), onRetry: (e) => void events.push(e) }));
    await fake.clock.tickAsync(0);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      attempt: 1,
      delayMs: 25,
      elapsedMs: 0,
      error: expect.objectContaining({ message: 'a' }),
    });
    expect(Object.isFrozen(events[0])).toBe(true);
    await fake.clock.tickAsync(25);
    expect(events[1]).toMatchObject({ attempt: 2, delayMs: 150, elapsedMs: 25 });
    await fake.clock.tickAsync(149);
    expect(run.result.status).toBe('pending');
    await fake.clock.tickAsync(1);
    expect(run.result.status).toBe('fulfilled');
  });

  it('onRetry for a result carries the value, not an error', async () => {
    const events: RetryEvent[] = [];
    await retry((ctx) => ctx.attempt, {
      shouldRetryResult: (n) => n < 2,
      baseMs: 0,
      onRetry: (e) => void events.push(e),
    });
    expect(events[0]).toMatchObject({ attempt: 1, error: undefined, value: 1 });
  });

  it('awaits onRetry before sleeping, and rejects with what it threw', async () => {
    let release = () => {};
    const onRetry = vi.fn(() => new Promise<void>((r) => (release = r)));
    const { fn } = failing(transient());
    const run = settle(retry(fn, { onRetry, random: () => 0.5 }));
    await fake.clock.tickAsync(500);
    expect(fn).toHaveBeenCalledTimes(1); // still waiting for onRetry
    release();
    await fake.clock.tickAsync(50);
    expect(run.result.status).toBe('fulfilled');

    const thrown = new Error('hook broke');
    await expect(
      retry(failing(transient()).fn, {
        onRetry: () => {
          throw thrown;
        },
      }),
    ).rejects.toBe(thrown);
  });

  it('a seeded random makes a whole run reproducible: the same delays, pinned', async () => {
    const run = async () => {
      const delays: number[] = [];
      const p = settle(
        retry(failing(transient(), transient(), transient(), transient()).fn, {
          maxAttempts: 5,
          jitter: 'decorrelated',
          random: seeded(42),
          onRetry: (e) => void delays.push(e.delayMs),
        }),
      );
      await fake.clock.runAllAsync();
      expect(p.result.status).toBe('fulfilled');
      return delays;
    };
    const first = await run();
    // seeded(42)'s draws through the post's decorrelated formula, sleep = min(10000, random_between(100, 3 * sleep)):
    expect(first.map((d) => Math.round(d * 1e6) / 1e6)).toEqual([220.22075, 351.339594, 913.268378, 1_867.967361]);
    expect(await run()).toEqual(first);
  });

  it('decorrelated jitter grows from the previous backoff', async () => {
    const delays: number[] = [];
    const run = settle(
      retry(failing(transient(), transient()).fn, {
        jitter: 'decorrelated',
        random: () => 0.5,
        onRetry: (e) => void delays.push(e.delayMs),
      }),
    );
    await fake.clock.runAllAsync();
    expect(run.result.status).toBe('fulfilled');
    expect(delays).toEqual([200, 350]); // 100 + 0.5 * (300 - 100); 100 + 0.5 * (600 - 100)
  });
});

describe('retry: deadline and attempt timeout', () => {
  it('does not start a sleep that would end at or after the deadline: gives up at once', async () => {
    const { fn } = failing(transient('1'), transient('2'), transient('3'));
    const run = settle(retry(fn, { jitter: 'none', timeoutMs: 300, maxAttempts: 10 }));
    await fake.clock.tickAsync(100); // attempt 2 at 100; its delay 200 would end at 300 = the deadline
    expect(run.result.status).toBe('rejected');
    expect(fake.clock.now - T0).toBe(100);
    expect(run.result.reason).toMatchObject({ reason: 'timeout', attempts: 2, elapsedMs: 100 });
    expect((run.result.reason as Error).message).toBe('gave up after 2 attempts over 100 ms (timeoutMs 300): 2');
    expect(fn).toHaveBeenCalledTimes(2);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('aborts and abandons an attempt still running at the deadline, at that moment', async () => {
    let seen: AbortSignal | undefined;
    const run = settle(
      retry(
        (ctx) => {
          seen = ctx.signal;
          return never();
        },
        { timeoutMs: 1_000 },
      ),
    );
    await fake.clock.tickAsync(999);
    expect(run.result.status).toBe('pending');
    await fake.clock.tickAsync(1);
    const error = run.result.reason as RetryError;
    expect(error).toMatchObject({ reason: 'timeout', attempts: 1, elapsedMs: 1_000 });
    expect(error.cause).toBeInstanceOf(DOMException);
    expect((error.cause as DOMException).name).toBe('TimeoutError');
    expect((error.cause as DOMException).message).toBe('herdless: deadline (timeoutMs 1000) passed');
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBe(error.cause);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('abandons a later attempt at the deadline, not a full deadline after it started', async () => {
    const fn = vi.fn((ctx: RetryContext) => (ctx.attempt === 1 ? Promise.reject(transient()) : never()));
    const run = settle(retry(fn, { timeoutMs: 1_000, random: () => 0.5 }));
    await fake.clock.tickAsync(50); // attempt 2 starts at 50
    expect(fn).toHaveBeenCalledTimes(2);
    await fake.clock.tickAsync(949);
    expect(run.result.status).toBe('pending');
    await fake.clock.tickAsync(1);
    expect(run.result.reason).toMatchObject({ reason: 'timeout', attempts: 2, elapsedMs: 1_000 });
  });

  it('a signal read only after the attempt was abandoned is already aborted', async () => {
    let late: RetryContext | undefined;
    const run = settle(
      retry(
        (ctx) => {
          late = ctx;
          return never();
        },
        { timeoutMs: 10 },
      ),
    );
    await fake.clock.tickAsync(10);
    expect(run.result.status).toBe('rejected');
    expect(late?.signal.aborted).toBe(true);
    expect((late!.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('an attempt timeout aborts the attempt and counts as transient, without asking isTransient', async () => {
    const isTransient = vi.fn(() => false);
    const signals: AbortSignal[] = [];
    const fn = vi.fn((ctx: RetryContext) => {
      signals.push(ctx.signal);
      return ctx.attempt === 1 ? never() : Promise.resolve('second');
    });
    const run = settle(retry(fn, { attemptTimeoutMs: 500, isTransient, random: () => 0.5 }));
    await fake.clock.tickAsync(500);
    expect(signals[0]?.aborted).toBe(true);
    expect((signals[0]!.reason as DOMException).name).toBe('TimeoutError');
    expect((signals[0]!.reason as DOMException).message).toBe('herdless: attemptTimeoutMs 500 passed');
    await fake.clock.tickAsync(50);
    expect(run.result).toMatchObject({ status: 'fulfilled', value: 'second' });
    expect(isTransient).not.toHaveBeenCalled();
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('attempt timeouts every time end in RetryError reason attempts with TimeoutErrors', async () => {
    const run = settle(retry(() => never(), { attemptTimeoutMs: 100, baseMs: 0 }));
    await fake.clock.tickAsync(300);
    const error = run.result.reason as RetryError;
    expect(error).toMatchObject({ reason: 'attempts', attempts: 3, elapsedMs: 300 });
    expect(error.errors.map((e) => (e as DOMException).name)).toEqual(['TimeoutError', 'TimeoutError', 'TimeoutError']);
  });

  it('the deadline wins over a longer attempt timeout', async () => {
    const run = settle(retry(() => never(), { attemptTimeoutMs: 5_000, timeoutMs: 700 }));
    await fake.clock.tickAsync(700);
    expect(run.result.reason).toMatchObject({
      reason: 'timeout',
      attempts: 1,
      elapsedMs: 700,
      message: 'gave up after 1 attempt over 700 ms (timeoutMs 700): herdless: deadline (timeoutMs 700) passed',
    });
    expect((run.result.reason as RetryError).errors[0]).toMatchObject({ name: 'TimeoutError' });
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('maxAttempts Infinity retries until the deadline', async () => {
    const fn = vi.fn(() => Promise.reject(transient()));
    const run = settle(retry(fn, { maxAttempts: Infinity, timeoutMs: 1_000, jitter: 'none', baseMs: 100, factor: 1 }));
    await fake.clock.runAllAsync();
    expect(run.result.reason).toMatchObject({ reason: 'timeout', attempts: 10 }); // at 0, 100, ..., 900
    expect(fake.clock.now - T0).toBe(900);
  });

  it('gives up when onRetry took so long that the sleep would cross the deadline', async () => {
    const { fn } = failing(transient());
    const run = settle(
      retry(fn, {
        timeoutMs: 1_000,
        random: () => 0.5,
        onRetry: () => new Promise<void>((r) => setTimeout(r, 990)),
      }),
    );
    await fake.clock.runAllAsync();
    // Given up when onRetry returned at 990 (990 + the 50 ms sleep >= 1000), not after sleeping to 1040.
    expect(run.result.reason).toMatchObject({ reason: 'timeout', attempts: 1, elapsedMs: 990 });
    expect(fake.clock.now - T0).toBe(990);
    expect(fake.clock.countTimers()).toBe(0);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('a sleep timer that fires late, after the deadline, starts no attempt: gives up with timeout', async () => {
    const fn = vi.fn(() => Promise.reject(transient()));
    const run = settle(retry(fn, { timeoutMs: 100, random: () => 0.5, maxAttempts: 5 }));
    await fake.clock.tickAsync(0);
    expect(fn).toHaveBeenCalledTimes(1);
    // Simulate an event loop stall: performance.now() moves past the deadline before the 50 ms sleep's timer runs.
    const stalled = vi.spyOn(performance, 'now').mockReturnValue(performance.now() + 10_000);
    await fake.clock.tickAsync(50);
    stalled.mockRestore();
    expect(run.result.reason).toMatchObject({ reason: 'timeout', attempts: 1 });
    expect(fn).toHaveBeenCalledTimes(1);
  });
});

describe('retry: abort', () => {
  it('an already aborted signal rejects with its reason without calling fn', async () => {
    const controller = new AbortController();
    const why = new Error('user left');
    controller.abort(why);
    const fn = vi.fn();
    await expect(retry(fn, { signal: controller.signal })).rejects.toBe(why);
    expect(fn).not.toHaveBeenCalled();
  });

  it('an abort during an attempt rejects at once with the same reason, even when fn ignores its signal', async () => {
    const controller = new AbortController();
    const why = { any: 'reason object' };
    let seen: AbortSignal | undefined;
    const run = settle(
      retry(
        (ctx) => {
          seen = ctx.signal;
          return never();
        },
        { signal: controller.signal, attemptTimeoutMs: 10_000 },
      ),
    );
    await fake.clock.tickAsync(10);
    controller.abort(why);
    await Promise.resolve();
    await Promise.resolve();
    expect(run.result.reason).toBe(why);
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBe(why);
    expect(fake.clock.countTimers()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('an abort during a sleep rejects at once and clears the timer', async () => {
    const controller = new AbortController();
    const { fn } = failing(transient());
    const run = settle(retry(fn, { signal: controller.signal, random: () => 0.5 }));
    await fake.clock.tickAsync(10);
    expect(fake.clock.countTimers()).toBe(1);
    controller.abort();
    await Promise.resolve();
    await Promise.resolve();
    expect(run.result.reason).toBe(controller.signal.reason);
    expect((run.result.reason as DOMException).name).toBe('AbortError');
    expect(fake.clock.countTimers()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('an abort while isTransient runs rejects with the reason once it returns', async () => {
    const controller = new AbortController();
    const { fn } = failing(transient());
    const run = retry(fn, {
      signal: controller.signal,
      baseMs: 0, // no sleep follows, so only the check after isTransient can see the abort
      isTransient: async () => {
        controller.abort('stop');
        return true;
      },
    });
    await expect(run).rejects.toBe('stop');
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('an abort in onRetry rejects with the reason and does not sleep', async () => {
    const controller = new AbortController();
    const { fn } = failing(transient());
    const run = retry(fn, { signal: controller.signal, baseMs: 0, onRetry: () => controller.abort('bye') });
    await expect(run).rejects.toBe('bye');
    expect(fn).toHaveBeenCalledTimes(1);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('a signal aborted synchronously inside fn is seen', async () => {
    const controller = new AbortController();
    const run = retry(
      () => {
        controller.abort('inside');
        return never();
      },
      { signal: controller.signal },
    );
    await expect(run).rejects.toBe('inside');
  });

  it('a long-lived signal used by 100,000 calls holds no listener afterwards', async () => {
    // Nothing here waits on a timer, so the fake clock can stay; each call adds and removes one listener.
    const controller = new AbortController();
    const policy = createPolicy({ signal: controller.signal });
    let peak = 0;
    for (let i = 0; i < 100_000; i++) {
      await retry(async ({ signal }) => {
        await null;
        peak = Math.max(peak, getEventListeners(controller.signal, 'abort').length);
        return signal.aborted ? -1 : i; // reading the attempt's signal makes the call listen at once
      }, policy);
    }
    expect(peak).toBe(1); // the listener was there during the call
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  // (That a call whose attempt settles at once touches neither is tested on the real clock: fake-clocks.test.ts.)
  it('a call whose attempt has to wait listens and arms its timer, and lets go of both when it settles', async () => {
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const policy = createPolicy({ signal: controller.signal, timeoutMs: 5_000, attemptTimeoutMs: 1_000 });
    const later = retry(() => new Promise((r) => setTimeout(r, 10, 'later')), policy);
    await fake.clock.tickAsync(0);
    expect(fake.clock.countTimers()).toBe(2); // fn's own and the attempt's (min of attemptTimeoutMs and deadline)
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    await fake.clock.tickAsync(10);
    await expect(later).resolves.toBe('later');
    expect(add).toHaveBeenCalledTimes(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('an abort while already listening, before the pending attempt is waited on, still lands (review)', async () => {
    const why = new Error('shutdown');
    // fn reads its signal (so the call listens at once) and aborts before returning a promise that never settles.
    const first = new AbortController();
    const run1 = settle(
      retry(
        (ctx) => {
          void ctx.signal;
          first.abort(why);
          return new Promise(() => {});
        },
        { signal: first.signal, timeoutMs: 100 },
      ),
    );
    // The second attempt aborts in a microtask, after an earlier attempt made the call listen.
    const second = new AbortController();
    const run2 = settle(
      retry(
        (ctx) => {
          if (ctx.attempt === 1) return new Promise((_, reject) => setTimeout(reject, 5, new Error('flaky')));
          queueMicrotask(() => second.abort(why));
          return new Promise(() => {});
        },
        { signal: second.signal, baseMs: 0, timeoutMs: 1_000, isTransient: () => true },
      ),
    );
    // isTransient aborts in a microtask and never settles.
    const third = new AbortController();
    const run3 = settle(
      retry(
        (ctx) => {
          void ctx.signal;
          throw new Error('flaky');
        },
        {
          signal: third.signal,
          isTransient: () => {
            queueMicrotask(() => third.abort(why));
            return new Promise<boolean>(() => {});
          },
        },
      ),
    );
    await fake.clock.tickAsync(5);
    for (const run of [run1, run2, run3])
      expect(run.result).toEqual({ status: 'rejected', value: undefined, reason: why });
    expect(fake.clock.countTimers()).toBe(0);
    for (const c of [first, second, third]) expect(getEventListeners(c.signal, 'abort')).toHaveLength(0);
  });

  it('reading the signal of a context after its call settled does not subscribe again (review: a leak)', async () => {
    const controller = new AbortController();
    const kept: RetryContext[] = [];
    for (let i = 0; i < 3; i++) {
      await retry(
        (ctx) => {
          kept.push(ctx);
          return i;
        },
        { signal: controller.signal },
      );
    }
    for (const ctx of kept) expect(ctx.signal.aborted).toBe(false);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    controller.abort('later');
    for (const ctx of kept) expect(ctx.signal.aborted).toBe(false); // the calls are over: nothing of theirs to stop
  });

  it('an abort from the breaker admitting the attempt (onStateChange) means fn is never called', async () => {
    const controller = new AbortController();
    const breaker = createCircuitBreaker({
      consecutiveFailures: 1,
      breakMs: 100,
      onStateChange: ({ to }) => {
        if (to === 'half-open') controller.abort('stop');
      },
    });
    await expect(retry(() => Promise.reject(new Error('down')), { breaker, maxAttempts: 1 })).rejects.toThrow();
    await fake.clock.tickAsync(100); // the break has elapsed: the next admission turns it half-open
    const fn = vi.fn(() => 'ok');
    await expect(retry(fn, { breaker, signal: controller.signal })).rejects.toBe('stop');
    expect(fn).not.toHaveBeenCalled();
  });

  it('an abort from a hook that runs after the last check (retryAfter, onStateChange) still wins (review)', async () => {
    const why = new Error('shutdown');
    const a = new AbortController();
    const byReader = retry(
      () => {
        throw Object.assign(new Error('busy'), { status: 503 });
      },
      { signal: a.signal, maxAttempts: 1, retryAfter: () => void a.abort(why) },
    );
    await expect(byReader).rejects.toBe(why);
    const b = new AbortController();
    const breaker = createCircuitBreaker({
      consecutiveFailures: 1,
      onStateChange: ({ to }) => {
        if (to === 'closed') b.abort(why);
      },
    });
    await expect(retry(() => Promise.reject(new Error('down')), { breaker, maxAttempts: 1 })).rejects.toThrow();
    await fake.clock.tickAsync(5_000); // half-open: the next call is the probe, and its success closes the breaker
    await expect(retry(async () => 'ok', { breaker, signal: b.signal })).rejects.toBe(why);
  });

  it('an abort between the attempt returning a pending promise and the call listening still lands', async () => {
    const controller = new AbortController();
    let stopped: unknown;
    const run = retry(
      (ctx) => {
        // Queued before herdless's own check for a pending attempt: the abort comes before it listens.
        queueMicrotask(() => controller.abort('between'));
        return new Promise((_, reject) => {
          queueMicrotask(() => {
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
            stopped = ctx.signal.aborted ? ctx.signal.reason : 'still running';
          });
        });
      },
      { signal: controller.signal, timeoutMs: 60_000 },
    );
    await expect(run).rejects.toBe('between');
    expect(stopped).toBe('between'); // the attempt's signal was aborted too
    expect(fake.clock.countTimers()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('retry: nothing is lost', () => {
  it('an abandoned attempt that rejects later causes no unhandled rejection', async () => {
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      let rejectLater: (e: unknown) => void = () => {};
      const run = settle(
        retry(
          (ctx) => (ctx.attempt === 1 ? new Promise((_, reject) => (rejectLater = reject)) : Promise.resolve('fine')),
          { attemptTimeoutMs: 10, baseMs: 0 },
        ),
      );
      await fake.clock.tickAsync(10);
      expect(run.result.status).toBe('fulfilled');
      rejectLater(new Error('too late'));
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  it('waits longer than setTimeout can hold (2^31 - 1 ms) are chained, not fired early', async () => {
    const huge = 2 ** 31 + 1_000;
    const error = Object.assign(transient(), { headers: { 'retry-after-ms': String(huge) } });
    const { fn } = failing(error);
    const run = settle(retry(fn, { maxRetryAfterMs: huge, random: () => 0 }));
    await fake.clock.tickAsync(2 ** 31 - 1);
    expect(fn).toHaveBeenCalledTimes(1);
    await fake.clock.tickAsync(huge - (2 ** 31 - 1));
    expect(run.result.status).toBe('fulfilled');
    expect(fn).toHaveBeenCalledTimes(2);
  });
});

describe('retry: Retry-After', () => {
  it("sleeps the server's wait plus a spread of up to that wait again, whatever the attempt", async () => {
    const events: RetryEvent[] = [];
    const busy = () => Object.assign(transient(), { headers: { 'Retry-After': '2' } });
    const { fn } = failing(busy(), busy(), busy());
    // One draw per hinted retry: 2 000 + r * min(capMs, 2 000). At attempt 3 the old rule would have added 400 * r.
    const random = draws(0.25, 0, 0.999);
    const run = settle(retry(fn, { maxAttempts: 4, random, onRetry: (e) => void events.push(e) }));
    await fake.clock.tickAsync(2_499);
    expect(fn).toHaveBeenCalledTimes(1);
    await fake.clock.tickAsync(1);
    expect(fn).toHaveBeenCalledTimes(2);
    await fake.clock.tickAsync(2_000); // random() 0: exactly the server's wait
    expect(fn).toHaveBeenCalledTimes(3);
    await fake.clock.tickAsync(3_997);
    expect(fn).toHaveBeenCalledTimes(3);
    await fake.clock.tickAsync(1);
    expect(run.result.status).toBe('fulfilled');
    // onRetry's delayMs is the exact sleep, spread included.
    expect(events.map((e) => e.delayMs)).toEqual([2_500, 2_000, 3_998]);
  });

  it('never spreads more than capMs on top of the wait, and not at all with jitter none', async () => {
    const events: RetryEvent[] = [];
    const busy = Object.assign(transient(), { headers: { 'Retry-After': '30' } });
    const onRetry = (e: RetryEvent) => void events.push(e);
    const capped = settle(retry(failing(busy).fn, { capMs: 1_000, random: draws(0.5), onRetry }));
    await fake.clock.tickAsync(30_500);
    expect(capped.result.status).toBe('fulfilled');
    // 'none' draws nothing (draws() with no values throws if asked).
    const exact = settle(retry(failing(busy).fn, { jitter: 'none', random: draws(), onRetry }));
    await fake.clock.tickAsync(30_000);
    expect(exact.result.status).toBe('fulfilled');
    expect(events.map((e) => e.delayMs)).toEqual([30_500, 30_000]);
  });

  it("a hinted retry leaves the client's own backoff where it was: the next unhinted delay continues it", async () => {
    const events: RetryEvent[] = [];
    const busy = Object.assign(transient(), { headers: { 'Retry-After': '1' } });
    const { fn } = failing(transient(), busy, transient());
    // decorrelated: 100 + 0.5 * (300 - 100) = 200; then 1 000 + 0 (hinted); then 100 + 0.5 * (600 - 100) = 350.
    const random = draws(0.5, 0, 0.5);
    const run = settle(
      retry(fn, { jitter: 'decorrelated', maxAttempts: 4, random, onRetry: (e) => void events.push(e) }),
    );
    await fake.clock.tickAsync(1_550);
    expect(run.result.status).toBe('fulfilled');
    expect(events.map((e) => e.delayMs)).toEqual([200, 1_000, 350]);
  });

  it('reads response.headers as a Headers instance, and retry-after-ms first', async () => {
    const headers = new Headers({ 'Retry-After': '9', 'Retry-After-Ms': '300' });
    const { fn } = failing(Object.assign(new Error('x'), { response: { status: 429, headers } }));
    const events: RetryEvent[] = [];
    const run = settle(retry(fn, { random: () => 0, onRetry: (e) => void events.push(e) }));
    await fake.clock.tickAsync(300);
    expect(run.result.status).toBe('fulfilled');
    expect(events[0]?.delayMs).toBe(300);
  });

  it('gives up at once with reason retry-after when the server asks for more than maxRetryAfterMs', async () => {
    const error = Object.assign(transient('busy'), { headers: { 'retry-after': '120' } });
    const run = retry(failing(error).fn, { maxRetryAfterMs: 60_000 });
    const e = (await run.catch((x: unknown) => x)) as RetryError;
    expect(e).toMatchObject({ reason: 'retry-after', attempts: 1, cause: error });
    expect(e.message).toBe('gave up after 1 attempt over 0 ms (Retry-After 120000 ms > maxRetryAfterMs 60000): busy');
  });

  it('gives up with reason timeout when the server asks to come back after the deadline', async () => {
    const error = Object.assign(transient(), { headers: { 'retry-after': '5' } });
    await expect(retry(failing(error).fn, { timeoutMs: 4_000 })).rejects.toMatchObject({ reason: 'timeout' });
  });

  it('honours Retry-After on a retried result (a 503 Response)', async () => {
    const responses = [
      new Response('busy', { status: 503, headers: { 'Retry-After': '1' } }),
      new Response('ok', { status: 200 }),
    ];
    const run = settle(
      retry(() => responses.shift() as Response, { shouldRetryResult: (r) => r.status === 503, random: () => 0 }),
    );
    await fake.clock.tickAsync(999);
    expect(run.result.status).toBe('pending');
    await fake.clock.tickAsync(1);
    expect((run.result.value as Response).status).toBe(200);
  });

  it('a retried result that the server asks to wait too long for resolves with that result', async () => {
    const busy = new Response('busy', { status: 503, headers: { 'Retry-After': '3600' } });
    await expect(retry(() => busy, { shouldRetryResult: () => true })).resolves.toBe(busy);
  });
});

describe('retry: behaviour pinned down (issue 10)', () => {
  it('an abandoned attempt settling during the next sleep does not stop an abort from landing at once', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const fn = vi.fn(() => new Promise((resolve) => setTimeout(resolve, 120))); // settles 20 ms after its timeout
    const run = settle(
      retry(fn, { attemptTimeoutMs: 100, signal: controller.signal, random: () => 0.5, maxAttempts: 3 }),
    );
    await fake.clock.tickAsync(120); // timed out at 100, sleeping 50 ms until 150; the abandoned work settles at 120
    expect(run.result.status).toBe('pending');
    await fake.clock.tickAsync(10);
    controller.abort(reason); // at 130, during the sleep
    await fake.clock.tickAsync(0);
    expect(run.result).toMatchObject({ status: 'rejected', reason });
    expect(fn).toHaveBeenCalledTimes(1);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('a synchronous throw under a deadline is that error at once, not a timeout', async () => {
    const boom = new SyntaxError('bad');
    const run = settle(
      retry(
        () => {
          throw boom;
        },
        { timeoutMs: 1_000 },
      ),
    );
    await fake.clock.tickAsync(0);
    expect(run.result).toMatchObject({ status: 'rejected', reason: boom });
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('an isTransient that aborts the signal and never settles: rejects with the reason at once', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const run = settle(
      retry(() => Promise.reject(transient()), {
        signal: controller.signal,
        isTransient: () => {
          controller.abort(reason);
          return never();
        },
      }),
    );
    await fake.clock.tickAsync(0);
    expect(run.result).toMatchObject({ status: 'rejected', reason });
  });

  it('keeps the first 10 and the last 10 errors, in order, when the count is not a multiple of 10', async () => {
    let n = 0;
    const run = settle(retry(() => Promise.reject(transient(String(++n))), { maxAttempts: 25, baseMs: 0 }));
    await fake.clock.runAllAsync();
    const kept = (run.result.reason as RetryError).errors.map((e) => (e as Error).message);
    expect(kept).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
      '10',
      ...'16,17,18,19,20,21,22,23,24,25'.split(','),
    ]);
  });

  it('an HTTP-date Retry-After is measured against the wall clock (Date.now), not the monotonic one', async () => {
    // The fake clock: Date.now() is T0 (ms since 1970) and performance.now() is 5,000; a date 3 s after Date.now().
    const date = new Date(Date.now() + 3_000).toUTCString();
    const error = Object.assign(transient(), { headers: { 'retry-after': date } });
    const { fn, contexts } = failing(error);
    const events: RetryEvent[] = [];
    const run = settle(retry(fn, { random: () => 0, onRetry: (e) => void events.push(e) }));
    await fake.clock.tickAsync(2_999);
    expect(fn).toHaveBeenCalledTimes(1);
    await fake.clock.tickAsync(1);
    expect(run.result.status).toBe('fulfilled');
    expect(events.map((e) => e.delayMs)).toEqual([3_000]);
    expect(contexts[1]?.elapsedMs).toBe(3_000);
  });

  it('an async shouldRetryResult is awaited: its promise is the verdict, not a truthy value', async () => {
    let n = 0;
    const judged: unknown[] = [];
    const run = settle(
      retry(() => ++n, {
        baseMs: 0,
        maxAttempts: 5,
        shouldRetryResult: async (value, attempt) => {
          judged.push([value, attempt]);
          return value < 3;
        },
      }),
    );
    await fake.clock.tickAsync(0);
    expect(run.result).toMatchObject({ status: 'fulfilled', value: 3 });
    expect(judged).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it('the deadline cutting the last allowed attempt short ends with timeout, not attempts', async () => {
    const run = settle(retry(() => never(), { timeoutMs: 1_000, attemptTimeoutMs: 600, maxAttempts: 2, baseMs: 0 }));
    await fake.clock.tickAsync(1_000);
    const error = run.result.reason as RetryError;
    expect(error).toMatchObject({ reason: 'timeout', attempts: 2, elapsedMs: 1_000 });
    expect(error.errors.map((e) => (e as Error).message)).toEqual([
      'herdless: attemptTimeoutMs 600 passed',
      'herdless: deadline (timeoutMs 1000) passed',
    ]);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('an attempt timeout that ties with the deadline is the deadline: timeout, at that moment', async () => {
    const run = settle(retry(() => never(), { timeoutMs: 1_000, attemptTimeoutMs: 500, maxAttempts: 5, baseMs: 0 }));
    await fake.clock.tickAsync(999);
    expect(run.result.status).toBe('pending');
    await fake.clock.tickAsync(1);
    const error = run.result.reason as RetryError;
    expect(error).toMatchObject({ reason: 'timeout', attempts: 2, elapsedMs: 1_000 });
    expect(error.errors.map((e) => (e as Error).message)).toEqual([
      'herdless: attemptTimeoutMs 500 passed',
      'herdless: deadline (timeoutMs 1000) passed',
    ]);
    const tie = settle(retry(() => never(), { timeoutMs: 600, attemptTimeoutMs: 600 }));
    await fake.clock.tickAsync(600);
    expect(tie.result.reason).toMatchObject({ reason: 'timeout', attempts: 1, elapsedMs: 600 });
  });

  it('with only a signal (no timeout), no timer is armed while an attempt runs', async () => {
    const controller = new AbortController();
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const run = settle(retry(() => never(), { signal: controller.signal }));
    await fake.clock.tickAsync(0);
    expect(fake.clock.countTimers()).toBe(0);
    expect(spy).not.toHaveBeenCalled();
    controller.abort(new Error('stop'));
    await fake.clock.tickAsync(0);
    expect(run.result.reason).toEqual(new Error('stop'));
  });
});

describe('retry: options', () => {
  it.each([
    [
      { maxAttemps: 5 },
      TypeError,
      /unknown option 'maxAttemps'; did you mean maxAttempts\? \(known: jitter, baseMs, .*maxAttempts/,
    ],
    [{ retries: 5 }, TypeError, /unknown option 'retries'; did you mean maxAttempts \(retries \+ 1\)\?/],
    // got's, the API SDKs' and axios-retry's names (new-user review, issue 31)
    [{ maxRetries: 3 }, TypeError, /unknown option 'maxRetries'; did you mean maxAttempts \(maxRetries \+ 1\)\?/],
    [{ retryCondition: () => true }, TypeError, /unknown option 'retryCondition'; did you mean isTransient\?/],
    [{ retryDelay: () => 5 }, TypeError, /unknown option 'retryDelay'; did you mean baseMs\?/],
    [{ onFailedAttempt: () => {} }, TypeError, /unknown option 'onFailedAttempt'; did you mean onFailure or onRetry\?/],
    [{ minTimeout: 5 }, TypeError, /unknown option 'minTimeout'; did you mean baseMs\?/],
    [{ forever: true }, TypeError, /did you mean maxAttempts: Infinity with a timeoutMs\?/],
    [{ BASEMS: 5 }, TypeError, /unknown option 'BASEMS'; did you mean baseMs\?/],
    [{ zzzzzz: 5 }, TypeError, /unknown option 'zzzzzz' \(known: /],
    // three edits from jitter: no suggestion (at most two); a hint of our own wins over a near name (timeoutMs)
    [{ jitterxyz: 1 }, TypeError, /unknown option 'jitterxyz' \(known: /],
    [{ timeout: 1 }, TypeError, /'timeout'; did you mean timeoutMs\?/],
    [{ toString: 1 }, TypeError, /unknown option 'toString'/],
    [{ maxAttempts: 0 }, RangeError, /maxAttempts must be an integer >= 1, or Infinity with a finite timeoutMs, got 0/],
    [{ maxAttempts: 2.5 }, RangeError, /maxAttempts .* got 2.5/],
    [{ maxAttempts: Infinity }, RangeError, /maxAttempts .* got Infinity/],
    [{ maxAttempts: 0, timeoutMs: 1_000 }, RangeError, /maxAttempts .* got 0/],
    [{ maxAttempts: '3' }, TypeError, /maxAttempts must be a number/],
    [{ timeoutMs: 0 }, RangeError, /timeoutMs must be a number > 0, or Infinity for none, got 0/],
    [{ timeoutMs: Number.NaN }, RangeError, /timeoutMs .* got NaN/],
    [{ timeoutMs: '1s' }, TypeError, /timeoutMs must be a number/],
    [
      { timeoutMs: '1000' },
      TypeError,
      /^herdless: timeoutMs must be a number \(a number > 0, or Infinity for none\), got '1000'$/,
    ], // '1000' > 0 holds: typeof decides
    [{ attemptTimeoutMs: -5 }, RangeError, /attemptTimeoutMs must be a number > 0/],
    [{ attemptTimeoutMs: -0 }, RangeError, /attemptTimeoutMs must be a number > 0, or Infinity for none, got -0$/],
    [{ maxRetryAfterMs: 0 }, RangeError, /maxRetryAfterMs must be a number > 0/],
    [{ signal: {} }, TypeError, /signal must be an AbortSignal/],
    [{ signal: null }, TypeError, /signal must be an AbortSignal, got null/],
    // null is a wrong type, not an absent one: named, not a raw "Cannot read properties of null"
    [{ budget: null }, TypeError, /^herdless: budget must be a RetryBudget \(createRetryBudget\(\)\), got null$/],
    [
      { breaker: null },
      TypeError,
      /^herdless: breaker must be a CircuitBreaker \(createCircuitBreaker\(\)\), got null$/,
    ],
    [{ isTransient: true }, TypeError, /isTransient must be a function, got true/],
    [{ shouldRetryResult: 'yes' }, TypeError, /shouldRetryResult must be a function/],
    [{ onRetry: {} }, TypeError, /onRetry must be a function/],
    [{ onFailure: 1 }, TypeError, /onFailure must be a function, got 1/],
    [{ retryAfter: 'soon' }, TypeError, /retryAfter must be a function, got 'soon'/],
    [{ unref: 1 }, TypeError, /unref must be a boolean, got 1/],
    [{ jitter: 'random' }, RangeError, /jitter must be one of/],
    [{ capMs: 10, baseMs: 20 }, RangeError, /capMs must be a finite number >= baseMs \(20\), got 10/],
  ])('%o: retry() rejects without calling fn; createPolicy() throws synchronously', async (options, Kind, message) => {
    const fn = vi.fn();
    const result = retry(fn, options as never);
    await expect(result).rejects.toThrow(Kind);
    await expect(result).rejects.toThrow(message);
    expect(fn).not.toHaveBeenCalled();
    expect(() => createPolicy(options as never)).toThrow(message);
  });

  it("a policy's fields are the known options, in their order, whether given or not (one shape)", () => {
    const known = [...knownOptions()];
    expect(known).toEqual([
      'jitter',
      'baseMs',
      'capMs',
      'factor',
      'random',
      'maxAttempts',
      'timeoutMs',
      'attemptTimeoutMs',
      'signal',
      'isTransient',
      'shouldRetryResult',
      'maxRetryAfterMs',
      'onRetry',
      'onFailure',
      'onSettle',
      'retryAfter',
      'unref',
      'budget',
      'breaker',
    ]);
    expect(Object.keys(createPolicy())).toEqual(known);
    const given = { breaker: undefined, unref: true, onSettle: () => {}, timeoutMs: 5, maxAttempts: 2, jitter: 'none' };
    expect(Object.keys(createPolicy(given as never))).toEqual(known);
  });

  it('the known options are there before any policy was validated (a fresh copy of the module)', async () => {
    vi.resetModules();
    const fresh = await import('../src/policy');
    expect([...fresh.knownOptions()]).toEqual([...knownOptions()]);
  });

  it('inherited keys are read as options but never named as unknown; an own unknown key still is', async () => {
    // onlyKnown walks keys with for-in (no array per call): inherited ones must be passed over as Object.keys() did.
    const base = { maxAttempts: 1, notAnOption: true };
    const inherits = Object.create(base) as Record<string, unknown>;
    const fn = vi.fn(() => Promise.reject(Object.assign(new Error('blip'), { status: 503 })));
    await expect(retry(fn, inherits)).rejects.toMatchObject({ name: 'RetryError', attempts: 1 });
    expect(fn).toHaveBeenCalledTimes(1);
    expect(createPolicy(inherits).maxAttempts).toBe(1);
    inherits.maxAtempts = 2;
    expect(() => createPolicy(inherits)).toThrow(/^herdless: unknown option 'maxAtempts'; did you mean maxAttempts\?/);
    const budgetOptions = Object.create({ extra: 1, ratio: 0.5, minPerSecond: 10 }) as Record<string, unknown>;
    expect(createRetryBudget(budgetOptions).available()).toBe(100);
    budgetOptions.windowMz = 1;
    expect(() => createRetryBudget(budgetOptions)).toThrow(/unknown retry budget option 'windowMz'/);
  });

  it("the unknown-key check reads only the object's own keys: never its prototype's (review: for-in walked them)", async () => {
    const trap = (what: string) => () => {
      throw new Error(`${what} trap`);
    };
    // A prototype whose own keys cannot be listed, and one whose own prototype cannot be read: neither is asked (but
    // retry() tells a policy by instanceof, which reads the prototype chain, as it always has).
    const unlisted = new Proxy({}, { ownKeys: trap('ownKeys') });
    await expect(retry(() => 'ok', Object.create(unlisted))).resolves.toBe('ok');
    for (const prototype of [unlisted, new Proxy({}, { getPrototypeOf: trap('proto') })]) {
      expect(createRetryBudget(Object.create(prototype)).available()).toBe(Infinity);
      expect(createCircuitBreaker(Object.create(prototype)).state).toBe('closed');
    }
    const noPrototype = new Proxy({}, { getPrototypeOf: trap('proto') });
    expect(createRetryBudget(noPrototype).available()).toBe(Infinity);
    expect(createCircuitBreaker(noPrototype).state).toBe('closed');
    // A Proxy that says once that it has a key, and then that it does not: the key is still named.
    let asked = 0;
    const lying = new Proxy(
      {},
      {
        ownKeys: () => ['bogus'],
        getOwnPropertyDescriptor: () =>
          asked++ === 0 ? { value: 1, enumerable: true, configurable: true, writable: true } : undefined,
      },
    );
    await expect(retry(() => 'ok', lying)).rejects.toThrow(/^herdless: unknown option 'bogus'/);
  });

  it('a policy that is not an object', async () => {
    await expect(retry(() => 1, 3 as never)).rejects.toThrow(/the policy must be an object, got 3/);
    expect(() => createPolicy(null as never)).toThrow(
      new TypeError('herdless: the policy must be an object, got null'),
    );
  });

  it('maxAttempts Infinity is fine with a deadline; attemptTimeoutMs and maxRetryAfterMs accept Infinity', () => {
    expect(createPolicy({ maxAttempts: Infinity, timeoutMs: 1_000 }).maxAttempts).toBe(Infinity);
    expect(createPolicy({ attemptTimeoutMs: Infinity, maxRetryAfterMs: Infinity })).toMatchObject({
      attemptTimeoutMs: Infinity,
      maxRetryAfterMs: Infinity,
    });
  });

  it('createPolicy returns a frozen policy with every default, which retry() uses as is', async () => {
    const policy = createPolicy({ maxAttempts: 2 });
    expect(Object.isFrozen(policy)).toBe(true);
    expect(policy).toMatchObject({
      jitter: 'full',
      baseMs: 100,
      capMs: 10_000,
      factor: 2,
      maxAttempts: 2,
      timeoutMs: Infinity,
      attemptTimeoutMs: Infinity,
      maxRetryAfterMs: 60_000,
      signal: undefined,
      shouldRetryResult: undefined,
      onRetry: undefined,
    });
    expect(createPolicy(policy)).toBe(policy);
    const { fn } = failing(transient(), transient());
    const run = settle(retry(fn, policy));
    await fake.clock.runAllAsync();
    expect(run.result.reason).toMatchObject({ reason: 'attempts', attempts: 2 });
    expect(() => {
      (policy as { maxAttempts: number }).maxAttempts = 9;
    }).toThrow(TypeError);
  });

  it('a spread policy is a plain object again and is validated again', async () => {
    const policy = createPolicy({ baseMs: 0 });
    const controller = new AbortController();
    await expect(retry(() => 'x', { ...policy, signal: controller.signal })).resolves.toBe('x');
    await expect(retry(() => 'x', { ...policy, maxAttemps: 1 } as never)).rejects.toThrow(/unknown option/);
  });
});
