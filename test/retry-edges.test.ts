import { describe, expect, it } from 'vitest';
import { type RetryContext, retry } from '../src/index';
import { settle, useFakeClock } from './helpers';

// Behaviour of retry() that mutation testing (issue 10) found unpinned: each test here fails on a mutant of
// src/retry.ts that every other test let through.
const fake = useFakeClock();

describe('retry: an abandoned attempt', () => {
  it('keeps the reason it was abandoned for when the caller aborts during the next sleep, even if it reads its signal only then', async () => {
    const contexts: RetryContext[] = [];
    const controller = new AbortController();
    const run = settle(
      retry(
        (ctx) => {
          contexts.push(ctx); // the signal is not read now
          return new Promise<never>(() => {});
        },
        {
          attemptTimeoutMs: 100,
          maxAttempts: 2,
          baseMs: 10_000,
          capMs: 10_000,
          random: () => 0.5,
          signal: controller.signal,
        },
      ),
    );
    await fake.clock.tickAsync(100); // attempt 1 timed out: asleep before attempt 2
    const reason = new Error('caller left');
    controller.abort(reason);
    await fake.clock.tickAsync(0);
    expect(run.result).toMatchObject({ status: 'rejected', reason });
    expect(contexts).toHaveLength(1);
    const signal = (contexts[0] as RetryContext).signal; // read after both
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toMatchObject({ name: 'TimeoutError', message: 'herdless: attemptTimeoutMs 100 passed' });
  });
});
