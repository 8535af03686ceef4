import { getEventListeners } from 'node:events';
import FakeTimers from '@sinonjs/fake-timers';
import axios from 'axios';
import { describe, expect, it } from 'vitest';
import { assertNoHerd } from '../src/testing/assert';
import { drive } from '../src/testing/clock';
import { herd } from '../src/testing/herd';
import { type HerdContext, resolveOptions } from '../src/testing/options';
import { stray } from './helpers';

/** Every caller: one request at 0 ms, then one more at `atMs` (all in step), whatever the first answered. */
const inStepAt =
  (atMs: number) =>
  async ({ url, fetch }: HerdContext): Promise<Response> => {
    await fetch(url);
    await new Promise((resolve) => setTimeout(resolve, atMs - Date.now())); // the clock starts at 0 ms
    return fetch(url);
  };

describe('issue 30 item 5: the window in which the outage ends counts after the outage', () => {
  it('a herd landing 30 ms after an outage of 1,010 ms is the peak after the outage, and fails assertNoHerd', async () => {
    const report = await herd(inStepAt(1_040), { outageMs: 1_010, intercept: false, latencyMs: 0 });
    const [f] = report.results;
    expect(f?.load[10]).toBe(200);
    expect(f?.peakAfterOutage).toBe(200);
    expect(f?.peakOverCapacity).toBe(10);
    expect(() => assertNoHerd(report, { minSuccess: 0 })).toThrow(/200 requests in one 100 ms window after the outage/);
  });

  it("counts only that window's arrivals from the end on: the outage's own requests are not a herd after it", async () => {
    // 200 requests at 0 ms and 200 at 1,005 ms, in the outage; none after it.
    const report = await herd(inStepAt(1_005), { outageMs: 1_010, intercept: false, latencyMs: 0 });
    expect(report.results[0]?.load[10]).toBe(200);
    expect(report.results[0]?.peakAfterOutage).toBe(0);
  });

  it('an outage that ends on a window edge is as before: the next window is the first after it', async () => {
    const report = await herd(inStepAt(1_040), { outageMs: 1_000, intercept: false, latencyMs: 0 });
    expect(report.results[0]?.peakAfterOutage).toBe(200);
    const early = await herd(inStepAt(990), { outageMs: 1_000, intercept: false, latencyMs: 0 });
    expect(early.results[0]?.peakAfterOutage).toBe(0);
  });
});

describe('issue 30 item 5: hostile values and a throwing isSuccess are give-ups in the report, never uncaught', () => {
  const hostileName = () =>
    Object.defineProperty(new Error('boom'), 'name', {
      get() {
        throw new Error('name getter');
      },
    });
  const everyReadThrows = () =>
    new Proxy(
      {},
      {
        get() {
          throw new Error('no reading');
        },
      },
    );
  const options = { clients: 4, outageMs: 0, intercept: false } as const;

  it('a thrown value whose name getter throws, thrown or rejected, is a give-up named by what can be read', async () => {
    let report: Awaited<ReturnType<typeof herd>> | undefined;
    const seen = await stray(async () => {
      report = await herd(async ({ client }) => {
        if (client === 0) throw hostileName();
        if (client === 1) throw Object.assign(hostileName(), { code: 'EBOOM' });
        return { status: 200 };
      }, options);
    });
    expect(seen).toEqual([]);
    expect(report?.results[0]?.gaveUpWith).toEqual({ Error: 1, 'Error EBOOM': 1 });
    expect(report?.results[0]?.succeeded).toBe(2);
  });

  it('a Proxy that throws on every read, thrown at once or rejected, is a give-up too', async () => {
    let report: Awaited<ReturnType<typeof herd>> | undefined;
    const seen = await stray(async () => {
      report = await herd(({ client }) => {
        if (client === 0) throw everyReadThrows();
        if (client === 1) return Promise.reject(everyReadThrows());
        return 'fine';
      }, options);
    });
    expect(seen).toEqual([]);
    expect(report?.results[0]?.gaveUpWith).toEqual({ Error: 2 });
    expect(report?.results[0]?.gaveUp).toBe(2);
  });

  it('a returned promise whose constructor getter throws is a give-up, not an error out of herd()', async () => {
    let report: Awaited<ReturnType<typeof herd>> | undefined;
    const seen = await stray(async () => {
      report = await herd(
        () =>
          Object.defineProperty(Promise.resolve('ok'), 'constructor', {
            get() {
              throw new TypeError('constructor getter');
            },
          }),
        options,
      );
    });
    expect(seen).toEqual([]);
    expect(report?.results[0]?.gaveUpWith).toEqual({ TypeError: 4 });
  });

  it('an isSuccess that throws gives each caller up with the reason named, and every caller is in the report', async () => {
    let report: Awaited<ReturnType<typeof herd>> | undefined;
    const seen = await stray(async () => {
      report = await herd(({ client }) => client, {
        ...options,
        isSuccess: (value) => {
          if (value === 0) throw new RangeError('judge');
          if (value === 1) throw hostileName();
          return true;
        },
      });
    });
    expect(seen).toEqual([]);
    const [f] = report?.results ?? [];
    expect(f?.gaveUpWith).toEqual({ 'isSuccess threw RangeError': 1, 'isSuccess threw Error': 1 });
    expect(f?.succeeded).toBe(2);
    expect(f?.gaveUp).toBe(2);
  });
});

