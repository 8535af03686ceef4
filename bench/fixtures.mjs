/**
 * The work the benchmarks share, so that every bench measures the same fn and the same hand-written loops, and times
 * it the same way.
 */
import { execFileSync } from 'node:child_process';

/** An async fn that succeeds at once. */
export const succeed = async () => 1;

const busy = Object.assign(new Error('busy'), { status: 503 });

/** A fresh fn that fails twice with a 503, then succeeds: the zero-delay retry path. */
export function failsTwice() {
  let n = 0;
  return async () => {
    if (++n < 3) throw busy;
    return n;
  };
}

/** The retry loop many codebases have, with a jittered exponential wait (or none, with `wait: false`). */
export async function handWritten(work, { attempts = 3, wait = true } = {}) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts) throw error;
      if (wait) await new Promise((r) => setTimeout(r, Math.random() * 100 * 2 ** (attempt - 1)));
    }
  }
}

/** The median of a list of numbers. */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * In a child process: `task` in batches of `batch` awaited calls, 10 batches, of which the first 3 warm up; prints
 * the median of the other 7, in ns per call, for the parent to read.
 */
export async function timeInChild(task, batch) {
  const samples = [];
  for (let round = 0; round < 10; round++) {
    const start = performance.now();
    for (let i = 0; i < batch; i++) await task();
    if (round >= 3) samples.push(((performance.now() - start) * 1e6) / batch);
  }
  process.stdout.write(String(median(samples)));
}

/**
 * In the parent: each task in a fresh node process (`node script name`, which calls timeInChild), every task
 * `processes` times, interleaved, so that no task's JIT state or garbage affects another's. Each task's figures, by name.
 */
export function timeInProcesses(script, names, processes) {
  const results = new Map(names.map((n) => [n, []]));
  for (let p = 0; p < processes; p++) {
    for (const name of names) {
      results.get(name).push(Number(execFileSync(process.execPath, [script, name], { encoding: 'utf8' })));
    }
  }
  return results;
}
