import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCircuitBreaker, createRetryBudget, retry, retryingFetch } from '../src/index';
import {
  assertNoHerd,
  formatHerd,
  type HerdReport,
  herd,
  herdMatchers,
  herdProblems,
  type NoHerdOptions,
} from '../src/testing/index';
import { type HerdOptions, resolveOptions } from '../src/testing/options';
import { PLAIN_RETRIES, plainSucceeded } from '../src/testing/reference';

/**
 * Issue 28, item 3: a protection that keeps the dependency under capacity by giving up on every call must fail the
 * herd test. assertNoHerd and toStayUnderCapacity check the goodput by default: fewer callers succeeding than plain
 * jittered retries bring through the same herd, less 10 points, fails.
 */

expect.extend(herdMatchers);
const matcher = expect as unknown as (v: unknown) => {
  toStayUnderCapacity(o?: NoHerdOptions): void;
  not: { toStayUnderCapacity(o?: NoHerdOptions): void };
};

/** A report as herd() makes it, for `succeeded` of the settings' callers, with no load after the outage. */
function report(options: HerdOptions, succeeded: number, gaveUpWith: Record<string, number> = {}): HerdReport {
  const settings = resolveOptions(options).settings;
  return {
    scenario: 'herd',
    settings,
    results: [
      {
        strategy: 'code',
        requests: settings.clients,
        amplification: 1,
        peakAfterOutage: 0,
        peakOverCapacity: 0,
        lastFinishMs: 100,
        succeeded,
        gaveUp: settings.clients - succeeded,
        p50Ms: 100,
        p99Ms: 100,
        load: [settings.clients],
        gaveUpWith,
      },
    ],
  };
}

/** A request through global fetch that throws on a failed status, as most code does. */
const get = async (url: string) => {
  const response = await fetch(url);
  if (!response.ok) throw Object.assign(new Error(`status ${response.status}`), { status: response.status });
  return response;
};

