import FakeTimers from '@sinonjs/fake-timers';
import axios from 'axios';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RetryError } from '../src/index';
import { simulateOutage } from '../src/simulate/index';
import { assertNoHerd } from '../src/testing/assert';
import { drive, installClock, installedClock } from '../src/testing/clock';
import { Dependency } from '../src/testing/dependency';
import { Exchange } from '../src/testing/exchange';
import { directFetch } from '../src/testing/fetch';
import {
  formatHerd,
  type HerdReport,
  herd,
  herdChart,
  herdMatchers,
  herdProblems,
  herdSvg,
} from '../src/testing/index';
import { intercept } from '../src/testing/intercept';
import { type HerdOptions, isSuccessful, resolveOptions } from '../src/testing/options';
import { describeFailure, describeResult } from '../src/testing/report';

const settings = (options: HerdOptions = {}) => resolveOptions(options).settings;
/** A report as herd() makes it, for the helpers that read one. */
function report(load: number[], extra: Partial<HerdReport['results'][number]> = {}): HerdReport {
  const s = settings({ clients: 10, capacity: 5, outageMs: 200 });
  const peakAfterOutage = Math.max(0, ...load.slice(2));
  return {
    scenario: 'herd',
    settings: s,
    results: [
      {
        strategy: 'loop',
        requests: load.reduce((a, b) => a + b, 0),
        amplification: load.reduce((a, b) => a + b, 0) / 10,
        peakAfterOutage,
        peakOverCapacity: peakAfterOutage / 5,
        lastFinishMs: load.length * 100,
        succeeded: 10,
        gaveUp: 0,
        p50Ms: 100,
        p99Ms: 200,
        load,
        gaveUpWith: {},
        ...extra,
      },
    ],
  };
}

