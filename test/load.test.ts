// Holding under load and bad input (issue 6): each test here failed before its fix.
import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  computeDelay,
  createPolicy,
  getStatus,
  isNetworkError,
  isTransient,
  type RetryContext,
  RetryError,
  retry,
} from '../src/index';
import { settle, useFakeClock } from './helpers';

const fake = useFakeClock();
const never = () => new Promise<never>(() => {});
const transient = (message = 'blip') => Object.assign(new Error(message), { status: 503 });
/** A Proxy that throws on every operation, typeof included: 'object'. */
const revoked = (): object => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('zero delays never starve the event loop; memory per call is bounded', () => {
  it('a timer set before the call runs while zero-delay retries go on, and its abort lands', async () => {
    const controller = new AbortController();
    const stop = new Error('stop');
    let callsWhenAborted = -1;
    let calls = 0;
    setTimeout(() => {
      callsWhenAborted = calls;
      controller.abort(stop);
    }, 0);
    const run = settle(
      retry(
        async () => {
          calls++;
          throw new Error('busy');
        },
        { baseMs: 0, capMs: 0, maxAttempts: 200_000, signal: controller.signal },
      ),
    );
    await fake.clock.runAllAsync();
    expect(run.result.status).toBe('rejected');
    expect(run.result.reason).toBe(stop); // before: RetryError 'attempts', the timer ran only after 200,000 calls
    expect(callsWhenAborted).toBeGreaterThan(0);
    expect(callsWhenAborted).toBeLessThanOrEqual(1_000); // a yield every 1,000 retries at most
    expect(calls).toBe(callsWhenAborted);
    expect(fake.clock.countTimers()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('yields after 4 ms of consecutive zero-delay retries, by the clock, even when they are few', async () => {
    let calls = 0;
    const run = settle(
      retry(
        () => {
          calls++;
          fake.clock.tick(1); // each attempt takes 1 ms of synchronous work
          throw new Error('busy');
        },
        { baseMs: 0, capMs: 0, maxAttempts: 40 },
      ),
    );
    for (let i = 0; i < 10; i++) await Promise.resolve();
    const beforeYield = calls;
    expect(beforeYield).toBeGreaterThanOrEqual(16);
    expect(beforeYield).toBeLessThan(40); // it stopped to yield: a timer was armed
    expect(fake.clock.countTimers()).toBe(1);
    await fake.clock.runAllAsync();
    expect(run.result.reason).toMatchObject({ reason: 'attempts', attempts: 40 });
  });

  it('keeps the first 10 and the last 10 errors of a long call; attempts counts all', async () => {
    let n = 0;
    const run = settle(
      retry(
        () => {
          n++;
          throw new Error(`e${n}`);
        },
        { baseMs: 0, capMs: 0, maxAttempts: 5_000 },
      ),
    );
    await fake.clock.runAllAsync();
    const error = run.result.reason as RetryError;
    expect(error).toBeInstanceOf(RetryError);
    expect(error.attempts).toBe(5_000);
    const messages = error.errors.map((e) => (e as Error).message);
    expect(messages).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `e${i + 1}`),
      ...Array.from({ length: 10 }, (_, i) => `e${4_991 + i}`),
    ]);
    expect(error.cause).toBe(error.errors[19]);
  });

  it('keeps every error when there are 20 or fewer', async () => {
    let n = 0;
    const run = settle(retry(() => Promise.reject(new Error(`e${++n}`)), { baseMs: 0, capMs: 0, maxAttempts: 20 }));
    await fake.clock.runAllAsync();
    const error = run.result.reason as RetryError;
    expect(error.errors.map((e) => (e as Error).message)).toEqual(Array.from({ length: 20 }, (_, i) => `e${i + 1}`));
  });

  it('fails twice with a zero delay, then succeeds, with no timer', async () => {
    let n = 0;
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const value = await retry(
      () => {
        if (++n < 3) throw transient();
        return n;
      },
      { baseMs: 0, capMs: 0 },
    );
    expect(value).toBe(3);
    expect(spy).not.toHaveBeenCalled();
  });
});

