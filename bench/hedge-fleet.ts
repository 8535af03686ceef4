/**
 * herdless/hedge at 1 to 10,000 processes (issue 32): `simulateHedge` (herdless/simulate, `herdless simulate --scenario
 * hedge`) on each trouble and fleet size, with two more strategies than its defaults. Run: npx tsx bench/hedge-fleet.ts
 * (about 5 s; a list of fleet sizes, `1,100`, as its argument). Its table is in docs/guide/hedging.md and
 * bench/README.md.
 *
 * The server is src/simulate/tail.ts: 50 workers sharing one FIFO queue, each attempt lognormal (median 20 ms) with
 * a slow mode 25 times longer for `slowShare` of the attempts; calls open-loop over 30 s, split at random over 1 to
 * 10,000 processes; no timeouts, no retries (the hedge alone). Troubles: `tail` (load 0.4, the slow mode alone, 1% or
 * 2% of attempts) and `slowdown` (the workers 3.3x slower for 10 s from 5 s at load 0.5: overloaded while it lasts,
 * so every call crosses any delay).
 *
 * Strategies: the scenario's (`no-hedge`; `unbounded`, a hedge at the healthy p95 for every call still unanswered then;
 * `hedge`, createHedge() as it comes; `hedge+budget`) and `hedge-p98` (createHedge({ percentile: 0.98 })) and
 * `hedge-fixed` (createHedge({ delayMs: healthy p95 }): no percentile to learn).
 */

import { type HedgeStrategy, simulateHedge } from '../src/simulate/index';

const fleets = (process.argv[2] ?? '1,10,100,1000,10000').split(',').map(Number);
console.log(
  '| trouble | processes | strategy | p50 ms | p99 ms | p99.9 ms | extra load | extra in the slowdown | p99 cut | p99.9 cut |',
);
console.log('| --- | --: | --- | --: | --: | --: | --: | --: | --: | --: |');
for (const [trouble, slowShare, slowdownMs] of [
  ['tail 1%', 0.01, 0],
  ['tail 2%', 0.02, 0],
  ['slowdown', 0.01, 10_000],
] as const) {
  const slowdown = slowdownMs > 0;
  const scenario = { slowShare, slowdownMs, load: slowdown ? 0.5 : 0.4, seed: 7 };
  const { healthyP95Ms } = simulateHedge({ ...scenario, strategies: [] }).settings;
  const strategies: HedgeStrategy[] = [
    'no-hedge',
    'unbounded',
    'hedge',
    { name: 'hedge-p98', hedge: { percentile: 0.98 } },
    { name: 'hedge-fixed', hedge: { delayMs: healthyP95Ms } },
    'hedge+budget',
  ];
  for (const instances of fleets) {
    const { results } = simulateHedge({ ...scenario, instances, strategies });
    const base = results[0] as (typeof results)[number];
    for (const r of results) {
      console.log(
        `| ${trouble} | ${instances.toLocaleString('en-US')} | ${r.strategy} | ${r.p50Ms.toFixed(0)} | ${r.p99Ms.toFixed(0)} | ${r.p999Ms.toFixed(0)} | ${(100 * r.extraLoad).toFixed(1)}% | ${slowdown ? `${(100 * r.extraInSlowdown).toFixed(1)}%` : '-'} | ${(base.p99Ms / r.p99Ms).toFixed(1)}x | ${(base.p999Ms / r.p999Ms).toFixed(1)}x |`,
      );
    }
  }
  console.log(`| ${trouble}: fixed delay (healthy p95) ${healthyP95Ms} ms | | | | | | | | | |`);
}
