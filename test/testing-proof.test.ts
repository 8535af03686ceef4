import axios from 'axios';
import got from 'got';
import pRetry from 'p-retry';
import { describe, expect, it } from 'vitest';
import { retry, retryingFetch } from '../src/index';
import { assertNoHerd, type HerdOptions, type HerdReport, herd } from '../src/testing/index';

/**
 * The proof the issue asks for: real retry code, run as a herd of 200 callers against a dependency that fails for
 * 1 s, then serves 20 per 100 ms (through axios and got, 100 callers and 10 per 100 ms: the same ratio, at half the
 * cost of the node:http interception, about 2 ms of CPU a request). The naive loops must show the herd (a window after the outage at 5x capacity or
 * more), herdless and full jitter must not (assertNoHerd: every window within 2x). Each through global fetch, and
 * through axios or got over node:http (intercepted: no socket opens).
 */

/** Sleeps on the global setTimeout, looked up at call time, as hand-written loops do. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Get = (url: string) => Promise<unknown>;

/** A request through global fetch that throws on a failed status, as most hand-written code does. */
const getWithFetch: Get = async (url) => {
  const response = await fetch(url);
  if (!response.ok) throw Object.assign(new Error(`status ${response.status}`), { status: response.status });
  return response;
};
/** The same through axios (node:http): axios throws on a failed status itself. */
const getWithAxios: Get = (url) => axios.get(url);
/** The same through got (node:http), its own retries off: the loop under test is the only one. */
const getWithGot: Get = (url) => got(url, { retry: { limit: 0 } });

/** The incident's loop: three attempts, a fixed 500 ms apart. */
const incident = (get: Get) => async (url: string) => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await get(url);
    } catch (error) {
      if (attempt >= 3) throw error;
      await sleep(500);
    }
  }
};

/** Retries at once, up to ten attempts. */
const immediate = (get: Get) => async (url: string) => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await get(url);
    } catch (error) {
      if (attempt >= 10) throw error;
    }
  }
};

/** Exponential backoff without jitter: 100 ms, 200 ms, 400 ms, ... ten attempts. */
const exponential = (get: Get) => async (url: string) => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await get(url);
    } catch (error) {
      if (attempt >= 10) throw error;
      await sleep(100 * 2 ** (attempt - 1));
    }
  }
};

/** Full jitter (AWS's): a uniform wait in [0, min(10 s, 100 ms x 2^n)), ten attempts. */
const fullJitter = (get: Get) => async (url: string) => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await get(url);
    } catch (error) {
      if (attempt >= 10) throw error;
      await sleep(Math.random() * Math.min(10_000, 100 * 2 ** (attempt - 1)));
    }
  }
};

/** Half the callers and half the capacity through node:http (axios, got), whose interception costs the most. */
const HTTP: HerdOptions = { clients: 100, capacity: 10 };
const sized = (get: Get): HerdOptions => (get === getWithFetch ? {} : HTTP);

const run = (call: (url: string) => Promise<unknown>, name: string, options: HerdOptions = {}) =>
  herd(({ url }) => call(url), { name, ...options });

/** Bursts after the outage: runs of windows over `times` x capacity, each separated from the next by a quiet window. */
function bursts(report: HerdReport, times: number): number {
  const f = report.results[0];
  const s = report.settings;
  if (f === undefined) return 0;
  let count = 0;
  let inBurst = false;
  for (const n of f.load.slice(Math.ceil(s.outageMs / s.capacityWindowMs))) {
    if (n > times * s.capacity && !inBurst) count++;
    inBurst = n > s.capacity;
  }
  return count;
}

const peak = (report: HerdReport) => (report.results[0] as { peakOverCapacity: number }).peakOverCapacity;

