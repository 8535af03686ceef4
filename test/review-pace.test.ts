/**
 * What an adversarial review of the budget's pace of held retries (3d36eff) found, each a test that failed on it:
 * a pace left far ahead by one outage starving the next trouble; holds the calls never took pushing the others past
 * their deadlines; a broken clock refusing first attempts; a huge windowMs overflowing to an endless hold.
 */
import { describe, expect, it } from 'vitest';
import { Report } from '../src/guard';
import { createRetryBudget, type RetryBudget, type RetryError, retry } from '../src/index';
import { seeded, settle, useFakeClock } from './helpers';

const fake = useFakeClock();
const transient = () => Object.assign(new Error('down'), { status: 503 });
const failFast = () => new Promise<string>((_, reject) => setTimeout(() => reject(transient()), 1));

/** A lone call through a fresh blip of fast failures: how it ends, and its sleeps rounded to the ms. */
async function blip(budget: RetryBudget) {
  const delays: number[] = [];
  const run = settle(
    retry(failFast, {
      budget,
      maxAttempts: 5,
      random: () => 0,
      onRetry: ({ delayMs }) => void delays.push(Math.round(delayMs)),
    }),
  );
  await fake.clock.runAllAsync();
  return { delays, reason: (run.result.reason as RetryError | undefined)?.reason };
}

describe('the pace of held retries (review)', () => {
  it('a 10-minute outage leaves no pace behind: a blip after it is held as on a fresh budget', async () => {
    const fresh = await blip(createRetryBudget());
    expect(fresh).toEqual({ delays: [0, 0, 0, 33_333], reason: 'attempts' }); // held one pace step, 10 s / 0.3
    const budget = createRetryBudget();
    for (let i = 0; i < 600; i++) {
      void retry(failFast, { budget, random: () => 0 }).catch(() => {});
      await fake.clock.tickAsync(1_000);
    }
    await fake.clock.runAllAsync();
    for (let i = 0; i < 300; i++) {
      await retry(() => 'ok', { budget });
      await fake.clock.tickAsync(1_000);
    }
    await fake.clock.tickAsync(5 * 60_000); // quiet: the trouble, and its pace, are old news
    expect(await blip(budget)).toEqual(fresh); // before: refused, its hold an hour away
  });

  it('10,000 calls through a 30 s outage, a day of quiet: the next blip is held as on a fresh budget', async () => {
    const fresh = await blip(createRetryBudget());
    const budget = createRetryBudget();
    const end = performance.now() + 30_000;
    const fails = () =>
      new Promise<string>((resolve, reject) =>
        setTimeout(() => (performance.now() < end ? reject(transient()) : resolve('ok')), 1),
      );
    const runs = Array.from({ length: 10_000 }, () =>
      settle(retry(fails, { budget, timeoutMs: 30_000, maxAttempts: 5 })),
    );
    for (let i = 0; i < 100 && fake.clock.countTimers() > 0; i++) await fake.clock.tickAsync(1_000);
    expect(runs.every((r) => r.result.status === 'rejected')).toBe(true);
    await fake.clock.tickAsync(24 * 3_600_000);
    expect(await blip(budget)).toEqual(fresh); // before: held 6.8 days, over maxRetryAfterMs: 'budget'
  }, 60_000);

  it('with a deadline, calls are still held through an outage: holds not taken give their place back', async () => {
    // 100 calls a second with a 10 s deadline through a 20 s outage of fast 503s. Before, every hold given (taken or
    // not) pushed the pace on, 10 s each second: past every call's time left within 50 ms, and no call was held.
    const budget = createRetryBudget();
    const t0 = performance.now();
    const random = seeded(7);
    const sleeps: number[] = []; // sleeps decided 1-5 s into the outage, in a call's first second (>= 9 s left)
    const all: Promise<unknown>[] = [];
    for (let i = 0; i < 2_000; i++) {
      all.push(
        retry(() => new Promise<string>((_, reject) => setTimeout(() => reject(transient()), 5)), {
          budget,
          timeoutMs: 10_000,
          random,
          onRetry: ({ delayMs, elapsedMs }) => {
            const age = performance.now() - t0;
            if (age >= 1_000 && age <= 5_000 && elapsedMs < 1_000) sleeps.push(delayMs);
          },
        }).catch(() => {}),
      );
      await fake.clock.tickAsync(10);
    }
    await fake.clock.runAllAsync();
    await Promise.all(all);
    expect(fake.clock.countTimers()).toBe(0);
    // Held: longer than the plain backoff (at most 200 ms here). The pace still lets only some be held (3 for every
    // 10 first attempts); the others, whose place would come after their deadline, retry at their backoff.
    const held = sleeps.filter((ms) => ms > 200).length;
    expect(held).toBeGreaterThan(50); // 125 here; 0 before
  }, 60_000);

  it('a broken clock does not refuse a first attempt of a budget without a volume cap', async () => {
    let calls = 0;
    const budget = createRetryBudget({
      now: () => {
        throw new Error('clock broke');
      },
    });
    await expect(
      retry(
        () => {
          calls++;
          return 'ok';
        },
        { budget },
      ),
    ).resolves.toBe('ok');
    expect(calls).toBe(1);
    // With a cap, the first attempt pays into it: the clock's error is the call's, as before the pace.
    const capped = createRetryBudget({
      ratio: 0.1,
      now: () => {
        throw new Error('clock broke');
      },
    });
    await expect(retry(() => 'ok', { budget: capped })).rejects.toThrow('clock broke');
  });

  it('windowMs at its largest accepted value: the pace step stays finite, and a forgotten trouble forgets it', () => {
    let now = 0;
    const budget = createRetryBudget({ windowMs: Number.MAX_VALUE, now: () => now });
    const fail = () => {
      const pass = budget.open();
      pass.settle(Report.START);
      return pass.settle(Report.FAILURE, transient(), 1, Number.POSITIVE_INFINITY);
    };
    const holds = Array.from({ length: 5 }, fail);
    expect(Number.isFinite(holds[4])).toBe(true); // before: Infinity (1.5e308 + 1.5e308), and every hold after
    for (let i = 0; i < 20; i++) fail(); // the pace overflows: held for ever, which decide() refuses ('budget')
    now = 10_000; // a window with no attempt: the trouble is old news
    const again = Array.from({ length: 4 }, fail);
    expect(again.slice(0, 3)).toEqual([undefined, undefined, undefined]);
    expect(Number.isFinite(again[3])).toBe(true);
  });
});