describe('issue 30 item 5: clients has a documented upper bound', () => {
  it('100,000 is accepted; 100,001, 1e9 and 1e12 are a RangeError naming clients, thrown before anything runs', async () => {
    expect(resolveOptions({ clients: 100_000 }).settings.clients).toBe(100_000);
    for (const clients of [100_001, 1e9, 1e12]) {
      let called = false;
      const run = herd(
        () => {
          called = true;
        },
        { clients, intercept: false },
      );
      await expect(run).rejects.toThrow(RangeError);
      await expect(run).rejects.toThrow(/^herdless: clients must be an integer from 1 to 100,000, got /);
      expect(called).toBe(false);
    }
  });

  it('the rule for a fraction or a number under 1 names the same bound', () => {
    expect(() => resolveOptions({ clients: 2.5 })).toThrow('clients must be an integer from 1 to 100,000, got 2.5');
    expect(() => resolveOptions({ clients: 0 })).toThrow('clients must be an integer from 1 to 100,000, got 0');
    expect(() => resolveOptions({ seed: -1 })).toThrow('seed must be an integer >= 0, got -1');
  });
});

describe("issue 30 item 5: no abort listener is left on a caller's signal", () => {
  it('requests still hanging when the run ends (untilMs) let go of the signal and of their timers', async () => {
    const signal = new AbortController().signal;
    const report = await herd(({ url, fetch }) => fetch(url, { signal }), {
      clients: 5,
      outageFailure: 'hang',
      hangMs: 100_000,
      untilMs: 2_000,
      intercept: false,
    });
    expect(report.results[0]?.gaveUpWith).toEqual({ unfinished: 5 });
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('answered and aborted requests take their listener off too (a guard: this held before)', async () => {
    const kept = new AbortController();
    const report = await herd(
      async ({ url, fetch, client }) => {
        for (let i = 0; i < 3; i++) await fetch(url, { signal: kept.signal });
        const own = new AbortController();
        const pending = fetch(url, { signal: own.signal });
        own.abort(new Error(`caller ${client} gave up`));
        await pending.catch(() => {});
        expect(getEventListeners(own.signal, 'abort')).toHaveLength(0);
        return { status: 200 };
      },
      { clients: 3, outageMs: 0, intercept: false },
    );
    expect(report.results[0]?.succeeded).toBe(3);
    expect(getEventListeners(kept.signal, 'abort')).toHaveLength(0);
  });
});

describe('issue 30 item 5: a call that never settles has one answer', () => {
  it('when nothing ever moved, the run resolves with every caller unfinished, as it does after some progress', async () => {
    const report = await herd(() => new Promise<never>(() => {}), { clients: 3, intercept: false });
    expect(report.results[0]?.gaveUpWith).toEqual({ unfinished: 3 });
    expect(report.results[0]?.requests).toBe(0);
  }, 10_000);

  it('drive: no progress at all ends as stalled, as a stall after some progress does', async () => {
    const clock = FakeTimers.withGlobal(globalThis).install({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      await expect(
        drive(
          clock,
          () => false,
          () => 0,
          1_000,
          30,
        ),
      ).resolves.toBe('stalled');
      await expect(
        drive(
          clock,
          () => false,
          () => 5,
          1_000,
          30,
        ),
      ).resolves.toBe('stalled');
    } finally {
      clock.uninstall();
    }
  });
});

describe('issue 30 item 5: the same seed gives the same report through axios', () => {
  // Reported: 80-84 give-ups over four runs through axios, with a stray ECONNRESET in a 503 outage. Not reproduced
  // here in about 160 runs (in one process and in separate ones, under vitest and tsx, with two CPU spinners, with
  // aggressive GC); this holds the promise: three runs, byte-for-byte the same report, and no reset where none is sent.
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const loop = (wait: (attempt: number) => number) => async (url: string) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await axios.get(url);
      } catch (error) {
        if (attempt >= 6) throw error;
        await sleep(wait(attempt));
      }
    }
  };
  it.each([
    ['exponential, no jitter', loop((attempt) => 100 * 2 ** (attempt - 1))],
    ['full jitter', loop((attempt) => Math.random() * Math.min(10_000, 100 * 2 ** (attempt - 1)))],
  ])('%s: three runs of 100 callers in a 503 outage give one report', async (_, call) => {
    const reports: string[] = [];
    for (let run = 0; run < 3; run++) {
      const report = await herd(({ url }) => call(url), { clients: 100, capacity: 10, outageMs: 2_000, seed: 7 });
      reports.push(JSON.stringify(report));
    }
    const gaveUpWith = JSON.parse(reports[0] as string).results[0].gaveUpWith as Record<string, number>;
    expect(Object.keys(gaveUpWith)).toEqual(['AxiosError 503']); // some give up, and only with the outage's 503
    expect(reports[1]).toBe(reports[0]);
    expect(reports[2]).toBe(reports[0]);
  });
});

describe('drive on a runtime without setImmediate (coverage of the fallbacks)', () => {
  it('settles with zero timeouts, the clock kept one or the global one, and still ends as stalled', async () => {
    const own = globalThis.setImmediate;
    const real = globalThis.setTimeout;
    const used: string[] = [];
    const stub = (kept: boolean) => ({
      now: 0,
      next() {},
      tick() {},
      countTimers: () => 1, // drive's own horizon timer, on the real setTimeout here: nothing else is scheduled
      ...(kept
        ? {
            _setTimeout: (callback: () => void, ms: number) => {
              used.push('kept');
              return real(callback, ms);
            },
          }
        : {}),
    });
    try {
      (globalThis as { setImmediate?: unknown }).setImmediate = undefined;
      await expect(
        drive(
          stub(false),
          () => false,
          () => 0,
          1_000,
          20,
        ),
      ).resolves.toBe('stalled');
      await expect(
        drive(
          stub(true),
          () => false,
          () => 0,
          1_000,
          20,
        ),
      ).resolves.toBe('stalled');
    } finally {
      globalThis.setImmediate = own;
    }
    expect(used.length).toBeGreaterThan(3);
  });
});
