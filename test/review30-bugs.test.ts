/**
 * Issue 30's item 4 (a guard opened with itself behind it) and the bugs that passed every test: each test here fails
 * on a plausible hand-written bug that the rest of the suite let through.
 */
import { describe, expect, it } from 'vitest';
import {
  createCircuitBreaker,
  createPolicy,
  createRetryBudget,
  type Guard,
  type Pass,
  type RetryBudget,
  type RetryError,
  retry,
  type SettleEvent,
} from '../src/index';
import { ClientRetries } from '../src/simulate/retries';
import { settle, useFakeClock } from './helpers';

const fake = useFakeClock();

const transient = () => Object.assign(new Error('busy'), { status: 503 });

/** A guard that records every event its passes are settled with, and forwards each to the guard behind it. */
function forwarding(): { guard: Guard & RetryBudget; events: number[]; opened: () => number } {
  const events: number[] = [];
  let opened = 0;
  const guard = {
    deposit() {},
    tryWithdraw: () => ({ release() {} }),
    available: () => Infinity,
    reset() {},
    open(next?: Guard): Pass {
      opened++;
      const behind = next?.open();
      return {
        settle(event, ...rest) {
          events.push(event);
          return behind?.settle(event, ...rest);
        },
      };
    },
  };
  return { guard, events, opened: () => opened };
}

describe('issue 30 item 4: a guard is settled once per attempt event, whatever is passed', () => {
  it('a budget alone that forwards to next is opened once and settled once per event', async () => {
    const { guard, events, opened } = forwarding();
    const run = settle(retry(() => Promise.reject(transient()), { budget: guard, maxAttempts: 2, baseMs: 0 }));
    await fake.clock.runAllAsync();
    expect(run.result.status).toBe('rejected');
    expect(opened()).toBe(1);
    // START, FAILURE (a retry follows), START, FAILURE (out of attempts), RELEASE
    expect(events).toEqual([3, 1, 3, 1, 2]);
  });

  it('a forwarding breaker in front of a forwarding budget: each settled once per event', async () => {
    const front = forwarding();
    const back = forwarding();
    const policy = { breaker: front.guard as never, budget: back.guard, maxAttempts: 2, baseMs: 0 };
    const run = settle(retry(() => Promise.resolve('ok'), policy));
    await fake.clock.runAllAsync();
    expect(run.result.value).toBe('ok');
    expect([front.opened(), back.opened()]).toEqual([1, 1]);
    expect(front.events).toEqual([3, 0]);
    expect(back.events).toEqual([3, 0]);
  });

  it('the simulator opens a budget alone as retry() does: a forwarding one is settled once per event', () => {
    const { guard, events, opened } = forwarding();
    const retries = new ClientRetries(1, createPolicy({ budget: guard, maxAttempts: 2, baseMs: 0 }) as never);
    expect(retries.start(0)).toBe(true);
    retries.succeeded(0, 1, 1_000);
    expect(opened()).toBe(1);
    expect(events).toEqual([3, 0]);
  });

  it('a breaker passed as budget is a TypeError naming budget, before fn is called', async () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 4 });
    let called = 0;
    const fn = () => {
      called++;
      return 1;
    };
    await expect(retry(fn, { budget: breaker as never })).rejects.toThrow(
      /^herdless: budget must be a RetryBudget \(createRetryBudget\(\)\), not the breaker, got /,
    );
    expect(() => createPolicy({ budget: breaker as never })).toThrow(TypeError);
    expect(called).toBe(0);
  });

  it('a budget passed as breaker is a TypeError naming breaker', async () => {
    const budget = createRetryBudget();
    await expect(retry(() => 1, { breaker: budget as never })).rejects.toThrow(
      /^herdless: breaker must be a CircuitBreaker \(createCircuitBreaker\(\)\), not the budget, got /,
    );
    expect(() => createPolicy({ breaker: budget as never, budget })).toThrow(TypeError);
  });

  it('one guard passed as both budget and breaker is a TypeError naming breaker', () => {
    const { guard } = forwarding();
    expect(() => createPolicy({ budget: guard, breaker: guard as never })).toThrow(
      /^herdless: breaker must be a CircuitBreaker \(createCircuitBreaker\(\)\), not the budget, got /,
    );
  });

  it('a breaker set for 4 failures in a row, in its place, opens after the 4th, not the 2nd', async () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 4 });
    const budget = createRetryBudget();
    for (let i = 0; i < 2; i++) {
      const run = settle(retry(() => Promise.reject(transient()), { breaker, budget, maxAttempts: 2, baseMs: 0 }));
      await fake.clock.runAllAsync();
      expect((run.result.reason as RetryError).reason).toBe('attempts'); // the call's own reason comes first
      expect(breaker.state).toBe(i === 0 ? 'closed' : 'open');
    }
  });

  it('the real budget and breaker carry their brands; wrappers that delegate are still accepted', () => {
    const budget = createRetryBudget();
    const breaker = createCircuitBreaker();
    const wrapped = { ...forwarding().guard, open: (next?: Guard) => budget.open(next) };
    expect(() => createPolicy({ budget: wrapped, breaker })).not.toThrow();
    const wrappedBreaker = {
      get state() {
        return breaker.state;
      },
      admit: () => breaker.admit(),
      isolate: () => breaker.isolate(),
      reset: () => breaker.reset(),
      open: (next?: Guard) => breaker.open(next),
    };
    expect(() => createPolicy({ budget, breaker: wrappedBreaker })).not.toThrow();
  });
});

