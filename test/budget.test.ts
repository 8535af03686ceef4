import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createCircuitBreaker, createRetryBudget, RetryError, type RetryPermit, retry } from '../src/index';
import { settle, useFakeClock } from './helpers';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fake = useFakeClock(); // starts at 1_005_000 ms: the start of a 1 s bucket of a 10 s window

const transient = () => Object.assign(new Error('busy'), { status: 503 });

describe('createRetryBudget: the rule', () => {
  it('starts with the reserve, minPerSecond x windowMs / 1000, and grows by ratio per first attempt', () => {
    expect(createRetryBudget().available()).toBe(Infinity); // no volume cap by default
    expect(createRetryBudget({ minimumCalls: Infinity, ratio: 0.1, minPerSecond: 10 }).available()).toBe(100); // 10 a second over 10 s
    const budget = createRetryBudget({ minimumCalls: Infinity, ratio: 0.25, minPerSecond: 0 });
    expect(budget.available()).toBe(0);
    expect(budget.tryWithdraw()).toBe(false);
    for (let i = 0; i < 7; i++) budget.deposit();
    expect(budget.available()).toBe(1); // floor(7 x 0.25)
    expect(budget.tryWithdraw()).not.toBe(false);
    expect(budget.tryWithdraw()).toBe(false);
    budget.deposit();
    expect(budget.available()).toBe(1); // 8 x 0.25 - 1
  });

  it('the minimum rate lets a quiet client retry with no first attempts at all, and refills as the window slides', () => {
    const budget = createRetryBudget({ minimumCalls: Infinity, ratio: 0, minPerSecond: 2, windowMs: 1_000 });
    expect([budget.tryWithdraw(), budget.tryWithdraw(), budget.tryWithdraw()].map(Boolean)).toEqual([
      true,
      true,
      false,
    ]);
    fake.clock.tick(999);
    expect(budget.available()).toBe(0); // both retries are still in the window
    fake.clock.tick(1);
    expect(budget.available()).toBe(2);
  });

  it('deposits and retries leave the window windowMs later, a bucket (windowMs / 10) at a time', () => {
    const budget = createRetryBudget({ minimumCalls: Infinity, ratio: 0.5, minPerSecond: 0, windowMs: 10_000 });
    for (let i = 0; i < 10; i++) budget.deposit();
    fake.clock.tick(5_000);
    for (let i = 0; i < 4; i++) budget.deposit();
    expect(budget.available()).toBe(7);
    expect(budget.tryWithdraw()).not.toBe(false);
    fake.clock.tick(4_999); // 9,999 ms after the first deposits: still in
    expect(budget.available()).toBe(6);
    fake.clock.tick(1); // the first 10 leave
    expect(budget.available()).toBe(1); // 4 x 0.5 - 1
    fake.clock.tick(5_000); // the rest, and the retry, leave
    expect(budget.available()).toBe(0);
    fake.clock.tick(60_000); // a long quiet spell clears every bucket at once
    budget.deposit();
    budget.deposit();
    expect(budget.available()).toBe(1);
  });

  it('takes time from an injected clock, and sets no timers', () => {
    let now = 0;
    const budget = createRetryBudget({
      minimumCalls: Infinity,
      ratio: 1,
      minPerSecond: 0,
      windowMs: 100,
      now: () => now,
    });
    budget.deposit();
    expect(budget.available()).toBe(1);
    fake.clock.tick(1_000); // the real (fake) clock does not matter
    expect(budget.available()).toBe(1);
    now = 100;
    expect(budget.available()).toBe(0);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('never spends more than it holds, whatever the sequence (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 2, noNaN: true }),
        fc.nat(5),
        fc.array(fc.boolean(), { maxLength: 300 }),
        (ratio, minPerSecond, ops) => {
          const budget = createRetryBudget({ ratio, minPerSecond, windowMs: 1_000, now: () => 0 });
          let deposits = 0;
          let spent = 0;
          for (const deposit of ops) {
            if (deposit) {
              budget.deposit();
              deposits++;
            } else if (budget.tryWithdraw()) spent++;
            expect(spent).toBeLessThanOrEqual(ratio * deposits + minPerSecond);
            expect(budget.available()).toBe(Math.max(0, Math.floor(ratio * deposits + minPerSecond - spent)));
          }
        },
      ),
    );
  });

  it('holds bounded memory: a million first attempts over a day of traffic do not grow the heap', () => {
    // In a child process with --expose-gc, so that the heap is measured after a real collection, not GC timing. One
    // measurement is noisy under load (a single one has read +175 kB, and -210 kB, for this very code: lazily
    // compiled code, the runtime's own allocations), but noise comes and goes while a leak accumulates: the million
    // attempts are measured three times over, and the smallest growth must stay under 100 kB. A list of timestamps,
    // measured the same way in the same process, grows by megabytes every time: proof the method can see a leak.
    const script = `
      const { createRetryBudget } = await import(${JSON.stringify(join(root, 'src', 'budget.ts'))});
      let now = 0;
      const budget = createRetryBudget({ minimumCalls: Infinity, ratio: 0.1, minPerSecond: 10, now: () => now });
      const traffic = (n) => {
        for (let i = 0; i < n; i++) {
          now += 86.4; // a day in all
          budget.deposit();
          if (i % 10 === 0) budget.tryWithdraw();
        }
      };
      const heap = () => {
        globalThis.gc();
        return process.memoryUsage().heapUsed;
      };
      const grown = (work) => {
        const samples = [];
        for (let k = 0; k < 3; k++) {
          const before = heap();
          work(1_000_000);
          samples.push(heap() - before);
        }
        return Math.min(...samples);
      };
      traffic(100_000); // warm up: compiled code and the ring of buckets
      const budgetGrown = grown(traffic);
      const list = [];
      const listGrown = grown((n) => {
        for (let i = 0; i < n; i++) list.push((now += 86.4));
      });
      console.log(JSON.stringify({ budgetGrown, listGrown, available: budget.available() }));`;
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script]);
    const { budgetGrown, listGrown, available } = JSON.parse(String(out)) as Record<string, number>;
    expect(listGrown).toBeGreaterThan(4_000_000); // a million timestamps: 8 MB
    expect(budgetGrown).toBeLessThan(100_000);
    // It still counts right: retrying 1 in 10 first attempts is what a ratio of 0.1 refunds, so the budget sits at
    // its reserve (about 116 deposits and 11.6 retries in any 10 s window).
    expect(available).toBeGreaterThanOrEqual(99);
    expect(available).toBeLessThanOrEqual(101);
  });
});

