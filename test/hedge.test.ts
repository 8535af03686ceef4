import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { isSlowdown } from '../src/hedge/hedge';
import { createHedge, type Hedge, type HedgeContext, type HedgeEvent, hedged } from '../src/hedge/index';
import { createRetryBudget, type RetryError, retry } from '../src/index';
import { settle, stray, useFakeClock } from './helpers';

const fake = useFakeClock();

/** An attempt that answers `value` after `ms` (or rejects with `error`), and records its signal. */
function slow<T>(ms: number, value: T, seen: AbortSignal[], error?: unknown): (c: HedgeContext) => Promise<T> {
  return ({ signal }) => {
    seen.push(signal);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => (error === undefined ? resolve(value) : reject(error)), ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    });
  };
}

/** A fn whose attempts each follow the next of `plans` ([ms, value or Error]). */
function planned(plans: [number, string | Error][], seen: AbortSignal[] = []) {
  let i = 0;
  return (c: HedgeContext) => {
    const [ms, out] = plans[i++] as [number, string | Error];
    return out instanceof Error ? slow(ms, '', seen, out)(c) : slow(ms, out, seen)(c);
  };
}

/** Two attempts that would each answer after 1 s: a round the test ends otherwise. */
const bothSlow = (seen: AbortSignal[]) =>
  planned(
    [
      [1_000, 'a'],
      [1_000, 'b'],
    ],
    seen,
  );

/** `n` calls one after the other, each a first attempt of 100 ms and a hedge (if sent) of `hedgeMs`: all answered. */
async function slowCalls(h: Hedge, n: number, hedgeMs: number): Promise<void> {
  for (let k = 0; k < n; k++) {
    const call = settle(
      retry(
        hedged(
          planned([
            [100, 'slow'],
            [hedgeMs, 'hedge'],
          ]),
          h,
        ),
      ),
    );
    await fake.clock.tickAsync(100);
    expect(call.result.status).toBe('fulfilled');
  }
}

