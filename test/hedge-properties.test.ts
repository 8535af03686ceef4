import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BURST, canSpend, createHedge } from '../src/hedge/index';
import { bucketOf, edgeOf, GROWTH, LatencyWindow } from '../src/hedge/latency';

describe('the percentile estimator', () => {
  it('is never below the true percentile of the samples, and at most 10% above it (1 ms under 1 ms)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1e7, noNaN: true }), { minLength: 1, maxLength: 300 }),
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        (samples, q) => {
          const window = new LatencyWindow(1_000, q, 1);
          for (const ms of samples) window.record(ms, 0);
          const sorted = [...samples].sort((a, b) => a - b);
          const truth = sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1] as number;
          const estimate = window.percentile(0) as number;
          expect(estimate).toBeGreaterThanOrEqual(Math.min(truth, 2 ** 31) * (1 - 1e-9));
          expect(estimate).toBeLessThanOrEqual(Math.max(1, truth * GROWTH) * (1 + 1e-9));
        },
      ),
    );
  });

  it('a bucket edge is above every latency in the bucket', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 2 ** 31 - 1, noNaN: true }), (ms) => {
        expect(edgeOf(bucketOf(ms))).toBeGreaterThan(ms * (1 - 1e-12));
      }),
    );
  });

  it('reads nothing before minSamples, and forgets a window with no sample for two windows', () => {
    const window = new LatencyWindow(1_000, 0.5, 3);
    window.record(10, 0);
    window.record(10, 100);
    expect(window.percentile(200)).toBeUndefined();
    window.record(10, 300);
    expect(window.percentile(400)).toBeCloseTo(10.8, 0);
    expect(window.percentile(1_500)).toBeCloseTo(10.8, 0); // the previous window still counts
    expect(window.percentile(2_500)).toBeUndefined(); // two windows with nothing: gone
    expect(window.count).toBe(0);
  });

  it('a rotation keeps the window before, and a cached estimate is computed again after it', () => {
    const window = new LatencyWindow(1_000, 0.5, 1);
    for (let k = 0; k < 4; k++) window.record(100, 0);
    expect(window.percentile(10)).toBeGreaterThanOrEqual(100);
    expect(window.percentile(10)).toBeLessThan(110);
    for (let k = 0; k < 20; k++) window.record(5, 1_100);
    expect(window.percentile(1_200) as number).toBeLessThan(6);
  });
});

describe('the cap on extra load', () => {
  it('hedges never exceed maxExtraLoad of the calls, at every moment, and never more than BURST are saved', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.boolean(), { maxLength: 400 }),
        (maxExtraLoad, ops) => {
          const hedge = createHedge({ delayMs: 1, maxExtraLoad });
          let calls = 0;
          let hedges = 0;
          for (const begin of ops) {
            if (begin) {
              hedge.begin();
              calls++;
            } else if (hedge.decide(1, 1).send) hedges++;
            expect(hedges).toBeLessThanOrEqual(maxExtraLoad * calls + 1e-6);
            expect(hedge.tokens).toBeLessThanOrEqual(BURST);
          }
        },
      ),
    );
  });

  it('twenty calls at 5% pay for one hedge (no float shortfall)', () => {
    const hedge = createHedge({ delayMs: 1 });
    for (let k = 0; k < 19; k++) hedge.begin();
    expect(hedge.decide(1, 1)).toEqual({ send: false, reason: 'load' });
    hedge.begin();
    expect(canSpend(hedge.tokens)).toBe(true);
    expect(hedge.decide(1, 1)).toEqual({ send: true });
  });
});
