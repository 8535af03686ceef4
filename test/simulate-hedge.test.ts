import { describe, expect, it } from 'vitest';
import {
  HEDGE_STRATEGIES,
  type HedgeFigures,
  type OverloadFigures,
  resolveStrategy,
  simulateHedge,
  simulateOverload,
} from '../src/simulate/index';
import { SimulationLimitError } from '../src/simulate/limits';
import { protectInstance } from '../src/simulate/strategies';
import { runCli } from './cli-helpers';

const byName = <T extends { strategy: string }>(results: readonly T[]) =>
  Object.fromEntries(results.map((r) => [r.strategy, r])) as Record<string, T>;

describe('simulateHedge: a server with a long tail', () => {
  const tail = simulateHedge({ seed: 7 });
  const r = byName<HedgeFigures>(tail.results);

  it('compares its four strategies, in order, on the same calls; the unbounded hedge waits the healthy p95', () => {
    expect(tail.results.map((f) => f.strategy)).toEqual([...HEDGE_STRATEGIES]);
    expect(new Set(tail.results.map((f) => f.calls)).size).toBe(1);
    // 40% of 50 workers' capacity (about 1,860/s) over 30 s.
    expect(r['no-hedge']?.calls).toBe(Math.round(0.4 * tail.settings.capacity * 30));
    expect(tail.settings.healthyP95Ms).toBeGreaterThan(30);
    expect(tail.settings.healthyP95Ms).toBeLessThan(60);
    expect(r['no-hedge']?.requests).toBe(r['no-hedge']?.calls);
    expect(r['no-hedge']?.extraLoad).toBe(0);
  });

  it('from one busy process, the hedge cuts the p99.9 of a 1% slow mode 5x or more for at most 5% more requests', () => {
    const none = r['no-hedge'] as HedgeFigures;
    for (const name of ['hedge', 'hedge+budget']) {
      const h = r[name] as HedgeFigures;
      expect(none.p999Ms / h.p999Ms).toBeGreaterThan(5);
      expect(h.extraLoad).toBeGreaterThan(0.02);
      expect(h.extraLoad).toBeLessThanOrEqual(0.05);
      expect(h.p50Ms).toBeCloseTo(none.p50Ms, 0); // the median call is never hedged
    }
  });

  it('in a slowdown, the hedge adds at most 5% at every fleet size, where the unbounded one doubles the load', () => {
    for (const instances of [1, 10, 100, 10_000]) {
      const s = byName<HedgeFigures>(
        simulateHedge({ instances, slowdownMs: 10_000, load: 0.5, seed: 7, strategies: ['unbounded', 'hedge'] })
          .results,
      );
      expect(s.hedge?.extraLoad).toBeLessThanOrEqual(0.05);
      expect(s.hedge?.extraInSlowdown).toBeLessThanOrEqual(0.05);
      expect(s.unbounded?.extraInSlowdown).toBeGreaterThan(0.9);
    }
  });

  it('a quiet process (one of 10,000) never hedges: too few answers to learn a p95, too few calls to earn a hedge', () => {
    const quiet = byName<HedgeFigures>(simulateHedge({ instances: 10_000, seed: 7 }).results);
    expect(quiet.hedge?.extraLoad).toBe(0);
    expect(quiet.hedge?.p999Ms).toBe(quiet['no-hedge']?.p999Ms);
    // A fixed delay needs no learning, but the cap leaves a quiet process almost nothing either.
    const fixed = simulateHedge({
      instances: 10_000,
      seed: 7,
      strategies: [{ name: 'fixed', hedge: { delayMs: 45 } }],
    }).results[0] as HedgeFigures;
    expect(fixed.extraLoad).toBeLessThan(0.01);
  });

  it('is the same for the same seed, and another seed draws other calls', () => {
    expect(simulateHedge({ seed: 3, strategies: ['hedge'] })).toEqual(
      simulateHedge({ seed: 3, strategies: ['hedge'] }),
    );
    expect(simulateHedge({ seed: 4, strategies: ['hedge'] }).results).not.toEqual(
      simulateHedge({ seed: 3, strategies: ['hedge'] }).results,
    );
  });

  it('runs your own hedge: its options, up to 7 hedges a round, and a budget', () => {
    const [two, budgeted] = simulateHedge({
      seed: 7,
      strategies: [
        { name: 'two', hedge: { delayMs: 40, maxHedges: 2, maxExtraLoad: 0.1 } },
        { name: 'budgeted', hedge: { percentile: 0.98 }, budget: true },
      ],
    }).results as [HedgeFigures, HedgeFigures];
    expect(two.strategy).toBe('two');
    expect(two.extraLoad).toBeGreaterThan(0.05);
    expect(two.extraLoad).toBeLessThanOrEqual(0.1);
    expect(budgeted.extraLoad).toBeGreaterThan(0);
    expect(budgeted.extraLoad).toBeLessThanOrEqual(0.05);
    expect(simulateHedge({ strategies: [] })).toMatchObject({ scenario: 'hedge', results: [] });
  });

  it('names a bad setting or strategy', () => {
    const cases: [Parameters<typeof simulateHedge>[0], RegExp][] = [
      [{ instances: 0 }, /instances must be an integer >= 1, got 0/],
      [{ load: 0 }, /load must be a number in \(0, 10\], got 0/],
      [{ slowShare: 1.5 }, /slowShare must be a number in \[0, 1\], got 1.5/],
      [{ slowFactor: 0.5 }, /slowFactor must be a finite number >= 1, got 0.5/],
      [{ slowdownMs: -1 }, /slowdownMs must be a finite number >= 0, got -1/],
      [{ slowdownFactor: Number.NaN }, /slowdownFactor must be a finite number >= 1, got NaN/],
      [{ warmupMs: Infinity }, /warmupMs must be a finite number >= 0, got Infinity/],
      [{ runMs: 0 }, /runMs must be a finite number > 0, got 0/],
      [{ workers: 1.5 }, /workers must be an integer in \[1, 100000\], got 1.5/],
      [{ medianMs: 0 }, /medianMs must be a finite number > 0, got 0/],
      [{ sigma: 4 }, /sigma must be a number in \[0, 3\], got 4/],
      [{ hopMs: -1 }, /hopMs must be a finite number >= 0, got -1/],
      [{ seed: Number.NaN }, /seed must be a finite number, got NaN/],
      [{ strategies: ['full' as never] }, /unknown hedge strategy 'full' \(known: no-hedge, unbounded, hedge/],
      [{ strategies: [{ name: 'x', hedge: { maxHedges: 8 } }] }, /maxHedges must be at most 7, got 8/],
      [{ strategies: [{ name: 'x', hedge: { maxExtraLoad: 2 } }] }, /maxExtraLoad/],
    ];
    for (const [options, message] of cases) expect(() => simulateHedge(options)).toThrow(message);
    expect(() => simulateHedge({ strategies: [null as never] })).toThrow(TypeError);
    expect(() => simulateHedge({ runMs: 1e9, strategies: [] })).toThrow(SimulationLimitError);
    expect(() => simulateHedge({ runMs: 1e9, strategies: [] })).toThrow(/more than 10000000: shorten the run/);
  });
});

describe('a hedge in the overload scenario (and so in the explore space)', () => {
  it('is named last: +hedge after the budget and the breaker; recommended+hedge is a preset', () => {
    expect(resolveStrategy('full+budget+hedge')).toMatchObject({ budget: true, breaker: false, hedge: true });
    expect(resolveStrategy('full+hedge')).toMatchObject({ budget: false, hedge: true });
    expect(resolveStrategy('recommended+hedge')).toMatchObject({ budget: true, hedge: true });
    expect(resolveStrategy('full+budget')).not.toHaveProperty('hedge');
    expect(() => resolveStrategy('full+hedge+budget' as never)).toThrow(/unknown strategy 'full\+hedge\+budget'/);
    expect(() => resolveStrategy('full+hedge+hedge' as never)).toThrow(/unknown strategy/);
    expect(() => resolveStrategy({ name: 'x', policy: {}, hedge: { maxHedges: 8 } })).toThrow(
      /maxHedges must be at most 7, got 8/,
    );
    expect(() => resolveStrategy({ name: 'x', policy: {}, hedge: { percentile: 2 } })).toThrow(/percentile/);
    expect(resolveStrategy({ name: 'x', policy: {}, hedge: true })).toMatchObject({ hedge: true, budget: false });
    // A strategy of your own with a budget's and a breaker's options, and a hedge: each instance gets its own.
    const own = resolveStrategy({
      name: 'own',
      policy: { jitter: 'full' },
      budget: { ratio: 0.2 },
      breaker: { failureRatio: 0.9 },
      hedge: { delayMs: 10 },
    });
    const [a, b] = [protectInstance(own, () => 0), protectInstance(own, () => 0)];
    expect(a.hedge).toBeDefined();
    expect(a.hedge).not.toBe(b.hedge);
    expect(a.hedge?.settings.budget).toBe(a.policy.budget);
    expect(a.policy.breaker).toBeDefined();
    expect(protectInstance(resolveStrategy('full'), () => 0).hedge).toBeUndefined();
  });

  // Late answers at no cost to the server (a slow network path): the trouble in which a hedge can help.
  const latency = {
    capacity: 200,
    afterMs: 10_000,
    slowdownMs: 10_000,
    addedLatencyMs: 100,
    attemptTimeoutMs: 2_000,
    instances: 2,
  } as const;
  const run = simulateOverload({
    ...latency,
    strategies: [
      'full',
      'full+budget',
      'recommended+hedge',
      { name: 'eager', policy: { jitter: 'full' }, hedge: { delayMs: 50, maxExtraLoad: 1 } },
    ],
  });
  const r = byName<OverloadFigures>(run.results);

  it('counts hedges apart from retries; a strategy without one sends none', () => {
    expect(r.full?.hedges).toBe(0);
    expect(r['full+budget']?.hedges).toBe(0);
    const eager = r.eager as OverloadFigures;
    expect(eager.hedges).toBeGreaterThan(0);
    // Every round's attempts: its first, its hedges; every call's rounds: its first and its retries.
    expect(eager.requests).toBe(eager.calls - eager.refused + eager.retries + eager.hedges);
    // A hedge that lost its race was served all the same: wasted work.
    expect(eager.wasted).toBeGreaterThan(0);
  });

  it('the recommended hedge stays under its 5% cap of rounds, and the eager one (no cap) hedges far more', () => {
    const rec = r['recommended+hedge'] as OverloadFigures;
    const rounds = rec.calls - rec.refused + rec.retries;
    // The cap: 5% of rounds, plus at most 10 saved a process.
    expect(rec.hedges).toBeLessThanOrEqual(0.05 * rounds + 10 * latency.instances);
    expect((r.eager as OverloadFigures).hedges).toBeGreaterThan(10 * rec.hedges);
  });

  it('leaves the other strategies as they were: each runs on its own copy of the demand', () => {
    const alone = simulateOverload({ ...latency, strategies: ['full', 'full+budget'] }).results;
    expect(alone).toEqual([r.full, r['full+budget']]);
  });

  it('a failed attempt does not end its round while its hedge is in flight: an outage fails both, once a round', () => {
    const outage = { ...latency, addedLatencyMs: 0, outage: true, maxAttempts: 2 } as const;
    const [plain, hedged] = simulateOverload({
      ...outage,
      strategies: ['full', { name: 'eager', policy: { jitter: 'full' }, hedge: { delayMs: 0, maxExtraLoad: 1 } }],
    }).results as [OverloadFigures, OverloadFigures];
    // With a delay of 0 every round sends its hedge at once; each round of the outage fails when both have.
    expect(hedged.hedges).toBeGreaterThan(0.5 * (hedged.calls + hedged.retries));
    expect(hedged.retries).toBeLessThanOrEqual(hedged.calls);
    expect(hedged.goodputDuring).toBeCloseTo(plain.goodputDuring, 1);
  });
});

describe('herdless simulate --scenario hedge', () => {
  const run = (...args: string[]) => runCli('simulate', '--scenario', 'hedge', ...args);

  it('prints the percentiles and the extra load of each strategy, with the slowdown column when there is one', () => {
    const { code, out, err } = run('--slowdown', '10s', '--load', '0.5', '--instances', '10');
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out).toMatch(/^hedge: 50 workers \(capacity 1861\/s\) at load 0.5, 1% of attempts 25x slower, every worker/);
    expect(out).toMatch(/strategy +p50 ms +p99 ms +p99.9 ms +extra load +in the slowdown\n/);
    expect(out.split('\n').filter((l) => /^(no-hedge|unbounded|hedge|hedge\+budget) /.test(l))).toHaveLength(4);
    expect(run().out).not.toContain('in the slowdown');
  });

  it('names a bad flag', () => {
    const cases: [string[], string][] = [
      [['--tail', '2'], "--tail must be a share from 0 to 1, like 0.01, got '2'"],
      [['--tail', 'x'], "--tail must be a share from 0 to 1, like 0.01, got 'x'"],
      [['--load', '0'], "--load must be a share above 0 and up to 1, like 0.4, got '0'"],
      [['--load', '1.5'], "--load must be a share above 0 and up to 1, like 0.4, got '1.5'"],
      [['--slowdown', '10'], '--slowdown must be a duration like 4s or 250ms'],
      [['--instances', '0'], '--instances must be'],
      [['--strategies', 'full'], "--strategies for hedge takes no-hedge, unbounded, hedge, hedge+budget; got 'full'"],
      [['--budget'], '--budget is for the outage, overload and partial scenarios only, not hedge'],
      [['--cells', '2'], '--cells is for the explore scenario only, not hedge'],
    ];
    for (const [args, message] of cases) {
      const { code, err } = run(...args);
      expect({ args, code }).toEqual({ args, code: 2 });
      expect(err).toContain(message);
    }
    expect(runCli('simulate', '--scenario', 'overload', '--tail', '0.1').err).toContain(
      '--tail is for the hedge scenario only, not overload',
    );
  });
});
