/**
 * Instructions per call, counted by valgrind's callgrind: repeatable on a busy machine, where wall-clock figures are
 * not. Each task runs in `node --single-threaded` (V8 compiles on the main thread, so when code gets optimised does not
 * depend on timing) under callgrind twice, with 0 and with 20,000 measured calls after the same 20,000 warm-up calls;
 * the difference divided by 20,000 is the task's cost. That difference moves by up to 15% from one pair of runs to
 * the next (when the garbage collector runs shifts), so each task is measured three times (HERDLESS_BENCH_REPEAT) and the
 * median printed, with the range. Needs valgrind (Debian: apt-get install valgrind).
 * Run: npm run build && node bench/instructions.mjs [task ...]   (about three minutes a task)
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { failsTwice, handWritten, succeed } from './fixtures.mjs';

const N = 20_000;
/** Pairs of runs per task (the median is printed): HERDLESS_BENCH_REPEAT, default 3. */
const REPEAT = Number(process.env.HERDLESS_BENCH_REPEAT ?? 3);

async function tasks() {
  const { createPolicy, retry } = await import('../dist/index.js');
  const { handleAll, retry: cockatielRetry, ExponentialBackoff } = await import('cockatiel');
  const fn = succeed;
  const policy = createPolicy({ maxAttempts: 3 });
  const guarded = createPolicy({ timeoutMs: 60_000, signal: new AbortController().signal });
  const zero = createPolicy({ baseMs: 0, capMs: 0 });
  const cockatiel = cockatielRetry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff() });
  return {
    bare: () => fn(),
    'createPolicy path': () => retry(fn, policy),
    'per-call options': () => retry(fn, { maxAttempts: 3 }),
    'signal + timeoutMs': () => retry(fn, guarded),
    cockatiel: () => cockatiel.execute(fn),
    'fails twice, hand-written': () => handWritten(failsTwice(), { wait: false }),
    'fails twice, baseMs 0': () => retry(failsTwice(), zero),
  };
}

async function child(name, count) {
  const task = (await tasks())[name];
  for (let i = 0; i < N + count; i++) await task();
}

const self = fileURLToPath(import.meta.url);

/** Instructions callgrind counts for a whole run of `name` with `n` measured calls. */
function instructions(name, n) {
  const err = execFileSync(
    'sh',
    [
      '-c',
      `valgrind --tool=callgrind --callgrind-out-file=/dev/null "$0" --single-threaded "$1" "$2" "$3" 2>&1 >/dev/null`,
      process.execPath,
      self,
      name,
      String(n),
    ],
    { encoding: 'utf8' },
  );
  return Number(/Collected : (\d+)/.exec(err)?.[1]);
}

if (process.argv[3] !== undefined) await child(process.argv[2], Number(process.argv[3]));
else {
  const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(await tasks());
  for (const name of names) {
    const runs = Array.from({ length: REPEAT }, () => Math.round((instructions(name, N) - instructions(name, 0)) / N));
    runs.sort((a, b) => a - b);
    const [low, median, high] = [runs[0], runs[(REPEAT - 1) >> 1], runs[REPEAT - 1]];
    console.log(`${name.padEnd(28)} ${String(median).padStart(7)} instructions per call (${low}-${high})`);
  }
}