describe('hedged: the race', () => {
  it('sends no hedge when the first attempt answers before the delay, and leaves no timer', async () => {
    const hedge = createHedge({ delayMs: 50, maxExtraLoad: 1 });
    const seen: AbortSignal[] = [];
    const call = settle(retry(hedged(slow(10, 'a', seen), hedge)));
    await fake.clock.tickAsync(10);
    expect(call.result).toEqual({ status: 'fulfilled', value: 'a', reason: undefined });
    expect(seen).toHaveLength(1);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('sends a hedge after the delay; the first answer wins and the loser is aborted', async () => {
    const seen: AbortSignal[] = [];
    const events: HedgeEvent[] = [];
    const h = createHedge({ delayMs: 50, maxExtraLoad: 1, onHedge: (e) => events.push(e) });
    const call = settle(
      retry(
        hedged(
          planned(
            [
              [1_000, 'slow'],
              [20, 'fast'],
            ],
            seen,
          ),
          h,
        ),
      ),
    );
    await fake.clock.tickAsync(70);
    expect(call.result.value).toBe('fast');
    expect(seen).toHaveLength(2);
    expect(seen[0]?.aborted).toBe(true);
    expect(((seen[0] as AbortSignal).reason as DOMException).name).toBe('AbortError');
    expect(seen[1]?.aborted).toBe(false);
    expect(events).toEqual([{ sent: true, reason: undefined, hedge: 1, delayMs: 50 }]);
    expect(fake.clock.countTimers()).toBe(0);
    expect(h.tokens).toBe(0); // the one hedge this call earned, spent
  });

  it('gives each attempt its hedge number, and retry()s attempt number and elapsed time', async () => {
    const contexts: [number, number, number][] = [];
    const h = createHedge({ delayMs: 50, maxExtraLoad: 1 });
    const fn = hedged((c: HedgeContext) => {
      contexts.push([c.attempt, c.hedge, c.elapsedMs]);
      return slow(c.hedge === 0 ? 1_000 : 10, 'ok', [])(c);
    }, h);
    const call = settle(retry(fn));
    await fake.clock.tickAsync(60);
    expect(call.result.value).toBe('ok');
    expect(contexts).toEqual([
      [1, 0, 0],
      [1, 1, 0],
    ]);
  });

  it('a hedge that fails first does not end the call: the first attempt then succeeds', async () => {
    const h = createHedge({ delayMs: 50, maxExtraLoad: 1 });
    const seen: AbortSignal[] = [];
    const fn = planned(
      [
        [100, 'primary'],
        [10, new Error('hedge failed')],
      ],
      seen,
    );
    const attempts: number[] = [];
    const call = settle(retry(hedged(fn, h), { maxAttempts: 1, onSettle: (e) => attempts.push(e.attempts) }));
    await fake.clock.tickAsync(100);
    expect(call.result.value).toBe('primary');
    expect(attempts).toEqual([1]);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('the first attempt failing while a hedge is in flight: the hedge answers', async () => {
    const h = createHedge({ delayMs: 50, maxExtraLoad: 1 });
    const call = settle(
      retry(
        hedged(
          planned([
            [60, new Error('down')],
            [30, 'hedge'],
          ]),
          h,
        ),
        { maxAttempts: 1 },
      ),
    );
    await fake.clock.tickAsync(80);
    expect(call.result.value).toBe('hedge');
  });

  it('every attempt of a round failing fails the round with the last failure, and retry() retries it', async () => {
    const h = createHedge({ delayMs: 50, maxExtraLoad: 1 });
    const last = new Error('hedge: 2nd failure');
    const failures: unknown[] = [];
    const fn = planned([
      [60, new Error('first')],
      [30, last],
      [10, 'second round'],
    ]);
    const call = settle(
      retry(hedged(fn, h), { maxAttempts: 2, baseMs: 0, onFailure: (e) => void failures.push(e.error) }),
    );
    await fake.clock.tickAsync(100);
    expect(call.result.value).toBe('second round');
    expect(failures).toEqual([last]);
  });

  it('a failure stops further hedges in its round: a fast failure goes to retry() at once', async () => {
    const h = createHedge({ delayMs: 50, maxExtraLoad: 1, maxHedges: 2 });
    const seen: AbortSignal[] = [];
    const call = settle(retry(hedged(planned([[10, new Error('fast')]], seen), h), { maxAttempts: 1 }));
    await fake.clock.tickAsync(200);
    expect(call.result.status).toBe('rejected');
    expect(seen).toHaveLength(1);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('sends up to maxHedges, one more after each delay', async () => {
    const h = createHedge({ delayMs: 50, maxExtraLoad: 1, maxHedges: 2 });
    await retry(hedged(() => 'saves a hedge', h)); // a call earns maxExtraLoad: 1 hedge saved
    const seen: AbortSignal[] = [];
    const call = settle(
      retry(
        hedged(
          planned(
            [
              [1_000, 'a'],
              [1_000, 'b'],
              [10, 'c'],
            ],
            seen,
          ),
          h,
        ),
      ),
    );
    await fake.clock.tickAsync(49);
    expect(seen).toHaveLength(1);
    await fake.clock.tickAsync(1);
    expect(seen).toHaveLength(2);
    await fake.clock.tickAsync(50);
    expect(seen).toHaveLength(3);
    await fake.clock.tickAsync(10);
    expect(call.result.value).toBe('c');
    expect(seen.map((s) => s.aborted)).toEqual([true, true, false]);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('the deadline landing mid-hedge aborts every attempt and gives up with timeout, nothing left behind', async () => {
    const h = createHedge({ delayMs: 50, maxExtraLoad: 1 });
    const seen: AbortSignal[] = [];
    const errors = await stray(async () => {
      const call = settle(retry(hedged(bothSlow(seen), h), { timeoutMs: 80 }));
      await fake.clock.tickAsync(80);
      expect(call.result.status).toBe('rejected');
      expect((call.result.reason as RetryError).reason).toBe('timeout');
      await fake.clock.tickAsync(2_000);
    });
    expect(errors).toEqual([]);
    expect(seen).toHaveLength(2);
    expect(seen.every((s) => s.aborted)).toBe(true);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('an abort mid-hedge rejects with its reason, aborts every attempt with it, and removes every listener', async () => {
    const h = createHedge({ delayMs: 50, maxExtraLoad: 1 });
    const controller = new AbortController();
    const seen: AbortSignal[] = [];
    const reason = new Error('shutting down');
    const errors = await stray(async () => {
      const call = settle(retry(hedged(bothSlow(seen), h), { signal: controller.signal }));
      await fake.clock.tickAsync(60);
      expect(seen).toHaveLength(2);
      controller.abort(reason);
      await fake.clock.tickAsync(0);
      expect(call.result).toEqual({ status: 'rejected', value: undefined, reason });
    });
    expect(errors).toEqual([]);
    expect(seen.map((s) => s.reason)).toEqual([reason, reason]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it("an abort from the first attempt's own synchronous part ends the round with its reason", async () => {
    const h = createHedge({ delayMs: 50, maxExtraLoad: 1 });
    const controller = new AbortController();
    const reason = new Error('aborted from inside');
    const call = settle(
      retry(
        hedged(({ signal }) => {
          controller.abort(reason);
          return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
        }, h),
        { signal: controller.signal },
      ),
    );
    await fake.clock.tickAsync(0);
    expect(call.result.reason).toBe(reason);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('an abort before the hedge is due clears its timer', async () => {
    const h = createHedge({ delayMs: 50, maxExtraLoad: 1 });
    const controller = new AbortController();
    const seen: AbortSignal[] = [];
    const call = settle(retry(hedged(planned([[1_000, 'a']], seen), h), { signal: controller.signal }));
    await fake.clock.tickAsync(10);
    controller.abort();
    await fake.clock.tickAsync(0);
    expect(call.result.status).toBe('rejected');
    expect(seen).toHaveLength(1);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('a late answer or failure after the round settled is ignored', async () => {
    const h = createHedge({ delayMs: 50, maxExtraLoad: 1 });
    // Attempts that ignore their signal: both settle, the loser after the winner.
    let i = 0;
    const fn = () =>
      new Promise<string>((resolve, reject) =>
        i++ === 0 ? setTimeout(() => reject(new Error('late')), 200) : setTimeout(() => resolve('hedge'), 10),
      );
    const errors = await stray(async () => {
      const call = settle(retry(hedged(fn, h)));
      await fake.clock.tickAsync(300);
      expect(call.result.value).toBe('hedge');
    });
    expect(errors).toEqual([]);
  });

  it('takes a value or a throw from a synchronous fn', async () => {
    const h = createHedge({ delayMs: 50, maxExtraLoad: 1 });
    await expect(retry(hedged(() => 7, h))).resolves.toBe(7);
    const oops = new Error('sync');
    await expect(
      retry(
        hedged(() => {
          throw oops;
        }, h),
        { maxAttempts: 1 },
      ),
    ).rejects.toMatchObject({ cause: oops });
  });
});

describe('hedged: what bounds it', () => {
  it('learns its delay: no hedge (and no timer) before minSamples answers, then the percentile of them', async () => {
    const h = createHedge({ minSamples: 10, percentile: 0.5, maxExtraLoad: 1 });
    for (let k = 0; k < 9; k++) {
      const call = settle(retry(hedged(slow(20, k, []), h)));
      expect(fake.clock.countTimers()).toBe(1); // the attempt's own, no hedge timer
      await fake.clock.tickAsync(20);
      expect(call.result.value).toBe(k);
    }
    expect(h.peek()).toBeUndefined();
    await retry(hedged(() => 'sync', h)); // a 0 ms answer: the 10th sample
    const delay = h.peek() as number;
    expect(delay).toBeGreaterThanOrEqual(20);
    expect(delay).toBeLessThan(22.1);
  });

  it('never hedges more than maxExtraLoad of its calls: the cap refuses with load', async () => {
    const events: HedgeEvent[] = [];
    const h = createHedge({ delayMs: 10, maxExtraLoad: 0.25, onHedge: (e) => events.push(e) });
    await slowCalls(h, 8, 1);
    expect(events.filter((e) => e.sent)).toHaveLength(2);
    expect(events.filter((e) => !e.sent).every((e) => e.reason === 'load')).toBe(true);
  });

  it('refuses a hedge (slow) while most of the recent calls cross the delay: a slowdown, not a tail', async () => {
    const events: HedgeEvent[] = [];
    const h = createHedge({ delayMs: 10, onHedge: (e) => events.push(e) });
    for (let k = 0; k < 200; k++) await retry(hedged(() => 'fast', h)); // 200 calls: 10 hedges saved
    // Then every call is slow: the first few are hedged, until more than 10% of the last 3 s of calls crossed.
    await slowCalls(h, 30, 100);
    const reasons = events.map((e) => e.reason ?? 'sent');
    expect(reasons.slice(0, 10)).toEqual(Array(10).fill('sent'));
    expect(reasons.slice(-5)).toEqual(Array(5).fill('slow'));
    expect(isSlowdown(21, 200, 0.05)).toBe(true);
    expect(isSlowdown(20, 200, 0.05)).toBe(false);
    expect(isSlowdown(19, 19, 0.05)).toBe(false); // too few calls to say
  });

  it('maxExtraLoad 0 turns hedging off: no timer at all', async () => {
    const h = createHedge({ delayMs: 10, maxExtraLoad: 0 });
    const call = settle(retry(hedged(slow(100, 'a', []), h)));
    expect(fake.clock.countTimers()).toBe(1);
    await fake.clock.tickAsync(100);
    expect(call.result.value).toBe('a');
    expect(h.tokens).toBe(0);
  });

  it('refuses a hedge (budget) while the retry budget says the dependency is queueing', async () => {
    const budget = createRetryBudget({ slowMs: 100 });
    const events: HedgeEvent[] = [];
    const h = createHedge({ delayMs: 50, maxExtraLoad: 1, budget, onHedge: (e) => events.push(e) });
    // A slow failure counted by the budget: the dependency is queueing.
    const failing = settle(
      retry((c) => slow(200, 'x', [], new Error('slow'))(c as HedgeContext), { budget, maxAttempts: 2 }),
    );
    await fake.clock.tickAsync(200);
    expect((failing.result.reason as RetryError).reason).toBe('budget');
    const call = settle(retry(hedged(planned([[300, 'primary']]), h)));
    await fake.clock.tickAsync(300);
    expect(call.result.value).toBe('primary');
    expect(events).toEqual([{ sent: false, reason: 'budget', hedge: 1, delayMs: 50 }]);
  });

  it('withdraws from the budget volume cap as a retry does: refused when it is empty', async () => {
    const budget = createRetryBudget({ ratio: 0 });
    const events: HedgeEvent[] = [];
    const h = createHedge({ delayMs: 50, maxExtraLoad: 1, budget, onHedge: (e) => events.push(e) });
    const call = settle(retry(hedged(planned([[100, 'primary']]), h), { budget }));
    await fake.clock.tickAsync(100);
    expect(call.result.value).toBe('primary');
    expect(events.map((e) => e.reason)).toEqual(['budget']);
  });

  it('an onHedge that throws changes nothing: its error is reported', async () => {
    const reported: unknown[] = [];
    vi.stubGlobal('reportError', (error: unknown) => reported.push(error));
    try {
      const broke = new Error('telemetry broke');
      const h = createHedge({
        delayMs: 5,
        maxExtraLoad: 1,
        onHedge: () => {
          throw broke;
        },
      });
      const call = settle(
        retry(
          hedged(
            planned([
              [100, 'a'],
              [1, 'b'],
            ]),
            h,
          ),
        ),
      );
      await fake.clock.tickAsync(10);
      expect(call.result.value).toBe('b');
      expect(reported).toEqual([broke]);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('10,000 concurrent hedged calls share one hedge: all answered, hedges capped, nothing left behind', async () => {
    const h = createHedge({ delayMs: 50 });
    let attempts = 0;
    const fn = hedged(({ hedge }: HedgeContext) => {
      attempts++;
      return new Promise<number>((resolve) => setTimeout(() => resolve(hedge), hedge === 0 ? 100 : 10));
    }, h);
    const controller = new AbortController();
    const calls = Array.from({ length: 10_000 }, () => retry(fn, { signal: controller.signal }));
    await fake.clock.tickAsync(100);
    const answers = await Promise.all(calls);
    expect(answers).toHaveLength(10_000);
    // Each call earns 5% of a hedge, at most 10 saved: the 10,000 crossing the delay together get 10.
    expect(attempts - 10_000).toBe(10);
    expect(answers.filter((a) => a === 1)).toHaveLength(10);
    expect(fake.clock.countTimers()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('hedged: a broken clock', () => {
  it('a clock that breaks as the answer is recorded: the answer stays the call, the error is reported', async () => {
    const reported: unknown[] = [];
    vi.stubGlobal('reportError', (error: unknown) => reported.push(error));
    try {
      let broken = false;
      const h = createHedge({ delayMs: 50, maxExtraLoad: 1, now: () => (broken ? Number.NaN : 0) });
      const answer = await retry(
        hedged(async () => {
          broken = true;
          return 'ok';
        }, h),
      );
      expect(answer).toBe('ok');
      expect(String(reported[0])).toMatch(/now\(\) must be a finite number/);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("a budget's clock that breaks when a hedge is decided: no hedge, the first attempt answers, the error reported", async () => {
    const reported: unknown[] = [];
    vi.stubGlobal('reportError', (error: unknown) => reported.push(error));
    try {
      let broken = false;
      const budget = createRetryBudget({ now: () => (broken ? Number.NaN : 0) });
      const h = createHedge({ delayMs: 50, maxExtraLoad: 1, budget });
      const seen: AbortSignal[] = [];
      const call = settle(retry(hedged(planned([[100, 'primary']], seen), h)));
      broken = true;
      await fake.clock.tickAsync(100);
      expect(call.result.value).toBe('primary');
      expect(seen).toHaveLength(1);
      expect(String(reported[0])).toMatch(/now\(\) must be a finite number/);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('a clock that breaks as a call begins: no hedge, the attempt answers, the error reported (as in decide, record)', async () => {
    const reported: unknown[] = [];
    vi.stubGlobal('reportError', (error: unknown) => reported.push(error));
    try {
      const h = createHedge({ delayMs: 50, now: () => Number.NaN });
      await expect(
        retry(
          hedged(() => 1, h),
          { maxAttempts: 1 },
        ),
      ).resolves.toBe(1);
      expect(String(reported[0])).toMatch(/now\(\) must be a finite number/);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('createHedge and hedged: bad options, each a clear error', () => {
  it.each([
    [{ delayMs: -1 }, RangeError, /delayMs must be a number in \[0, 2\^31 - 1\], got -1/],
    [{ delayMs: '5' }, TypeError, /delayMs must be a number/],
    [{ delayMs: Infinity }, RangeError, /delayMs must be a number in \[0, 2\^31 - 1\]/],
    [{ percentile: 0 }, RangeError, /percentile must be a number in \(0, 1\), got 0/],
    [{ percentile: 1 }, RangeError, /percentile must be a number in \(0, 1\), got 1/],
    [{ delayMs: 5, percentile: 0.9 }, TypeError, /percentile must be left out when delayMs is given/],
    [{ minSamples: 0 }, RangeError, /minSamples must be an integer >= 1, got 0/],
    [{ minSamples: 1.5 }, RangeError, /minSamples must be an integer >= 1/],
    [{ windowMs: 0 }, RangeError, /windowMs must be a finite number of ms >= 1/],
    [{ maxHedges: 0 }, RangeError, /maxHedges must be an integer >= 1, got 0/],
    [{ maxHedges: Infinity }, RangeError, /maxHedges must be an integer >= 1/],
    [{ maxExtraLoad: 1.5 }, RangeError, /maxExtraLoad must be a number in \[0, 1\], got 1.5/],
    [{ maxExtraLoad: -0.1 }, RangeError, /maxExtraLoad must be a number in \[0, 1\]/],
    [{ budget: {} }, TypeError, /budget must be a retry budget from createRetryBudget\(\)/],
    [{ onHedge: 1 }, TypeError, /onHedge must be a function, got 1/],
    [{ now: 'x' }, TypeError, /now must be a function/],
    [{ delay: 5 }, TypeError, /unknown hedge option 'delay'; did you mean delayMs\?/],
    [null, TypeError, /the hedge options must be an object, got null/],
  ])('createHedge(%o) throws', (options, Kind, message) => {
    expect(() => createHedge(options as never)).toThrow(Kind);
    expect(() => createHedge(options as never)).toThrow(message);
  });

  it('a getter that throws names the options', () => {
    const options = {
      get delayMs(): number {
        throw new Error('boom');
      },
    };
    expect(() => createHedge(options)).toThrow(/the hedge options could not be read \(reading delayMs threw\)/);
  });

  it('hedged() checks its fn and its hedge', () => {
    const h = createHedge();
    expect(() => hedged('x' as never, h)).toThrow(/fn must be a function, got 'x'/);
    expect(() => hedged(() => 1, {} as never)).toThrow(/hedge must be a hedge from createHedge\(\)/);
    expect(() => hedged(() => 1, null as never)).toThrow(TypeError);
  });

  it('a clock that breaks is named', () => {
    const h = createHedge({ now: () => Number.NaN, minSamples: 1 });
    expect(() => h.peek()).toThrow(/now\(\) must be a finite number/);
  });
});