describe('retry() with a budget', () => {
  it('gives up at once with reason budget when a retry is refused, with its errors so far', async () => {
    const budget = createRetryBudget({ minimumCalls: Infinity, ratio: 0, minPerSecond: 0 });
    const error = transient();
    const fn = vi.fn(() => Promise.reject(error));
    const run = settle(retry(fn, { budget, maxAttempts: 5 }));
    await fake.clock.tickAsync(0);
    expect(fn).toHaveBeenCalledTimes(1);
    const reason = run.result.reason as RetryError;
    expect(reason).toBeInstanceOf(RetryError);
    expect(reason).toMatchObject({ reason: 'budget', attempts: 1, errors: [error] });
    expect(reason.message).toMatch(/gave up after 1 attempt over 0 ms \(budget\): busy/);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('refuses a retry mid-call, after spending what it held', async () => {
    const budget = createRetryBudget({ minimumCalls: Infinity, ratio: 0, minPerSecond: 0.2, windowMs: 10_000 }); // holds 2 retries
    const fn = vi.fn(() => Promise.reject(transient()));
    const run = settle(retry(fn, { budget, maxAttempts: 10, random: () => 0.5 }));
    await fake.clock.runAllAsync();
    expect(fn).toHaveBeenCalledTimes(3);
    expect(run.result.reason).toMatchObject({ reason: 'budget', attempts: 3 });
  });

  it('never refuses a first attempt, and only retries spend', async () => {
    const budget = createRetryBudget({ minimumCalls: Infinity, ratio: 0, minPerSecond: 0 });
    for (let i = 0; i < 5; i++) await expect(retry(() => i, { budget })).resolves.toBe(i);
    expect(budget.available()).toBe(0);
    const spending = createRetryBudget({ minimumCalls: Infinity, ratio: 0.5, minPerSecond: 0 });
    for (let i = 0; i < 4; i++) await retry(() => i, { budget: spending });
    expect(spending.available()).toBe(2); // successes deposit and spend nothing
  });

  it('1,000 concurrent calls on one budget never overspend', async () => {
    const budget = createRetryBudget({ minimumCalls: Infinity, ratio: 0.1, minPerSecond: 0 });
    let calls = 0;
    const fn = () => {
      calls++;
      return Promise.reject(transient());
    };
    const runs = Array.from({ length: 1_000 }, () => settle(retry(fn, { budget, maxAttempts: 3 })));
    await fake.clock.runAllAsync();
    const retries = calls - 1_000;
    expect(retries).toBe(100); // every first attempt deposited before any retry was asked for: 10% of 1,000
    expect(budget.available()).toBe(0);
    const reasons = runs.map((r) => (r.result.reason as RetryError).reason);
    expect(reasons.filter((r) => r === 'budget').length).toBeGreaterThanOrEqual(900);
    expect(reasons.every((r) => r === 'budget' || r === 'attempts')).toBe(true);
  });
});

describe('retry() with a budget: a retry that never starts does not spend', () => {
  const failing = () => vi.fn(() => Promise.reject(transient()));

  it('an abort during the sleep gives the retry back', async () => {
    const budget = createRetryBudget({ minimumCalls: Infinity, ratio: 0, minPerSecond: 1 }); // a reserve of 10
    const controller = new AbortController();
    const fn = failing();
    const run = settle(
      retry(fn, { budget, signal: controller.signal, baseMs: 1_000, random: () => 0.5, maxAttempts: 3 }),
    );
    await fake.clock.tickAsync(0);
    expect(fn).toHaveBeenCalledTimes(1);
    expect(budget.available()).toBe(9); // the retry is decided on, and paid for, before the sleep
    controller.abort(new Error('stop'));
    await fake.clock.tickAsync(0);
    expect(run.result.status).toBe('rejected');
    expect(budget.available()).toBe(10); // before: 9, a retry spent that never ran
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('so does an onRetry that throws, and a breaker that opened during the sleep', async () => {
    const budget = createRetryBudget({ minimumCalls: Infinity, ratio: 0, minPerSecond: 1 });
    const thrown = settle(
      retry(failing(), {
        budget,
        onRetry: () => {
          throw new Error('hook');
        },
      }),
    );
    await fake.clock.tickAsync(0);
    expect(thrown.result.reason).toMatchObject({ message: 'hook' });
    expect(budget.available()).toBe(10);
    const breaker = createCircuitBreaker({ consecutiveFailures: 2 });
    const run = settle(retry(failing(), { budget, breaker, baseMs: 1_000, random: () => 0.5 }));
    await fake.clock.tickAsync(0);
    expect(budget.available()).toBe(9);
    await retry(() => Promise.reject(transient()), { breaker, maxAttempts: 1 }).catch(() => {}); // opens it
    await fake.clock.tickAsync(500);
    expect(run.result.reason).toMatchObject({ reason: 'circuit-open' });
    expect(budget.available()).toBe(10);
  });

  it('so does a retry the deadline cancels before it starts (an onRetry still running at the deadline)', async () => {
    const budget = createRetryBudget({ minimumCalls: Infinity, ratio: 0, minPerSecond: 1 });
    const fn = failing();
    const run = settle(
      retry(fn, {
        budget,
        timeoutMs: 1_000,
        baseMs: 10,
        onRetry: () => new Promise<void>((resolve) => setTimeout(resolve, 5_000)),
      }),
    );
    await fake.clock.tickAsync(0);
    expect(budget.available()).toBe(9);
    await fake.clock.tickAsync(1_000);
    expect(run.result.reason).toMatchObject({ reason: 'timeout', attempts: 1 });
    expect(fn).toHaveBeenCalledTimes(1);
    expect(budget.available()).toBe(10); // before: 9
    await fake.clock.runAllAsync(); // the callback's own timer
  });

  it('a retry that starts stays spent', async () => {
    const budget = createRetryBudget({ minimumCalls: Infinity, ratio: 0, minPerSecond: 1 });
    const fn = failing();
    const run = settle(retry(fn, { budget, maxAttempts: 3, baseMs: 10 }));
    await fake.clock.runAllAsync();
    expect(fn).toHaveBeenCalledTimes(3);
    expect(run.result.reason).toMatchObject({ reason: 'attempts' });
    expect(budget.available()).toBe(8);
  });

  it("the call's own reasons to stop come first, and a retry it does not make costs nothing", async () => {
    const empty = createRetryBudget({ minimumCalls: Infinity, ratio: 0, minPerSecond: 0 });
    await expect(retry(failing(), { budget: empty, maxAttempts: 1 })).rejects.toMatchObject({ reason: 'attempts' });
    const budget = createRetryBudget({ minimumCalls: Infinity, ratio: 0, minPerSecond: 1 }); // a reserve of 10
    await expect(retry(failing(), { budget, maxAttempts: 1 })).rejects.toMatchObject({ reason: 'attempts' });
    await expect(retry(failing(), { budget, retryAfter: () => 120_000 })).rejects.toMatchObject({
      reason: 'retry-after',
    });
    await expect(retry(failing(), { budget, timeoutMs: 50, baseMs: 100, jitter: 'none' })).rejects.toMatchObject({
      reason: 'timeout',
    });
    expect(budget.available()).toBe(10); // paid for when the failure was counted, refunded when the call stopped
  });

  it('a permit given back after its withdrawal left the window gives nothing back', () => {
    const budget = createRetryBudget({ minimumCalls: Infinity, ratio: 0, minPerSecond: 1, windowMs: 10_000 });
    const permit = budget.tryWithdraw() as RetryPermit;
    expect(budget.available()).toBe(9);
    fake.clock.tick(10_000); // the withdrawal leaves the window: the budget is whole again
    expect(budget.available()).toBe(10);
    permit.release();
    expect(budget.available()).toBe(10); // not 11
    const late = budget.tryWithdraw() as RetryPermit;
    expect(budget.available()).toBe(9);
    fake.clock.tick(5_000); // still in the window: giving it back restores it
    late.release();
    expect(budget.available()).toBe(10);
  });
});

describe('the simulator gives a refused retry back, as retry() does', () => {
  it('a retry the breaker refuses after the budget paid for it is refunded', async () => {
    const { ClientRetries } = await import('../src/simulate/retries');
    const { createPolicy } = await import('../src/index');
    const budget = createRetryBudget({ minimumCalls: Infinity, ratio: 0, minPerSecond: 1 });
    const breaker = createCircuitBreaker({ consecutiveFailures: 2 });
    const clients = new ClientRetries(2, createPolicy({ budget, breaker, random: () => 0.5 }));
    expect(clients.start(0)).toBe(true);
    expect(clients.failed(0, 0).retry).toBe(true); // 1 in a row; the retry is paid for
    expect(budget.available()).toBe(9);
    expect(clients.start(1)).toBe(true);
    clients.failed(1, 0); // 2 in a row: open
    expect(budget.available()).toBe(9); // client 1 was refused its retry by decide(): nothing spent
    expect(clients.start(0)).toBe(false); // the open breaker refuses client 0's retry
    expect(budget.available()).toBe(10);
  });
});

describe('createRetryBudget: a permit gives back once', () => {
  it('released twice, it gives back the one retry it paid for', () => {
    const budget = createRetryBudget({
      minimumCalls: Infinity,
      ratio: 0,
      minPerSecond: 0.1,
      windowMs: 10_000,
      now: () => 0,
    }); // reserve 1
    const permit = budget.tryWithdraw() as RetryPermit;
    expect(budget.available()).toBe(0);
    permit.release();
    permit.release(); // before: a second refund, 2 available with a reserve of 1
    expect(budget.available()).toBe(1);
    expect(budget.tryWithdraw()).not.toBe(false);
    expect(budget.tryWithdraw()).toBe(false);
  });

  it('property: however often each permit is released, the budget never holds more than it started with', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 3 }), { maxLength: 20 }), (releases) => {
        const budget = createRetryBudget({
          minimumCalls: Infinity,
          ratio: 0,
          minPerSecond: 1,
          windowMs: 10_000,
          now: () => 0,
        }); // 10
        const permits = releases.map(() => budget.tryWithdraw());
        releases.forEach((times, i) => {
          const permit = permits[i];
          for (let k = 0; permit && k < times; k++) permit.release();
        });
        const granted = permits.filter((p) => p !== false).length;
        const released = releases.filter((times, i) => times > 0 && permits[i] !== false).length;
        expect(budget.available()).toBe(10 - granted + released);
      }),
    );
  });
});

