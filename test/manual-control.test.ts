import FakeTimers, { type Clock as InstalledClock } from '@sinonjs/fake-timers';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CircuitOpenError,
  type CircuitPermit,
  type CircuitStateChange,
  createCircuitBreaker,
  createRetryBudget,
  RetryError,
  retry,
} from '../src/index';
import { steadyClock } from '../src/window';

/** Manual control: breaker.isolate(), breaker.reset(), budget.reset() (issue 19, item 5). */

let clock: InstalledClock;
beforeEach(() => {
  clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'], now: 1_000_000 });
  clock.tick(5_000);
});
afterEach(() => {
  clock.uninstall();
  vi.unstubAllGlobals();
});

const transient = () => Object.assign(new Error('busy'), { status: 503 });

function watched(options: Parameters<typeof createCircuitBreaker>[0] = {}) {
  const changes: string[] = [];
  const breaker = createCircuitBreaker({
    ...options,
    onStateChange: (c: CircuitStateChange) => {
      expect(Object.isFrozen(c)).toBe(true);
      changes.push(`${c.from}>${c.to}:${c.reason}`);
    },
  });
  return { breaker, changes };
}

/** Fails `n` attempts through the breaker by hand. */
function fail(breaker: ReturnType<typeof createCircuitBreaker>, n: number): void {
  for (let i = 0; i < n; i++) {
    const permit = breaker.admit();
    if (permit instanceof CircuitOpenError) throw permit;
    permit.recordFailure();
  }
}

describe('breaker.isolate()', () => {
  it('holds a closed breaker open, however long, with remainingMs Infinity and a message that says so', () => {
    const { breaker, changes } = watched({ breakMs: 1_000 });
    breaker.isolate();
    expect(breaker.state).toBe('open');
    expect(changes).toEqual(['closed>open:isolated']);
    clock.tick(3_600_000); // an hour: far past any break
    expect(breaker.state).toBe('open');
    const refused = breaker.admit();
    expect(refused).toBeInstanceOf(CircuitOpenError);
    expect((refused as CircuitOpenError).remainingMs).toBe(Number.POSITIVE_INFINITY);
    expect((refused as CircuitOpenError).message).toBe('herdless: circuit isolated, held open until reset()');
    expect(changes).toEqual(['closed>open:isolated']); // never half-open
  });

  it('retry() rejects at once with CircuitOpenError without calling fn', async () => {
    const breaker = createCircuitBreaker();
    breaker.isolate();
    const fn = vi.fn(() => 'ok');
    const error = await retry(fn, { breaker }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CircuitOpenError);
    expect(fn).not.toHaveBeenCalled();
  });

  it("stops a call already retrying with 'circuit-open' at its next attempt", async () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 100 });
    let calls = 0;
    const call = retry(
      () => {
        calls++;
        if (calls === 1) breaker.isolate(); // the operator acts while the first attempt is in flight
        throw transient();
      },
      { breaker, maxAttempts: 5, baseMs: 10 },
    ).catch((e: unknown) => e);
    await clock.runAllAsync();
    const error = await call;
    expect(error).toBeInstanceOf(RetryError);
    expect((error as RetryError).reason).toBe('circuit-open');
    expect(calls).toBe(1);
  });

  it('makes permits granted before stale: their outcomes neither close nor re-open it', () => {
    const { breaker, changes } = watched({ consecutiveFailures: 1 });
    const before = breaker.admit() as CircuitPermit;
    const other = breaker.admit() as CircuitPermit;
    breaker.isolate();
    before.recordSuccess();
    other.recordFailure();
    expect(breaker.state).toBe('open');
    expect(changes).toEqual(['closed>open:isolated']);
  });

  it('isolates a half-open breaker (its probes stale) and an open one; a second isolate() does nothing', () => {
    const { breaker, changes } = watched({ consecutiveFailures: 1, breakMs: 1_000 });
    fail(breaker, 1);
    clock.tick(1_000);
    expect(breaker.state).toBe('half-open');
    const probe = breaker.admit() as CircuitPermit;
    breaker.isolate();
    probe.recordSuccess(); // stale: does not close it
    expect(breaker.state).toBe('open');
    breaker.isolate();
    expect(changes).toEqual([
      'closed>open:consecutive-failures',
      'open>half-open:break-elapsed',
      'half-open>open:isolated',
    ]);

    const open = watched({ consecutiveFailures: 1, breakMs: 1_000 });
    fail(open.breaker, 1);
    open.breaker.isolate();
    clock.tick(10_000);
    expect(open.breaker.state).toBe('open');
    expect(open.changes).toEqual(['closed>open:consecutive-failures', 'open>open:isolated']);
  });

  it('reads no clock: it works with a clock that would throw', () => {
    let broken = false;
    const breaker = createCircuitBreaker({
      now: () => (broken ? Number.NaN : performance.now()),
    });
    broken = true;
    expect(() => breaker.isolate()).not.toThrow();
    expect(() => breaker.reset()).not.toThrow();
    broken = false;
    expect(breaker.state).toBe('closed');
  });

  it("reports a throwing onStateChange's error and isolates all the same", () => {
    const reported: unknown[] = [];
    vi.stubGlobal('reportError', (error: unknown) => reported.push(error));
    const hook = new Error('hook');
    const breaker = createCircuitBreaker({
      onStateChange: () => {
        throw hook;
      },
    });
    expect(() => breaker.isolate()).not.toThrow();
    expect(breaker.state).toBe('open');
    expect(() => breaker.reset()).not.toThrow();
    expect(breaker.state).toBe('closed');
    expect(reported).toEqual([hook, hook]);
  });
});

