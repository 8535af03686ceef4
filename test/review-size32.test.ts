// What an adversarial review of issue 31's size work (b5e0e0d) found, each as a test that failed on that build.
import { describe, expect, it } from 'vitest';
import { createRetryBudget, retry } from '../src/index';
import { delegating, useFakeClock } from './helpers';

const fake = useFakeClock();
const throttled = () => Object.assign(new Error('429'), { status: 429, headers: { 'retry-after-ms': '5' } });

describe('the size work, reviewed', () => {
  it("a budget wrapper that forwards its pass's arguments, as documented, still waits a 429 that names a wait", async () => {
    // The server's wait is settle's fifth argument since the size work: a wrapper that forwards them all keeps it (the
    // Pass docs say so; one that names only four drops it, and such 429s are then read as queueing).
    const real = createRetryBudget({ minimumCalls: 5 });
    const wrapped = delegating(real);
    const reasons: unknown[] = [];
    for (let i = 0; i < 12; i++) {
      const call = retry(() => Promise.reject(throttled()), { budget: wrapped, maxAttempts: 2, baseMs: 0 }).then(
        () => 'resolved',
        (e: { reason: unknown }) => e.reason,
      );
      await fake.clock.runAllAsync();
      reasons.push(await call);
    }
    expect(reasons).toEqual(Array(12).fill('attempts'));
    expect(fake.clock.countTimers()).toBe(0);
  });

  it("an abort seen inside the loop rejects with the signal's reason even if `aborted` reads false afterwards", async () => {
    // b5e0e0d resolved with undefined: the loop broke out on the abort, and the check after it read false.
    let pulse = false;
    const reason = new Error('stop');
    const signal = {
      get aborted() {
        const a = pulse;
        pulse = false;
        return a;
      },
      reason,
      addEventListener() {},
      removeEventListener() {},
    } as unknown as AbortSignal;
    const call = retry(
      () => {
        throw new Error('boom');
      },
      {
        signal,
        baseMs: 0,
        onFailure() {
          pulse = true;
        },
      },
    );
    await expect(call).rejects.toBe(reason);
  });

  it("a guard of the caller's that stops with a name of Object.prototype's gets that name as its detail", async () => {
    // b5e0e0d: "gave up ... (function toString() { [native code] }): boom".
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const budget = { open: () => ({ settle: (e: number) => (e === 1 ? name : undefined) }) } as never;
      const error = (await retry(
        () => {
          throw new Error('boom');
        },
        { budget, baseMs: 0 },
      ).catch((e: unknown) => e)) as Error;
      expect(error.message).toMatch(new RegExp(`^gave up after 1 attempt over \\d+ ms \\(${name}\\): boom$`));
    }
  });
});
