/**
 * The matrix with one parameter changed at a time (halved and doubled), to see what a protection tuned on the matrix
 * does off it: each of its nine troubles at 1, 100 and 10,000 instances, every parameter of the scenario in turn
 * (the trouble's length, the load, the capacity, the attempt timeout, the attempts, the base backoff, the slowdown's
 * capacity, the queue limit, the failure rate), judged as the explore scenario judges a cell (safe: goodput during the
 * trouble within 5 points of no retries', recovery within 3 s of it; beneficial, where plain retries are safe: goodput
 * within 10 points of plain's). Run on the built package: npm run build && node bench/perturb-matrix.mjs (a few
 * minutes on two cores; `--dist path` to judge another build, `--workers 1`). Reported in docs/guide/protecting.md.
 */
import { fork } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    dist: { type: 'string', default: 'dist' },
    workers: { type: 'string', default: '2' },
    strategies: { type: 'string', default: 'no-retries,plain,recommended' },
  },
});
const strategies = values.strategies.split(',');
const { simulateOverload, simulatePartial, MATRIX_TROUBLES } = await import(
  pathToFileURL(resolve(values.dist, 'simulate.js')).href
);

/** Each perturbed cell: a matrix trouble, a fleet size, and one parameter scaled (a base cell is scaled by 1). */
function cells() {
  const out = [];
  for (const trouble of MATRIX_TROUBLES) {
    const params = {
      load: trouble.load,
      capacity: 1_000,
      attemptTimeoutMs: 1_000,
      maxAttempts: 3,
      baseMs: 100,
      ...(trouble.scenario === 'partial' ? { failureRate: trouble.failureRate } : { slowdownMs: 4_000 }),
      ...(trouble.scenario === 'overload' ? { slowdownCapacity: 0.1 } : {}),
      ...(trouble.queueLimit ? { queueLimitMs: trouble.queueLimit } : {}),
    };
    for (const instances of [1, 100, 10_000])
      for (const [name, value] of Object.entries(params))
        for (const scale of [0.5, 2]) {
          let v = value * scale;
          if (name === 'load' || name === 'failureRate' || name === 'slowdownCapacity') v = Math.min(v, 0.95);
          if (name === 'maxAttempts') v = Math.max(2, Math.round(v));
          if (v === value) continue;
          out.push({ trouble, instances, name, scale, settings: { ...params, [name]: v } });
        }
  }
  return out;
}

function run(cell) {
  const common = { ...cell.settings, instances: cell.instances, afterMs: 30_000, seed: 1, strategies };
  const { results } =
    cell.trouble.scenario === 'partial'
      ? simulatePartial(common)
      : simulateOverload({ ...common, outage: cell.trouble.scenario === 'outage' });
  return results.map((r) => ({ strategy: r.strategy, goodputDuring: r.goodputDuring, recoveryMs: r.recoveryMs }));
}

const all = cells();
if (process.env.PERTURB_CHILD) {
  const [from, to] = process.env.PERTURB_CHILD.split(':').map(Number);
  process.send(all.slice(from, to).map(run), () => process.exit(0));
} else {
  const workers = Number(values.workers);
  const per = Math.ceil(all.length / workers);
  const parts = await Promise.all(
    Array.from(
      { length: workers },
      (_, i) =>
        new Promise((done) =>
          fork(new URL(import.meta.url).pathname, process.argv.slice(2), {
            env: { ...process.env, PERTURB_CHILD: `${i * per}:${(i + 1) * per}` },
          }).on('message', done),
        ),
    ),
  );
  const results = parts.flat();
  const recovery = (ms) => (ms === null ? Number.POSITIVE_INFINITY : ms);
  const rows = new Map();
  const row = (key) => rows.get(key) ?? rows.set(key, { cells: 0, safe: {}, judged: 0, benefit: {} }).get(key);
  const unsafe = [];
  all.forEach((cell, i) => {
    const r = results[i];
    const by = (s) => r.find((x) => x.strategy === s);
    const none = by('no-retries');
    const plain = by('plain');
    const safe = (x) =>
      x.goodputDuring >= none.goodputDuring - 0.05 && recovery(x.recoveryMs) <= recovery(none.recoveryMs) + 3_000;
    const label = cell.trouble.scenario + (cell.trouble.queueLimit ? ' 1s' : '');
    for (const key of ['all', label, `${cell.instances} instances`]) {
      const t = row(key);
      t.cells++;
      if (safe(plain)) t.judged++;
      for (const s of strategies) {
        const x = by(s);
        t.safe[s] = (t.safe[s] ?? 0) + (safe(x) ? 1 : 0);
        if (safe(plain)) t.benefit[s] = (t.benefit[s] ?? 0) + (x.goodputDuring >= plain.goodputDuring - 0.1 ? 1 : 0);
      }
    }
    for (const s of strategies.filter((s) => s !== 'no-retries' && s !== 'plain'))
      if (!safe(by(s)))
        unsafe.push(
          `${s}: ${label} ${cell.trouble.load}/${cell.trouble.failureRate} at ${cell.instances}, ${cell.name} x${cell.scale}`,
        );
  });
  const judgedOnes = strategies.filter((s) => s !== 'no-retries' && s !== 'plain');
  console.log(
    `the matrix, one parameter halved or doubled at a time: ${all.length} cells (${values.dist}); safe / beneficial where plain is safe`,
  );
  for (const [key, t] of rows)
    console.log(
      `${key.padEnd(16)} ${String(t.cells).padStart(4)} cells  plain safe ${String(t.judged).padStart(4)}  ` +
        judgedOnes.map((s) => `${s} ${t.safe[s]} / ${t.benefit[s] ?? 0}`).join('  '),
    );
  console.log(`not safe:\n  ${unsafe.join('\n  ')}`);
}