describe('one signal shared by many calls', () => {
  it('an abort of the shared signal rejects every pending call at once with its reason', async () => {
    const controller = new AbortController();
    const reason = new Error('shutdown');
    const runs = Array.from({ length: 1_000 }, (_, i) =>
      settle(retry(() => (i % 2 ? never() : Promise.reject(transient())), { signal: controller.signal })),
    );
    await fake.clock.tickAsync(0);
    controller.abort(reason);
    await fake.clock.tickAsync(0);
    expect(runs.every((r) => r.result.status === 'rejected' && r.result.reason === reason)).toBe(true);
    expect(fake.clock.countTimers()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it.each([
    ['first', 'second'],
    ['second', 'first'],
  ])(
    'a call that settles lets go of the signal while others still hold it (the quick one listens %s)',
    async (order) => {
      const controller = new AbortController();
      const { signal } = controller;
      // Reading the attempt's signal makes a call listen at once; the quick one settles a microtask later.
      const quickly = () =>
        retry(
          async (ctx) => {
            void ctx.signal;
            await null;
            return 'done';
          },
          { signal },
        );
      const slowly = () =>
        settle(
          retry(
            (ctx) => {
              void ctx.signal;
              return never();
            },
            { signal },
          ),
        );
      let quick: Promise<string>;
      let slow: ReturnType<typeof settle>;
      if (order === 'first') [quick, slow] = [quickly(), slowly()];
      else [slow, quick] = [slowly(), quickly()];
      const other = settle(
        retry(
          (ctx) => {
            void ctx.signal;
            return never();
          },
          { signal },
        ),
      ); // a third holds it throughout
      expect(getEventListeners(signal, 'abort')).toHaveLength(1); // one listener for the three
      await expect(quick).resolves.toBe('done');
      expect(getEventListeners(signal, 'abort')).toHaveLength(1);
      controller.abort('bye');
      await fake.clock.tickAsync(0);
      expect([slow.result.reason, other.result.reason]).toEqual(['bye', 'bye']);
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    },
  );

  it('the last of two calls to let go removes the listener, whichever listened first', async () => {
    for (const lastFirst of [true, false]) {
      const controller = new AbortController();
      const { signal } = controller;
      const held: ((v: string) => void)[] = [];
      const call = () =>
        retry(
          (ctx) => {
            void ctx.signal;
            return new Promise<string>((r) => held.push(r));
          },
          { signal },
        );
      const [a, b] = [call(), call()];
      const [firstDone, lastDone] = lastFirst ? [1, 0] : [0, 1];
      held[firstDone]?.('x');
      await (firstDone === 0 ? a : b);
      expect(getEventListeners(signal, 'abort')).toHaveLength(1);
      held[lastDone]?.('y');
      await (lastDone === 0 ? a : b);
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    }
  });
});

describe('callbacks are bounded by the deadline and the abort', () => {
  it.each([
    ['isTransient', { isTransient: () => never() }],
    ['onRetry', { onRetry: () => never() }],
  ])('a %s that never settles gives up with timeout at the deadline', async (_name, options) => {
    const run = settle(retry(() => Promise.reject(transient()), { ...options, timeoutMs: 100 }));
    await fake.clock.tickAsync(99);
    expect(run.result.status).toBe('pending');
    await fake.clock.tickAsync(1);
    expect(run.result.reason).toMatchObject({ reason: 'timeout', attempts: 1 });
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('a callback that starts late still ends at the deadline counted from the call, not from the callback', async () => {
    const late = () => new Promise((_, reject) => setTimeout(reject, 60, transient())); // fn fails at 60 ms
    const run = settle(retry(late, { isTransient: () => never(), timeoutMs: 100 }));
    await fake.clock.tickAsync(99);
    expect(run.result.status).toBe('pending');
    await fake.clock.tickAsync(1);
    expect(run.result.reason).toMatchObject({ reason: 'timeout', attempts: 1, elapsedMs: 100 });
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('a shouldRetryResult that never settles resolves with the value at the deadline', async () => {
    const run = settle(retry(() => 'v', { shouldRetryResult: () => never(), timeoutMs: 100 }));
    await fake.clock.tickAsync(100);
    expect(run.result).toMatchObject({ status: 'fulfilled', value: 'v' });
    expect(fake.clock.countTimers()).toBe(0);
  });

  it.each([
    ['isTransient', { isTransient: () => never() }],
    ['onRetry', { onRetry: () => never() }],
    ['shouldRetryResult', { shouldRetryResult: () => never() }],
  ])('a %s that never settles: an abort rejects at once with the reason', async (name, options) => {
    const controller = new AbortController();
    const fn = name === 'shouldRetryResult' ? () => 'v' : () => Promise.reject(transient());
    const run = settle(retry(fn, { ...options, signal: controller.signal }));
    await fake.clock.tickAsync(10);
    expect(run.result.status).toBe('pending');
    controller.abort('stop');
    await fake.clock.tickAsync(0);
    expect(run.result.reason).toBe('stop');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('an isTransient that takes 500 ms does not stretch a 100 ms deadline', async () => {
    const slow = () => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 500));
    const run = settle(retry(() => Promise.reject(transient()), { isTransient: slow, timeoutMs: 100 }));
    await fake.clock.tickAsync(100);
    expect(run.result.reason).toMatchObject({ reason: 'timeout', elapsedMs: 100 });
  });
});

describe('the deadline starts with the attempt, before fn runs', () => {
  it('timeoutMs counts fn synchronous part once', async () => {
    const run = settle(
      retry(
        () => {
          fake.clock.tick(80); // 80 ms of synchronous work
          return never();
        },
        { timeoutMs: 100 },
      ),
    );
    await fake.clock.tickAsync(19);
    expect(run.result.status).toBe('pending');
    await fake.clock.tickAsync(1); // before: 180 ms after the start
    expect(run.result.reason).toMatchObject({ reason: 'timeout', attempts: 1, elapsedMs: 100 });
  });

  it('attemptTimeoutMs counts it once too', async () => {
    const started: number[] = [];
    const run = settle(
      retry(
        (ctx: RetryContext) => {
          started.push(ctx.elapsedMs);
          fake.clock.tick(80);
          return never();
        },
        { attemptTimeoutMs: 100, maxAttempts: 2, random: () => 0 },
      ),
    );
    await fake.clock.tickAsync(20);
    expect(started).toEqual([0, 100]); // the first attempt timed out at 100, not 180
    await fake.clock.runAllAsync();
    expect(run.result.reason).toMatchObject({ reason: 'attempts', attempts: 2, elapsedMs: 200 });
  });
});

describe('hostile values never lose the error', () => {
  const nullProto = () => Object.assign(Object.create(null), { status: 503 });
  const throwingToString = () =>
    Object.defineProperties(Object.assign(new Error('x'), { status: 503 }), {
      toString: {
        value() {
          throw new Error('no');
        },
      },
      message: {
        get() {
          throw new Error('no message either');
        },
      },
    });

  it.each([
    ['a null-prototype object', nullProto, '[object Object]'],
    ['an object whose message and toString throw', throwingToString, '[object Error]'],
    ['a plain object with a message', () => ({ status: 503, message: 'db down' }), 'db down'],
    ['a revoked Proxy', revoked, '[object]'],
  ])('thrown %s: RetryError keeps it, with a message', async (_name, make, text) => {
    const thrown: unknown[] = [];
    const run = settle(
      retry(
        () => {
          const e = make();
          thrown.push(e);
          throw e;
        },
        { maxAttempts: 2, baseMs: 0, isTransient: () => true },
      ),
    );
    await fake.clock.runAllAsync();
    const error = run.result.reason as RetryError;
    expect(error).toBeInstanceOf(RetryError);
    expect(error.message).toContain(text);
    expect(error.errors).toHaveLength(2);
    expect(error.errors.every((e, i) => e === thrown[i])).toBe(true); // the very values, not copies
  });

  it('the default classifier reads hostile values without throwing: unknown failures, retried', async () => {
    const throwingGetter = Object.defineProperty(new Error('x'), 'status', {
      get() {
        throw new Error('getter');
      },
    });
    for (const make of [revoked, () => throwingGetter, nullProto]) {
      const run = settle(retry(() => Promise.reject(make()), { maxAttempts: 2, baseMs: 0 }));
      await fake.clock.runAllAsync();
      expect(run.result.reason).toMatchObject({ name: 'RetryError', reason: 'attempts', attempts: 2 });
    }
    expect(isTransient(revoked())).toBe(true);
    expect(getStatus(revoked())).toBeUndefined();
    expect(getStatus(throwingGetter)).toBeUndefined();
    expect(isNetworkError(revoked())).toBe(false);
    expect(isNetworkError(new Error('x', { cause: revoked() }))).toBe(false);
  });

  it('a null-prototype option value is named in the message', async () => {
    await expect(retry(() => 1, { maxAttempts: Object.create(null) })).rejects.toThrow(
      /^herdless: maxAttempts must be a number .*, got \[object Object\]$/,
    );
    expect(() => createPolicy({ onRetry: revoked() as never })).toThrow(
      /herdless: onRetry must be a function, got \[object\]/,
    );
  });
});

describe('the caller abort wins whenever it came before retry() settled', () => {
  it('an abort while an async isTransient runs, which then says permanent: rejects with the reason', async () => {
    const controller = new AbortController();
    const run = settle(
      retry(() => Promise.reject(transient()), {
        signal: controller.signal,
        isTransient: async () => {
          controller.abort('stop');
          return false;
        },
      }),
    );
    await fake.clock.tickAsync(0);
    expect(run.result.reason).toBe('stop'); // before: fn's error
  });

  it('an abort inside a synchronous isTransient that says permanent', async () => {
    const controller = new AbortController();
    const run = retry(() => Promise.reject(transient()), {
      signal: controller.signal,
      isTransient: () => {
        controller.abort('stop');
        return false;
      },
    });
    await expect(run).rejects.toBe('stop');
  });

  it('an abort inside a shouldRetryResult that accepts the value: rejects with the reason', async () => {
    const controller = new AbortController();
    const run = retry(() => 'v', {
      signal: controller.signal,
      shouldRetryResult: () => {
        controller.abort('stop');
        return false;
      },
    });
    await expect(run).rejects.toBe('stop'); // before: resolved with 'v'
  });

  it('an abort inside any callback that then throws: rejects with the reason, not what it threw (review)', async () => {
    const aborting = (controller: AbortController) => () => {
      controller.abort('stop');
      throw new Error('callback failed');
    };
    const cases: [string, (c: AbortController) => Record<string, unknown>, () => unknown][] = [
      ['isTransient', (c) => ({ isTransient: aborting(c) }), () => Promise.reject(transient())],
      ['shouldRetryResult', (c) => ({ shouldRetryResult: aborting(c) }), () => 'v'],
      ['onFailure', (c) => ({ onFailure: aborting(c) }), () => Promise.reject(transient())],
      ['onRetry', (c) => ({ onRetry: aborting(c) }), () => Promise.reject(transient())],
      ['retryAfter', (c) => ({ retryAfter: aborting(c) }), () => Promise.reject(transient())],
      [
        'random, returning a bad draw',
        (c) => ({
          random: () => {
            c.abort('stop');
            return 7;
          },
        }),
        () => Promise.reject(transient()),
      ],
    ];
    for (const [name, options, fn] of cases) {
      const controller = new AbortController();
      const run = settle(retry(fn, { signal: controller.signal, ...options(controller) }));
      await fake.clock.tickAsync(0);
      expect([name, run.result.reason]).toEqual([name, 'stop']);
    }
  });

  it('an abort before an async callback rejects leaves no unhandled rejection (review)', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      for (const hook of ['onFailure', 'isTransient', 'onRetry'] as const) {
        const controller = new AbortController();
        const late = async () => {
          controller.abort('stop');
          await null;
          throw new Error(`${hook} failed late`);
        };
        const run = settle(
          retry(() => Promise.reject(transient()), {
            signal: controller.signal,
            ...(hook === 'isTransient' ? { isTransient: late } : { [hook]: late }),
          }),
        );
        await fake.clock.tickAsync(0);
        expect(run.result.reason).toBe('stop');
      }
      await new Promise((resolve) => setImmediate(resolve)); // unhandled rejections are reported by now
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});

describe('computeDelay stays finite at the edges of the doubles', () => {
  it('decorrelated with a huge previous delay and random 0 is baseMs, not NaN', () => {
    expect(computeDelay(2, { jitter: 'decorrelated', random: () => 0, capMs: 1000 }, 1e308)).toBe(100);
    expect(computeDelay(2, { jitter: 'decorrelated', random: () => 0.5, capMs: 1000 }, 1e308)).toBe(1000);
  });

  it('retry() with baseMs = capMs = 1e308 reports finite delays', async () => {
    const delays: number[] = [];
    const run = settle(
      retry(() => Promise.reject(transient()), {
        jitter: 'decorrelated',
        baseMs: 1e308,
        capMs: 1e308,
        random: () => 0,
        maxAttempts: 3,
        onRetry: ({ delayMs }) => {
          delays.push(delayMs);
        },
        signal: new AbortController().signal,
      }),
    );
    await fake.clock.tickAsync(0);
    expect(delays).toEqual([1e308]);
    expect(fake.clock.countTimers()).toBe(1); // it sleeps (a chained timer), it does not skip the sleep
    expect(run.result.status).toBe('pending');
  });

  it('property: every jitter, any finite previous delay and bounds, always finite within [0, capMs]', () => {
    const double = fc.double({ min: 0, max: Number.MAX_VALUE, noNaN: true, noDefaultInfinity: true });
    fc.assert(
      fc.property(
        fc.constantFrom('none', 'full', 'equal', 'decorrelated' as const),
        fc.integer({ min: 1, max: 2_000 }),
        double,
        double,
        double,
        fc.constantFrom(0, 0.5, 1 - 2 ** -53),
        (jitter, attempt, a, b, previous, r) => {
          const [baseMs, capMs] = a <= b ? [a, b] : [b, a];
          const d = computeDelay(attempt, { jitter, baseMs, capMs, random: () => r }, previous);
          return Number.isFinite(d) && d >= 0 && d <= capMs;
        },
      ),
      { numRuns: 3_000 },
    );
  });
});

describe('fn and random are checked', () => {
  it.each([
    ['a string', 'https://x', "got 'https://x'"],
    ['undefined', undefined, 'got undefined'],
    ['an object', {}, 'got [object Object]'],
  ])('fn that is %s rejects up front with a named TypeError', async (_name, fn, text) => {
    const isTransient = vi.fn(() => true);
    const run = retry(fn as never, { isTransient });
    await expect(run).rejects.toThrow(TypeError);
    await expect(run).rejects.toThrow(`herdless: fn must be a function, ${text}`);
    expect(isTransient).not.toHaveBeenCalled();
  });

  it('a broken random keeps fn error reachable as the cause', async () => {
    const boom = transient('the real failure');
    const run = retry(
      () => {
        throw boom;
      },
      { random: () => 5 },
    );
    await expect(run).rejects.toThrow(/herdless: random\(\) must be a number in \[0, 1\), got 5/);
    await expect(run).rejects.toMatchObject({ cause: boom });
    // Set as an ordinary own property would be: the catcher may still redefine or delete it.
    const error = await run.catch((e: unknown) => e as Error);
    expect(Object.getOwnPropertyDescriptor(error, 'cause')).toMatchObject({ value: boom, configurable: true });
    expect(delete (error as { cause?: unknown }).cause).toBe(true);
  });

  it('a random that throws its own error is not touched', async () => {
    const own = new Error('rng down');
    const run = retry(() => Promise.reject(transient()), {
      random: () => {
        throw own;
      },
    });
    await expect(run).rejects.toBe(own);
    expect(own.cause).toBeUndefined();
  });
});

describe('RetryError across two copies of the library (ESM and CJS builds)', () => {
  it('instanceof holds for a RetryError of the other copy; subclasses check as usual', async () => {
    vi.resetModules();
    const other = await import('../src/errors');
    expect(other.RetryError).not.toBe(RetryError);
    const init = { reason: 'attempts' as const, errors: [new Error('x')], attempts: 1, elapsedMs: 0 };
    expect(new other.RetryError(init)).toBeInstanceOf(RetryError);
    expect(new RetryError(init)).toBeInstanceOf(other.RetryError);
    class Mine extends RetryError {}
    expect(new Mine(init)).toBeInstanceOf(Mine);
    expect(new Mine(init)).toBeInstanceOf(RetryError);
    expect(new RetryError(init) instanceof Mine).toBe(false);
    expect(new Error('x') instanceof RetryError).toBe(false);
    expect({ name: 'RetryError' } instanceof RetryError).toBe(false);
    expect(revoked() instanceof RetryError).toBe(false);
    expect(Object.getOwnPropertyNames(new RetryError(init))).not.toContain('herdless.RetryError'); // on the prototype
    expect(Object.keys(new RetryError(init))).toEqual(['name', 'reason', 'errors', 'attempts', 'elapsedMs']);
  });
});