describe('herd options', () => {
  it('fills in the defaults', () => {
    expect(settings()).toEqual({
      clients: 200,
      startWindowMs: 0,
      outageMs: 1_000,
      outageFailure: 'status',
      hangMs: 30_000,
      capacity: 20,
      capacityWindowMs: 100,
      overflow: 'shed',
      failureRate: 0,
      slowdown: null,
      tail: null,
      latencyMs: 20,
      retryAfterMs: 0,
      untilMs: 120_000,
      intercept: true,
      seedRandom: true,
      url: 'http://dependency.herd.test/',
      seed: 1,
    });
  });

  it.each([
    [{ clients: 0 }, RangeError, /clients must be an integer from 1 to 100,000, got 0/],
    [{ clients: 1.5 }, RangeError, /clients must be an integer from 1 to 100,000, got 1.5/],
    [{ clients: '5' }, TypeError, /clients must be a number/],
    [{ capacity: 0 }, RangeError, /capacity must be an integer >= 1/],
    [{ outageMs: -1 }, RangeError, /outageMs must be a finite number >= 0/],
    [{ outageMs: Infinity }, RangeError, /outageMs/],
    [{ capacityWindowMs: 0 }, RangeError, /capacityWindowMs must be a finite number >= 1/],
    [{ outageFailure: 'timeout' }, TypeError, /outageFailure must be one of 'status', 'reset', 'hang'/],
    [{ overflow: 'drop' }, TypeError, /overflow must be one of 'shed', 'queue'/],
    [{ failureRate: 1.5 }, RangeError, /failureRate must be a number in \[0, 1\], got 1.5/],
    [{ failureRate: -0.1 }, RangeError, /failureRate must be a number in \[0, 1\]/],
    [{ untilMs: 500, outageMs: 1_000 }, RangeError, /untilMs must be a finite number >= outageMs \(1000\)/],
    [{ intercept: 'yes' }, TypeError, /intercept must be true or false/],
    [{ seedRandom: 1 }, TypeError, /seedRandom must be true or false/],
    [{ url: 'ftp://x/' }, TypeError, /url must be an absolute http: or https: URL/],
    [{ url: 'not a url' }, TypeError, /url must be an absolute http: or https: URL/],
    [{ url: 5 }, TypeError, /url must be an absolute http: or https: URL/],
    [{ name: '' }, TypeError, /name must be a non-empty string/],
    [{ isSuccess: true }, TypeError, /isSuccess must be a function/],
    [{ seed: -1 }, RangeError, /seed must be an integer >= 0/],
    [{ slowdown: 2 }, TypeError, /slowdown must be \{ fromMs, toMs, factor \}/],
    [{ slowdown: { fromMs: 0, toMs: 10, factor: 0.5 } }, RangeError, /slowdown.factor must be a finite number >= 1/],
    [{ slowdown: { fromMs: 10, toMs: 5, factor: 2 } }, RangeError, /slowdown.toMs must be a finite number >= slowdown/],
    [{ slowdown: { fromMs: 0, toMs: 5, factor: 2, by: 1 } }, TypeError, /unknown slowdown option 'by'/],
    [{ client: 5 }, TypeError, /unknown herd option 'client'; did you mean clients\?/],
  ])('%o is refused with a clear error', (options, Kind, message) => {
    expect(() => resolveOptions(options as HerdOptions)).toThrow(Kind);
    expect(() => resolveOptions(options as HerdOptions)).toThrow(message);
  });

  it('refuses options that are not an object, and a call that is not a function', async () => {
    expect(() => resolveOptions(null as unknown as HerdOptions)).toThrow(/herd options must be an object, got null/);
    await expect(herd(5 as never)).rejects.toThrow(/herd's call must be a function, got number/);
  });

  it('judges a result by its status (fetch, axios) or statusCode (got), else as a success', () => {
    expect(isSuccessful(new Response('', { status: 200 }))).toBe(true);
    expect(isSuccessful(new Response('', { status: 503 }))).toBe(false);
    expect(isSuccessful({ statusCode: 302 })).toBe(true);
    expect(isSuccessful({ statusCode: 404 })).toBe(false);
    expect(isSuccessful({ status: 199 })).toBe(false);
    expect(isSuccessful(undefined)).toBe(true);
    expect(isSuccessful({ data: 1 })).toBe(true);
  });
});

describe('the simulated dependency', () => {
  const answer = (options: HerdOptions, times: number[]) => {
    const d = new Dependency(settings({ latencyMs: 0, ...options }));
    return { d, answers: times.map((t) => d.arrive(t)) };
  };

  it('fails the outage with 503s, resets, or hangs that end in a reset after hangMs', () => {
    expect(answer({ outageMs: 100 }, [50]).answers[0]).toMatchObject({ kind: 'response', status: 503, atMs: 50 });
    expect(answer({ outageMs: 100, outageFailure: 'reset' }, [50]).answers[0]).toEqual({ kind: 'reset', atMs: 50 });
    expect(answer({ outageMs: 100, outageFailure: 'hang', hangMs: 5_000 }, [50]).answers[0]).toEqual({
      kind: 'reset',
      atMs: 5_050,
    });
  });

  it('names Retry-After during the outage when retryAfterMs is set (a 429, in whole seconds)', () => {
    const { answers } = answer({ outageMs: 100, retryAfterMs: 1_500 }, [50, 150]);
    expect(answers[0]).toMatchObject({ status: 429, headers: { 'retry-after': '2' } });
    expect(answers[1]).toMatchObject({ status: 200 });
  });

  it('sheds what is over capacity in a window, and serves the next window afresh', () => {
    const { d, answers } = answer({ outageMs: 0, capacity: 2 }, [0, 10, 20, 110]);
    expect(answers.map((a) => (a.kind === 'response' ? a.status : a.kind))).toEqual([200, 200, 503, 200]);
    expect(d.load).toEqual([3, 1]);
    expect([d.served, d.failed]).toEqual([3, 1]);
  });

  it('queues what is over capacity into the next window with room, first come first served', () => {
    const { answers } = answer({ outageMs: 0, capacity: 2, overflow: 'queue' }, [0, 10, 20, 30, 40, 150]);
    expect(answers.map((a) => a.atMs)).toEqual([0, 10, 100, 100, 200, 200]);
  });

  it('queue: no window serves more than capacity, and answers keep arrival order (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 2_000 }), { maxLength: 80 }),
        (capacity, raw) => {
          const times = [...raw].sort((a, b) => a - b);
          const { answers } = answer({ outageMs: 0, capacity, overflow: 'queue' }, times);
          const per = new Map<number, number>();
          answers.forEach((a, i) => {
            expect(a.atMs).toBeGreaterThanOrEqual(times[i] as number);
            if (i > 0) expect(a.atMs).toBeGreaterThanOrEqual((answers[i - 1] as { atMs: number }).atMs);
            const w = Math.floor(a.atMs / 100);
            per.set(w, (per.get(w) ?? 0) + 1);
          });
          for (const n of per.values()) expect(n).toBeLessThanOrEqual(capacity);
        },
      ),
    );
  });

  it('shed: load counts every arrival, and no window serves more than capacity (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 2_000 }), { maxLength: 80 }),
        (capacity, raw) => {
          const times = [...raw].sort((a, b) => a - b);
          const { d, answers } = answer({ outageMs: 300, capacity }, times);
          expect(d.load.reduce((a, b) => a + b, 0)).toBe(times.length);
          const served = new Map<number, number>();
          answers.forEach((a, i) => {
            const t = times[i] as number;
            const ok = a.kind === 'response' && a.status === 200;
            if (t < 300) expect(ok).toBe(false);
            if (ok) served.set(Math.floor(t / 100), (served.get(Math.floor(t / 100)) ?? 0) + 1);
          });
          for (const n of served.values()) expect(n).toBeLessThanOrEqual(capacity);
          expect(d.served + d.failed).toBe(times.length);
        },
      ),
    );
  });

  it('fails a share of served requests at failureRate, seeded', () => {
    const times = Array.from({ length: 1_000 }, (_, i) => i * 10);
    const { answers } = answer({ outageMs: 0, capacity: 100, failureRate: 0.3 }, times);
    const failed = answers.filter((a) => a.kind === 'response' && a.status === 503).length;
    expect(failed).toBeGreaterThan(240);
    expect(failed).toBeLessThan(360);
    const again = answer({ outageMs: 0, capacity: 100, failureRate: 0.3 }, times).answers;
    expect(again).toEqual(answers);
  });

  it('answers after |Normal(latencyMs, latencyMs / 5)|, times the slowdown factor inside the slowdown', () => {
    const d = new Dependency(
      settings({ outageMs: 0, capacity: 1_000, latencyMs: 20, slowdown: { fromMs: 1_000, toMs: 2_000, factor: 10 } }),
    );
    const before = Array.from({ length: 200 }, (_, i) => d.arrive(i * 5).atMs - i * 5);
    const during = Array.from({ length: 200 }, (_, i) => d.arrive(1_000 + i * 5).atMs - (1_000 + i * 5));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(before)).toBeGreaterThan(18);
    expect(mean(before)).toBeLessThan(22);
    expect(mean(during)).toBeGreaterThan(180);
    expect(mean(during)).toBeLessThan(220);
  });
});

