import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BURST, canSpend } from '../src/hedge/hedge';
import { createHedge, type HedgeContext, hedged } from '../src/hedge/index';
import { bucketOf, edgeOf, GROWTH, LatencyWindow } from '../src/hedge/latency';
import { type RetryError, retry } from '../src/index';
import { useFakeClock } from './helpers';

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

describe('the race, against a model of it', () => {
  const fake = useFakeClock();

  it('resolves with the first success by time, rejects with the last failure when all fail, sends no hedge after a failure, and aborts every loser', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.record({ ms: fc.integer({ min: 1, max: 200 }), ok: fc.boolean() }), { minLength: 4, maxLength: 4 }),
        async (delayMs, maxHedges, plans) => {
          // Times all distinct: no two events at the same instant (the model need not order ties as timers do).
          const times = [...plans.map((p, i) => i * delayMs + p.ms), ...plans.map((_, i) => i * delayMs)];
          fc.pre(new Set(times).size === times.length);
          // The model: attempt i starts at i x delay while the round is open and no failure came back before.
          let result: { ok: boolean; i: number } | undefined;
          let started = 0;
          const ends: { at: number; i: number }[] = [];
          for (let i = 0; i <= maxHedges; i++) {
            const at = i * delayMs;
            const before = ends.filter((e) => e.at < at);
            if (before.some((e) => plans[e.i]?.ok) || before.some((e) => !plans[e.i]?.ok)) break;
            started++;
            ends.push({ at: at + (plans[i] as { ms: number }).ms, i });
          }
          ends.sort((a, b) => a.at - b.at);
          let inFlight = started;
          for (const e of ends) {
            inFlight--;
            if (plans[e.i]?.ok) {
              result = { ok: true, i: e.i };
              break;
            }
            if (inFlight === 0) result = { ok: false, i: e.i };
          }
          // The real thing.
          const hedge = createHedge({ delayMs, maxHedges, maxExtraLoad: 1 });
          for (let k = 0; k < maxHedges; k++) hedge.begin(); // tokens for every hedge of the round
          const signals: AbortSignal[] = [];
          const fn = hedged(({ signal, hedge: i }: HedgeContext) => {
            signals.push(signal);
            const { ms, ok } = plans[i] as { ms: number; ok: boolean };
            return new Promise<number>((resolve, reject) => {
              const timer = setTimeout(() => (ok ? resolve(i) : reject(new Error(String(i)))), ms);
              signal.addEventListener('abort', () => {
                clearTimeout(timer);
                reject(signal.reason);
              });
            });
          }, hedge);
          let outcome: { ok: boolean; i: number } | undefined;
          retry(fn, { maxAttempts: 1 }).then(
            (i) => {
              outcome = { ok: true, i };
            },
            (error: RetryError) => {
              outcome = { ok: false, i: Number((error.cause as Error).message) };
            },
          );
          await fake.clock.tickAsync(1_000);
          expect(outcome).toEqual(result);
          expect(signals).toHaveLength(started);
          // Every attempt still in flight when the round settled was aborted; the winner's signal never is.
          const settledAt = ends.find((e) => e.i === result?.i)?.at as number;
          for (const e of ends) {
            const signal = signals[e.i] as AbortSignal;
            if (result?.ok && e.i === result.i) expect(signal.aborted).toBe(false);
            else if (e.at > settledAt) expect(signal.aborted).toBe(true);
          }
          expect(fake.clock.countTimers()).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });
});
