// Regressions for the defects an adversarial review found in herdless/hedge (D1-D9): each failed before its fix.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createHedge, type HedgeContext, hedged, hedgedFetch } from '../src/hedge/index';
import { createRetryBudget, retry } from '../src/index';
import { settle, stray, useFakeClock } from './helpers';

const fake = useFakeClock();

const ctx = (signal = new AbortController().signal) => ({ attempt: 1, elapsedMs: 0, signal });

/** An attempt that answers 'ok' after `ms` unless its signal aborts; notes each attempt's signal. */
const slow =
  (ms: number, calls: AbortSignal[]) =>
  ({ signal }: HedgeContext) => {
    calls.push(signal);
    return new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => resolve('ok'), ms);
      signal.addEventListener('abort', () => {
        clearTimeout(t);
        reject(signal.reason);
      });
    });
  };

/** A fetch that answers `status` after `ms`, with a body its signal aborts (as a real fetch's is); notes each signal. */
const answering =
  (status: number, ms: number, signals: AbortSignal[]) =>
  (_input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const signal = init?.signal as AbortSignal;
    signals.push(signal);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        signal.addEventListener('abort', () => controller.error(signal.reason));
        controller.enqueue(new TextEncoder().encode('overloaded'));
        controller.close();
      },
    });
    return new Promise((resolve) => setTimeout(() => resolve(new Response(body, { status })), ms));
  };

describe('D1: hedgedFetch returns the last failure Response with its body whole', () => {
  it('no hedge sent: the 503 is readable, and the caller aborting still cancels it (followed as a winner is)', async () => {
    const signals: AbortSignal[] = [];
    const caller = new AbortController();
    const f = hedgedFetch(createHedge({ delayMs: 1_000 }), { fetch: answering(503, 1, signals) });
    const call = settle(f('http://x/', { signal: caller.signal }));
    await fake.clock.tickAsync(1);
    const res = call.result.value as Response;
    expect(res.status).toBe(503);
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(false);
    await expect(res.clone().text()).resolves.toBe('overloaded');
    caller.abort(new Error('gone'));
    expect(signals[0]?.aborted).toBe(true);
  });

  it('a hedge sent, both 503: the last to answer is returned and spared, the other aborted', async () => {
    const signals: AbortSignal[] = [];
    let n = 0;
    const first = answering(503, 100, signals);
    const second = answering(503, 10, signals);
    const f = hedgedFetch(createHedge({ delayMs: 50, maxExtraLoad: 1 }), {
      fetch: (input, init) => (n++ === 0 ? first(input, init) : second(input, init)),
    });
    const call = settle(f('http://x/'));
    await fake.clock.tickAsync(100);
    const res = call.result.value as Response;
    expect(res.status).toBe(503);
    expect(signals).toHaveLength(2);
    expect(signals[0]?.aborted).toBe(false); // the first, answering at 100 ms after the hedge's 503 at 60 ms
    expect(signals[1]?.aborted).toBe(true);
    await expect(res.text()).resolves.toBe('overloaded');
  });
});

describe('D2: no timer past 2^31 - 1 ms (setTimeout would fire at once)', () => {
  it('createHedge refuses a delayMs above 2^31 - 1 with a RangeError, and takes 2^31 - 1', () => {
    expect(() => createHedge({ delayMs: 2 ** 31 })).toThrow(RangeError);
    expect(() => createHedge({ delayMs: 2 ** 31 })).toThrow(
      /delayMs must be a number in \[0, 2\^31 - 1\], got 2147483648/,
    );
    expect(createHedge({ delayMs: 2 ** 31 - 1 }).settings.delayMs).toBe(2 ** 31 - 1);
  });

  it('a percentile delay past it sends no hedge', async () => {
    const hedge = createHedge({ minSamples: 1, maxExtraLoad: 1 });
    hedge.record(3e9);
    expect(hedge.peek()).toBeGreaterThan(2 ** 31 - 1);
    const calls: AbortSignal[] = [];
    const call = settle(hedged(slow(200, calls), hedge)(ctx()));
    await fake.clock.tickAsync(200);
    expect(call.result.value).toBe('ok');
    expect(calls).toHaveLength(1);
  });
});

