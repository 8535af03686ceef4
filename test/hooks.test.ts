// What users of the peers reach for (issue 11): the attempt's signal in step with the caller's abort, onFailure,
// permanent(), a server-hint reader, unref.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPolicy, type FailureEvent, permanent, type RetryContext, type RetryError, retry } from '../src/index';
import { draws, settle, useFakeClock } from './helpers';

const fake = useFakeClock();
const never = () => new Promise<never>(() => {});
const transient = (message = 'blip') => Object.assign(new Error(message), { status: 503 });

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the attempt's signal is aborted at once by the caller's abort", () => {
  it('while fn is pending: aborted in the same tick as abort()', async () => {
    const controller = new AbortController();
    let ctx: RetryContext | undefined;
    const run = settle(
      retry(
        (c) => {
          ctx = c;
          void c.signal; // read before the abort
          return never();
        },
        { signal: controller.signal },
      ),
    );
    await fake.clock.tickAsync(0);
    controller.abort('stop');
    expect(ctx?.signal.aborted).toBe(true); // before: false for about two microtasks
    expect(ctx?.signal.reason).toBe('stop');
    await fake.clock.tickAsync(0);
    expect(run.result.reason).toBe('stop');
  });

  it('when fn aborts and then throws synchronously: the signal it already read is aborted', async () => {
    const controller = new AbortController();
    let seen: boolean | undefined;
    let ctx: RetryContext | undefined;
    const run = retry(
      (c) => {
        ctx = c;
        const { signal } = c;
        controller.abort('stop');
        seen = signal.aborted;
        throw transient();
      },
      { signal: controller.signal },
    );
    await expect(run).rejects.toBe('stop');
    expect(seen).toBe(true); // before: false, and never aborted at all
    expect(ctx?.signal.aborted).toBe(true);
  });

  it('when fn has settled and the abort comes during isTransient: that attempt is aborted too', async () => {
    const controller = new AbortController();
    let ctx: RetryContext | undefined;
    const run = settle(
      retry(
        (c) => {
          ctx = c;
          return Promise.reject(transient());
        },
        { signal: controller.signal, isTransient: () => never() },
      ),
    );
    await fake.clock.tickAsync(0);
    controller.abort('stop');
    expect(ctx?.signal.aborted).toBe(true);
    await fake.clock.tickAsync(0);
    expect(run.result.reason).toBe('stop');
  });

  it('when the abort comes during a sleep, and the signal is read only later', async () => {
    const controller = new AbortController();
    const contexts: RetryContext[] = [];
    const run = settle(
      retry(
        (c) => {
          contexts.push(c);
          return Promise.reject(transient());
        },
        { signal: controller.signal, random: () => 0.5 },
      ),
    );
    await fake.clock.tickAsync(10); // sleeping 50 ms
    controller.abort('stop');
    expect(contexts).toHaveLength(1);
    expect(contexts[0]?.signal.aborted).toBe(true); // created on read, already aborted
    await fake.clock.tickAsync(0);
    expect(run.result.reason).toBe('stop');
    expect(fake.clock.countTimers()).toBe(0);
  });
});

