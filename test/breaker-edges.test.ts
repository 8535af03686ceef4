import { describe, expect, it, vi } from 'vitest';
import { CircuitOpenError, type CircuitPermit, createCircuitBreaker } from '../src/index';
import { useFakeClock } from './helpers';

// Behaviour of the circuit breaker that mutation testing (issue 10) found unpinned: each test here fails on a mutant
// of src/breaker.ts that every other test let through.
const fake = useFakeClock();

const admitted = (breaker: ReturnType<typeof createCircuitBreaker>): CircuitPermit => {
  const permit = breaker.admit();
  if (permit instanceof CircuitOpenError) throw new Error('expected a permit');
  return permit;
};

describe('createCircuitBreaker', () => {
  it('a success never opens it, even the one that brings the calls to minimumCalls with the failure ratio over', () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 100, failureRatio: 0.5, minimumCalls: 4 });
    for (let i = 0; i < 3; i++) admitted(breaker).recordFailure(); // 3 calls: under minimumCalls
    admitted(breaker).recordSuccess(); // 4 calls, 3 failed: 75% >= 50%, but this one succeeded
    expect(breaker.state).toBe('closed');
    admitted(breaker).recordFailure(); // 5 calls, 4 failed: a failure opens it
    expect(breaker.state).toBe('open');
  });

  it('with breaks that do not grow (maxBreakMs = breakMs, the default) it draws no random number', () => {
    const random = vi.fn(() => 0.5);
    const breaker = createCircuitBreaker({ consecutiveFailures: 1, breakMs: 1_000, random });
    admitted(breaker).recordFailure();
    expect(breaker.state).toBe('open');
    fake.clock.tick(999);
    expect(breaker.state).toBe('open');
    fake.clock.tick(1);
    expect(breaker.state).toBe('half-open');
    expect(random).not.toHaveBeenCalled();
  });

  it('by default it opens on the failure ratio (90% of 10 s, 10 calls at least), never on failures in a row', () => {
    let t = 0;
    const breaker = createCircuitBreaker({ now: () => t });
    // A dependency failing half its requests (the partial failure): 1,000 outcomes, runs of 5+ in a row included.
    for (let i = 0; i < 1_000; i++) {
      t += 10;
      const permit = admitted(breaker);
      if (i % 8 < 4 || i % 3 === 0) permit.recordFailure();
      else permit.recordSuccess();
    }
    expect(breaker.state).toBe('closed');
    // Down: 9 failures of 10 opens it, with 10 counted at least.
    const fresh = createCircuitBreaker({ now: () => t });
    for (let i = 0; i < 9; i++) admitted(fresh).recordFailure();
    expect(fresh.state).toBe('closed'); // 9 calls: fewer than minimumCalls
    admitted(fresh).recordFailure();
    expect(fresh.state).toBe('open');
  });

  it('each admission gets a permit of its own: reporting through one says nothing through another', () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 2 });
    const [a, b] = [admitted(breaker), admitted(breaker)];
    expect(a).not.toBe(b);
    a.recordFailure();
    a.recordFailure(); // a second report through the same permit counts for nothing
    expect(breaker.state).toBe('closed');
    b.recordFailure();
    expect(breaker.state).toBe('open');
  });

  it('a half-open permit released twice does not make room for an extra probe', () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 1, breakMs: 1_000, halfOpenProbes: 1 });
    admitted(breaker).recordFailure();
    fake.clock.tick(1_000);
    expect(breaker.state).toBe('half-open');
    const permit = admitted(breaker);
    permit.release();
    permit.release(); // a misuse: each permit ends once
    admitted(breaker); // the one probe slot
    expect(breaker.admit()).toBeInstanceOf(CircuitOpenError);
  });
});
