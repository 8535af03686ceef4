/**
 * What a rule that decides per call can do in the matrix's "slowdown, 1 s queue limit" cell at 10,000 instances, when
 * the server sheds with a bare 503 (docs/guide/protecting.md). Run: npx tsx bench/shed-frontier.ts (about 30 s).
 *
 * At 10,000 instances of an 800-a-second demand, a process begins 0.08 calls a second: 0.32 during the 4 s slowdown.
 * It has no history of its own to go on, only its call's own attempts, and a shed 503 arrives as fast as a 503 of a
 * partial failure (two network hops). Whatever a process does is then, at best, a rule per call: retry after a fast
 * failure with some probability, p2 after the first attempt and p3 after the second; a slow failure is never retried,
 * as the budget's slow rule does. Such a rule keeps no state, so one instance runs it as 10,000 would. This prints the
 * frontier: no (p2, p3) is safe in the shedding cell (goodput during the slowdown at least no retries' minus 5
 * points) and beneficial in the 50% partial failure at load 0.5 (at least plain retries' minus 10 points). Then fixed
 * delays, with the recovery the safety goal also bounds: only a wait longer than the slowdown (8 s) passes.
 */

import { type Pass, Report, type Settle } from '../src/guard';
import type { RetryBudget } from '../src/index';
import { simulateOverload, simulatePartial } from '../src/simulate/index';
import { createRng } from '../src/simulate/rng';

const coin = createRng(7);

/** A stateless guard: refuses a slow failure; after a fast one, retries with probability p2 (then p3). */
function perCall(p2: number, p3: number) {
  return {
    open(): Pass {
      let failures = 0;
      return {
        settle(event: Settle, _failure?: unknown, attemptMs = 0, allowedMs = Number.POSITIVE_INFINITY) {
          if (event !== Report.FAILURE) return undefined;
          failures++;
          if (attemptMs >= allowedMs / 2) return 'budget';
          return coin.next() < (failures === 1 ? p2 : p3) ? undefined : 'budget';
        },
      };
    },
  };
}

const during = (r: { goodputDuring: number }) => r.goodputDuring * 100;
const [noneShed, plainShed] = simulateOverload({ queueLimitMs: 1_000, strategies: ['no-retries', 'plain'] }).results;
const [nonePartial, plainPartial] = simulatePartial({ load: 0.5, strategies: ['no-retries', 'plain'] }).results;
const safeAt = during(noneShed as { goodputDuring: number }) - 5;
const usefulAt = during(plainPartial as { goodputDuring: number }) - 10;
console.log(
  `references: shedding cell no retries ${during(noneShed as never).toFixed(1)}%, plain ${during(plainShed as never).toFixed(1)}%; ` +
    `partial 50% @0.5 no retries ${during(nonePartial as never).toFixed(1)}%, plain ${during(plainPartial as never).toFixed(1)}%`,
);
console.log(`safe: shedding cell >= ${safeAt.toFixed(1)}%; beneficial: partial cell >= ${usefulAt.toFixed(1)}%\n`);
const noneRecovery = (noneShed as { recoveryMs: number | null }).recoveryMs ?? 0;
console.log('  p2    p3   shedding cell   partial 50% @0.5   both');
let both = 0;
for (const p2 of [0, 0.25, 0.5, 0.75, 0.9, 1]) {
  for (const p3 of [0, 0.5, 1]) {
    const strategy = {
      name: 'per-call',
      policy: { jitter: 'full' as const, budget: perCall(p2, p3) as unknown as RetryBudget },
    };
    const run = simulateOverload({ queueLimitMs: 1_000, strategies: [strategy] }).results[0] as never as {
      goodputDuring: number;
      recoveryMs: number | null;
    };
    const shed = during(run);
    const partial = during(simulatePartial({ load: 0.5, strategies: [strategy] }).results[0] as never);
    const recovered = run.recoveryMs !== null && run.recoveryMs <= noneRecovery + 3_000;
    const ok = shed >= safeAt && recovered && partial >= usefulAt;
    if (ok) both++;
    console.log(
      `${p2.toFixed(2).padStart(5)} ${p3.toFixed(2).padStart(5)} ${`${shed.toFixed(1)}%`.padStart(15)} ${`${partial.toFixed(1)}%`.padStart(18)}   ${ok ? 'yes' : 'no'}`,
    );
  }
}
console.log(`\n${both} of 18 rules meet both goals`);

// Longer waits instead (every fast failure retried, slow ones not): the retries land after the slowdown, where the
// server has room again, but the server's recovery (and each retried call) waits as long.
console.log(`\nfixed delays (safe also needs recovery <= ${(noneRecovery + 3_000) / 1_000} s)`);
console.log(' delay   shedding cell  recovery   partial 50% @0.5   both');
for (const delayMs of [500, 1_000, 2_000, 5_000, 8_000, 12_000]) {
  const strategy = {
    name: `fixed ${delayMs}`,
    policy: {
      jitter: 'none' as const,
      baseMs: delayMs,
      capMs: delayMs,
      factor: 1,
      budget: perCall(1, 1) as unknown as RetryBudget,
    },
  };
  const shed = simulateOverload({ queueLimitMs: 1_000, strategies: [strategy] }).results[0] as never as {
    goodputDuring: number;
    recoveryMs: number | null;
  };
  const partial = during(simulatePartial({ load: 0.5, strategies: [strategy] }).results[0] as never);
  const recovered = shed.recoveryMs !== null && shed.recoveryMs <= noneRecovery + 3_000;
  const ok = during(shed) >= safeAt && recovered && partial >= usefulAt;
  console.log(
    `${`${delayMs / 1_000} s`.padStart(6)} ${`${during(shed).toFixed(1)}%`.padStart(15)} ${(shed.recoveryMs === null ? 'never' : `${shed.recoveryMs / 1_000} s`).padStart(9)} ${`${partial.toFixed(1)}%`.padStart(18)}   ${ok ? 'yes' : 'no'}`,
  );
}
