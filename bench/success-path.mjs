/**
 * What retry() costs when the call succeeds at once, against a bare `await fn()`, a hand-written loop and the peers.
 *
 * Each task runs in a fresh node process (so no task's JIT state or garbage affects another), awaiting an async fn
 * that resolves at once, in batches of 50,000 calls: 3 batches warm up, then the median of 7 is taken. The parent
 * runs every task 15 times (BENCH_PROCESSES), interleaved, and reports the median: ns per call and the ratio to a bare
 * `await fn()`. Why 15: on the 2-core VM these figures come from, one process in five to ten runs every task at about
 * half its usual cost, the same code (seen for a bare async wrapper too: 155 against 285 ns), so with 5 processes the
 * median of one task could be a fast one while its neighbour's was not (cockatiel 273 ns in one run, 474 in the next).
 * Plain JavaScript against the built package (dist/), what users run. Run: npm run bench.
 * Speed is measured here, never asserted in tests.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { failsTwice, handWritten, median, succeed, timeInChild, timeInProcesses } from './fixtures.mjs';

const BATCH = 50_000;
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 15);

async function load() {
  const { createPolicy, retry } = await import('../dist/index.js');
  const { handleAll, retry: cockatielRetry, ExponentialBackoff } = await import('cockatiel');
  const { backOff } = await import('exponential-backoff');
  const { default: pRetry } = await import('p-retry');

  const fn = succeed;
  const flaky = failsTwice;
  const handWrittenAtOnce = (work) => handWritten(work, { wait: false });
  const zero = createPolicy({ baseMs: 0, capMs: 0 });
  const policy = createPolicy({ maxAttempts: 3 });
  const guarded = createPolicy({ timeoutMs: 60_000, signal: new AbortController().signal });
  const cockatiel = cockatielRetry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff() });
  return {
    'bare await fn()': () => fn(),
    'hand-written loop': () => handWritten(fn),
    'herdless retry(fn)': () => retry(fn),
    'herdless retry(fn, createPolicy(...))': () => retry(fn, policy),
    'herdless retry(fn, { maxAttempts: 3 }), checked per call': () => retry(fn, { maxAttempts: 3 }),
    'herdless retry(fn, policy with signal + timeoutMs)': () => retry(fn, guarded),
    'fails twice: hand-written loop, no wait': () => handWrittenAtOnce(flaky()),
    'fails twice: herdless retry(fn, { baseMs: 0 } policy)': () => retry(flaky(), zero),
    'cockatiel 3.2.1 retry(handleAll).execute(fn)': () => cockatiel.execute(fn),
    'exponential-backoff 3.1.3 backOff(fn)': () => backOff(fn),
    'p-retry 7.1.1 pRetry(fn)': () => pRetry(fn, { retries: 2 }),
  };
}

async function child(name) {
  await timeInChild((await load())[name], BATCH);
}

async function parent() {
  const names = Object.keys(await load());
  const self = fileURLToPath(import.meta.url);
  const results = timeInProcesses(self, names, PROCESSES);
  const bare = median(results.get('bare await fn()'));
  console.log(`node ${process.version}, ${PROCESSES} processes a task, median ns per call\n`);
  console.log(`${'task'.padEnd(58)} ${'ns/call'.padStart(8)} ${'x bare'.padStart(7)}`);
  for (const [name, xs] of results) {
    const ns = median(xs);
    console.log(`${name.padEnd(58)} ${ns.toFixed(0).padStart(8)} ${(ns / bare).toFixed(2).padStart(7)}`);
  }
  const costs = JSON.parse(execFileSync(process.execPath, [self, '--costs'], { encoding: 'utf8' }));
  console.log(
    `\nnew AbortController() and its signal: ${costs.controller.toFixed(0)} ns, ${(costs.controller / bare).toFixed(1)} bare awaits`,
  );
  console.log(`performance.now(): ${costs.clock.toFixed(0)} ns, ${(costs.clock / bare).toFixed(1)} bare awaits`);
}

/** The two costs the success path avoids when it can: an AbortController with its signal, and a clock reading. */
function costs() {
  const N = 500_000;
  const held = [];
  let t = performance.now();
  for (let i = 0; i < N; i++) held[i & 1023] = new AbortController().signal; // kept, so it is not optimised away
  const controller = ((performance.now() - t) * 1e6) / N;
  t = performance.now();
  let sink = 0;
  for (let i = 0; i < N; i++) sink += performance.now();
  const clock = ((performance.now() - t) * 1e6) / N;
  process.stdout.write(JSON.stringify({ controller, clock, sink: sink > 0 && held.length > 0 }));
}

if (process.argv[2] === '--costs') costs();
else if (process.argv[2]) await child(process.argv[2]);
else await parent();
