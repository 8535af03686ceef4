import { describe, expect, it } from 'vitest';
import { createRetryBudget } from '../src/index';
import { OVERLOAD_STRATEGIES, type OverloadFigures, simulateOverload } from '../src/simulate/index';

// A smaller server than the default (200/s, 40 s after the slowdown) keeps these runs fast; the story is the same.
const small = { capacity: 200, afterMs: 40_000 } as const;
const unbounded = simulateOverload(small);
const byName = (results: readonly OverloadFigures[]) => Object.fromEntries(results.map((r) => [r.strategy, r]));
const u = byName(unbounded.results);
const [noRetries] = simulateOverload({ ...small, maxAttempts: 1, strategies: ['full'] }).results as [OverloadFigures];

describe('simulateOverload: an unbounded queue', () => {
  it('compares the six strategies of the issue, in order, on the same demand', () => {
    expect(unbounded.results.map((r) => r.strategy)).toEqual([...OVERLOAD_STRATEGIES]);
    expect(new Set(unbounded.results.map((r) => r.calls)).size).toBe(1);
    // Poisson demand at 80% of 200/s over 49 s: about 7,840 calls (3 sd is about 270).
    expect(Math.abs((u.full as OverloadFigures).calls - 0.8 * 200 * 49)).toBeLessThan(270);
  });

  it('fixed, exponential and full jitter never recover: every attempt times out, so each call makes all 3', () => {
    for (const name of ['fixed', 'none', 'full']) {
      const r = u[name] as OverloadFigures;
      expect(r.recoveryMs).toBeNull();
      // Held in overload, offered load tends to load x maxAttempts = 2.4x capacity: jitter spreads it, not shrinks it.
      expect(r.amplification).toBeGreaterThan(2.2);
      expect(r.amplification).toBeLessThanOrEqual(2.4);
      expect(r.goodput).toBeLessThan(0.2);
      expect(r.wasted / r.requests).toBeGreaterThan(0.9); // the server works on answers nobody waits for
    }
  });

  it('a budget lets it recover, slower than no retries at all; a breaker, sooner than both', () => {
    const budget = u['full+budget'] as OverloadFigures;
    const breaker = u['full+breaker'] as OverloadFigures;
    expect(budget.amplification).toBeLessThan(1);
    // With retries capped at 10% (plus the reserve), the backlog drains at less than the 20% of spare capacity that no
    // retries leave, so the budget recovers, but later than no retries.
    expect(noRetries.recoveryMs).not.toBeNull();
    expect(budget.recoveryMs).toBeGreaterThan(noRetries.recoveryMs as number);
    // The breaker stops the traffic that feeds the backlog: it recovers within a break or so after the slowdown.
    expect(breaker.recoveryMs).toBeLessThan(noRetries.recoveryMs as number);
    expect(breaker.goodput).toBeGreaterThan(budget.goodput);
    expect(breaker.refused).toBeGreaterThan(0);
    // Fewer requests in all than the unprotected strategies, and than the calls (some were refused outright).
    expect(breaker.requests).toBeLessThan(breaker.calls);
    expect(budget.requests).toBeLessThan((u.full as OverloadFigures).requests / 2);
  });

  it('the budget never lets retries exceed 10% of the calls plus its reserve of 10 a second', () => {
    const budget = u['full+budget'] as OverloadFigures;
    const seconds = (5_000 + 4_000 + small.afterMs) / 1_000;
    expect(budget.retries).toBeLessThanOrEqual(0.1 * budget.calls + 10 * seconds);
    expect(budget.budgetStops).toBeGreaterThan(0);
    expect(createRetryBudget().available()).toBe(100); // the library's defaults are what the simulator used
  });

  it('is deterministic for a seed, and the seed matters', () => {
    const one = { ...small, strategies: ['full+budget'] as const };
    expect(JSON.stringify(simulateOverload({ ...one, strategies: [...one.strategies] }))).toBe(
      JSON.stringify(simulateOverload({ ...one, strategies: [...one.strategies] })),
    );
    expect(JSON.stringify(simulateOverload({ ...one, strategies: [...one.strategies], seed: 2 }))).not.toBe(
      JSON.stringify(simulateOverload({ ...one, strategies: [...one.strategies] })),
    );
  });
});

describe('simulateOverload: a 1 s queue limit, and an outage', () => {
  const limited = byName(
    simulateOverload({ ...small, queueLimitMs: 1_000, strategies: ['full', 'full+budget', 'full+breaker'] }).results,
  );

  it('shedding helps the budget at once, but not unbudgeted retries: admitted work waits ~1 s, past its timeout', () => {
    const full = limited.full as OverloadFigures;
    expect(full.recoveryMs).toBeNull();
    expect(full.amplification).toBeGreaterThan(2);
    const budget = limited['full+budget'] as OverloadFigures;
    expect(budget.recoveryMs).not.toBeNull();
    expect(budget.recoveryMs).toBeLessThan((u['full+budget'] as OverloadFigures).recoveryMs as number);
    expect(budget.wasted).toBeLessThan((u['full+budget'] as OverloadFigures).wasted);
    expect(limited['full+breaker']?.recoveryMs).not.toBeNull();
  });

  it('with fast 503s instead of a slowdown there is no backlog: every strategy is back at once after it', () => {
    const outage = simulateOverload({ ...small, outage: true, strategies: ['fixed', 'full+budget'] });
    for (const r of outage.results) {
      expect(r.recoveryMs).toBe(0);
      expect(r.wasted).toBe(0);
    }
    const [fixed, budget] = outage.results as [OverloadFigures, OverloadFigures];
    expect(budget.requests).toBeLessThan(fixed.requests); // retries into the outage were cut
  });
});
