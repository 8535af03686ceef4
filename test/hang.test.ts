import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createRetryBudget, type RetryError, retry } from '../src/index';
import { type ExploreResult, type ExploreVerdict, exploreVerdicts } from '../src/simulate/index';
import { settle, useFakeClock } from './helpers';

const fake = useFakeClock();

/** A dependency that answers nothing while `hanging` (every attempt runs to its timeout), then answers at once. */
function dependency() {
  const state = { hanging: true, calls: 0 };
  const fn = () => {
    state.calls++;
    return state.hanging ? new Promise<string>(() => {}) : Promise.resolve('ok');
  };
  return { state, fn };
}

/**
 * `n` calls begun together on `budget` against `fn`, each with a 200 ms attempt timeout, recording their sleeps; then,
 * 1 ms later, one more, alone (`last`): traffic that goes on after them.
 */
function calls(n: number, budget: ReturnType<typeof createRetryBudget>, fn: () => Promise<string>, extra = {}) {
  const delays: number[] = [];
  const call = () =>
    settle(
      retry(fn, {
        budget,
        attemptTimeoutMs: 200,
        maxAttempts: 3,
        onRetry: ({ delayMs }) => void delays.push(delayMs),
        ...extra,
      }),
    );
  const runs = Array.from({ length: n }, call);
  fake.clock.tick(1);
  return { runs, delays, last: call() };
}

