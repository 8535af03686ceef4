/**
 * What the README, the guides and the TSDoc say of the budget and the jitters, against what the code does and what
 * the simulator prints (issue 30, item 10: the docs contradicted the code or themselves). docs/outage.txt and
 * docs/contention.txt are `herdless simulate`'s own output, checked against it in test/cli.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRetryBudget, RetryError, retry } from '../src/index';
import { useFakeClock } from './helpers';

const root = join(import.meta.dirname, '..');
/** A file's text with its line breaks and TSDoc margins folded, so a sentence matches wherever it wraps. */
const read = (path: string) =>
  readFileSync(join(root, path), 'utf8')
    .replace(/\n\s*\* ?/g, ' ')
    .replace(/\s+/g, ' ');
const n = (value: number) => value.toLocaleString('en');

/** The rows of `herdless simulate`'s outage table: requests, peak and last done per strategy. */
function outageRows(): Map<string, { requests: number; peak: number; lastDone: string }> {
  const rows = new Map<string, { requests: number; peak: number; lastDone: string }>();
  for (const line of readFileSync(join(root, 'docs', 'outage.txt'), 'utf8').split('\n')) {
    const m = /^(\w+) +(\d+) +[\d.]+ +(\d+) \([\d.]+x\) +([\d.]+ m?s)/.exec(line);
    if (m) rows.set(m[1] as string, { requests: Number(m[2]), peak: Number(m[3]), lastDone: m[4] as string });
  }
  return rows;
}

describe('the jitter guide and TSDoc say what the simulator prints', () => {
  const jitter = read('docs/guide/jitter.md');
  const delay = read('src/delay.ts');

  it('after the outage: full jitter has the lowest peak, not the fewest requests', () => {
    const rows = outageRows();
    const [full, equal, decorrelated] = ['full', 'equal', 'decorrelated'].map((s) => rows.get(s));
    if (!full || !equal || !decorrelated) throw new Error('docs/outage.txt lacks a jittered row');
    expect(full.peak).toBeLessThan(Math.min(equal.peak, decorrelated.peak));
    expect(full.requests).toBeGreaterThan(Math.min(equal.requests, decorrelated.requests));
    // The guide used to give full jitter "the least total work for a fleet that failed together".
    expect(jitter).not.toMatch(/least total work/);
    expect(delay).not.toMatch(/least total work/);
    expect(jitter).toContain(
      `full jitter sends the lowest peak (${full.peak} requests in a 100 ms window, against ${equal.peak} for equal and ${decorrelated.peak} for decorrelated) but not the fewest requests: ${n(full.requests)}, against ${n(equal.requests)} for equal and ${n(decorrelated.requests)} for decorrelated`,
    );
    expect(jitter).toContain(`its last call ends later (${full.lastDone}, against ${equal.lastDone} for both)`);
    expect(decorrelated.lastDone).toBe(equal.lastDone);
    expect(delay).toContain('though not the fewest requests after an outage');
  });

  it('under contention: full jitter does the least work, decorrelated is done first', () => {
    const text = readFileSync(join(root, 'docs', 'contention.txt'), 'utf8');
    const [work, time] = text.split('time:').map((part) => /^100 +(.+)$/m.exec(part)?.[1]?.trim().split(/ {2,}/));
    // clients: immediate, none, full, equal, decorrelated
    const [, , full, equal, decorrelated] = (work ?? []).map(Number);
    expect(full).toBeLessThan(Math.min(equal as number, decorrelated as number));
    expect(jitter).toContain(
      `full does the least work (${n(full as number)} conditional writes, against ${n(equal as number)} for equal and ${n(decorrelated as number)} for decorrelated)`,
    );
    const [, , fullMs, equalMs, decorrelatedMs] = time ?? [];
    expect(jitter).toContain(`decorrelated is done first (${decorrelatedMs}, full ${fullMs}, equal ${equalMs})`);
  });
});

describe('the live page', () => {
  it('does not call the strategies equal in retries over a table of different request counts', () => {
    const counts = new Set([...outageRows().values()].map((r) => r.requests));
    expect(counts.size).toBeGreaterThan(1);
    const page = read('docs/herd.md');
    expect(page).not.toMatch(/same number of retries/);
    expect(page).toContain('the table under the panels counts the requests each sent, which differ');
  });
});