describe('the naive loops herd the dependency', () => {
  it.each([
    ['fetch', getWithFetch],
    ['axios', getWithAxios],
  ] as const)(
    "the incident's loop (3 attempts, 500 ms apart), through %s: all 200 retry in one window",
    async (_, get) => {
      const report = await run(incident(get), 'incident', sized(get));
      const clients = report.settings.clients;
      expect(peak(report)).toBeGreaterThanOrEqual(5);
      expect(report.results[0]?.requests).toBe(3 * clients); // everyone spent all three attempts, the last together
      expect(() => assertNoHerd(report)).toThrow(
        new RegExp(`incident: ${clients} requests in one 100 ms window after the outage, 10\\.0x`),
      );
    },
  );

  it.each([
    ['fetch', getWithFetch],
    ['got', getWithGot],
  ] as const)('an immediate-retry loop, through %s', async (_, get) => {
    // Ten immediate attempts last ~200 ms (20 ms a round trip): an outage of 100 ms ends while they are at it.
    const report = await run(immediate(get), 'immediate', { outageMs: 100, ...sized(get) });
    expect(peak(report)).toBeGreaterThanOrEqual(5);
    expect(() => assertNoHerd(report)).toThrow(/the retries herd the dependency/);
  });

  it.each([
    ['fetch', getWithFetch],
    ['axios', getWithAxios],
  ] as const)('exponential backoff without jitter comes back in waves, through %s', async (_, get) => {
    const report = await run(exponential(get), 'exponential', sized(get));
    expect(peak(report)).toBeGreaterThanOrEqual(5);
    // The same callers, in step, fail again and return together: one burst per doubling, quiet in between.
    expect(bursts(report, 4)).toBeGreaterThanOrEqual(3);
  });

  it.each([
    ['fetch', getWithFetch],
    ['got', getWithGot],
  ] as const)("p-retry's defaults (no jitter: randomize is false), through %s", async (_, get) => {
    const report = await run((url) => pRetry(() => get(url)), 'p-retry', sized(get));
    expect(peak(report)).toBeGreaterThanOrEqual(5);
    expect(bursts(report, 4)).toBeGreaterThanOrEqual(2);
  });
});

describe('jittered retries do not', () => {
  it.each([
    ['fetch', getWithFetch],
    ['axios', getWithAxios],
  ] as const)('a hand-written full-jitter loop, through %s', async (_, get) => {
    const report = await run(fullJitter(get), 'full jitter', sized(get));
    assertNoHerd(report);
    expect(report.results[0]?.succeeded).toBe(report.settings.clients);
  });

  it.each([
    ['fetch', getWithFetch],
    ['got', getWithGot],
  ] as const)("herdless's retry(), ten attempts, through %s", async (_, get) => {
    const report = await run((url) => retry(() => get(url), { maxAttempts: 10 }), 'retry()', sized(get));
    assertNoHerd(report);
    expect(report.results[0]?.succeeded).toBe(report.settings.clients);
  });

  it("herdless's retryingFetch over global fetch", async () => {
    const call = retryingFetch({ maxAttempts: 10 });
    const report = await run((url) => call(url), 'retryingFetch');
    assertNoHerd(report);
    expect(report.results[0]?.succeeded).toBe(200);
  });

  it("herdless's retryingFetch over the context's fetch (no interception)", async () => {
    const report = await herd(({ url, fetch }) => retryingFetch({ maxAttempts: 10, fetch })(url), {
      name: 'retryingFetch',
      intercept: false,
    });
    assertNoHerd(report);
    expect(report.results[0]?.succeeded).toBe(200);
  });
});

describe('the same seed, the same report', () => {
  it('a jittered loop through global fetch repeats byte for byte, and another seed differs', async () => {
    const a = await run(fullJitter(getWithFetch), 'full jitter', { seed: 7 });
    const b = await run(fullJitter(getWithFetch), 'full jitter', { seed: 7 });
    const c = await run(fullJitter(getWithFetch), 'full jitter', { seed: 8 });
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(JSON.stringify(c.results)).not.toBe(JSON.stringify(a.results));
  });
});
