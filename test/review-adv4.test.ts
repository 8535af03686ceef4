/**
 * Adversarial review 4 (issue 28's hold rule, the README's words for it, a test's debugging line): each test here
 * failed on main at 848ce6c, and names the finding it pins. The review's CLI and audit findings are in
 * review-adv4-cli.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decide } from '../src/decide';
import { createPolicy } from '../src/index';

const policy = (options: Parameters<typeof createPolicy>[0]) => createPolicy({ random: () => 0.5, ...options });

describe('review-adv4: the hold rule of issue 28 (src/decide.ts)', () => {
  it('a trouble older than the time left is not held for, whatever maxRetryAfterMs: no hold is taken, so none is over it', () => {
    // 2 s left of a 12 s deadline. A trouble 59 s old: not held for, the retry sleeps its own backoff (100 ms). A
    // trouble 61 s old is just as far past what the call can wait, and no hold would be taken either; yet it is checked
    // against maxRetryAfterMs (60 s) first and the call ends with 'budget', for a wait it was never going to sleep.
    // The same with a small maxRetryAfterMs: 1 s allowed, 3 s deadline, a 2.5 s trouble with 2 s left.
    const unheld = decide(policy({ timeoutMs: 12_000 }), 2, 10_000, undefined, undefined, 0);
    expect(decide(policy({ timeoutMs: 12_000 }), 2, 10_000, undefined, undefined, 59_000)).toEqual(unheld);
    expect(decide(policy({ timeoutMs: 12_000 }), 2, 10_000, undefined, undefined, 61_000)).toEqual(unheld);
    expect(decide(policy({ timeoutMs: 3_000, maxRetryAfterMs: 1_000 }), 2, 1_000, undefined, undefined, 2_500)).toEqual(
      decide(policy({ timeoutMs: 3_000, maxRetryAfterMs: 1_000 }), 2, 1_000, undefined, undefined, 0),
    );
  });

  it("the README's budget bullets say what a call does when the trouble is older than its deadline", () => {
    // README: "each retry is **held** at least as long as the trouble has lasted (never less than its own backoff,
    // never past the call's deadline)". Since issue 28 a call with a deadline shorter than the trouble's age is not
    // held: through a 30 s outage, 10,000 calls with a 2 s deadline on one budget sent 54,000 attempts, as many as
    // with no budget (54,400), where the rule before sent 42,300. Since session 34 the budget ends a call that fails
    // once the trouble has outlasted its whole deadline ('budget'), and the README must say so.
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const bullet = readme.slice(
      readme.indexOf('- When most attempts fail fast'),
      readme.indexOf('A first attempt is never'),
    );
    expect(bullet).toMatch(/outage has outlasted its whole deadline gives up \(`budget`\)/);
  });
});

describe('review-adv4: hygiene', () => {
  it('no committed test prints a debugging line (test/saturation.test.ts logs "DBG plain budgeted" on every run)', () => {
    const saturation = readFileSync(new URL('./saturation.test.ts', import.meta.url), 'utf8');
    expect(saturation).not.toMatch(/console\.log\(\s*['"]DBG/);
  });
});
