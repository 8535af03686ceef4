/**
 * npm run demo: the overload story, live. A real HTTP server on 127.0.0.1 serves 20 requests a second, first in first
 * out; real fetch clients call it at 80% of that; it slows to a tenth for 4 s; does it come back? Four lanes at once
 * (the naive loop and herdless with more and more protection), each with its own server. Prints what each server saw
 * and what each client got, a load chart, and writes an SVG (herdless-demo.svg). About 25 s; Ctrl-C stops it early.
 * `--quick` runs the same story at half the time scale (about 10 s, for CI).
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatMs, svgChart, table, terminalChart } from '../src/simulate/index';
import { runDemo } from './run-demo';
import { type DemoFigures, demoSettings, QUICK } from './settings';

const { values } = parseArgs({ options: { quick: { type: 'boolean' }, svg: { type: 'string' } } });
const s = demoSettings(values.quick ? QUICK : {});
const svgPath = resolve(values.svg ?? 'herdless-demo.svg');
const slowToMs = s.warmupMs + s.slowdownMs;
const endMs = slowToMs + s.afterMs;

const interrupt = new AbortController();
const onSigint = () => interrupt.abort(new Error('interrupted'));
process.once('SIGINT', onSigint);
const deadline = setTimeout(() => interrupt.abort(new Error('the demo ran past its 55 s bound')), 55_000);

const seconds = (ms: number) => formatMs(ms).replace(' ', '\u00a0');
console.log(
  `A real server on 127.0.0.1 serves ${s.capacity} requests a second, one at a time, first in first out, with no ` +
    `queue limit;\nrequests arrive at ${s.load * 100}% of that (${s.load * s.capacity} a second). After ` +
    `${seconds(s.warmupMs)} it slows to ${s.slowdownCapacity * 100}% for ${seconds(s.slowdownMs)}; traffic goes on ` +
    `${seconds(s.afterMs)} more.\nEach request: ${seconds(s.attemptTimeoutMs)} attempt timeout, ${s.maxAttempts} attempts. ` +
    'Four lanes at once, each with its own server and the same arrivals.\n',
);

/** The figures, a row per lane. */
function demoTable(results: readonly DemoFigures[]): string {
  return table([
    ['lane', 'requests', 'ampl.', 'goodput', 'recovery', 'p99 ok', 'refused', 'wasted', 'behind'],
    ...results.map((r) => [
      r.strategy,
      String(r.received),
      `${r.amplification.toFixed(2)}x`,
      `${(r.goodput * 100).toFixed(0)}%`,
      r.recoveryMs === null ? 'never' : formatMs(r.recoveryMs),
      formatMs(r.p99Ms),
      String(r.refused + r.budgetStops),
      String(r.wasted),
      formatMs(r.behindMs),
    ]),
  ]);
}

const started = performance.now();
try {
  const { results, delayP99Ms, delayMaxMs } = await runDemo({ ...s, signal: interrupt.signal });
  const series = results.map((r) => ({ name: r.strategy, load: r.load }));
  const chart = {
    windowMs: s.chartWindowMs,
    capacity: (s.capacity * s.chartWindowMs) / 1_000,
    outageFromMs: s.warmupMs,
    outageMs: slowToMs,
    outageLabel: 'slowdown',
    viewMs: endMs,
  };
  console.log(`${demoTable(results)}\n\n${terminalChart(series, chart)}\n`);
  console.log(
    'requests: what the server received; ampl.: requests from the slowdown on, over what it can serve; goodput: ' +
      'calls\nthat succeeded; recovery: from the slowdown’s end until 95% of calls succeed ' +
      `${formatMs(5 * s.recoveryWindowMs)} in a row; refused: by\nthe breaker or the budget; wasted: served after ` +
      'the client gave up; behind: work queued when traffic ended.\n',
  );
  writeFileSync(
    svgPath,
    svgChart(series, {
      ...chart,
      title: `A real server at ${s.capacity} requests/s, a ${seconds(s.slowdownMs)} slowdown`,
    }),
  );
  const lost = results.filter((r) => r.sent !== r.received);
  const errors = results.reduce((n, r) => n + r.errors, 0);
  const unsent = results.reduce((n, r) => n + r.attempts - r.sent, 0);
  console.log(`wrote ${svgPath}`);
  console.log(
    lost.length === 0
      ? `every request counted once at client and server; done in ${formatMs(performance.now() - started)}`
      : `MISMATCH between client and server counts: ${lost.map((r) => `${r.strategy} ${r.sent}/${r.received}`).join(', ')}`,
  );
  console.log(
    `event loop delay: p99 ${formatMs(delayP99Ms)}, worst ${formatMs(delayMaxMs)}` +
      (delayMaxMs > s.attemptTimeoutMs / 4 ? ' (a busy machine: some timeouts were the machine, not the server)' : ''),
  );
  if (unsent > 0) console.log(`${unsent} attempts timed out before they left the client: the machine was too busy`);
  if (errors > 0) console.log(`${errors} calls failed in an unexpected way (not a timeout or a refusal)`);
  process.exitCode = lost.length === 0 && errors === 0 ? 0 : 1;
} catch (error) {
  console.error(`\ndemo stopped: ${(error as Error).message}`);
  process.exitCode = interrupt.signal.aborted ? 130 : 1;
} finally {
  clearTimeout(deadline);
  process.off('SIGINT', onSigint);
}
