import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { normalizeBackoff, RETRY_AFTER_SPREAD, spreadAfter } from '../src/delay';
import { computeDelay, type Jitter } from '../src/index';
import { draws } from './helpers';

/**
 * The reference, written from the AWS Architecture Blog post "Exponential Backoff And Jitter" (2015) as it states
 * them, not from delay.ts: `random_between(lo, hi)` draws uniformly from [lo, hi), and the exponential is
 * `min(cap, base * 2 ** attempt)` with the post's 0-based attempt and our `factor` for its 2. It computes the power as
 * `exp(n * log(factor))`, not `factor ** n`, so it shares no arithmetic with the implementation: compare with
 * {@link close}, not `toBe`. Where the contract adds to the post, it says so.
 */
function reference(
  jitter: Jitter,
  attempt: number,
  base: number,
  cap: number,
  factor: number,
  r: number,
  previous?: number,
) {
  const randomBetween = (lo: number, hi: number) => lo + r * (hi - lo);
  if (jitter === 'decorrelated') {
    const sleep = previous ?? base; // the post starts `sleep` at base
    // The contract: never below base, where the post's random_between(base, sleep * 3) would go under it.
    return Math.min(cap, randomBetween(base, Math.max(base, sleep * 3)));
  }
  const n = attempt - 1; // the post counts attempts from 0
  const expo = base === 0 ? 0 : Math.min(cap, base * Math.exp(n * Math.log(factor))); // 0 * 2 ** n is 0 in the post
  if (jitter === 'none') return expo;
  if (jitter === 'full') return randomBetween(0, expo);
  return expo / 2 + randomBetween(0, expo / 2);
}

/** Within floating-point noise of the reference: 1e-9 relative (or 1e-300 absolute for subnormal values). */
function close(actual: number, expected: number) {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(Math.max(1e-9 * Math.abs(expected), 1e-300));
}

const jitters: Jitter[] = ['none', 'full', 'equal', 'decorrelated'];

describe('computeDelay: the formulas with a stub random', () => {
  it('uses the defaults: full jitter, base 100, cap 10 000, factor 2', () => {
    expect(computeDelay(1, { random: () => 0.5 })).toBe(50);
    expect(computeDelay(3, { random: () => 0.5 })).toBe(200);
    expect(computeDelay(20, { random: () => 0.5 })).toBe(5_000);
  });

  it('none: the ceiling, and draws nothing', () => {
    const random = vi.fn(() => 0.5);
    expect([1, 2, 3, 4, 8].map((a) => computeDelay(a, { jitter: 'none', random }))).toEqual([
      100, 200, 400, 800, 10_000,
    ]);
    expect(random).not.toHaveBeenCalled();
  });

  it('full: random * ceiling', () => {
    expect(computeDelay(4, { jitter: 'full', baseMs: 10, random: draws(0.25) })).toBe(20);
    expect(computeDelay(4, { jitter: 'full', baseMs: 10, random: draws(0) })).toBe(0);
  });

  it('equal: half the ceiling plus random * half', () => {
    expect(computeDelay(2, { jitter: 'equal', baseMs: 100, random: draws(0) })).toBe(100);
    expect(computeDelay(2, { jitter: 'equal', baseMs: 100, random: draws(0.5) })).toBe(150);
  });

  it('decorrelated: between base and three times the previous delay, capped; ignores factor', () => {
    expect(computeDelay(1, { jitter: 'decorrelated', random: draws(0.5) })).toBe(200); // 100 + 0.5 * (300 - 100)
    expect(computeDelay(7, { jitter: 'decorrelated', random: draws(0.5) }, 200)).toBe(350); // 100 + 0.5 * 500
    expect(computeDelay(2, { jitter: 'decorrelated', factor: 9, random: draws(0.5) }, 200)).toBe(350);
    expect(computeDelay(2, { jitter: 'decorrelated', capMs: 300, random: draws(0.99) }, 5_000)).toBe(300);
    expect(computeDelay(2, { jitter: 'decorrelated', baseMs: 100, random: draws(0.99) }, 10)).toBe(100); // max(0, 30 - 100)
  });

  it('stays finite at huge attempts and with base 0 (no Infinity, no 0 * Infinity)', () => {
    for (const jitter of jitters) {
      expect(computeDelay(2 ** 31, { jitter, random: () => 0.999 })).toBeLessThanOrEqual(10_000);
      expect(computeDelay(2 ** 31, { jitter, baseMs: 0, random: () => 0.5 })).toBe(0);
    }
    expect(computeDelay(Number.MAX_SAFE_INTEGER, { jitter: 'none', factor: 1.5 })).toBe(10_000);
  });

  it('calls the given random, never Math.random', () => {
    const spy = vi.spyOn(Math, 'random');
    for (const jitter of jitters) computeDelay(3, { jitter, random: () => 0.3 }, 150);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });

  it('looks Math.random up at call time when no random is given', () => {
    const spy = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    expect(computeDelay(1)).toBe(50);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });

  it('ignores keys it does not use, so a whole retry policy can be passed', () => {
    expect(computeDelay(1, { jitter: 'none', maxAttempts: 5 } as never)).toBe(100);
  });
});

