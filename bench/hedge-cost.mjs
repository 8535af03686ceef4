/**
 * What a hedged call costs on the success path (issue 32), against `retry(fn)` alone: an async `fn` that resolves at
 * once, through `retry(hedged(fn, hedge))` with hedging off (`maxExtraLoad: 0`), with no delay yet (the percentile
 * still learning) and with a fixed `delayMs` (two AbortControllers, retry()'s and the attempt's, a listener and a timer
 * per call, all released when it answers). A learnt delay behaves as the fixed one: with this `fn`, which answers at
 * once, the p95 is learnt at 1 ms after 100 calls, and every call sets its timer. The same method as bench/success-path.mjs: each task in fresh node
 * processes against the built package, batches of 50,000 calls, the median. `{ retry }` itself is unchanged by hedging
 * (a subpath of its own): its own row is the cost with hedging off. Run: npm run bench:hedge.
 */
import { fileURLToPath } from 'node:url';
import { median, succeed, timeInChild, timeInProcesses } from './fixtures.mjs';

const BATCH = 50_000;
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 7);

async function load() {
  const { retry } = await import('../dist/index.js');
  const { createHedge, hedged } = await import('../dist/hedge.js');
  const off = hedged(succeed, createHedge({ maxExtraLoad: 0 }));
  const learning = hedged(succeed, createHedge({ minSamples: Number.MAX_SAFE_INTEGER }));
  const fixed = hedged(succeed, createHedge({ delayMs: 1_000 }));
  return {
    'bare await fn()': () => succeed(),
    'herdless retry(fn)': () => retry(succeed),
    'retry(hedged(fn, hedge)), maxExtraLoad 0': () => retry(off),
    'retry(hedged(fn, hedge)), no delay yet': () => retry(learning),
    'retry(hedged(fn, hedge)), delayMs 1000': () => retry(fixed),
  };
}

if (process.argv[2]) await timeInChild((await load())[process.argv[2]], BATCH);
else {
  const results = timeInProcesses(fileURLToPath(import.meta.url), Object.keys(await load()), PROCESSES);
  const bare = median(results.get('bare await fn()'));
  console.log(`node ${process.version}, ${PROCESSES} processes a task, median ns per call\n`);
  for (const [name, xs] of results) {
    const ns = median(xs);
    console.log(`${name.padEnd(45)} ${ns.toFixed(0).padStart(8)} ${(ns / bare).toFixed(2).padStart(7)}`);
  }
}
