import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { normalizeBackoff, RETRY_AFTER_SPREAD, spreadAfter } from '../src/delay';
import { computeDelay, type Jitter } from '../src/index';
import { draws } from './helpers';

/** The contract's formulas, written out plainly as the reference the implementation is checked against. */
function reference(
  jitter: Jitter,
  attempt: number,
  base: number,
  cap: number,
  factor: number,
  r: number,
  previous?: number,
) {
  if (jitter === 'decorrelated') return Math.min(cap, base + r * Math.max(0, 3 * (previous ?? base) - base));
  const ceiling = base === 0 ? 0 : Math.min(cap, base * factor ** (attempt - 1));
  if (jitter === 'none') return ceiling;
  if (jitter === 'full') return r * ceiling;
  return Math.min(ceiling, ceiling / 2 + (r * ceiling) / 2); // the contract's bound: never above the ceiling
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
        expect(delay).toBe(reference(jitter, attempt, baseMs, capMs, factor, r, previous));
      }),
      { numRuns: 2_000 },
    );
  });

  it('is deterministic for a given random', () => {
    fc.assert(
      fc.property(options, ({ jitter, baseMs, extra, factor, r, attempt, previous }) => {
        const policy = { jitter, baseMs, capMs: baseMs + extra, factor, random: () => r };
        expect(computeDelay(attempt, policy, previous)).toBe(computeDelay(attempt, policy, previous));
      }),
    );
  });

  it('full and equal jitter stay below the exponential ceiling; equal never below half of it', () => {
    fc.assert(
      fc.property(options, ({ baseMs, extra, factor, r, attempt }) => {
        const capMs = baseMs + extra;
        const ceiling = computeDelay(attempt, { jitter: 'none', baseMs, capMs, factor });
        expect(computeDelay(attempt, { jitter: 'full', baseMs, capMs, factor, random: () => r })).toBeLessThanOrEqual(
          ceiling,
        );
        const equal = computeDelay(attempt, { jitter: 'equal', baseMs, capMs, factor, random: () => r });
        expect(equal).toBeGreaterThanOrEqual(ceiling / 2);
        expect(equal).toBeLessThanOrEqual(ceiling);
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
    [{ capMs: Infinity }, RangeError, /capMs .* got Infinity/],
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
    expect(() => computeDelay(1, null as never)).toThrow(TypeError);
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