describe('computeDelay: properties', () => {
  const options = fc.record({
    jitter: fc.constantFrom(...jitters),
    baseMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
    extra: fc.double({ min: 0, max: 1e9, noNaN: true }),
    factor: fc.double({ min: 1, max: 100, noNaN: true }),
    r: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
    attempt: fc.oneof(
      fc.integer({ min: 1, max: 64 }),
      fc.integer({ min: 1, max: 2 ** 31 }),
      fc.constant(Number.MAX_SAFE_INTEGER),
    ),
    previous: fc.option(fc.double({ min: 0, max: 1e12, noNaN: true }), { nil: undefined }),
  });

  it('is always finite and within [0, capMs], and matches the reference formula', () => {
    fc.assert(
      fc.property(options, ({ jitter, baseMs, extra, factor, r, attempt, previous }) => {
        const capMs = baseMs + extra;
        const delay = computeDelay(attempt, { jitter, baseMs, capMs, factor, random: () => r }, previous);
        expect(Number.isFinite(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(capMs);
        close(delay, reference(jitter, attempt, baseMs, capMs, factor, r, previous));
      }),
      { numRuns: 2_000 },
    );
  });

  it('draws from random exactly once (none: never), so a seeded random reproduces every delay', () => {
    fc.assert(
      fc.property(options, ({ jitter, baseMs, extra, factor, r, attempt, previous }) => {
        const random = vi.fn(draws(r));
        computeDelay(attempt, { jitter, baseMs, capMs: baseMs + extra, factor, random }, previous);
        expect(random).toHaveBeenCalledTimes(jitter === 'none' ? 0 : 1);
      }),
    );
  });

  it('matches delays tabulated by hand from the post, for each jitter', () => {
    const at = (jitter: Jitter, attempt: number, r: number, previous?: number) =>
      computeDelay(attempt, { jitter, baseMs: 100, capMs: 1_000, factor: 3, random: draws(r) }, previous);
    // exponential: min(1000, 100 * 3 ** n), n = 0, 1, 2, 3
    expect([1, 2, 3, 4].map((a) => at('none', a, 0))).toEqual([100, 300, 900, 1_000]);
    expect([1, 2, 3, 4].map((a) => at('full', a, 0.25))).toEqual([25, 75, 225, 250]);
    expect([1, 2, 3, 4].map((a) => at('equal', a, 0.25))).toEqual([62.5, 187.5, 562.5, 625]);
    // decorrelated: min(1000, random_between(100, 3 * sleep)), sleep starting at 100
    const decorrelated = [
      at('decorrelated', 1, 0.25),
      at('decorrelated', 2, 0.5, 150),
      at('decorrelated', 3, 0.75, 400),
    ];
    expect([...decorrelated, at('decorrelated', 4, 0.5, 1_000)]).toEqual([150, 275, 925, 1_000]);
  });

  it('full and equal jitter stay below the exponential ceiling; equal never below half of it', () => {
    fc.assert(
      fc.property(options, ({ baseMs, extra, factor, r, attempt }) => {
        const capMs = baseMs + extra;
        const ceiling = reference('none', attempt, baseMs, capMs, factor, 0); // independent of delay.ts
        const [below, above] = [ceiling * (1 - 1e-9), ceiling * (1 + 1e-9)];
        const full = computeDelay(attempt, { jitter: 'full', baseMs, capMs, factor, random: () => r });
        expect(full).toBeLessThanOrEqual(Math.min(capMs, above));
        const equal = computeDelay(attempt, { jitter: 'equal', baseMs, capMs, factor, random: () => r });
        expect(equal).toBeGreaterThanOrEqual(below / 2);
        expect(equal).toBeLessThanOrEqual(Math.min(capMs, above));
      }),
    );
  });
});

describe('computeDelay: bad input is a clear error', () => {
  it.each([
    [0, RangeError, /attempt must be an integer >= 1, got 0/],
    [1.5, RangeError, /attempt must be an integer >= 1, got 1.5/],
    [Number.NaN, RangeError, /attempt .* got NaN/],
    [Infinity, RangeError, /attempt .* got Infinity/],
    ['1', TypeError, /attempt must be a number .* got '1'/],
  ])('attempt %s', (attempt, Kind, message) => {
    expect(() => computeDelay(attempt as number)).toThrow(Kind);
    expect(() => computeDelay(attempt as number)).toThrow(message);
  });

  it.each([
    [{ jitter: 'fulll' }, RangeError, /jitter must be one of 'none', 'full', 'equal', 'decorrelated', got 'fulll'/],
    [{ jitter: 3 }, TypeError, /jitter must be one of .* got 3/],
    [{ baseMs: -1 }, RangeError, /baseMs must be a finite number >= 0, got -1/],
    [{ baseMs: Infinity }, RangeError, /baseMs .* got Infinity/],
    [{ baseMs: Number.NaN }, RangeError, /baseMs .* got NaN/],
    [{ baseMs: '100' }, TypeError, /baseMs must be a number/],
    [{ baseMs: null }, TypeError, /baseMs must be a number .* got null/],
    [{ capMs: 50 }, RangeError, /capMs must be a finite number >= baseMs \(100\), got 50/],
    [
      { baseMs: 20_000 },
      RangeError,
      /^herdless: the default capMs must be a finite number >= baseMs \(20000\), got 10000$/,
    ],
    [{ capMs: Infinity }, RangeError, /capMs .* got Infinity/],
    [{ capMs: '500' }, TypeError, /capMs must be a number \(a finite number >= baseMs \(100\)\), got '500'/],
    [{ factor: 0.5 }, RangeError, /factor must be a finite number >= 1, got 0.5/],
    [{ factor: Infinity }, RangeError, /factor .* got Infinity/],
    [{ random: 0.5 }, TypeError, /random must be a function, got 0.5/],
    [{ random: () => 1 }, RangeError, /random\(\) must be a number in \[0, 1\), got 1/],
    [{ random: () => -0.1 }, RangeError, /random\(\) .* got -0.1/],
    [{ random: () => Number.NaN }, RangeError, /random\(\) .* got NaN/],
  ])('policy %o', (policy, Kind, message) => {
    expect(() => computeDelay(2, policy as never)).toThrow(Kind);
    expect(() => computeDelay(2, policy as never)).toThrow(message);
  });

  it('a policy that is not an object', () => {
    expect(() => computeDelay(1, 5 as never)).toThrow(/the policy must be an object, got 5/);
    expect(() => computeDelay(1, null as never)).toThrow(
      new TypeError('herdless: the policy must be an object, got null'),
    );
  });

  it.each([[-1], [Infinity], [Number.NaN]])('previousDelayMs %s', (previous) => {
    expect(() => computeDelay(2, { jitter: 'decorrelated' }, previous)).toThrow(
      /previousDelayMs must be a finite number >= 0/,
    );
  });
});

describe("spreadAfter: the server's wait plus a spread that grows with it", () => {
  const backoff = (options: Parameters<typeof normalizeBackoff>[0]) => normalizeBackoff(options);

  it('is the wait plus random() times min(capMs, RETRY_AFTER_SPREAD * wait), with one draw', () => {
    expect(RETRY_AFTER_SPREAD).toBe(1);
    expect(spreadAfter(2_000, backoff({ random: draws(0.25) }))).toBe(2_500);
    expect(spreadAfter(2_000, backoff({ random: draws(0) }))).toBe(2_000);
    // capMs bounds the spread: a 60 s wait gets at most 10 s on top with the defaults, 1 s with capMs 1 000.
    expect(spreadAfter(60_000, backoff({ random: draws(0.5) }))).toBe(65_000);
    expect(spreadAfter(60_000, backoff({ capMs: 1_000, random: draws(0.5) }))).toBe(60_500);
  });

  it("is the same rule for full, equal and decorrelated jitter; 'none' draws nothing and sleeps exactly the wait", () => {
    for (const jitter of ['full', 'equal', 'decorrelated'] as const) {
      expect(spreadAfter(1_000, backoff({ jitter, random: draws(0.5) }))).toBe(1_500);
    }
    expect(spreadAfter(1_000, backoff({ jitter: 'none', random: draws() }))).toBe(1_000);
  });

  it('does not depend on baseMs or factor', () => {
    expect(spreadAfter(1_000, backoff({ baseMs: 5_000, capMs: 9_000, factor: 7, random: draws(0.5) }))).toBe(1_500);
  });

  it('rejects a broken random, naming it', () => {
    expect(() => spreadAfter(1_000, backoff({ random: () => 1 }))).toThrow(
      /random\(\) must be a number in \[0, 1\), got 1/,
    );
  });

  const hinted = fc.record({
    hintMs: fc.double({ min: Number.MIN_VALUE, max: 1e12, noNaN: true }),
    jitter: fc.constantFrom<Jitter>('full', 'equal', 'decorrelated', 'none'),
    capMs: fc.double({ min: 0, max: 1e9, noNaN: true }),
    r: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  });

  it('lies in [wait, wait + min(capMs, RETRY_AFTER_SPREAD * wait)] for any wait, cap, jitter and draw', () => {
    fc.assert(
      fc.property(hinted, ({ hintMs, jitter, capMs, r }) => {
        const delay = spreadAfter(hintMs, backoff({ jitter, baseMs: 0, capMs, random: () => r }));
        expect(delay).toBeGreaterThanOrEqual(hintMs);
        expect(delay).toBeLessThanOrEqual(hintMs + Math.min(capMs, RETRY_AFTER_SPREAD * hintMs));
      }),
      { numRuns: 2_000 },
    );
  });

  it('is exactly the wait when random() returns 0, and grows with the draw', () => {
    fc.assert(
      fc.property(hinted, fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (h, other) => {
        const at = (r: number) =>
          spreadAfter(h.hintMs, backoff({ jitter: h.jitter, capMs: h.capMs + 100, random: () => r }));
        expect(at(0)).toBe(h.hintMs);
        const [lo, hi] = h.r <= other ? [h.r, other] : [other, h.r];
        expect(at(lo)).toBeLessThanOrEqual(at(hi));
      }),
    );
  });
});