describe('what callers gave up with', () => {
  it('names the error and its stop reason, status or code', () => {
    expect(
      describeFailure(new RetryError({ reason: 'attempts', attempts: 3, errors: [new Error('x')] } as never)),
    ).toBe('RetryError (attempts)');
    expect(describeFailure(Object.assign(new Error('x'), { name: 'AxiosError', response: { status: 503 } }))).toBe(
      'AxiosError 503',
    );
    expect(describeFailure(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe('Error ECONNRESET');
    expect(describeFailure(new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } }))).toBe(
      'TypeError ECONNRESET',
    );
    expect(describeFailure(new RangeError('x'))).toBe('RangeError');
    expect(describeFailure({})).toBe('Error');
    expect(describeFailure('boom')).toBe('thrown string');
    expect(describeResult(new Response('', { status: 503 }))).toBe('status 503');
    expect(describeResult(false)).toBe('unsuccessful result');
  });
});

describe('charts, text and assertions', () => {
  const herdy = report([10, 10, 0, 0, 50, 0, 0, 40]);
  const calm = report([10, 10, 5, 5, 5, 4, 3]);

  it("the terminal chart is the simulator's, rows for each report, capacity and the outage marked", () => {
    const text = herdChart([herdy, report([10, 10, 5], { strategy: 'jitter' })]);
    expect(text).toMatch(/^requests per 100 ms, a column = 100 ms: █ >= 20, ▂ = capacity 5, ! over it/);
    expect(text).toMatch(/^loop {3}\|/m);
    expect(text).toMatch(/^jitter \|/m);
    expect(text).toContain('^ outage ends');
    expect(herdChart(herdy)).toBe(herdChart([herdy]));
  });

  it("the SVG is the simulator's svgChart, titled for the dependency", () => {
    const svg = herdSvg(report([10, 10, 100]));
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain('Requests reaching the dependency');
    expect(svg).toContain('>loop: peak 100 after the outage (clipped)<');
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
  });

  it('refuses what is not a report', () => {
    expect(() => herdChart([])).toThrow(/expected a herd report/);
    expect(() => herdSvg({} as HerdReport)).toThrow(/expected a herd report/);
    expect(() => formatHerd(null as unknown as HerdReport)).toThrow(TypeError);
  });

  it("formatHerd prints the settings, the simulator's table, who gave up with what, and the chart", () => {
    const text = formatHerd(report([10, 10, 50], { gaveUp: 3, gaveUpWith: { 'RetryError (attempts)': 3 } }));
    expect(text).toMatch(/^herd: 10 callers; the dependency fails for 200 ms \(status\), then serves 5 per 100 ms$/m);
    expect(text).toMatch(/^strategy +requests +ampl\. +peak\/5 /m);
    expect(text).toMatch(/^loop +70 +7\.00 +50 \(10\.0x\)/m);
    expect(text).toContain('loop gave up: 3 RetryError (attempts)');
    expect(text).toContain('^ outage ends');
  });

  it('assertNoHerd passes a calm report and throws on a herd, the chart in the message', () => {
    expect(() => assertNoHerd(calm)).not.toThrow();
    let error: unknown;
    try {
      assertNoHerd(herdy);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ name: 'AssertionError', report: herdy });
    expect((error as Error).message).toMatch(
      /^the retries herd the dependency:\nloop: 50 requests in one 100 ms window after the outage, 10\.0x capacity 5 \(allowed: 3x\)/,
    );
    expect((error as Error).message).toContain(herdChart(herdy));
    expect(() => assertNoHerd(herdy, { maxPeakOverCapacity: 10 })).not.toThrow();
  });

  it('assertNoHerd checks amplification when asked, and refuses bad limits', () => {
    expect(() => assertNoHerd(calm, { maxAmplification: 4 })).toThrow(
      /loop: 42 requests from 10 callers, 4\.20 each \(allowed: 4\)/,
    );
    expect(() => assertNoHerd(calm, { maxAmplification: 0.5 })).toThrow(/maxAmplification must be a number >= 1/);
    expect(() => assertNoHerd(calm, { maxPeakOverCapacity: -1 })).toThrow(/maxPeakOverCapacity must be a finite/);
    expect(() => assertNoHerd(calm, { maxPeak: 1 } as never)).toThrow(/unknown assertNoHerd option 'maxPeak'/);
    expect(herdProblems(calm)).toEqual([]);
  });

  it('the vitest matcher: toStayUnderCapacity, its message printing the chart', () => {
    expect.extend(herdMatchers);
    const e = expect as unknown as (v: unknown) => {
      toStayUnderCapacity(o?: object): void;
      not: { toStayUnderCapacity(o?: object): void };
    };
    e(calm).toStayUnderCapacity();
    e(herdy).not.toStayUnderCapacity();
    expect(() => e(herdy).toStayUnderCapacity()).toThrow(/the retries herd the dependency:\nloop: 50 requests/);
    expect(() => e(calm).not.toStayUnderCapacity()).toThrow(
      /expected the retries to herd the dependency or give up on calls, but they stayed under capacity and enough/,
    );
  });

  it("the report has the simulator's figures: the same fields as simulateOutage's results, plus gaveUpWith, but refused", async () => {
    const r = await herd(({ url, fetch }) => fetch(url), { clients: 5, intercept: false, outageMs: 0 });
    const simulated = simulateOutage({ clients: 5, strategies: ['full'] }).results[0] as object;
    // refused is the simulator's count of its own budget's and breaker's refusals; the herd's callers say theirs in
    // gaveUpWith.
    const fields = Object.keys(simulated).filter((k) => k !== 'refused');
    expect(Object.keys(simulated)).toContain('refused');
    expect(Object.keys(r.results[0] as object).sort()).toEqual([...fields, 'gaveUpWith'].sort());
    expect(Object.keys(r)).toEqual(['scenario', 'settings', 'results']);
  });
});

