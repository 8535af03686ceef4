/**
 * npm run demo: the herd, live. Starts a real HTTP server on 127.0.0.1 that fails for 3 s and then serves 30 requests
 * per 100 ms, sends 300 real fetch clients at it per strategy, and prints what the server saw: figures, a load chart,
 * and an SVG (herdless-demo.svg). Stops by itself; Ctrl-C stops it early. `--quick` runs a small version (for CI).
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatMs, outageTable, svgChart, terminalChart } from '../src/simulate/index';
import { type DemoOptions, runDemo } from './run-demo';

const { values } = parseArgs({ options: { quick: { type: 'boolean' }, svg: { type: 'string' } } });
const settings: DemoOptions = values.quick
  ? { clients: 60, outageMs: 1_000, capacity: 10, maxAttempts: 6 }
  : { clients: 300, outageMs: 3_000, capacity: 30, maxAttempts: 10 };
const { clients = 0, outageMs = 0, capacity = 0 } = settings;
const svgPath = resolve(values.svg ?? 'herdless-demo.svg');

const interrupt = new AbortController();
process.once('SIGINT', () => interrupt.abort(new Error('interrupted')));
const deadline = setTimeout(() => interrupt.abort(new Error('the demo ran past its 55 s bound')), 55_000);

console.log(
  `A real server on 127.0.0.1 fails every request for ${outageMs / 1_000} s, then serves ${capacity} per 100 ms.`,
);
console.log(`${clients} clients call it at once, with ${settings.maxAttempts} attempts each; once per strategy.\n`);
const started = performance.now();
try {
  const results = await runDemo({
    ...settings,
    signal: interrupt.signal,
    onStrategy: (r) =>
      console.log(
        `${r.strategy}: ${r.requests} requests (${r.amplification.toFixed(1)} per client), ` +
          `peak after the outage ${r.peakAfterOutage} per 100 ms (${r.peakOverCapacity.toFixed(1)}x capacity), ` +
          `${r.succeeded} ok, ${r.gaveUp} gave up, ${r.errors} errors; sent ${r.sent}, server saw ${r.received}, ${formatMs(r.wallMs)}`,
      ),
  });
  const series = results.map((r) => ({ name: r.strategy, load: r.load }));
  const chart = { windowMs: 100, capacity, outageMs };
  console.log(`\n${outageTable(results, capacity)}\n\n${terminalChart(series, chart)}\n`);
  writeFileSync(
    svgPath,
    svgChart(series, { ...chart, title: `Real server: ${clients} fetch clients, ${outageMs / 1_000} s outage` }),
  );
  const lost = results.filter((r) => r.sent !== r.received);
  console.log(`wrote ${svgPath}`);
  console.log(
    lost.length === 0
      ? `every request counted once at client and server; done in ${formatMs(performance.now() - started)}`
      : `MISMATCH between client and server counts: ${lost.map((r) => `${r.strategy} ${r.sent}/${r.received}`).join(', ')}`,
  );
  process.exitCode = lost.length === 0 ? 0 : 1;
} catch (error) {
  console.error(`\ndemo stopped: ${(error as Error).message}`);
  process.exitCode = interrupt.signal.aborted ? 130 : 1;
} finally {
  clearTimeout(deadline);
}