describe('breaker.reset()', () => {
  it('closes an open breaker at once, and tells onStateChange every time (closed already too)', () => {
    const { breaker, changes } = watched({ consecutiveFailures: 2, breakMs: 60_000 });
    fail(breaker, 2);
    expect(breaker.state).toBe('open');
    breaker.reset();
    expect(breaker.state).toBe('closed');
    expect(breaker.admit()).not.toBeInstanceOf(CircuitOpenError);
    breaker.reset();
    expect(changes).toEqual(['closed>open:consecutive-failures', 'open>closed:reset', 'closed>closed:reset']);
  });

  it('ends an isolation', () => {
    const { breaker, changes } = watched();
    breaker.isolate();
    breaker.reset();
    expect(breaker.state).toBe('closed');
    breaker.isolate(); // isolating again works: the reset cleared it
    expect(breaker.state).toBe('open');
    expect(changes).toEqual(['closed>open:isolated', 'open>closed:reset', 'closed>open:isolated']);
  });

  it('clears the failures in a row', () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 3 });
    fail(breaker, 2);
    breaker.reset();
    fail(breaker, 2); // 4 in a row without the reset
    expect(breaker.state).toBe('closed');
    fail(breaker, 1);
    expect(breaker.state).toBe('open');
  });

  it("clears the failureRatio's window", () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 100, failureRatio: 0.5, minimumCalls: 4 });
    fail(breaker, 3);
    breaker.reset();
    const ok = breaker.admit() as CircuitPermit;
    ok.recordSuccess();
    fail(breaker, 2); // 2 of 3 since the reset: 5 of 6 without it would open at the 4th call
    expect(breaker.state).toBe('closed');
    fail(breaker, 1); // 3 of 4: opens
    expect(breaker.state).toBe('open');
  });

  it("clears the grown break's exponent: the next open lasts breakMs again", () => {
    const breaker = createCircuitBreaker({
      consecutiveFailures: 1,
      breakMs: 1_000,
      maxBreakMs: 64_000,
      random: () => 0,
    });
    fail(breaker, 1); // 1 s
    clock.tick(1_000);
    fail(breaker, 1); // a failed probe: 2 s
    expect((breaker.admit() as CircuitOpenError).remainingMs).toBe(2_000);
    breaker.reset();
    fail(breaker, 1);
    expect((breaker.admit() as CircuitOpenError).remainingMs).toBe(1_000);
  });

  it('makes permits granted before stale: a failure reported after it does not count', () => {
    const { breaker, changes } = watched({ consecutiveFailures: 1 });
    const before = breaker.admit() as CircuitPermit;
    breaker.reset();
    before.recordFailure();
    expect(breaker.state).toBe('closed');
    expect(changes).toEqual(['closed>closed:reset']);
  });

  it('frees the probe slots of a half-open breaker', () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 1, breakMs: 1_000 });
    fail(breaker, 1);
    clock.tick(1_000);
    breaker.admit(); // the one probe slot, never reported
    expect(breaker.admit()).toBeInstanceOf(CircuitOpenError);
    breaker.reset();
    fail(breaker, 1);
    clock.tick(1_000);
    expect(breaker.admit()).not.toBeInstanceOf(CircuitOpenError); // a fresh probe slot
  });
});