describe('herd on virtual time', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a minute of outage, on virtual time: each caller polls every second and succeeds at 60 s', async () => {
    const started = performance.now();
    const r = await herd(
      async ({ url, fetch }) => {
        for (;;) {
          const response = await fetch(url);
          if (response.ok) return response;
          await new Promise((resolve) => setTimeout(resolve, 1_000 + Math.random() * 100));
        }
      },
      { outageMs: 60_000, intercept: false, name: 'poll' },
    );
    expect(performance.now() - started).toBeLessThan(20_000); // virtual, not real: 60 s would time the test out
    expect(r.results[0]).toMatchObject({ strategy: 'poll', succeeded: 200, gaveUp: 0 });
    expect(r.results[0]?.p50Ms).toBeGreaterThanOrEqual(60_000);
    expect(Date.now()).toBeGreaterThan(1_600_000_000_000); // the real clock is back
  });

  it('uses the fake clock a test runner already installed (vi.useFakeTimers), and leaves it installed', async () => {
    vi.useFakeTimers();
    const before = Date.now();
    const r = await herd(
      async ({ url, fetch }) => {
        const first = await fetch(url);
        if (first.ok) return first;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        return fetch(url);
      },
      { clients: 10, intercept: false },
    );
    expect(r.results[0]).toMatchObject({ succeeded: 10, requests: 20 });
    expect(Date.now() - before).toBeGreaterThanOrEqual(2_000);
    expect(installedClock()).toBeDefined();
  });

  it('spreads the starts over startWindowMs, and counts calls that resolve with a failed status as given up', async () => {
    const r = await herd(({ url, fetch }) => fetch(url), { startWindowMs: 2_000, intercept: false, clients: 100 });
    const f = r.results[0];
    expect(f?.requests).toBe(100);
    expect((f?.succeeded ?? 0) + (f?.gaveUp ?? 0)).toBe(100);
    expect(f?.succeeded).toBeGreaterThan(30); // about half start after the outage, within capacity
    expect(f?.gaveUpWith).toEqual({ 'status 503': f?.gaveUp });
  });

  it('counts a call that throws at once, and one still running at untilMs as unfinished', async () => {
    const r = await herd(
      ({ client, url, fetch }) => {
        if (client === 0) throw new RangeError('bad input');
        if (client === 1) return new Promise((resolve) => setTimeout(resolve, 10_000_000));
        return fetch(url);
      },
      { clients: 3, intercept: false, outageMs: 0, untilMs: 5_000 },
    );
    expect(r.results[0]).toMatchObject({ succeeded: 1, gaveUp: 2, lastFinishMs: 5_000 });
    expect(r.results[0]?.gaveUpWith).toEqual({ RangeError: 1, unfinished: 1 });
  });

  it('hangs: a caller with its own timeout (AbortController + setTimeout) gives up on a hung request; one without waits for hangMs', async () => {
    const r = await herd(
      async ({ client, url, fetch }) => {
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), 200);
        try {
          return await fetch(url, client % 2 === 0 ? { signal: controller.signal } : {});
        } finally {
          clearTimeout(timer);
        }
      },
      { clients: 4, intercept: false, outageFailure: 'hang', hangMs: 7_000 },
    );
    expect(r.results[0]?.gaveUpWith).toEqual({ AbortError: 2, 'TypeError ECONNRESET': 2 });
    expect(r.results[0]?.lastFinishMs).toBeGreaterThanOrEqual(7_000);
  });

  it("hangs through global fetch: the interceptor passes the caller's abort on", async () => {
    const r = await herd(
      async ({ url }) => {
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), 200);
        try {
          return await fetch(url, { signal: controller.signal });
        } finally {
          clearTimeout(timer);
        }
      },
      { clients: 3, outageFailure: 'hang' },
    );
    expect(r.results[0]?.gaveUpWith).toEqual({ AbortError: 3 });
    expect(r.results[0]?.lastFinishMs).toBeLessThan(1_000);
  });

  it('resets reach global fetch as fetch failed (cause ECONNRESET), and axios as an ECONNRESET', async () => {
    const r = await herd(({ url }) => fetch(url), { clients: 3, outageFailure: 'reset' });
    expect(r.results[0]?.gaveUpWith).toEqual({ 'TypeError ECONNRESET': 3 });
    const a = await herd(({ url }) => axios.get(url), { clients: 3, outageFailure: 'reset' });
    // axios 1.21's AxiosError.from keeps the socket error's name, as it does for a real reset.
    expect(a.results[0]?.gaveUpWith).toEqual({ 'Error ECONNRESET': 3 });
  });

  it("the context's fetch reaches only the dependency", async () => {
    const r = await herd(({ fetch }) => fetch('http://elsewhere.test/'), { clients: 2, intercept: false });
    expect(r.results[0]?.gaveUpWith).toEqual({ TypeError: 2 });
    const exchange = new Exchange(new Dependency(settings()), 0);
    await expect(directFetch(exchange, 'http://a.test')('http://b.test/')).rejects.toThrow(
      /the herd's fetch reaches only http:\/\/a.test, not http:\/\/b.test\//,
    );
    const aborted = new AbortController();
    aborted.abort(new Error('gone'));
    await expect(
      directFetch(exchange, 'http://a.test')(new Request('http://a.test/', { signal: aborted.signal })),
    ).rejects.toThrow();
  });

  it('one herd at a time', async () => {
    const first = herd(({ url, fetch }) => fetch(url), { clients: 2, intercept: false });
    await expect(herd(({ url, fetch }) => fetch(url), { clients: 2, intercept: false })).rejects.toThrow(
      /a herd is already running/,
    );
    await first;
  });

  it('restores Math.random, the clock and global fetch when it ends', async () => {
    const [random, fetch, setTimeoutBefore] = [Math.random, globalThis.fetch, globalThis.setTimeout];
    await herd(({ url }) => globalThis.fetch(url), { clients: 2 });
    expect([Math.random, globalThis.fetch, globalThis.setTimeout]).toEqual([random, fetch, setTimeoutBefore]);
  });
});