describe("the budget's slow rule, as the docs tell it", () => {
  const fake = useFakeClock();
  const throttled = () => Object.assign(new Error('429'), { status: 429 });

  it("slowMs defaults to half the attempt timeout, not half a sliver of the deadline: the guide's and the TSDoc's words", async () => {
    // An attempt of 400 ms with a 1 s attempt timeout and 500 ms left of the deadline: slow against half of what it
    // was allowed (250 ms), fast against half its attempt timeout (500 ms), which is what the budget reads.
    const budget = createRetryBudget();
    let calls = 0;
    const call = retry(
      async () => {
        calls++;
        await new Promise((r) => setTimeout(r, calls === 1 ? 400 : 1));
        if (calls === 1) throw Object.assign(new Error('503'), { status: 503 });
        return 'ok';
      },
      { budget, attemptTimeoutMs: 1_000, timeoutMs: 500, random: () => 0 },
    );
    await fake.clock.runAllAsync();
    await expect(call).resolves.toBe('ok');
    expect(calls).toBe(2);
    const guide = read('docs/guide/protecting.md');
    expect(guide).toContain('the attempt took at least half its `attemptTimeoutMs` (`slowMs`)');
    expect(guide).not.toMatch(/half the time it was allowed/);
    const budgetDoc = read('src/budget.ts');
    expect(budgetDoc).toContain('(default half its `attemptTimeoutMs`: give attempts one)');
    expect(budgetDoc).not.toMatch(/default half the time it was allowed/);
  });

  it('a 429 that names no wait is refused in a quiet process, retried when it is a rare one among many (README)', async () => {
    const quiet = createRetryBudget();
    let tries = 0;
    const refused = retry(
      async () => {
        tries++;
        throw throttled();
      },
      { budget: quiet, maxAttempts: 3 },
    );
    refused.catch(() => {});
    await fake.clock.runAllAsync();
    await expect(refused).rejects.toSatisfy((e) => e instanceof RetryError && e.reason === 'budget');
    expect(tries).toBe(1);

    const busy = createRetryBudget();
    for (let i = 0; i < 99; i++) await retry(async () => 'ok', { budget: busy });
    let attempts = 0;
    const retried = retry(
      async () => {
        attempts++;
        if (attempts === 1) throw throttled();
        return 'ok';
      },
      { budget: busy, maxAttempts: 3, random: () => 0 },
    );
    await fake.clock.runAllAsync();
    await expect(retried).resolves.toBe('ok');
    expect(attempts).toBe(2); // 1 slow among 100 attempts, this one included: isolated, retried
    // The README said a 429 with no wait is refused, the exception given to slow failures alone.
    const readme = read('README.md');
    expect(readme.replace(/\s+/g, ' ')).toContain(
      'A slow failure, or a 429 that names no wait, is **refused**: the dependency is queueing. A rare slow attempt among fast ones is still retried',
    );
    expect(read('docs/guide/protecting.md')).toContain(
      'at most 1 in 100 of the last 3 s of attempts slow, this one included',
    );
    expect(read('docs/guide/errors.md')).toContain("as it does a timeout's, unless it is a rare one among many");
  });

  it('"1 in 100" counts the attempt judged: after 98 fast ones it is refused, after 99 retried; a second is refused', async () => {
    const once = (budget: ReturnType<typeof createRetryBudget>) => {
      const call = retry(
        async (ctx) => {
          if (ctx.attempt === 1) throw throttled();
          return 'ok';
        },
        { budget, random: () => 0 },
      );
      call.catch(() => {});
      return call;
    };
    const edge = createRetryBudget();
    for (let i = 0; i < 98; i++) await retry(async () => 'ok', { budget: edge });
    const refused = once(edge); // 1 slow in 99
    await fake.clock.runAllAsync();
    await expect(refused).rejects.toSatisfy((e) => e instanceof RetryError && e.reason === 'budget');
    const busy = createRetryBudget();
    for (let i = 0; i < 99; i++) await retry(async () => 'ok', { budget: busy });
    const retried = once(busy); // 1 slow in 100
    await fake.clock.runAllAsync();
    await expect(retried).resolves.toBe('ok');
    const again = once(busy); // 2 slow in 102
    await fake.clock.runAllAsync();
    await expect(again).rejects.toSatisfy((e) => e instanceof RetryError && e.reason === 'budget');
  });
});
