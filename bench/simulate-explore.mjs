/**
 * How long `herdless simulate --scenario explore` takes, on the built package: the first 60 cells of the development
 * range (three strategies each: no-retries, plain, recommended), in one thread. Run: npm run bench:explore
 * (`-- --cells 200`, `-- --from 17 --cells 1` for one cell, `-- --dist path/to/another/dist` to time another build beside this one). Reported in
 * bench/README.md, never asserted in tests. Prints the wall-clock and CPU time (user + system, every thread) and a
 * checksum of the JSON result, so that two builds timed in turn can be seen to give the same result.
 */
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    cells: { type: 'string', default: '60' },
    range: { type: 'string', default: 'development' },
    from: { type: 'string', default: '0' },
    dist: { type: 'string', default: 'dist' },
  },
});
const { simulateExplore } = await import(pathToFileURL(resolve(values.dist, 'simulate.js')).href);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const before = load();
const cpu = process.cpuUsage();
const start = performance.now();
const result = simulateExplore({ cells: Number(values.cells), range: values.range, from: Number(values.from) });
const s = (performance.now() - start) / 1_000;
const used = process.cpuUsage(cpu);
const sum = createHash('sha256').update(JSON.stringify(result)).digest('hex').slice(0, 16);
console.log(
  `simulateExplore({ cells: ${values.cells}, range: '${values.range}', from: ${values.from} }) from ${values.dist}: ${s.toFixed(2)} s ` +
    `(CPU ${((used.user + used.system) / 1e6).toFixed(2)} s), result sha256 ${sum}; load average ${before} -> ${load()}`,
);