describe('what virtual time cannot reach', () => {
  it('drive: when callers wait on nothing the clock knows, it ends as stalled after stallMs of real time', async () => {
    const clock = FakeTimers.withGlobal(globalThis).install({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      await expect(
        drive(
          clock,
          () => false,
          () => 0,
          1_000,
          50,
        ),
      ).resolves.toBe('stalled');
    } finally {
      clock.uninstall();
    }
  });

  it('drive: waits on real progress (a real socket) while the clock is empty, then goes on', async () => {
    const clock = FakeTimers.withGlobal(globalThis).install({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let moved = 0;
    const realTimeout = (clock as unknown as { _setTimeout: (f: () => void, ms: number) => void })._setTimeout;
    realTimeout(() => moved++, 30);
    try {
      await expect(
        drive(
          clock,
          () => moved > 0,
          () => moved,
          1_000,
          2_000,
        ),
      ).resolves.toBe('done');
    } finally {
      clock.uninstall();
    }
  });

  it('explains a missing peer: @sinonjs/fake-timers, @mswjs/interceptors', async () => {
    const missing = () => Promise.reject(new Error("Cannot find module '@sinonjs/fake-timers'"));
    await expect(installClock(missing)).rejects.toThrow(/needs the optional peer dependency '@sinonjs\/fake-timers'/);
    const exchange = new Exchange(new Dependency(settings()), 0);
    await expect(intercept(exchange, 'http://a.test', missing)).rejects.toThrow(
      /through the optional peer dependency '@mswjs\/interceptors' \(npm i -D @mswjs\/interceptors@0.41.9\)/,
    );
  });

  it('installClock takes fake-timers as a module or as its default export', async () => {
    const mod = await import('@sinonjs/fake-timers');
    const clock = await installClock(async () => ({ default: mod.default }));
    try {
      expect(clock.now).toBe(0);
      expect(installedClock()).toBe(clock);
    } finally {
      clock.uninstall?.();
    }
    expect(installedClock()).toBeUndefined();
  });
});

describe('a fake clock already installed that does not fake Date and performance (review)', () => {
  it('herd() refuses it with a message that says what to fake, instead of a report on mixed times', async () => {
    const { herd } = await import('../src/testing/herd');
    const clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      expect(() => installedClock()).toThrow(/fakes setTimeout but not Date and performance/);
      await expect(herd(({ url }) => fetch(url))).rejects.toThrow(/add 'Date' and 'performance' to toFake/);
    } finally {
      clock.uninstall();
    }
    const full = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    try {
      expect(installedClock()).toBe(full);
    } finally {
      full.uninstall();
    }
  });
});