describe('createRetryBudget: a hang is held, and let go only on fast answers', () => {
  it('in a process that sends enough, a timeout when every attempt hangs is held, not refused; fast answers let it go', async () => {
    const budget = createRetryBudget();
    const dep = dependency();
    // 5 first attempts over windowMs, the last begun after the others: enough to see the hang end. All hang; at 200 ms
    // the first 4 time out (the 5th, with no call begun after it, is refused at once: see below).
    const { runs, delays, last } = calls(4, budget, dep.fn);
    await fake.clock.tickAsync(200);
    expect(runs.map((r) => r.result.status)).toEqual(['pending', 'pending', 'pending', 'pending']); // held, not refused
    // Held as a dependency that is down is: paced, one step (windowMs / 0.3 / 5 first attempts = 6,667 ms) apart.
    expect(delays).toHaveLength(4);
    for (const d of delays) expect(d).toBeGreaterThanOrEqual(6_666);
    await fake.clock.tickAsync(1);
    expect(last.result.reason).toMatchObject({ reason: 'budget', attempts: 1 });
    // The hang ends; three fast answers begun after the last hung attempt say so.
    dep.state.hanging = false;
    for (let i = 0; i < 3; i++) await retry(dep.fn, { budget, attemptTimeoutMs: 200 });
    await fake.clock.runAllAsync();
    for (const r of runs) expect(r.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
    expect(dep.state.calls).toBe(5 + 3 + 4); // each held call retried once
  });

  it('with no fast answer by the end of its hold, the held retry is refused as it was to start: a queue whose every attempt times out looks the same', async () => {
    const budget = createRetryBudget();
    const dep = dependency();
    const { runs } = calls(4, budget, dep.fn);
    await fake.clock.runAllAsync();
    for (const r of runs) expect(r.result.reason).toMatchObject({ reason: 'budget', attempts: 1 });
    expect(dep.state.calls).toBe(5); // no retry ever joined what may have been a queue
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('answers that come back slow (a queue draining) do not let it go: only fast ones do', async () => {
    const budget = createRetryBudget();
    const dep = dependency();
    const { runs } = calls(4, budget, dep.fn);
    await fake.clock.tickAsync(200);
    // Three answers in 150 ms of their 200: at least half their time, slow.
    for (let i = 0; i < 3; i++) {
      const slow = settle(
        retry(() => new Promise<string>((resolve) => setTimeout(() => resolve('ok'), 150)), {
          budget,
          attemptTimeoutMs: 200,
        }),
      );
      await fake.clock.tickAsync(150);
      expect(slow.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
    }
    await fake.clock.runAllAsync();
    for (const r of runs) expect((r.result.reason as RetryError).reason).toBe('budget');
    expect(dep.state.calls).toBe(5);
  });

  it('a quiet process (under 4 first attempts over windowMs) is refused at once, as before: it would hold only to refuse', async () => {
    const budget = createRetryBudget();
    const dep = dependency();
    const { runs, delays } = calls(2, budget, dep.fn); // and one more: 3 first attempts
    await fake.clock.tickAsync(200);
    for (const r of runs) expect(r.result.reason).toMatchObject({ reason: 'budget', attempts: 1 });
    expect(delays).toEqual([]); // no sleep first
  });

  it('a window with a fast answer in it is no hang: a timeout there is a slow failure, refused at once', async () => {
    const budget = createRetryBudget();
    const dep = dependency();
    await retry(() => 'ok', { budget, attemptTimeoutMs: 200 });
    const { runs, delays } = calls(4, budget, dep.fn);
    await fake.clock.tickAsync(200);
    for (const r of runs) expect((r.result.reason as RetryError).reason).toBe('budget');
    expect(delays).toEqual([]);
  });

  it('throttling answers (a 429 with no wait) are never read as a hang: refused, not held', async () => {
    const budget = createRetryBudget();
    const throttled = () => Promise.reject(Object.assign(new Error('slow down'), { status: 429 }));
    const { runs, delays } = calls(4, budget, throttled);
    await fake.clock.runAllAsync();
    for (const r of runs) expect(r.result.reason).toMatchObject({ reason: 'budget', attempts: 1 });
    expect(delays).toEqual([]);
  });

  it('a call whose place in the pace is past the share of its deadline a hold may take is refused at once (review 35b)', async () => {
    const budget = createRetryBudget();
    const dep = dependency();
    const { runs, delays } = calls(4, budget, dep.fn, { timeoutMs: 2_000, random: () => 0 });
    await fake.clock.tickAsync(200);
    // The holds (6.7 s and more) are past a quarter of the 1.8 s left: it could only go at its place, so it would
    // sleep only to be refused. Refused now, with no sleep.
    expect(delays).toEqual([]);
    for (const r of runs) expect(r.result.reason).toMatchObject({ reason: 'budget', attempts: 1 });
    expect(dep.state.calls).toBe(5);
    await fake.clock.runAllAsync();
    expect(fake.clock.countTimers()).toBe(0);
  });
});

describe('the guide quotes what holding a hang changed on the evaluation draw', () => {
  const recommended = (draw: ExploreResult) => exploreVerdicts(draw).filter((v) => v.strategy === 'recommended');
  const before = recommended(
    JSON.parse(execFileSync('git', ['show', '8c7cc80:docs/explore.json'], { encoding: 'utf8', maxBuffer: 1 << 26 })),
  );
  const draw = JSON.parse(readFileSync(new URL('../docs/explore.json', import.meta.url), 'utf8')) as ExploreResult;
  const after = recommended(draw);
  const guide = readFileSync(new URL('../docs/guide/protecting.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');

  it('"gained N cells of safety and lost M ..., and K cells of benefit and lost J (hangs X% to Y%)"', () => {
    const m =
      /holding those retries until fast answers come back gained (\d+) cells of safety and lost (\d+) .*?, and (\d+) cells of benefit and lost (\d+) \(hangs (\d+)% to (\d+)%\)/.exec(
        guide,
      );
    expect(m).not.toBeNull();
    const changed = (pick: (v: ExploreVerdict) => boolean | null) => [
      after.filter((v, i) => pick(v) === true && pick(before[i] as ExploreVerdict) === false).length,
      after.filter((v, i) => pick(v) === false && pick(before[i] as ExploreVerdict) === true).length,
    ];
    const hangs = (vs: ExploreVerdict[]) => {
      const judged = vs.filter((v) => v.kind === 'hang' && v.beneficial !== null);
      return Math.round((100 * judged.filter((v) => v.beneficial).length) / judged.length);
    };
    expect([...changed((v) => v.safe), ...changed((v) => v.beneficial), hangs(before), hangs(after)]).toEqual(
      m?.slice(1).map(Number),
    );
  });

  it('"In N of the 1,000 cells the budget keeps exactly what no retries keep"; "In M it never recovers ...: K with users who re-issue"', () => {
    const figures = (cell: ExploreResult['cells'][number], name: string) =>
      cell.results.find((r) => r.strategy === name) as { goodputDuring: number; recoveryMs: number | null };
    const same = draw.cells.filter(
      (c) => figures(c, 'recommended').goodputDuring === figures(c, 'no-retries').goodputDuring,
    );
    const never = draw.cells.filter(
      (c) => figures(c, 'recommended').recoveryMs === null && figures(c, 'no-retries').recoveryMs !== null,
    );
    expect(guide).toContain(`In ${same.length} of the 1,000 cells the budget keeps exactly what no retries keep`);
    expect(guide).toContain(
      `In ${never.length} it never recovers within the 30 s after the trouble where no retries does: ${never.filter((c) => c.closedLoop).length} with users who re-issue`,
    );
  });
});