describe('createRetryBudget: its clock is checked where used', () => {
  it.each([
    [Number.NaN, RangeError, /^herdless: now\(\) must be a finite number, got NaN$/],
    [Infinity, RangeError, /got Infinity$/],
    [undefined, TypeError, /^herdless: now\(\) must be a number \(a finite number\), got undefined$/],
  ])('now() returning %s: an error naming it', (bad, Kind, message) => {
    let t: unknown = 0;
    const budget = createRetryBudget({ minimumCalls: Infinity, ratio: 0.1, minPerSecond: 10, now: () => t as number });
    budget.deposit();
    t = bad; // before: NaN froze the window silently, Infinity corrupted it
    expect(() => budget.deposit()).toThrow(Kind);
    expect(() => budget.tryWithdraw()).toThrow(message);
    expect(() => budget.available()).toThrow(message);
  });

  it("inside retry(), the failure being handled is the clock error's cause", async () => {
    let t = 0;
    const budget = createRetryBudget({ now: () => t });
    const failure = transient();
    const error = await retry(
      () => {
        t = Number.NaN;
        return Promise.reject(failure);
      },
      { budget },
    ).catch((e) => e);
    expect(error).toBeInstanceOf(RangeError);
    expect(error.cause).toBe(failure);
  });

  it('a clock that goes back reads as no time passed', () => {
    let t = 20_000;
    const budget = createRetryBudget({
      minimumCalls: Infinity,
      ratio: 0,
      minPerSecond: 1,
      windowMs: 10_000,
      now: () => t,
    });
    budget.tryWithdraw();
    t = 0; // back 20 s: the withdrawal stays in the window
    expect(budget.available()).toBe(9);
    t = 25_000; // 5 s after the latest reading, not 25 s
    expect(budget.available()).toBe(9);
    t = 30_000;
    expect(budget.available()).toBe(10);
  });
});