describe('onFailure', () => {
  it('sees every failed attempt, the last included, before isTransient, with attemptsLeft', async () => {
    const order: string[] = [];
    const events: FailureEvent[] = [];
    const run = settle(
      retry(() => Promise.reject(transient()), {
        maxAttempts: 3,
        random: () => 0,
        onFailure: (event) => {
          events.push(event);
          order.push(`failure ${event.attempt}`);
        },
        isTransient: (_e, attempt) => {
          order.push(`isTransient ${attempt}`);
          return true;
        },
        onRetry: ({ attempt, attemptsLeft }) => {
          order.push(`retry ${attempt} left ${attemptsLeft}`);
        },
      }),
    );
    await fake.clock.runAllAsync();
    expect(run.result.reason).toMatchObject({ reason: 'attempts', attempts: 3 });
    expect(order).toEqual([
      'failure 1',
      'isTransient 1',
      'retry 1 left 2',
      'failure 2',
      'isTransient 2',
      'retry 2 left 1',
      'failure 3',
      'isTransient 3',
    ]);
    expect(events.map((e) => e.attemptsLeft)).toEqual([2, 1, 0]);
    expect(events.every(Object.isFrozen)).toBe(true);
    expect(events[0]).toEqual({
      attempt: 1,
      error: expect.any(Error),
      value: undefined,
      attemptsLeft: 2,
      elapsedMs: 0,
    });
  });

  it('sees a permanent error, an attempt timeout and a rejected result', async () => {
    const events: FailureEvent[] = [];
    const onFailure = (e: FailureEvent) => {
      events.push(e);
    };
    const bad = Object.assign(new Error('nope'), { status: 404 });
    await expect(retry(() => Promise.reject(bad), { onFailure })).rejects.toBe(bad);
    expect(events.map((e) => e.error)).toEqual([bad]);

    events.length = 0;
    const timed = settle(retry(() => never(), { onFailure, attemptTimeoutMs: 50, maxAttempts: 2, baseMs: 0 }));
    await fake.clock.runAllAsync();
    expect(timed.result.reason).toMatchObject({ reason: 'attempts' });
    expect(events.map((e) => (e.error as DOMException).name)).toEqual(['TimeoutError', 'TimeoutError']);

    events.length = 0;
    const results = settle(retry(() => 503, { onFailure, shouldRetryResult: (v) => v === 503, maxAttempts: 2 }));
    await fake.clock.runAllAsync();
    expect(results.result.value).toBe(503);
    expect(events.map((e) => [e.error, e.value])).toEqual([
      [undefined, 503],
      [undefined, 503],
    ]);
  });

  it('is awaited, and attemptsLeft is Infinity with maxAttempts Infinity', async () => {
    const left: number[] = [];
    let calls = 0;
    const run = settle(
      retry(
        () => {
          calls++;
          return Promise.reject(transient());
        },
        {
          maxAttempts: Infinity,
          timeoutMs: 1_000,
          baseMs: 0,
          onFailure: async ({ attemptsLeft }) => {
            left.push(attemptsLeft);
            await new Promise((resolve) => setTimeout(resolve, 100));
          },
        },
      ),
    );
    await fake.clock.tickAsync(99);
    expect(calls).toBe(1); // waiting for onFailure
    await fake.clock.tickAsync(1);
    expect(calls).toBe(2);
    await fake.clock.runAllAsync();
    expect(left.every((n) => n === Infinity)).toBe(true);
    expect(run.result.reason).toMatchObject({ reason: 'timeout' });
  });

  it('rejects with what it threw, and is bounded by the deadline and the abort', async () => {
    const oops = new Error('logger down');
    await expect(
      retry(() => Promise.reject(transient()), {
        onFailure: () => {
          throw oops;
        },
      }),
    ).rejects.toBe(oops);

    const late = settle(retry(() => Promise.reject(transient()), { onFailure: () => never(), timeoutMs: 100 }));
    await fake.clock.tickAsync(100);
    expect(late.result.reason).toMatchObject({ reason: 'timeout', attempts: 1 });

    const controller = new AbortController();
    const aborted = settle(
      retry(() => Promise.reject(transient()), { onFailure: () => never(), signal: controller.signal }),
    );
    await fake.clock.tickAsync(0);
    controller.abort('stop');
    await fake.clock.tickAsync(0);
    expect(aborted.result.reason).toBe('stop');
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('is not called for the caller abort, which is not a failure', async () => {
    const controller = new AbortController();
    const onFailure = vi.fn();
    const run = settle(retry(() => never(), { signal: controller.signal, onFailure }));
    await fake.clock.tickAsync(0);
    controller.abort('stop');
    await fake.clock.tickAsync(0);
    expect(run.result.reason).toBe('stop');
    expect(onFailure).not.toHaveBeenCalled();
  });
});

describe('permanent(error)', () => {
  it('stops at once and rejects with the error itself, whatever isTransient says', async () => {
    const err = transient('gone for good'); // the default classifier would retry a 503
    const isTransient = vi.fn(() => true);
    const onFailure = vi.fn();
    const fn = vi.fn(() => {
      throw permanent(err);
    });
    await expect(retry(fn, { isTransient, onFailure })).rejects.toBe(err);
    expect(fn).toHaveBeenCalledTimes(1);
    expect(isTransient).not.toHaveBeenCalled();
    expect(onFailure).toHaveBeenCalledWith(expect.objectContaining({ error: err, attemptsLeft: 2 }));
  });

  it('works from a rejected promise, and with a non-Error value', async () => {
    await expect(retry(() => Promise.reject(permanent('just a string')))).rejects.toBe('just a string');
  });

  it('is recognised from another copy of the library (the other build)', async () => {
    vi.resetModules();
    const other = await import('../src/errors');
    expect(other.permanent).not.toBe(permanent);
    const err = transient();
    await expect(
      retry(() => {
        throw other.permanent(err);
      }),
    ).rejects.toBe(err);
    expect(other.isPermanent(permanent(err))).toBe(true); // and this copy's wrapper by the other one
    expect(other.isPermanent(err)).toBe(false);
  });

  it('nested: the inner retry rejects with the error, the outer one classifies it as usual', async () => {
    const err = transient();
    let outer = 0;
    const run = settle(
      retry(
        () => {
          outer++;
          return retry(() => {
            throw permanent(err);
          });
        },
        { maxAttempts: 3, random: () => 0 },
      ),
    );
    await fake.clock.runAllAsync();
    expect(outer).toBe(3); // a 503 is transient for the outer call
    expect((run.result.reason as RetryError).errors).toEqual([err, err, err]);
  });

  it('thrown outside retry() it is still an Error that says what it holds', () => {
    const wrapped = permanent(new Error('db gone'));
    expect(wrapped).toBeInstanceOf(Error);
    expect(wrapped.message).toMatch(/permanent failure .*: db gone/);
    expect(wrapped.cause).toBeInstanceOf(Error);
  });

  it('names itself PermanentError, with the error as its cause', () => {
    const err = new Error('db gone');
    const wrapped = permanent(err);
    expect(wrapped.name).toBe('PermanentError');
    expect(wrapped.cause).toBe(err);
    expect(String(wrapped)).toMatch(/^PermanentError: herdless: permanent failure/);
  });

  it('a look-alike whose error getter throws is no wrapper: it is the failure, classified as usual', async () => {
    const lookalike = {
      'herdless.permanent': true,
      get error(): never {
        throw new Error('getter');
      },
    };
    const isTransient = vi.fn(() => false);
    await expect(
      retry(
        () => {
          throw lookalike;
        },
        { isTransient },
      ),
    ).rejects.toBe(lookalike);
    expect(isTransient).toHaveBeenCalledTimes(1);
    expect((isTransient.mock.calls[0] as unknown[])[0]).toBe(lookalike); // by identity: equality would read `error`
  });
});

describe('retryAfter: a server-hint reader of your own', () => {
  it('replaces readRetryAfter; the spread and maxRetryAfterMs apply to it', async () => {
    const delays: number[] = [];
    const err = Object.assign(transient(), { body: { backoffSeconds: 2 } });
    const run = settle(
      retry(() => Promise.reject(err), {
        retryAfter: (e) => (e as typeof err).body.backoffSeconds * 1_000,
        random: draws(0.5),
        maxAttempts: 2,
        onRetry: ({ delayMs }) => {
          delays.push(delayMs);
        },
      }),
    );
    await fake.clock.runAllAsync();
    expect(delays).toEqual([3_000]); // the server's 2 s plus half of the spread (as wide as the wait)
    expect(run.result.reason).toMatchObject({ reason: 'attempts', attempts: 2, elapsedMs: 3_000 });

    const tooLong = retry(() => Promise.reject(err), { retryAfter: () => 120_000 });
    await expect(tooLong).rejects.toMatchObject({ reason: 'retry-after' });
    await expect(tooLong).rejects.toThrow('(Retry-After 120000 ms > maxRetryAfterMs 60000)');
    const refused = retry(() => Promise.reject(err), { retryAfter: () => Infinity }); // "do not retry"
    await expect(refused).rejects.toThrow('gave up after 1 attempt over 0 ms (the server said not to retry): blip');
  });

  it('undefined means no hint: the plain backoff', async () => {
    const delays: number[] = [];
    const withHeader = Object.assign(transient(), { headers: { 'retry-after': '5' } });
    const run = settle(
      retry(() => Promise.reject(withHeader), {
        retryAfter: () => undefined, // ignores the header the default would read
        random: () => 0.5,
        maxAttempts: 2,
        onRetry: ({ delayMs }) => {
          delays.push(delayMs);
        },
      }),
    );
    await fake.clock.runAllAsync();
    expect(delays).toEqual([50]);
    expect(run.result.status).toBe('rejected');
  });

  it.each([-1, Number.NaN, '5'])(
    'a reader returning %o is a clear error that keeps the failure as cause',
    async (v) => {
      const err = transient();
      const run = retry(() => Promise.reject(err), { retryAfter: () => v as never });
      await expect(run).rejects.toThrow(/herdless: retryAfter\(\) must be a number >= 0 or undefined/);
      await expect(run).rejects.toMatchObject({ cause: err });
    },
  );

  it('must be a function', () => {
    expect(() => createPolicy({ retryAfter: 5 as never })).toThrow(/herdless: retryAfter must be a function, got 5/);
  });
});

/** Spies on `setTimeout`: the ms of every timer whose `unref` is called, in order (the timer's own `unref` still runs). */
function spyOnUnref() {
  const unrefs: number[] = [];
  const original = globalThis.setTimeout;
  vi.spyOn(globalThis, 'setTimeout').mockImplementation(((cb: () => void, ms: number) => {
    const timer = original(cb, ms);
    const t = timer as unknown as { unref?: () => unknown };
    const own = t.unref?.bind(t);
    t.unref = () => {
      unrefs.push(ms);
      return own?.();
    };
    return timer;
  }) as typeof setTimeout);
  return { unrefs, original };
}

describe('unref', () => {
  it('must be a boolean', () => {
    expect(() => createPolicy({ unref: 'yes' as never })).toThrow(/herdless: unref must be a boolean, got 'yes'/);
    expect(createPolicy({ unref: true }).unref).toBe(true);
    expect(createPolicy({}).unref).toBe(false);
  });

  it('without unref (the default), no timer is unref-ed', async () => {
    const { unrefs, original } = spyOnUnref();
    let calls = 0;
    const run = settle(
      retry(
        () => {
          if (++calls < 2) throw Object.assign(new Error('busy'), { status: 503 });
          return new Promise((r) => original(r, 5, 'ok'));
        },
        { baseMs: 10, random: () => 0.5, timeoutMs: 1_000 },
      ),
    );
    await fake.clock.tickAsync(20);
    expect(run.result.value).toBe('ok');
    expect(unrefs).toEqual([]);
  });

  it('where timers are plain numbers (a browser), unref: true does nothing and the sleep still ends', async () => {
    const original = globalThis.setTimeout;
    let ids = 0;
    const cleared = new Map<number, ReturnType<typeof setTimeout>>();
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((cb: () => void, ms: number) => {
      const id = ++ids;
      cleared.set(id, original(cb, ms));
      return id;
    }) as unknown as typeof setTimeout);
    const originalClear = globalThis.clearTimeout;
    vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((id: number) =>
      originalClear(cleared.get(id))) as unknown as typeof clearTimeout);
    let calls = 0;
    const run = settle(
      retry(
        () => {
          if (++calls < 2) throw Object.assign(new Error('busy'), { status: 503 });
          return 'ok';
        },
        { unref: true, baseMs: 10, random: () => 0.5 },
      ),
    );
    await fake.clock.tickAsync(5);
    expect(run.result).toEqual({ status: 'fulfilled', value: 'ok', reason: undefined });
    expect(ids).toBe(1);
  });

  it('unrefs every timer it arms: the sleep, the attempt timeout and the deadline', async () => {
    const { unrefs } = spyOnUnref();
    const run = settle(
      retry(() => never(), { unref: true, attemptTimeoutMs: 100, timeoutMs: 1_000, random: () => 0.5, maxAttempts: 2 }),
    );
    await fake.clock.runAllAsync();
    expect(run.result.reason).toMatchObject({ reason: 'attempts' });
    expect(unrefs).toEqual([100, 50, 100]); // attempt 1's timeout, the sleep, attempt 2's timeout
  });

  it('in a real process: a 60 s sleep with unref lets the process exit at once', { timeout: 30_000 }, async () => {
    const script = `
      import { retry } from ${JSON.stringify(join(import.meta.dirname, '../src/index.ts'))};
      retry(() => Promise.reject(Object.assign(new Error('blip'), { status: 503 })), {
        unref: true, baseMs: 60_000, capMs: 60_000, jitter: 'none',
      }).then(() => console.log('settled'), () => console.log('settled'));
      console.log('started');`;
    const tsx = join(import.meta.dirname, '../node_modules/.bin/tsx');
    // execFile kills the child and rejects if it is still alive after 25 s: a timer that kept it alive fails here.
    const { stdout } = await promisify(execFile)(tsx, ['--input-type=module', '-e', script], { timeout: 25_000 });
    expect(stdout).toBe('started\n'); // exited with the retry pending, not 60 s later with 'settled'
  });
});

