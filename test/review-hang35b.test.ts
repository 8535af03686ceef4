/**
 * Adversarial review of e28c32a (the fixes of review 35 to the hang hold of 86fd986). Every test here fails on
 * e28c32a: each is a defect found, with what was expected. Fake timers only.
 */
import { describe, expect, it } from 'vitest';
import { createRetryBudget, type RetryError, retry } from '../src/index';
import { settle, useFakeClock } from './helpers';

const fake = useFakeClock();
const hang = () => new Promise<string>(() => {});

describe('review 35b: the fixes to holding a hang', () => {
  // Severity MEDIUM. A hang-held retry now starts only at its place in the pace; a hold the deadline cuts to a quarter
  // of the time left sleeps at most half of it (the spread at most doubles it), so when its place is further away than
  // that the refusal is certain as the hold is given, whatever the hang does. The call sleeps anyway and is refused:
  // here 4 calls with 10 s deadlines, the hang over at 300 ms with 3 fast answers; the first, its place at 6.7 s, sleeps
  // 2,450 ms (random 0; 4,897 ms with the widest spread) to be refused (the other three, whose holds are past the time
  // left, sleep only their backoff to be refused: not counted here). The principle the same commit
  // applied to a burst ("a quieter process, or a burst with nothing sent after it, would hold a call only to refuse
  // it, so it refuses at once") is not applied here. Before 86fd986 these calls were refused at 200 ms.
  it.each([0, 0.999])(
    'a hang-held retry that cannot reach its place before its deadline is refused at once (random %d)',
    async (draw) => {
      const budget = createRetryBudget();
      let hanging = true;
      const fn = () => (hanging ? hang() : Promise.resolve('ok'));
      const runs = Array.from({ length: 4 }, () =>
        settle(retry(fn, { budget, attemptTimeoutMs: 200, timeoutMs: 10_000, random: () => draw })),
      );
      fake.clock.tick(1);
      void settle(retry(fn, { budget, attemptTimeoutMs: 200 }));
      await fake.clock.tickAsync(300);
      hanging = false;
      for (let i = 0; i < 3; i++) await retry(fn, { budget, attemptTimeoutMs: 200 });
      await fake.clock.runAllAsync();
      // Each call either retried, or was refused as its attempt timed out (as a burst's or a quiet process's are).
      const sleptToBeRefused = runs.filter(
        (r) => r.result.status === 'rejected' && (r.result.reason as RetryError).elapsedMs > 500, // more than a first backoff (<= 100 ms)
      );
      expect(sleptToBeRefused.map((r) => (r.result.reason as RetryError).elapsedMs)).toEqual([]);
    },
  );

  // Severity MEDIUM (the same at scale: review 35's own scenario). 200 calls a second, a 10 s hang, attempt timeout
  // 1 s, deadline 10 s: of the 1,800 calls begun in the hang, none retries (all refused 'budget'), and 1,420 of them
  // slept first (median 4.2 s, up to 5.5 s) before being refused, where before the hang hold all were refused at 1 s.
  // (Fixed: a hold the deadline would cut is refused at once. A hold that fits is a bet that the hang ends by then:
  // one that loses it, the hang still on as it wakes, is refused then, as an outage's hold that finds a queue is.)
  it('with 10 s deadlines through a 10 s hang, only a call whose hold fit sleeps, and only one that woke in the hang is refused', async () => {
    const budget = createRetryBudget();
    let hanging = false;
    const runs: { began: number; result: ReturnType<typeof settle<string>>['result'] }[] = [];
    for (let ms = 0; ms < 25_000; ms += 5) {
      hanging = ms >= 5_000 && ms < 15_000;
      const s = settle(
        retry(() => (hanging ? hang() : Promise.resolve('ok')), { budget, attemptTimeoutMs: 1_000, timeoutMs: 10_000 }),
      );
      if (ms >= 5_000 && ms < 14_000) runs.push({ began: ms, result: s.result });
      await fake.clock.tickAsync(5);
    }
    await fake.clock.runAllAsync();
    const sleptToBeRefused = runs.filter(
      (r) =>
        r.result.status === 'rejected' &&
        (r.result.reason as RetryError).reason === 'budget' &&
        (r.result.reason as RetryError).attempts === 1 &&
        (r.result.reason as RetryError).elapsedMs > 1_100,
    );
    expect(sleptToBeRefused.length).toBeLessThan(runs.length / 4); // 1,420 of 1,800 before the fix
    // Each of them woke while the hang was on (it ends at 15 s; three fast answers follow within 15 ms).
    for (const r of sleptToBeRefused) expect(r.began + (r.result.reason as RetryError).elapsedMs).toBeLessThan(15_100);
    expect(fake.clock.countTimers()).toBe(0);
  });

  // Severity LOW-MEDIUM. The pace check at a hang-held retry's start compares the budget's clock with a place computed
  // on it, to 1 ms, though the retry slept on the timers' clock. A custom `now` (the docs' own example: a clock NTP
  // steps back) that goes back 5 ms while the retries sleep: every hang-held retry is refused for good, though the hang
  // ended and 3 fast answers came back (the clock stays 5 ms behind the places). Retries held through an outage in the
  // same situation all start (they read queueing() alone). Any skew over 1 ms between `now` and setTimeout does the
  // same (a `Date.now` slewed at 500 ppm is 15 ms behind over a 30 s hold).
  it('a clock 5 ms behind after a hang hold does not refuse every retry the hang held', async () => {
    let offset = 0;
    const budget = createRetryBudget({ now: () => performance.now() - offset });
    let hanging = true;
    const fn = () => (hanging ? hang() : Promise.resolve('ok'));
    const runs = Array.from({ length: 4 }, () => settle(retry(fn, { budget, attemptTimeoutMs: 200, random: () => 0 })));
    fake.clock.tick(1);
    void settle(retry(fn, { budget, attemptTimeoutMs: 200 }));
    await fake.clock.tickAsync(200);
    hanging = false;
    for (let i = 0; i < 3; i++) await retry(fn, { budget, attemptTimeoutMs: 200 });
    await fake.clock.tickAsync(5_000);
    offset = 5; // a custom clock stepped back 5 ms (as it does, a hold given, without it: all 4 retry and succeed)
    await fake.clock.runAllAsync();
    for (const r of runs) expect(r.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
  });

  // Severity LOW (the pace's give-back, older than the hang hold, reached through reset()). reset() makes the budget
  // "as just created", and "a permit granted before gives nothing back to the new window when it is released". A held
  // retry from before the reset that never starts still gives its pace step back, to the new trouble's pace: 4 calls
  // held through a hang (steps of 6.7 s), reset(), 4 new calls held (places at 6.7 to 26.7 s), the old ones aborted:
  // the next hold lands at 5.0 s, ahead of every new one, where the new pace puts it after them (31.2 s).
  it('after reset(), a held retry from before that never starts gives nothing back to the new pace', async () => {
    const budget = createRetryBudget();
    const old = Array.from({ length: 4 }, () => new AbortController());
    const fresh: number[] = [];
    const late: number[] = [];
    const call = (into?: number[], signal?: AbortSignal) =>
      settle(
        retry(hang, {
          budget,
          attemptTimeoutMs: 200,
          random: () => 0,
          signal,
          onRetry: (e) => void into?.push(e.delayMs),
        }),
      );
    for (const c of old) call(undefined, c.signal);
    fake.clock.tick(1);
    call();
    await fake.clock.tickAsync(200);
    budget.reset();
    for (let i = 0; i < 4; i++) call(fresh);
    fake.clock.tick(1);
    call();
    await fake.clock.tickAsync(200);
    expect(fresh).toHaveLength(4);
    for (const c of old) c.abort();
    await fake.clock.tickAsync(0);
    call(late);
    fake.clock.tick(1);
    call();
    await fake.clock.tickAsync(200);
    expect(late).toHaveLength(1);
    // Its place comes after the last place the new pace gave (26.7 s after the fresh holds, 201 ms before this one).
    expect(late[0] as number).toBeGreaterThan(Math.max(...fresh) - 201);
  });
});
