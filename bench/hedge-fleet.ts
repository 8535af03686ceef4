/**
 * herdless/hedge in virtual time (issue 32): the real `createHedge` objects (and `createRetryBudget`, on the same
 * virtual clock), one set per client process, driven through the decisions `hedged()` makes: `begin()` as a call
 * starts, `decide()` when its delay passes unanswered, `record()` on its answer; the budget settled as `retry()` settles
 * it (START, then SUCCESS with the round's time). Run: npx tsx bench/hedge-fleet.ts (about 10 s; a list of fleet sizes,
 * `1,100`, as its argument). Its table is in
 * docs/guide/hedging.md and bench/README.md.
 *
 * The server is bench/hedge-study.ts's: 50 workers sharing one FIFO queue, each attempt's service lognormal (median 20
 * ms, sigma 0.4) with a slow mode `SLOW_FACTOR` times longer for `slowShare` of the attempts (a property of the
 * attempt: a second one is likely fast); a hedge still queued when its call is answered is cancelled, one being served
 * runs to its end. Hops 1 ms. Calls open-loop over 30 s, split evenly over 1 to 10,000 processes; no timeouts, no
 * retries (the hedge alone). Troubles: `tail` (load 0.4, the slow mode alone, 1% or 2% of attempts) and `slowdown` (the
 * workers 3.3x slower for 10 s from 5 s at load 0.5: overloaded while it lasts, so every call crosses any delay).
 *
 * Strategies: `none`; `unbounded` (a hedge at the healthy p95 for every call still unanswered then: what most
 * libraries offer); `hedge` (createHedge() as it comes: this process's p95 once 100 answers were seen, a 5% cap);
 * `hedge-p98` (createHedge({ percentile: 0.98 }));
 * `hedge-fixed` (createHedge({ delayMs: healthy p95 }): no percentile to learn); `hedge+budget` (createHedge({ budget }), the
 * budget with slowMs 200).
 */

import { Report } from '../src/guard';
import { createHedge, type Hedge } from '../src/hedge/index';
import { createRetryBudget, type Pass } from '../src/index';
import { EventQueue } from '../src/simulate/queue';
import { createRng } from '../src/simulate/rng';

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

const WORKERS = 50;
const MEDIAN_MS = 20;
const SIGMA = 0.4;
const SLOW_FACTOR = 25;
const HOP_MS = 1;
const RUN_MS = 30_000;
const SLOW_FROM = 5_000;
const SLOW_MS = 10_000;
const SLOWDOWN = 3.3;
const capacity = (slowShare: number) =>
  (WORKERS / (MEDIAN_MS * Math.exp((SIGMA * SIGMA) / 2) * (1 - slowShare + slowShare * SLOW_FACTOR))) * 1_000;

const CALL = 0;
const AT_SERVER = 1;
const SERVED = 2;
const ANSWER = 3;
const HEDGE = 4;

