/**
 * herdless/hedge in virtual time (issue 32): the real `createHedge` objects (and `createRetryBudget`, on the same
 * virtual clock), one set per client process, driven through the decisions `hedged()` makes: `begin()` as a call
 * starts, `decide()` when its delay passes unanswered, `record()` on its answer; the budget settled as `retry()`
 * settles it (START, then SUCCESS with the round's time). Run: npx tsx bench/hedge-fleet.ts (about 10 s; a list of
 * fleet sizes, `1,100`, as its argument). Its table is in docs/guide/hedging.md and bench/README.md.
 *
 * The server is bench/hedge-server.ts (bench/hedge-study.ts's): 50 workers sharing one FIFO queue, each attempt
 * lognormal (median 20 ms) with a slow mode 25 times longer for `slowShare` of the attempts; calls open-loop over 30 s,
 * split evenly over 1 to 10,000 processes; no timeouts, no retries (the hedge alone). Troubles: `tail` (load 0.4, the
 * slow mode alone, 1% or 2% of attempts) and `slowdown` (the workers 3.3x slower for 10 s from 5 s at load 0.5:
 * overloaded while it lasts, so every call crosses any delay).
 *
 * Strategies: `none`; `unbounded` (a hedge at the healthy p95 for every call still unanswered then: what most
 * libraries offer); `hedge` (createHedge() as it comes: this process's p95 once 100 answers were seen, a 5% cap);
 * `hedge-p98` (createHedge({ percentile: 0.98 })); `hedge-fixed` (createHedge({ delayMs: healthy p95 }): no percentile
 * to learn); `hedge+budget` (createHedge({ budget }), the budget with slowMs 200).
 */

import { Report } from '../src/guard';
import { createHedge, type Hedge } from '../src/hedge/index';
import { createRetryBudget, type Pass, type RetryBudget } from '../src/index';
import { ANSWER, CALL, HEDGE, HedgeServer, slowing } from './hedge-server';

type Strategy = 'none' | 'unbounded' | 'hedge' | 'hedge-p98' | 'hedge-fixed' | 'hedge+budget';
interface Run {
  readonly instances: number;
  readonly load: number;
  readonly slowShare: number;
  readonly slowdown: boolean;
  readonly strategy: Strategy;
  readonly fixedMs: number;
  readonly seed: number;
}

const SLOW_FACTOR = 25;

function simulate(run: Run) {
  const server = new HedgeServer({ ...run, slowFactor: SLOW_FACTOR });
  const { q, calls, callDone, callInstance, callStart } = server;
  const callDelay = new Float64Array(calls);
  let t = 0;
  const now = () => t;
  const hedges: (Hedge | undefined)[] = [];
  const passes: (Pass | undefined)[] = new Array(calls);
  const budgeted = run.strategy === 'hedge+budget';
  const budgets: RetryBudget[] = budgeted
    ? Array.from({ length: run.instances }, () => createRetryBudget({ now, slowMs: 200 }))
    : [];
  const hedgeOf = (i: number): Hedge | undefined => {
    if (run.strategy === 'none' || run.strategy === 'unbounded') return undefined;
    let h = hedges[i];
    if (!h) {
      h = createHedge({
        now,
        ...(run.strategy === 'hedge-fixed' && { delayMs: run.fixedMs }),
        ...(run.strategy === 'hedge-p98' && { percentile: 0.98 }),
        ...(budgeted && { budget: budgets[i] }),
      });
      hedges[i] = h;
    }
    return h;
  };
  let inSlowdown = 0;
  let hedgesInSlowdown = 0;
  const ev = { time: 0, client: 0, kind: 0 };
  while (q.pop(ev)) {
    const { time, client, kind } = ev;
    t = time;
    if (kind === CALL) {
      const i = callInstance[client] as number;
      if (run.slowdown && slowing(time)) inSlowdown++;
      if (budgeted) {
        const pass = (budgets[i] as RetryBudget).open();
        pass.settle(Report.START);
        passes[client] = pass;
      }
      server.send(client, time);
      const delay = run.strategy === 'unbounded' ? run.fixedMs : hedgeOf(i)?.begin();
      if (delay !== undefined) {
        callDelay[client] = delay;
        q.push(time + delay, client, HEDGE);
      }
    } else if (kind === HEDGE) {
      if (callDone[client]) continue;
      const h = hedgeOf(callInstance[client] as number);
      if (h && !h.decide(1, callDelay[client] as number).send) continue;
      if (run.slowdown && slowing(callStart[client] as number)) hedgesInSlowdown++;
      server.send(client, time);
    } else {
      const c = server.handle(time, client, kind);
      if (kind !== ANSWER || c < 0) continue;
      const took = time - (callStart[c] as number);
      hedgeOf(callInstance[c] as number)?.record(took);
      const pass = passes[c];
      if (pass) {
        pass.settle(Report.SUCCESS, undefined, took, Number.POSITIVE_INFINITY);
        pass.settle(Report.RELEASE);
        passes[c] = undefined;
      }
    }
  }
  return {
    ...server.percentiles(),
    extra: server.attempts / calls - 1,
    extraInSlowdown: inSlowdown ? hedgesInSlowdown / inSlowdown : 0,
  };
}

const fleets = (process.argv[2] ?? '1,10,100,1000,10000').split(',').map(Number);
const strategies: Strategy[] = ['none', 'unbounded', 'hedge', 'hedge-p98', 'hedge-fixed', 'hedge+budget'];
console.log(
  '| trouble | processes | strategy | p50 ms | p99 ms | p99.9 ms | extra load | extra in the slowdown | p99 cut | p99.9 cut |',
);
console.log('| --- | --: | --- | --: | --: | --: | --: | --: | --: | --: |');
for (const [trouble, slowShare, slowdown] of [
  ['tail 1%', 0.01, false],
  ['tail 2%', 0.02, false],
  ['slowdown', 0.01, true],
] as const) {
  // The healthy p95 of a call without hedges (one attempt a call): the fixed delay, as in bench/hedge-study.ts.
  const healthy = simulate({
    instances: 1,
    load: 0.4,
    slowShare,
    slowdown: false,
    strategy: 'none',
    fixedMs: 0,
    seed: 1,
  });
  const fixedMs = Math.round(healthy.p95);
  for (const instances of fleets) {
    const load = slowdown ? 0.5 : 0.4;
    const base = simulate({ instances, load, slowShare, slowdown, strategy: 'none', fixedMs, seed: 7 });
    for (const strategy of strategies) {
      const r =
        strategy === 'none' ? base : simulate({ instances, load, slowShare, slowdown, strategy, fixedMs, seed: 7 });
      console.log(
        `| ${trouble} | ${instances.toLocaleString('en-US')} | ${strategy} | ${r.p50.toFixed(0)} | ${r.p99.toFixed(0)} | ${r.p999.toFixed(0)} | ${(100 * r.extra).toFixed(1)}% | ${slowdown ? `${(100 * r.extraInSlowdown).toFixed(1)}%` : '-'} | ${(base.p99 / r.p99).toFixed(1)}x | ${(base.p999 / r.p999).toFixed(1)}x |`,
      );
    }
  }
  console.log(`| ${trouble}: fixed delay (healthy p95) ${fixedMs} ms | | | | | | | | | |`);
}
