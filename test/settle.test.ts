import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  CircuitOpenError,
  createCircuitBreaker,
  createPolicy,
  createRetryBudget,
  permanent,
  RetryError,
  retry,
  retryingFetch,
  type SettleEvent,
} from '../src/index';
import { useFakeClock } from './helpers';

const fake = useFakeClock();
const transient = () => Object.assign(new Error('busy'), { code: 'ECONNRESET' });

/** Runs a call to its end on the fake clock, with what onSettle saw and in which order, beside how it settled. */
async function run<T>(fn: () => T | PromiseLike<T>, options: Parameters<typeof retry<T>>[1] = {}) {
  const order: string[] = [];
  const events: SettleEvent[] = [];
  const call = retry(fn, {
    baseMs: 10,
    ...options,
    onSettle(event) {
      order.push('onSettle');
      events.push(event);
    },
  }).then(
    (value) => {
      order.push('resolved');
      return { ok: true as const, value };
    },
    (error: unknown) => {
      order.push('rejected');
      return { ok: false as const, error };
    },
  );
  await fake.clock.runAllAsync();
  return { outcome: await call, events, order };
}

describe('onSettle: once per call, with the outcome as a value', () => {
  it('a success at once: ok, its value, 1 attempt, no reason; told before the call resolves, frozen', async () => {
    const { outcome, events, order } = await run(() => 'v');
    expect(outcome).toEqual({ ok: true, value: 'v' });
    expect(events).toEqual([{ ok: true, reason: undefined, attempts: 1, elapsedMs: 0, error: undefined, value: 'v' }]);
    expect(Object.isFrozen(events[0])).toBe(true);
    expect(order).toEqual(['onSettle', 'resolved']);
  });

  it('a success after two failures: 3 attempts, the elapsed time of the sleeps', async () => {
    let n = 0;
    const { events } = await run(
      () => {
        if (++n < 3) throw transient();
        return n;
      },
      { jitter: 'none' },
    );
    expect(events).toEqual([{ ok: true, reason: undefined, attempts: 3, elapsedMs: 30, error: undefined, value: 3 }]);
  });

  it('giving up: the very RetryError the call rejects with, and its reason and attempts', async () => {
    const { outcome, events, order } = await run(() => Promise.reject(transient()), { maxAttempts: 4 });
    expect(outcome.ok).toBe(false);
    const error = (outcome as { error: RetryError }).error;
    expect(error).toBeInstanceOf(RetryError);
    expect(events).toHaveLength(1);
    expect(events[0]?.error).toBe(error);
    expect(events[0]).toMatchObject({ ok: false, reason: 'attempts', attempts: 4, value: undefined });
    expect(events[0]?.elapsedMs).toBe(error.elapsedMs);
    expect(order).toEqual(['onSettle', 'rejected']);
  });

  it.each([
    ['timeout', undefined, { timeoutMs: 25, maxAttempts: 10, jitter: 'none' as const }],
    ['retry-after', { status: 503, headers: { 'retry-after': '5' } }, { maxRetryAfterMs: 1_000 }],
  ])('giving up for %s', async (reason, thrown, options) => {
    const { events } = await run(() => Promise.reject(thrown ?? transient()), options);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ ok: false, reason });
    expect((events[0] as SettleEvent).error).toMatchObject({ name: 'RetryError', reason });
  });

  it("giving up for 'budget' and 'circuit-open'", async () => {
    const budget = createRetryBudget({ ratio: 0.1, minPerSecond: 0.001 });
    budget.tryWithdraw(); // the one retry it holds, spent
    const refused = await run(() => Promise.reject(transient()), { budget });
    expect(refused.events).toMatchObject([{ ok: false, reason: 'budget', attempts: 1 }]);
    const breaker = createCircuitBreaker({ consecutiveFailures: 1 });
    const opened = await run(() => Promise.reject(transient()), { breaker });
    expect(opened.events).toMatchObject([{ ok: false, reason: 'circuit-open', attempts: 1 }]);
  });

  it('a breaker already open: the CircuitOpenError, 0 attempts (fn never called)', async () => {
    const breaker = createCircuitBreaker();
    breaker.isolate();
    const fn = vi.fn(() => 1);
    const { outcome, events } = await run(fn, { breaker });
    expect(fn).not.toHaveBeenCalled();
    expect((outcome as { error: unknown }).error).toBeInstanceOf(CircuitOpenError);
    expect(events).toEqual([
      { ok: false, reason: undefined, attempts: 0, elapsedMs: 0, error: (outcome as { error: unknown }).error },
    ]);
    expect('value' in (events[0] as object)).toBe(true); // the one shape, whatever the outcome
  });

  it('a breaker that opens during the sleep: the attempt it refuses is not counted', async () => {
    const breaker = createCircuitBreaker();
    const { events } = await run(() => Promise.reject(transient()), { breaker, onRetry: () => breaker.isolate() });
    expect(events).toMatchObject([{ ok: false, reason: 'circuit-open', attempts: 1 }]);
    expect((events[0] as SettleEvent).error).toMatchObject({ attempts: 1 });
  });

  it('giving up on retried results: ok (the call resolves with the last one) with the reason it stopped', async () => {
    const { outcome, events } = await run(() => 503, { shouldRetryResult: (status) => status === 503 });
    expect(outcome).toEqual({ ok: true, value: 503 });
    expect(events).toEqual([
      { ok: true, reason: 'attempts', attempts: 3, elapsedMs: events[0]?.elapsedMs, error: undefined, value: 503 },
    ]);
  });

  it('any other rejection: ok false, no reason, what the call rejects with', async () => {
    const gone = new Error('404');
    const permanentOne = await run(() => Promise.reject(permanent(gone)));
    expect(permanentOne.events).toMatchObject([{ ok: false, reason: undefined, attempts: 1, error: gone }]);
    const hook = new Error('onRetry broke');
    const thrown = await run(() => Promise.reject(transient()), {
      onRetry: () => {
        throw hook;
      },
    });
    expect(thrown.events).toMatchObject([{ ok: false, reason: undefined, attempts: 1, error: hook }]);
    // A budget refusal decided, then a random that throws: no stale reason.
    const broken = await run(() => Promise.reject(transient()), {
      random: () => {
        throw new Error('no entropy');
      },
    });
    expect(broken.events[0]?.reason).toBeUndefined();
    expect((broken.events[0] as SettleEvent).error).toMatchObject({ message: expect.stringMatching(/no entropy/) });
  });

  it("the caller's abort mid-sleep: signal.reason, the attempts made", async () => {
    const controller = new AbortController();
    const events: SettleEvent[] = [];
    const call = retry(() => Promise.reject(transient()), {
      baseMs: 1_000,
      jitter: 'none',
      signal: controller.signal,
      onSettle: (e) => events.push(e),
    });
    const rejected = expect(call).rejects.toThrow('user left');
    await fake.clock.tickAsync(500);
    controller.abort(new Error('user left'));
    await rejected;
    expect(events).toMatchObject([{ ok: false, reason: undefined, attempts: 1, error: controller.signal.reason }]);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('is not called for a call rejected before it starts: bad options, a signal already aborted', async () => {
    const onSettle = vi.fn();
    await expect(retry(() => 1, { onSettle, maxAttempts: 0 })).rejects.toThrow(RangeError);
    await expect(retry(() => 1, { onSettle, signal: AbortSignal.abort() })).rejects.toThrow();
    expect(onSettle).not.toHaveBeenCalled();
  });

  it('what it throws changes nothing: the call settles as it would have, the error is reported (reportError)', async () => {
    const reported: unknown[] = [];
    vi.stubGlobal('reportError', (error: unknown) => reported.push(error));
    try {
      const boom = new Error('hook');
      const onSettle = () => {
        throw boom;
      };
      await expect(retry(() => 'v', { onSettle })).resolves.toBe('v');
      const failing = retry(() => Promise.reject(transient()), { onSettle, baseMs: 1 });
      const settled = expect(failing).rejects.toBeInstanceOf(RetryError);
      await fake.clock.runAllAsync();
      await settled;
      expect(reported).toEqual([boom, boom]);
      expect(fake.clock.countTimers()).toBe(0);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('without reportError (Node 20), rethrows it from a setTimeout(0): an uncaught exception, not the outcome', async () => {
    const boom = new Error('hook');
    const call = retry(() => 'v', {
      onSettle: () => {
        throw boom;
      },
    });
    await expect(call).resolves.toBe('v');
    expect(fake.clock.countTimers()).toBe(1);
    expect(() => fake.clock.tick(0)).toThrow(boom);
  });

  it('a policy keeps it, and a spread of it too; bad values name the option', async () => {
    const onSettle = vi.fn();
    const policy = createPolicy({ onSettle });
    expect(policy.onSettle).toBe(onSettle);
    await retry(() => 1, { ...policy, maxAttempts: 2 });
    expect(onSettle).toHaveBeenCalledTimes(1);
    expect(() => createPolicy({ onSettle: 'log' as never })).toThrow(
      new TypeError("herdless: onSettle must be a function, got 'log'"),
    );
    expect(() => createPolicy({ onSettled: () => {} } as never)).toThrow(/onSettled.*onSettle/);
  });

  it('property: exactly once, and it agrees with the outcome and the attempts made', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('ok', 'transient', 'permanent', 'retried'), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 5 }),
        async (script, maxAttempts) => {
          let calls = 0;
          const fn = () => {
            const step = script[Math.min(calls++, script.length - 1)];
            if (step === 'transient') throw transient();
            if (step === 'permanent') throw permanent(new Error('no'));
            return step;
          };
          const { outcome, events } = await run(fn, {
            maxAttempts,
            baseMs: 0,
            shouldRetryResult: (v) => v === 'retried',
          });
          expect(events).toHaveLength(1);
          const [event] = events as [SettleEvent];
          expect(event.attempts).toBe(calls);
          expect(event.ok).toBe(outcome.ok);
          if (outcome.ok) {
            expect(event.value).toBe(outcome.value);
            expect(event.reason).toBe(outcome.value === 'retried' ? 'attempts' : undefined);
          } else {
            expect(event.error).toBe(outcome.error);
            expect(event.reason).toBe(outcome.error instanceof RetryError ? outcome.error.reason : undefined);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('onSettle returning a promise (review)', () => {
  it('a promise that rejects is reported, as a throw is, and the call settles as it would have', async () => {
    const reported: unknown[] = [];
    const original = globalThis.reportError;
    globalThis.reportError = (e: unknown) => reported.push(e);
    try {
      const boom = new Error('async hook');
      const value = await retry(() => 1, {
        onSettle: async () => {
          throw boom;
        },
      });
      await fake.clock.runAllAsync();
      expect(value).toBe(1);
      expect(reported).toEqual([boom]);
    } finally {
      globalThis.reportError = original;
    }
  });
});

describe("retryingFetch: onSettle tells the call's own outcome, not its inner retry()'s", () => {
  /** A fetch answering with the statuses given, in turn (the last one repeats); `throws` for a network error. */
  const answers = (...statuses: (number | 'throws')[]) => {
    let n = 0;
    return async () => {
      const status = statuses[Math.min(n++, statuses.length - 1)];
      if (status === 'throws') throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
      return new Response(String(status), { status });
    };
  };
  const call = async (options: Parameters<typeof retryingFetch>[0], init?: RequestInit) => {
    const events: SettleEvent[] = [];
    const done = retryingFetch({ baseMs: 10, ...options, onSettle: (e) => events.push(e) })(
      'http://x.test/',
      init,
    ).then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    await fake.clock.runAllAsync();
    const outcome = await done;
    expect(events).toHaveLength(1);
    return { outcome, event: events[0] as SettleEvent };
  };

  it('a success after a retried 503: ok, no reason, 2 attempts, the Response as its value', async () => {
    const { outcome, event } = await call({ fetch: answers(503, 200) });
    expect(event).toMatchObject({ ok: true, reason: undefined, attempts: 2, error: undefined });
    expect(event.value).toBe(outcome.ok && outcome.value);
  });

  it('out of attempts on 503s: it resolves with the last one, and onSettle says so (no RetryError, no wrapper)', async () => {
    const { outcome, event } = await call({ fetch: answers(503), maxAttempts: 3 });
    expect(outcome.ok && outcome.value.status).toBe(503);
    expect(event).toMatchObject({ ok: true, reason: 'attempts', attempts: 3, error: undefined });
    expect(event.value).toBe(outcome.ok && outcome.value);
  });

  it('a POST sent once (no idempotency key) that got a 503: resolved, reason attempts, 1 attempt', async () => {
    const { outcome, event } = await call({ fetch: answers(503) }, { method: 'POST' });
    expect(outcome.ok && outcome.value.status).toBe(503);
    expect(event).toMatchObject({ ok: true, reason: 'attempts', attempts: 1, error: undefined });
  });

  it('a POST sent once that failed on the network: the RetryError it rejects with, the same object', async () => {
    const { outcome, event } = await call({ fetch: answers('throws') }, { method: 'POST' });
    expect(outcome.ok).toBe(false);
    expect(event).toMatchObject({ ok: false, reason: 'attempts', attempts: 1, value: undefined });
    expect(event.error).toBe(!outcome.ok && outcome.error);
    expect(event.error).toBeInstanceOf(RetryError);
  });

  it('the budget refusing a 429: resolved with it, reason budget', async () => {
    const { outcome, event } = await call({ fetch: answers(429), budget: createRetryBudget() });
    expect(outcome.ok && outcome.value.status).toBe(429);
    expect(event).toMatchObject({ ok: true, reason: 'budget', attempts: 1 });
  });

  it('a POST sent once that got a 503 with the budget spent: reason attempts, not budget (review)', async () => {
    const budget = createRetryBudget();
    for (let i = 0; i < 4; i++) await call({ fetch: answers(503), maxAttempts: 1, budget }); // 4 failures known
    const { outcome, event } = await call({ fetch: answers(503), budget }, { method: 'POST' });
    expect(outcome.ok && outcome.value.status).toBe(503);
    expect(event).toMatchObject({ ok: true, reason: 'attempts', attempts: 1 });
  });

  it("herdless's own error about a retried status names the Response as its cause, not the wrapper (review)", async () => {
    const { outcome, event } = await call({ fetch: answers(503), retryAfter: () => -1 });
    expect(outcome.ok).toBe(false);
    const error = !outcome.ok && (outcome.error as Error);
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).cause).toBeInstanceOf(Response);
    expect(event.error).toBe(error);
  });

  it('a call rejected before it starts (a signal already aborted) is not told, as retry() does not (review)', async () => {
    const events: SettleEvent[] = [];
    const done = retryingFetch({ fetch: answers(200), onSettle: (e) => events.push(e) })('http://x.test/', {
      signal: AbortSignal.abort(),
    }).catch((e: unknown) => e);
    await fake.clock.runAllAsync();
    expect(await done).toMatchObject({ name: 'AbortError' });
    expect(events).toEqual([]);
  });

  it('an onSettle that throws is reported and changes nothing', async () => {
    const reported: unknown[] = [];
    const original = globalThis.reportError;
    globalThis.reportError = (e: unknown) => reported.push(e);
    try {
      const boom = new Error('hook');
      const done = retryingFetch({
        fetch: answers(200),
        onSettle: () => {
          throw boom;
        },
      })('http://x.test/');
      await fake.clock.runAllAsync();
      expect((await done).status).toBe(200);
      expect(reported).toEqual([boom]);
    } finally {
      globalThis.reportError = original;
    }
  });
});
