/**
 * How long the overload path of the fleet simulator takes (the event loop the matrix and the overload and partial
 * scenarios share), on the built package: the default overload run at 1 and 1,000 instances, then the whole default
 * matrix (seed 1: 9 troubles x 5 fleet sizes x 5 strategies, 225 runs). Run: npm run bench:matrix. Reported in
 * bench/README.md, never asserted in tests.
 *
 * Events: each request that reached the server is three (the client's send, its arrival, the answer or the timeout);
 * a send the breaker refused is one more, not counted, so the rates are a floor. The matrix's figures do not count
 * requests, so its events are counted by running its cells through simulateOverload and simulatePartial as
 * simulateMatrix does (same options), before simulateMatrix itself is timed. Each line gives the wall-clock time and
 * the process's CPU time (user + system, every thread: the collector's helpers too), which a busy machine moves less.
 */
import { loadavg } from 'node:os';
import {
  MATRIX_STRATEGIES,
  MATRIX_TROUBLES,
  simulateMatrix,
  simulateOverload,
  simulatePartial,
} from '../dist/simulate.js';

const events = (result) => result.results.reduce((sum, r) => sum + 3 * r.requests, 0);

function timed(what, run, count) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = run();
  const s = (performance.now() - start) / 1_000;
  const used = process.cpuUsage(cpu);
  const n = count ?? events(result);
  console.log(
    `${what}: ${s.toFixed(2)} s (CPU ${((used.user + used.system) / 1e6).toFixed(2)} s), ` +
      `${n.toLocaleString('en')} events (${(n / s / 1e6).toFixed(2)} M events/s)`,
  );
  return result;
}

for (const instances of [1, 1_000]) {
  timed(`simulateOverload({ instances: ${instances} }), 6 strategies`, () => simulateOverload({ instances }));
}

let n = 0;
for (const trouble of MATRIX_TROUBLES) {
  for (const instances of [1, 10, 100, 1_000, 10_000]) {
    const common = {
      load: trouble.load,
      instances,
      afterMs: 30_000,
      seed: 1,
      strategies: MATRIX_STRATEGIES,
      queueLimitMs: trouble.queueLimit ?? Infinity,
    };
    n += events(
      trouble.scenario === 'partial'
        ? simulatePartial({ ...common, failureRate: trouble.failureRate })
        : simulateOverload({ ...common, outage: trouble.scenario === 'outage' }),
    );
  }
}
timed('simulateMatrix() (default, seed 1), 225 runs', () => simulateMatrix(), n);
console.log(
  `heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB after; load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