describe('review findings', () => {
  it('"do not retry" (Infinity) stops with retry-after even when maxRetryAfterMs is Infinity', async () => {
    const err = Object.assign(new Error('503'), { status: 503, headers: { 'grpc-retry-pushback-ms': '-1' } });
    const run = retry(() => Promise.reject(err), { maxRetryAfterMs: Infinity });
    await expect(run).rejects.toMatchObject({ reason: 'retry-after', attempts: 1 }); // before: 'timeout'
    await expect(run).rejects.toThrow('(the server said not to retry)');
  });

  it('a server wait whose spread overflows to Infinity stops with retry-after, not timeout', async () => {
    const run = retry(() => Promise.reject(transient()), {
      maxRetryAfterMs: Infinity,
      capMs: Number.MAX_VALUE,
      baseMs: 1,
      retryAfter: () => Number.MAX_VALUE,
      random: () => 0.5,
    });
    await expect(run).rejects.toMatchObject({ reason: 'retry-after' });
  });

  it('an abort before retry() settles wins over throw permanent(err)', async () => {
    const controller = new AbortController();
    const reason = new Error('aborted by caller');
    const run = retry(
      () => {
        const failure = Promise.reject(permanent(new Error('permanent failure')));
        failure.catch(() => queueMicrotask(() => controller.abort(reason)));
        return failure;
      },
      { signal: controller.signal },
    );
    await expect(run).rejects.toBe(reason);
  });

  it("a synthetic 'abort' event on a live signal is not an abort", async () => {
    const controller = new AbortController();
    const run = settle(retry(() => never(), { signal: controller.signal }));
    await fake.clock.tickAsync(0);
    controller.signal.dispatchEvent(new Event('abort'));
    await fake.clock.tickAsync(0);
    expect(run.result.status).toBe('pending'); // before: rejected with undefined
    controller.abort('real');
    await fake.clock.tickAsync(0);
    expect(run.result.reason).toBe('real');
  });

  it('-0 is named as -0 in an option error', () => {
    expect(() => createPolicy({ timeoutMs: -0 })).toThrow(
      /timeoutMs must be a number > 0, or Infinity for none, got -0$/,
    );
  });
});
