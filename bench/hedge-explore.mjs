/**
 * herdless/hedge judged on the protection issue's scenario space (issue 32): the recommended setup with and without a
 * hedge (`recommended+hedge`: a createHedge({ budget }) per instance, its defaults), in cells drawn as
 * `herdless simulate --scenario explore` draws them, each judged by the same rules (safe: goodput during within 5
 * points of no retries', recovery within 3 s; beneficial: within 10 points of plain's where plain is safe), and the
 * extra load the hedge adds: requests over the recommended setup's, and hedges over rounds. Run: npm run
 * bench:hedge-explore (`-- --range evaluation --from 1000 --cells 1000`, the slice the protection guide reports: about
 * 4 min on one core). Figures in docs/guide/hedging.md.
 */
import { parseArgs } from 'node:util';
import { drawCell, EXPLORE_RANGES, exploreSummary, exploreVerdicts, simulateOverload } from '../dist/simulate.js';

const { values } = parseArgs({
  options: {
    cells: { type: 'string', default: '200' },
    range: { type: 'string', default: 'development' },
    from: { type: 'string', default: '0' },
  },
});
const [cells, from, range] = [Number(values.cells), Number(values.from), values.range];
const strategies = ['no-retries', 'plain', 'recommended', 'recommended+hedge'];
const result = { scenario: 'explore', range, cells: [] };
const extra = []; // per cell: [instances, kind, extra requests over recommended's, hedges over rounds]
for (let i = 0; i < cells; i++) {
  const drawn = drawCell(EXPLORE_RANGES[range] + from + i);
  const { results } = simulateOverload({ ...drawn.settings, strategies });
  const [rec, hedged] = [results[2], results[3]];
  const rounds = hedged.calls - hedged.refused + hedged.retries;
  extra.push([drawn.instances, drawn.kind, hedged.requests / rec.requests - 1, rounds ? hedged.hedges / rounds : 0]);
  result.cells.push({
    kind: drawn.kind,
    seed: drawn.seed,
    instances: drawn.instances,
    closedLoop: drawn.closedLoop,
    settings: drawn.settings,
    results: results.map((r) => ({
      strategy: r.strategy,
      goodput: r.goodput,
      goodputDuring: r.goodputDuring,
      amplification: r.amplification,
      recoveryMs: r.recoveryMs,
      refused: r.refused + r.budgetStops,
    })),
  });
}
console.log(exploreSummary(result));
const verdicts = exploreVerdicts(result);
const of = (name) => verdicts.filter((v) => v.strategy === name);
const [rec, hedged] = [of('recommended'), of('recommended+hedge')];
const changed = rec.filter((v, i) => v.safe !== hedged[i].safe || v.beneficial !== hedged[i].beneficial);
console.log(`\ncells whose verdict the hedge changed: ${changed.length} of ${rec.length}`);
for (const v of changed) {
  const h = hedged[rec.indexOf(v)];
  console.log(
    `  ${v.kind} seed ${v.seed} x${v.instances}: safe ${v.safe} -> ${h.safe}, beneficial ${v.beneficial} -> ${h.beneficial}`,
  );
}
const bands = [1, 10, 100, 1_000, 10_000];
console.log(
  "\nextra load of the hedge per fleet size: requests over recommended's (max, mean), hedges over rounds (max, mean)",
);
for (const [i, top] of bands.entries()) {
  const lo = i === 0 ? 1 : bands[i - 1] + 1;
  const rows = extra.filter(([n]) => n >= lo && n <= top);
  if (rows.length === 0) continue;
  const stat = (k) => {
    const xs = rows.map((r) => r[k]);
    return `${(100 * Math.max(...xs)).toFixed(2)}% / ${((100 * xs.reduce((a, b) => a + b, 0)) / xs.length).toFixed(2)}%`;
  };
  console.log(`  ${lo}-${top} (${rows.length} cells): ${stat(2)}; ${stat(3)}`);
}
const worst = extra.reduce((a, b) => (b[2] > a[2] ? b : a));
console.log(`most extra: ${(100 * worst[2]).toFixed(2)}% in a ${worst[1]} cell at ${worst[0]} instances`);