describe('budget.reset()', () => {
  it('makes a spent budget full again', () => {
    const budget = createRetryBudget({ ratio: 0, minPerSecond: 1, windowMs: 3_000 }); // a reserve of 3
    expect(budget.available()).toBe(3);
    for (let i = 0; i < 3; i++) expect(budget.tryWithdraw()).not.toBe(false);
    expect(budget.tryWithdraw()).toBe(false);
    budget.reset();
    expect(budget.available()).toBe(3);
  });

  it('forgets the first attempts deposited too', () => {
    const budget = createRetryBudget({ ratio: 0.5, minPerSecond: 0 });
    for (let i = 0; i < 10; i++) budget.deposit();
    expect(budget.available()).toBe(5);
    budget.reset();
    expect(budget.available()).toBe(0);
  });

  it('a permit granted before gives nothing back to the new window when released', () => {
    const budget = createRetryBudget({ ratio: 0, minPerSecond: 1, windowMs: 2_000 }); // a reserve of 2
    const before = budget.tryWithdraw();
    expect(before).not.toBe(false);
    budget.reset();
    expect(budget.tryWithdraw()).not.toBe(false);
    (before as { release(): void }).release(); // would free a retry of the new window if it still counted
    expect(budget.available()).toBe(1);
  });

  it("forgets the saturation rule's recent outcomes: a budget holding retries lets them go at their backoff again", async () => {
    const budget = createRetryBudget(); // the defaults: holds retries while 85% of the last 3 s of attempts fail
    const delays: number[] = [];
    const failing = (maxAttempts: number) =>
      retry(() => Promise.reject(transient()), {
        budget,
        maxAttempts,
        random: () => 0, // a backoff of 0: any sleep is the budget's hold
        onRetry: ({ delayMs }) => void delays.push(delayMs),
      }).catch((e: unknown) => e);
    for (let i = 0; i < 10; i++) {
      await failing(1);
      clock.tick(100);
    }
    const held = failing(2);
    await clock.runAllAsync();
    expect(((await held) as RetryError).reason).toBe('attempts');
    // The trouble began at the 4th failure, 700 ms before; the hold is that age and a pace step, 10 s over 0.3 x 11
    // first attempts in the window (the holds of the 7 calls that could not retry were given back).
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeCloseTo(700 + 10_000 / (0.3 * 11), 6);
    budget.reset();
    const retried = failing(2);
    await clock.runAllAsync();
    expect(((await retried) as RetryError).reason).toBe('attempts');
    expect(delays[1]).toBe(0); // forgotten: retried at its backoff
  });

  it('reads no clock', () => {
    let broken = false;
    const budget = createRetryBudget({ now: () => (broken ? Number.NaN : performance.now()) });
    broken = true;
    expect(() => budget.reset()).not.toThrow();
  });
});

describe('steadyClock().reset()', () => {
  it('forgets the highest reading: a clock that went back is read as it is after a reset, and clamped before', () => {
    let t = 100;
    const now = steadyClock(() => t);
    expect(now()).toBe(100);
    t = 0;
    expect(now()).toBe(100); // went back: no time passed
    now.reset();
    expect(now()).toBe(0);
    t = 50;
    expect(now()).toBe(50);
  });
});

/**
 * The story of issue 19: a breaker and a budget at module level, as an app's `api.ts` exports them, and two tests each
 * with its own fake clock starting at 0. Without `reset()` the second test's clock (back at 0) reads as no time passed
 * since the first test's last reading, so a 5 s break started in it never elapses on its fake clock.
 */
describe('a breaker and a budget shared at module level, a fresh fake clock per test', () => {
  const breaker = createCircuitBreaker({ consecutiveFailures: 2, breakMs: 5_000 });
  const budget = createRetryBudget({ ratio: 0, minPerSecond: 1, windowMs: 5_000 }); // a reserve of 5
  let own: InstalledClock;
  beforeEach(() => {
    clock.uninstall(); // this story's tests each have their own clock, starting at 0
    own = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'], now: 0 });
    breaker.reset();
    budget.reset();
  });
  afterEach(() => {
    own.uninstall();
    clock = FakeTimers.install({ now: 0 }); // for the file's afterEach to uninstall
  });

  /** Opens the breaker and spends the budget at this test's time, then checks the break elapses in 5 s. */
  function story() {
    expect(breaker.state).toBe('closed');
    expect(budget.available()).toBe(5);
    fail(breaker, 2);
    for (let i = 0; i < 5; i++) budget.tryWithdraw();
    expect(budget.available()).toBe(0);
    expect(breaker.state).toBe('open');
    own.tick(4_999);
    expect(breaker.state).toBe('open');
    own.tick(1);
    expect(breaker.state).toBe('half-open');
    own.tick(5_000);
    expect(budget.available()).toBe(5); // the window slid past the spending
  }

  it('the first test runs its clock far ahead (100 s) before opening the breaker', () => {
    own.tick(100_000);
    story();
  });

  it('the second test, on a fresh clock at 0, sees a closed breaker, a full budget and a 5 s break', () => {
    expect(performance.now()).toBe(0);
    story();
  });
});