function simulate(run: Run) {
  const rng = createRng(run.seed);
  const calls = Math.round((run.load * capacity(run.slowShare) * RUN_MS) / 1_000);
  const callStart = new Float64Array(calls);
  const callDone = new Uint8Array(calls);
  const callInstance = new Int32Array(calls);
  const callDelay = new Float64Array(calls);
  const latency = new Float64Array(calls);
  const attemptCall = new Int32Array(2 * calls);
  const attemptState = new Uint8Array(2 * calls); // 0 queued or in flight, 1 served, 2 cancelled while queued
  const attemptsOf = new Int32Array(2 * calls).fill(-1);
  let attempts = 0;
  let busy = 0;
  const waiting: number[] = [];
  let head = 0;
  const q = new EventQueue();
  let t = 0;
  const now = () => t;
  const hedges: (Hedge | undefined)[] = [];
  const passes: (Pass | undefined)[] = new Array(calls);
  const budgeted = run.strategy === 'hedge+budget';
  const budgets = budgeted ? Array.from({ length: run.instances }, () => createRetryBudget({ now, slowMs: 200 })) : [];
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

  let at = 0;
  for (let c = 0; c < calls; c++) {
    at += -Math.log(1 - rng.next()) * (RUN_MS / calls);
    callStart[c] = at;
    callInstance[c] = Math.floor(rng.next() * run.instances);
    q.push(at, c, CALL);
  }
  const service = (when: number) => {
    const u = 1 - rng.next(); // a standard normal, Box-Muller
    const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
    const base = MEDIAN_MS * Math.exp(SIGMA * normal);
    const slow = rng.next() < run.slowShare ? SLOW_FACTOR : 1;
    const slowed = run.slowdown && when >= SLOW_FROM && when < SLOW_FROM + SLOW_MS ? SLOWDOWN : 1;
    return base * slow * slowed;
  };
  const send = (c: number, when: number) => {
    const a = attempts++;
    attemptCall[a] = c;
    attemptsOf[2 * c + (attemptsOf[2 * c] === -1 ? 0 : 1)] = a;
    q.push(when + HOP_MS, a, AT_SERVER);
  };
  const startNext = (when: number) => {
    while (busy < WORKERS && head < waiting.length) {
      const a = waiting[head++] as number;
      if (attemptState[a] === 2) continue; // cancelled while queued
      busy++;
      q.push(when + service(when), a, SERVED);
    }
  };
  let inSlowdown = 0;
  let hedgesInSlowdown = 0;
  const ev = { time: 0, client: 0, kind: 0 };
  while (q.pop(ev)) {
    const { time, client, kind } = ev;
    t = time;
    if (kind === CALL) {
      const i = callInstance[client] as number;
      const slowing = run.slowdown && time >= SLOW_FROM && time < SLOW_FROM + SLOW_MS;
      if (slowing) inSlowdown++;
      if (budgeted) {
        const pass = (budgets[i] as ReturnType<typeof createRetryBudget>).open();
        pass.settle(Report.START);
        passes[client] = pass;
      }
      send(client, time);
      const delay = run.strategy === 'unbounded' ? run.fixedMs : hedgeOf(i)?.begin();
      if (delay !== undefined) {
        callDelay[client] = delay;
        q.push(time + delay, client, HEDGE);
      }
    } else if (kind === HEDGE) {
      if (callDone[client]) continue;
      const h = hedgeOf(callInstance[client] as number);
      if (h && !h.decide(1, callDelay[client] as number).send) continue;
      const started = callStart[client] as number;
      if (run.slowdown && started >= SLOW_FROM && started < SLOW_FROM + SLOW_MS) hedgesInSlowdown++;
      send(client, time);
    } else if (kind === AT_SERVER) {
      if (attemptState[client] === 2) continue;
      waiting.push(client);
      startNext(time);
    } else if (kind === SERVED) {
      busy--;
      attemptState[client] = 1;
      q.push(time + HOP_MS, client, ANSWER);
      startNext(time);
    } else {
      const c = attemptCall[client] as number;
      if (callDone[c]) continue;
      callDone[c] = 1;
      const took = time - (callStart[c] as number);
      latency[c] = took;
      hedgeOf(callInstance[c] as number)?.record(took);
      const pass = passes[c];
      if (pass) {
        pass.settle(Report.SUCCESS, undefined, took, Number.POSITIVE_INFINITY);
        pass.settle(Report.RELEASE);
        passes[c] = undefined;
      }
      for (const k of [0, 1]) {
        const other = attemptsOf[2 * c + k] as number;
        if (other >= 0 && other !== client && attemptState[other] === 0) attemptState[other] = 2; // cancel if queued
      }
    }
  }
  const sorted = Array.from(latency).sort((x, y) => x - y);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
  return {
    p50: pct(0.5),
    p95: pct(0.95),
    p99: pct(0.99),
    p999: pct(0.999),
    extra: attempts / calls - 1,
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