const message = (f: () => void): string => {
  try {
    f();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a throw');
};

describe('the goodput check is on by default', () => {
  it('a report with no load after the outage and every caller given up fails with no options', () => {
    const r = report({}, 0, { 'RetryError (circuit-open)': 200 });
    expect(r.results[0]?.peakOverCapacity).toBe(0); // what passed before: no herd at all
    expect(herdProblems(r)).toHaveLength(1);
    expect(() => assertNoHerd(r)).toThrow(/^the retries give up on calls plain jittered retries save:\ncode: 0 of 200/);
    expect(() => matcher(r).toStayUnderCapacity()).toThrow(/^the retries give up on calls plain jittered retries save/);
    matcher(r).not.toStayUnderCapacity();
  });

  it('minSuccess: 0 turns it off', () => {
    const r = report({}, 0);
    expect(() => assertNoHerd(r, { minSuccess: 0 })).not.toThrow();
    matcher(r).toStayUnderCapacity({ minSuccess: 0 });
    expect(herdProblems(r, { minSuccess: 0 })).toEqual([]);
  });

  it('the default bar is 10 points under plain retries, counted in calls: 180 of 200 pass, 179 fail', () => {
    expect(plainSucceeded(resolveOptions({}).settings)).toBe(200);
    expect(herdProblems(report({}, 180))).toEqual([]);
    expect(herdProblems(report({}, 179))[0]).toMatch(
      /^code: 179 of 200 callers succeeded \(89\.5%\), at least 180 \(90%\) must \(10 points under plain jittered retries\); 21 gave up$/m,
    );
  });

  it('the bar follows the herd: a 10 s outage (plain retries save 184, so 164 must), a 30 s one (none, so none must)', () => {
    const ten = { outageMs: 10_000 };
    expect(plainSucceeded(resolveOptions(ten).settings)).toBe(184);
    expect(herdProblems(report(ten, 164))).toEqual([]);
    expect(herdProblems(report(ten, 163))[0]).toMatch(/at least 164 \(82%\) must/);
    expect(herdProblems(report(ten, 163))[0]).toMatch(/bring 184 \(92%\) through this herd$/);
    const thirty = { outageMs: 30_000 };
    expect(plainSucceeded(resolveOptions(thirty).settings)).toBe(0);
    expect(herdProblems(report(thirty, 0))).toEqual([]);
  });

  it('a minSuccess of your own: the message names it', () => {
    expect(herdProblems(report({}, 150), { minSuccess: 0.75 })).toEqual([]);
    expect(herdProblems(report({}, 149), { minSuccess: 0.75 })[0]).toMatch(
      /^code: 149 of 200 callers succeeded \(74\.5%\), at least 150 \(75%\) must \(minSuccess 0\.75\); 51 gave up$/m,
    );
    expect(herdProblems(report({}, 199), { minSuccess: 1 })).toHaveLength(1);
    expect(herdProblems(report({}, 200), { minSuccess: 1 })).toEqual([]);
  });

  it('a herd and lost calls together: both in the message, under one headline', () => {
    const r = report({}, 20, { 'status 503': 180 });
    const herdy: HerdReport = {
      ...r,
      results: [{ ...(r.results[0] as HerdReport['results'][0]), peakAfterOutage: 200, peakOverCapacity: 10 }],
    };
    const text = message(() => assertNoHerd(herdy));
    expect(text).toMatch(/^the retries herd the dependency, and give up on calls plain jittered retries save:\n/);
    expect(text).toMatch(/^code: 200 requests in one 100 ms window after the outage/m);
    expect(text).toMatch(/^code: 20 of 200 callers succeeded \(10%\).*; 180 gave up: 180 status 503$/m);
    expect(() => matcher(herdy).toStayUnderCapacity()).toThrow(/^the retries herd the dependency, and give up/);
    // The load alone, with the goodput check off: the old headline.
    expect(message(() => assertNoHerd(herdy, { minSuccess: 0 }))).toMatch(/^the retries herd the dependency:\n/);
  });
});

describe('the failure names what the callers gave up with', () => {
  it('when the report has it; a row without gaveUpWith (figures made by hand) gets the counts alone', () => {
    const with_ = report({}, 0, { 'RetryError (budget)': 6, 'RetryError (circuit-open)': 194 });
    expect(herdProblems(with_)[0]).toMatch(/; 200 gave up: 6 RetryError \(budget\), 194 RetryError \(circuit-open\)\n/);
    const bare = report({}, 0);
    const { gaveUpWith: _, ...row } = bare.results[0] as HerdReport['results'][0];
    expect(herdProblems({ ...bare, results: [row as HerdReport['results'][0]] })[0]).toMatch(/; 200 gave up\n/);
  });
});

describe('minSuccess is checked', () => {
  const r = report({}, 200);
  it.each([
    [Number.NaN, RangeError, /^herdless: minSuccess must be a number in \[0, 1\], got NaN$/],
    [-1, RangeError, /^herdless: minSuccess must be a number in \[0, 1\], got -1$/],
    [2, RangeError, /^herdless: minSuccess must be a number in \[0, 1\], got 2$/],
    [Number.POSITIVE_INFINITY, RangeError, /got Infinity$/],
    ['0.5', TypeError, /^herdless: minSuccess must be a number \(a number in \[0, 1\]\), got '0\.5'$/],
    [null, TypeError, /minSuccess must be a number/],
  ] as const)('minSuccess %s: %o', (value, Kind, text) => {
    const options = { minSuccess: value } as unknown as NoHerdOptions;
    expect(() => assertNoHerd(r, options)).toThrow(Kind);
    expect(() => assertNoHerd(r, options)).toThrow(text);
    expect(() => herdProblems(r, options)).toThrow(text);
    expect(() => matcher(r).toStayUnderCapacity(options)).toThrow(text);
  });

  it('0 and 1 are allowed, and it is a known option', () => {
    expect(() => assertNoHerd(r, { minSuccess: 0 })).not.toThrow();
    expect(() => assertNoHerd(r, { minSuccess: 1 })).not.toThrow();
    expect(() => assertNoHerd(r, { minSucess: 0 } as never)).toThrow(/unknown assertNoHerd option 'minSucess'/);
  });
});

describe('the reference: plain jittered retries in the same herd', () => {
  it('is herdless full jitter with 10 attempts', () => {
    expect(PLAIN_RETRIES).toEqual({ jitter: 'full', maxAttempts: 10 });
  });

  it("reads every setting of the herd's dependency", () => {
    const plain = (o: HerdOptions) => plainSucceeded(resolveOptions(o).settings);
    expect(plain({ clients: 10, capacity: 5, outageMs: 200 })).toBe(10);
    expect(plain({ retryAfterMs: 2_000 })).toBe(200); // 429s with Retry-After: 2
    expect(plain({ overflow: 'queue' })).toBe(200);
    expect(plain({ startWindowMs: 1_000 })).toBe(200);
    expect(plain({ failureRate: 1 })).toBe(0); // nothing succeeds after the outage either
    expect(plain({ outageFailure: 'hang', untilMs: 20_000 })).toBe(0); // every first attempt hangs 30 s, past the end
    expect(plain({ outageFailure: 'hang' })).toBe(200); // reset after 30 s, then retried
    expect(plain({ untilMs: 2_000 })).toBeLessThan(200); // the run ends before the retries are through
  });

  it('is the same for the same settings (computed once per report), and another seed may differ', () => {
    const s = resolveOptions({ outageMs: 10_000 }).settings;
    expect(plainSucceeded(s)).toBe(plainSucceeded(s));
    expect(plainSucceeded({ ...s })).toBe(184);
    expect(plainSucceeded(resolveOptions({ outageMs: 10_000, seed: 3 }).settings)).toBe(183);
  });

  it("is what herdless's own retryingFetch({ maxAttempts: 10 }) brings through the herd, within 2 points", async () => {
    for (const options of [{ outageMs: 10_000 }, { untilMs: 2_000 }] as HerdOptions[]) {
      const r = await herd(({ url, fetch }) => retryingFetch({ maxAttempts: 10, fetch })(url), {
        ...options,
        intercept: false,
      });
      expect(Math.abs((r.results[0]?.succeeded as number) - plainSucceeded(r.settings))).toBeLessThanOrEqual(4);
    }
  });
});

describe('under a herd, on virtual time', () => {
  afterEach(() => vi.useRealTimers());

  it('a budget and a breaker (the setup recommended before issue 28) fails: the breaker refuses every retry', async () => {
    const budget = createRetryBudget();
    const breaker = createCircuitBreaker();
    const r = await herd(({ url }) => retry(() => get(url), { maxAttempts: 10, budget, breaker }), {
      name: 'protected',
    });
    const f = r.results[0];
    expect(f).toMatchObject({ peakAfterOutage: 0, succeeded: 0, gaveUp: 200 });
    expect(f?.gaveUpWith).toEqual({ 'RetryError (circuit-open)': 200 });
    const text = message(() => assertNoHerd(r));
    expect(text).toContain(
      'protected: 0 of 200 callers succeeded (0%), at least 180 (90%) must (10 points under plain jittered retries); 200 gave up: 200 RetryError (circuit-open)\n' +
        '  plain jittered retries (full jitter, 10 attempts, no budget or breaker) bring 200 (100%) through this herd\n',
    );
    expect(() => matcher(r).toStayUnderCapacity()).toThrow(/^the retries give up on calls plain jittered retries save/);
    // docs/testing-herd.md prints this message: the same lines.
    const docs = readFileSync(join(import.meta.dirname, '..', 'docs', 'testing-herd.md'), 'utf8');
    const printed = docs.match(/The message names the callers[^`]*```\n([\s\S]*?)```/)?.[1];
    expect(text.startsWith(printed as string)).toBe(true);
  });

  it('the budget alone, as the README recommends now, waits the outage out and passes', async () => {
    const budget = createRetryBudget();
    const r = await herd(({ url }) => retry(() => get(url), { maxAttempts: 10, budget }), { name: 'budget' });
    expect(r.results[0]?.succeeded).toBeGreaterThanOrEqual(180);
    expect(() => assertNoHerd(r)).not.toThrow();
    expect(() => matcher(r).toStayUnderCapacity()).not.toThrow();
  });

  it('one attempt and no retries (maxAttempts: 1) fails, on the fake clock the test runner installed', async () => {
    vi.useFakeTimers();
    const r = await herd(({ url, fetch }) => retryingFetch({ maxAttempts: 1, fetch })(url), {
      name: 'once',
      intercept: false,
    });
    expect(r.results[0]).toMatchObject({ requests: 200, succeeded: 0, gaveUpWith: { 'status 503': 200 } });
    expect(() => assertNoHerd(r)).toThrow(/^once: 0 of 200 callers succeeded \(0%\), at least 180 \(90%\) must/m);
    expect(() => matcher(r).toStayUnderCapacity()).toThrow(/once: 0 of 200 callers succeeded/);
    expect(() => assertNoHerd(r, { minSuccess: 0 })).not.toThrow(); // the load alone is fine: 200 requests, once
  });

  it('plain retryingFetch and retry() with full jitter still pass both', async () => {
    const viaFetch = await herd(({ url }) => retryingFetch({ maxAttempts: 10 })(url), { name: 'retryingFetch' });
    const viaRetry = await herd(({ url }) => retry(() => get(url), { maxAttempts: 10, jitter: 'full' }), {
      name: 'retry()',
    });
    for (const r of [viaFetch, viaRetry]) {
      expect(r.results[0]?.succeeded).toBe(200);
      expect(() => assertNoHerd(r)).not.toThrow();
      matcher(r).toStayUnderCapacity();
    }
    expect(formatHerd(viaFetch)).toMatch(/^strategy +requests +ampl\. +peak\/20 +ok\/200 /m);
    expect(formatHerd(viaFetch)).toMatch(/^retryingFetch +1183 +5\.92 +30 \(1\.5x\) +200 \(100%\) /m);
  });
});

describe('the report shows the goodput beside the peak', () => {
  it('ok/<clients>: the callers that succeeded and their share, to a tenth when not whole', () => {
    expect(formatHerd(report({}, 199))).toMatch(/^code +200 +1\.00 +0 \(0\.0x\) +199 \(99\.5%\) /m);
    expect(formatHerd(report({ clients: 3 }, 1))).toMatch(/ok\/3[\s\S]*1 \(33\.3%\)/);
  });
});