describe('D3: a fetch that resolves to a non-Response (with a caller signal to follow): the call rejects, nothing escapes', () => {
  it.each([
    ['undefined', undefined],
    ['a number', 5],
  ])('%s', async (_name, value) => {
    let call!: ReturnType<typeof settle<Response>>;
    const errors = await stray(async () => {
      const f = hedgedFetch(createHedge({ delayMs: 50, maxExtraLoad: 1 }), {
        fetch: async () => value as unknown as Response,
      });
      call = settle(f('http://x/', { signal: new AbortController().signal }));
      await fake.clock.tickAsync(100);
    });
    expect(errors).toEqual([]);
    expect(call.result.status).toBe('rejected');
    expect(call.result.reason).toBeInstanceOf(TypeError);
  });
});

describe('D4: a hedge whose thenable has a throwing then getter', () => {
  it("is that attempt's failure: the round settles with the last failure, nothing thrown from a timer", async () => {
    let i = 0;
    const fn = () =>
      i++ === 0
        ? new Promise((_, reject) => setTimeout(() => reject(new Error('first fails')), 100))
        : Object.defineProperty({}, 'then', {
            get() {
              throw new Error('hostile then');
            },
          });
    const call = settle(hedged(fn, createHedge({ delayMs: 10, maxExtraLoad: 1 }))(ctx()));
    await fake.clock.tickAsync(100);
    expect(i).toBe(2);
    expect(call.result.status).toBe('rejected');
    expect(String(call.result.reason)).toMatch(/first fails/);
  });
});

describe('D5: the caller aborting inside decide() (from onHedge)', () => {
  it('starts no hedge after the round rejected', async () => {
    const caller = new AbortController();
    const reason = new Error('caller gone');
    const calls: AbortSignal[] = [];
    const hedge = createHedge({ delayMs: 20, maxExtraLoad: 1, onHedge: () => caller.abort(reason) });
    const call = settle(hedged(slow(100, calls), hedge)(ctx(caller.signal)));
    await fake.clock.tickAsync(100);
    expect(call.result.reason).toBe(reason);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.aborted).toBe(true);
  });
});

describe('D6: hedgedFetch rejects where it threw', () => {
  it.each([
    ['a bad header name', { headers: { 'bad header': 'x' } }],
    ['a method that is not a string', { method: 5 as unknown as string }],
  ])('%s: a rejected promise, not a throw', async (_name, init) => {
    const f = hedgedFetch(createHedge({ delayMs: 50 }), { fetch: async () => new Response('') });
    let p: Promise<Response> | undefined;
    expect(() => {
      p = f('http://x/', init);
    }).not.toThrow();
    await expect(p).rejects.toThrow(TypeError);
  });
});