describe('createRetryBudget: bad options name themselves', () => {
  it.each([
    [{ ratio: -0.1 }, RangeError, /ratio must be a number >= 0 or Infinity \(no cap\), got -0.1/],
    [{ slowMs: 0 }, RangeError, /slowMs must be a finite number > 0, got 0/],
    [{ failureRatio: 0 }, RangeError, /failureRatio must be a number in \(0, 1\], got 0/],
    [{ failureRatio: 1.5 }, RangeError, /failureRatio must be a number in \(0, 1\], got 1.5/],
    [{ failureWindowMs: -1 }, RangeError, /failureWindowMs must be a finite number of ms >= 1, got -1/],
    [{ failureWindowMs: 1e-320 }, RangeError, /failureWindowMs must be a finite number of ms >= 1, got 1e-320/],
    [{ minimumCalls: 2.5 }, RangeError, /minimumCalls must be an integer >= 1 or Infinity \(off\), got 2.5/],
    [{ ratio: '0.1' }, TypeError, /ratio must be a number/],
    [{ minPerSecond: Number.NaN }, RangeError, /minPerSecond .* got NaN/],
    [{ windowMs: 0 }, RangeError, /windowMs must be a finite number of ms >= 1, got 0/],
    [{ windowMs: 0.5 }, RangeError, /windowMs must be a finite number of ms >= 1, got 0.5/],
    [{ windowMs: Infinity }, RangeError, /windowMs .* got Infinity/],
    [{ now: 5 }, TypeError, /now must be a function, got 5/],
    [
      { ratioo: 0.1 },
      TypeError,
      /unknown retry budget option 'ratioo'; did you mean ratio\? \(known: slowMs, failureRatio, failureWindowMs, minimumCalls, ratio, minPerSecond, windowMs, now\)/,
    ],
    [{ minPerSecnd: 1 }, TypeError, /unknown retry budget option 'minPerSecnd'; did you mean minPerSecond\?/],
    [{ windowMS: 1 }, TypeError, /option 'windowMS'; did you mean windowMs\?/],
    [{ budget: 1 }, TypeError, /^herdless: unknown retry budget option 'budget' \(known: /], // 3+ edits: no guess
  ])('%o', (options, Kind, message) => {
    expect(() => createRetryBudget(options as never)).toThrow(Kind);
    expect(() => createRetryBudget(options as never)).toThrow(message);
  });

  it('retry() checks that budget is a budget', async () => {
    await expect(retry(() => 1, { budget: 0.1 as never })).rejects.toThrow(
      /herdless: budget must be a RetryBudget \(createRetryBudget\(\)\), got 0.1/,
    );
  });
});

describe('createRetryBudget: a clock far from its origin', () => {
  it('slides without hanging when the bucket index is past 2^53 (a nanosecond clock, say)', () => {
    // A finite ratio: the volume cap's window is the one that reads the clock on deposit (with none, nothing is
    // counted and this test could not fail). Buckets of 1 ms, the index at 2^53, where only even numbers exist.
    let t = 2 ** 53;
    const budget = createRetryBudget({ ratio: 1, windowMs: 10, now: () => t });
    budget.deposit();
    t += 2;
    budget.deposit(); // before: an endless loop (i++ cannot move an index this large)
    // Both deposits still in the window: a step counted from `index + k` rounds back onto the slot it came from
    // and clears the first one (1 here).
    expect(budget.available()).toBe(2);
    t += 4;
    expect(budget.available()).toBe(2); // a short slide drops nothing still in the window
    t += 1e6;
    expect(budget.available()).toBe(0); // a long one drops everything
  });
});

describe('budget and breaker options that are not objects', () => {
  it.each([null, 5, 'x'])('%o: a named TypeError, not a raw one', async (options) => {
    const { createCircuitBreaker } = await import('../src/index');
    expect(() => createRetryBudget(options as never)).toThrow(/^herdless: the budget options must be an object, got /);
    expect(() => createCircuitBreaker(options as never)).toThrow(
      /^herdless: the breaker options must be an object, got /,
    );
  });
});