// What retry() settles a pass with (guard.ts's numbering): a test drives a budget's pass as retry() does.
const [FAILURE, RELEASE, START] = [1, 2, 3] as const;

describe('the bugs that passed every test (issue 30)', () => {
  it('failureRatio: 1 holds a retry once every attempt in the window failed (>=, not >)', () => {
    let t = 0;
    // windowMs 3: a pace step of 3 / 0.3 = 10 ms for this lone call (see the budget's pace).
    const budget = createRetryBudget({ failureRatio: 1, minimumCalls: 2, windowMs: 3, now: () => t });
    const pass = budget.open();
    const verdicts: unknown[] = [];
    for (const at of [0, 100, 200]) {
      t = at;
      pass.settle(START);
      verdicts.push(pass.settle(FAILURE, undefined, 1, 1_000)); // fast failures, every one
    }
    // The first alone is not known; the second starts the trouble (held a pace step, 10 ms); the third is held its
    // age (100 ms) and a step: with > for >=, neither would be held.
    expect(verdicts).toEqual([undefined, 10, 110]);
  });

  it('reset() forgets the slow attempts too: fast failures after it are held, not refused as queueing', () => {
    let t = 0;
    const budget = createRetryBudget({ failureRatio: 1, minimumCalls: 2, windowMs: 3, now: () => t });
    const before = budget.open();
    before.settle(START);
    expect(before.settle(FAILURE, undefined, 900, 1_000)).toBe('budget'); // slow: queueing
    before.settle(RELEASE);
    budget.reset();
    const pass = budget.open();
    const verdicts: unknown[] = [];
    for (const at of [0, 100, 200]) {
      t = at;
      pass.settle(START);
      verdicts.push(pass.settle(FAILURE, undefined, 1, 1_000));
    }
    expect(verdicts).toEqual([undefined, 10, 110]); // with the slow one kept: 'budget'
  });

  it('a success reaches the budget with its duration: 100 slow successes make a slow failure no isolated one', async () => {
    const budget = createRetryBudget(); // slowMs: half the attempt timeout
    const policy = { budget, attemptTimeoutMs: 1_000, maxAttempts: 2, baseMs: 0 };
    const slowOk = () => new Promise<string>((resolve) => setTimeout(() => resolve('ok'), 600));
    const oks = Array.from({ length: 100 }, () => settle(retry(slowOk, policy)));
    await fake.clock.tickAsync(600);
    expect(oks.every((ok) => ok.result.status === 'fulfilled')).toBe(true);
    let calls = 0;
    const slowFail = () =>
      new Promise<string>((_, reject) => {
        calls++;
        setTimeout(() => reject(transient()), 600);
      });
    const run = settle(retry(slowFail, policy));
    await fake.clock.runAllAsync();
    // The dependency queues (every attempt slow): no retry. Successes read as fast would make it 1 slow in 101.
    expect((run.result.reason as RetryError).reason).toBe('budget');
    expect(calls).toBe(1);
  });

  it("onSettle gives no reason for a call that rejects with a hook's error after the budget refused its retry", async () => {
    const budget = createRetryBudget();
    const broken = new Error('retryAfter broke');
    const events: SettleEvent[] = [];
    const slowFail = () => new Promise<string>((_, reject) => setTimeout(() => reject(transient()), 600));
    const run = settle(
      retry(slowFail, {
        budget,
        attemptTimeoutMs: 1_000,
        retryAfter: () => {
          throw broken;
        },
        onSettle: (event) => events.push(event),
      }),
    );
    await fake.clock.runAllAsync();
    expect(run.result.reason).toBe(broken);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ ok: false, reason: undefined, error: broken });
  });

  it('onSettle gives no reason for a call aborted as its breaker opened (from onStateChange)', async () => {
    const controller = new AbortController();
    const breaker = createCircuitBreaker({ consecutiveFailures: 1, onStateChange: () => controller.abort() });
    const events: SettleEvent[] = [];
    const run = settle(
      retry(() => Promise.reject(transient()), {
        breaker,
        signal: controller.signal,
        onSettle: (event) => events.push(event),
      }),
    );
    await fake.clock.runAllAsync();
    expect(run.result.reason).toBe(controller.signal.reason);
    expect(breaker.state).toBe('open');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ ok: false, reason: undefined, error: controller.signal.reason });
  });
});