describe('D7: the guide, TSDoc and README say the 5% bound is of rounds, not of calls', () => {
  it.each(['docs/guide/hedging.md', 'README.md', 'src/hedge/hedge.ts', 'src/hedge/options.ts'])('%s', (path) => {
    const text = readFileSync(path, 'utf8').replace(/\s*\n\s*\*?\s*/g, ' ');
    expect(text).not.toMatch(/(5%|this share) of (its|this process's) calls/);
    expect(text).not.toMatch(/hedges never exceed[^.]* of (its|their) calls/);
  });
});

describe("D7: the cap as documented: 5% of rounds, each of retry()'s attempts one", () => {
  it('60 retry() calls of 3 rounds (2 fast failures, then a slow answer): at most 5% of the 180 rounds hedged', async () => {
    let sent = 0;
    const hedge = createHedge({
      delayMs: 50,
      onHedge: (e) => {
        if (e.sent) sent++;
      },
    });
    for (let c = 0; c < 60; c++) {
      let round = 0;
      const calls: AbortSignal[] = [];
      const answer = slow(1_000, calls);
      const fn = (context: HedgeContext) =>
        round++ < 2 ? Promise.reject(Object.assign(new Error('reset'), { code: 'ECONNRESET' })) : answer(context);
      const call = settle(retry(hedged(fn, hedge), { maxAttempts: 3 }));
      await fake.clock.tickAsync(5_000);
      expect(call.result.status).toBe('fulfilled');
    }
    expect(sent).toBeGreaterThan(0.05 * 60); // more than 5% of the calls: the bound is not of calls
    expect(sent).toBeLessThanOrEqual(0.05 * 180);
  });
});

describe('D8: hedgedFetch options with a throwing getter', () => {
  it('throw a herdless TypeError naming the options and the key, as createHedge does', () => {
    const options = Object.defineProperty({}, 'statuses', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    expect(() => hedgedFetch(createHedge(), options)).toThrow(TypeError);
    expect(() => hedgedFetch(createHedge(), options)).toThrow(
      /herdless: the hedgedFetch options could not be read \(reading statuses threw\): .*boom/,
    );
  });
});

describe('D9: a budget whose queueing is not a function', () => {
  it('is refused by createHedge with a TypeError naming budget.queueing', () => {
    const budget = { tryWithdraw: () => ({ release() {} }), queueing: false } as never;
    expect(() => createHedge({ budget })).toThrow(TypeError);
    expect(() => createHedge({ budget })).toThrow(/budget\.queueing must be a function, got false/);
  });
});

describe('D5, second part: the hedge paid for inside decide() is given back when the round ended there', () => {
  it('its token and its budget withdrawal come back: a later round can still hedge', async () => {
    const caller = new AbortController();
    const budget = createRetryBudget({ ratio: 0.1, minPerSecond: 0 });
    for (let i = 0; i < 10; i++) budget.deposit(); // room for one retry (or hedge): 0.1 x 10
    let abortInHedge = true;
    const hedge = createHedge({
      delayMs: 20,
      maxExtraLoad: 1,
      budget,
      onHedge: () => {
        if (abortInHedge) caller.abort(new Error('gone'));
      },
    });
    expect(hedge.tokens).toBe(0);
    const first = settle(hedged(slow(100, []), hedge)(ctx(caller.signal)));
    await fake.clock.tickAsync(20);
    expect(first.result.status).toBe('rejected');
    expect(hedge.tokens).toBe(1); // earned by the round, spent in decide(), given back
    expect(budget.available()).toBe(1); // the withdrawal released
    abortInHedge = false;
    const calls: AbortSignal[] = [];
    const second = settle(hedged(slow(100, calls), hedge)(ctx()));
    await fake.clock.tickAsync(100);
    expect(second.result.value).toBe('ok');
    expect(calls).toHaveLength(2); // the second round's hedge went out on what was given back
  });
});

describe('D3, second part: a late loser that cannot be discarded (a body without cancel)', () => {
  it('is dropped quietly: the winner answers, nothing escapes as an unhandled rejection', async () => {
    let n = 0;
    const hostile = { status: 200, body: {} } as unknown as Response; // no cancel: discard() would throw
    const errors = await stray(async () => {
      const f = hedgedFetch(createHedge({ delayMs: 10, maxExtraLoad: 1 }), {
        fetch: () =>
          n++ === 0
            ? new Promise<Response>((resolve) => setTimeout(() => resolve(hostile), 100))
            : new Promise<Response>((resolve) => setTimeout(() => resolve(new Response('won')), 10)),
      });
      const call = settle(f('http://x/'));
      await fake.clock.tickAsync(200);
      await expect((call.result.value as Response).text()).resolves.toBe('won');
    });
    expect(n).toBe(2);
    expect(errors).toEqual([]);
  });
});

describe('the hedge timer is not unref()ed: the hedge may be what answers', () => {
  it('a first attempt that holds nothing of its own is still answered by its hedge (Node would exit mid-call)', async () => {
    const unrefs: unknown[] = [];
    const real = globalThis.setTimeout;
    const spy = ((fn: () => void, ms?: number) => {
      const timer = real(fn, ms) as unknown as { unref?: () => unknown };
      const unref = timer.unref?.bind(timer);
      timer.unref = () => {
        unrefs.push(ms);
        return unref?.();
      };
      return timer;
    }) as typeof setTimeout;
    globalThis.setTimeout = spy;
    try {
      const calls: AbortSignal[] = [];
      const attempt = ({ signal }: HedgeContext) => {
        calls.push(signal);
        return calls.length > 1 ? Promise.resolve('hedge') : new Promise<string>(() => {}); // holds no handle
      };
      const call = settle(hedged(attempt, createHedge({ delayMs: 40, maxExtraLoad: 1 }))(ctx()));
      await fake.clock.tickAsync(40);
      expect(call.result.value).toBe('hedge');
    } finally {
      globalThis.setTimeout = real;
    }
    expect(unrefs).toEqual([]); // test/runtimes checks it in a real Node process too
  });
});
