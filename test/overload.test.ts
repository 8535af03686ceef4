import { describe, expect, it } from 'vitest';
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

  it('the budget joins no queue: every attempt times out, so retries are held and go only once fast answers come back', () => {
    const budget = u['full+budget'] as OverloadFigures;
    const breaker = u['full+breaker'] as OverloadFigures;
    // Every failure here is an attempt its 1 s timeout abandoned. While every attempt of the window times out, the
    // retries are held (this process begins enough calls to see the trouble end); they start only on fast answers,
    // once the queue has drained, paced: they never add to the backlog, and they save calls no retries lose.
    expect(budget.retries).toBeGreaterThan(0);
    expect(budget.budgetStops).toBeGreaterThan(0); // the holds that ended before fast answers came, refused
    expect(noRetries.recoveryMs).not.toBeNull();
    expect(budget.recoveryMs).not.toBeNull();
    expect(budget.recoveryMs as number).toBeLessThanOrEqual(noRetries.recoveryMs as number);
    expect(budget.goodput).toBeGreaterThan(noRetries.goodput);
    expect(budget.amplification).toBeLessThan(1.3 * noRetries.amplification);
    // The breaker alone (in front of unbudgeted retries) opens once 90% of its window fails, and then stops first
    // attempts too: it recovers where plain retries never do, though later than no retries.
    expect(breaker.recoveryMs).not.toBeNull();
    expect((u.full as OverloadFigures).recoveryMs).toBeNull();
    expect(breaker.refused).toBeGreaterThan(0);
    expect(breaker.requests).toBeLessThan((u.full as OverloadFigures).requests / 2);
  });

  it('with 100 instances, each with its own budget, it is as safe: the rule reads speeds and shares, not counts', () => {
    const fleet = simulateOverload({ ...small, instances: 100, strategies: ['full+budget'] });
    expect(fleet.settings.instances).toBe(100);
    const [budget] = fleet.results as [OverloadFigures];
    expect(budget.recoveryMs).not.toBeNull();
    expect(budget.recoveryMs as number).toBeLessThanOrEqual(noRetries.recoveryMs as number);
    expect(budget.amplification).toBeLessThan(1.3 * noRetries.amplification);
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

  it('shedding: unbudgeted retries never recover; the budget stops retrying while most attempts fail, and does', () => {
    const full = limited.full as OverloadFigures;
    expect(full.recoveryMs).toBeNull();
    expect(full.amplification).toBeGreaterThan(2);
    const budget = limited['full+budget'] as OverloadFigures;
    expect(budget.recoveryMs).not.toBeNull();
    expect(budget.amplification).toBeLessThan(1);
    expect(budget.wasted).toBeLessThan(full.wasted / 10);
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
