/**
 * npm run demo: the overload story and the partial-failure story, live. A real HTTP server on 127.0.0.1 serves 20
 * requests a second, first in first out; real fetch clients call it. Act 1: at 80% of its capacity, it slows to a
 * tenth for 4 s; does it come back? Acts 2 and 3: at 50% and 80%, it fails half of what it serves (a fast 503) for
 * 8 s; how many calls still succeed? Each act runs its lanes at once (the naive loop or no retries, full jitter, and
 * the recommended setup), each with its own server. Prints what each server saw and what each client got, a load
 * chart, and writes an SVG per act (herdless-demo.svg, herdless-demo-partial-50.svg, ...). About a minute; Ctrl-C
 * stops it early. `--quick` runs the same story with less traffic after the slowdown and shorter failures (about 45 s
 * on a loaded 2-core machine, for CI).
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatMs, svgChart, table, terminalChart } from '../src/simulate/index';
import { DEMO_USAGE, type DemoArgs, parseDemoArgs } from './args';
import { type ActRun, runAct } from './run-demo';
import { type Act, acts, type DemoFigures, demoSettings, QUICK } from './settings';

let values: DemoArgs;
try {
  values = parseDemoArgs(process.argv.slice(2));
} catch (error) {
  console.error(`demo: ${(error as Error).message} (see npm run demo -- --help)`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(DEMO_USAGE);
  process.exit(0);
}
const options = values.quick ? QUICK : {};
const s = demoSettings(options);
const svgPath = resolve(values.svg ?? 'herdless-demo.svg');
const story = acts(s);
const storyMs = story.reduce((ms, act) => ms + act.warmupMs + act.troubleMs + act.afterMs, 0);
const boundMs = storyMs + 20_000 * story.length; // the traffic, then at most 20 s an act to wind down

const interrupt = new AbortController();
const onSigint = () => interrupt.abort(new Error('interrupted'));
process.once('SIGINT', onSigint);
const deadline = setTimeout(
  () => interrupt.abort(new Error(`the demo ran past its ${formatMs(boundMs)} bound`)),
  boundMs,
);

const seconds = (ms: number) => formatMs(ms).replace(' ', '\u00a0');
const percent = (share: number) => `${(share * 100).toFixed(0)}%`;
console.log(
  `A real server on 127.0.0.1 serves ${s.capacity} requests a second, one at a time, first in first out, with no ` +
    `queue limit.\nEach call: ${seconds(s.attemptTimeoutMs)} attempt timeout, ${s.maxAttempts} attempts. The lanes ` +
    `of an act run at once, each with its own server\nand the same arrivals:\n` +
    `  naive loop: try, wait ${seconds(s.fixedDelayMs)}, try again; no-retries: one attempt; plain: retry() with ` +
    'full jitter;\n  recommended: what the README recommends, retry() with full jitter, one createRetryBudget() ' +
    'and the attempt\n  timeout (no breaker: judged on drawn troubles, one cost recovery and gained nothing).\n',
);

/** What an act is, in a line or two. */
function actIntro(act: Act, n: number): string {
  const rate = act.load * s.capacity;
  const arrive = `requests arrive at ${percent(act.load)} of capacity (${rate} a second)`;
  const after = `traffic goes on ${seconds(act.afterMs)} more`;
  return act.scenario === 'overload'
    ? `${n}. Overload: ${arrive}. After ${seconds(act.warmupMs)} the server slows to\n   ` +
        `${percent(act.slowdownCapacity)} of its speed for ${seconds(act.troubleMs)}; ${after}.`
    : `${n}. Partial failure: ${arrive}. After ${seconds(act.warmupMs)} the server fails ` +
        `${percent(act.failureRate)} of what it serves\n   (a fast 503, after its turn) for ${seconds(act.troubleMs)}; ` +
        `${after}.`;
}

/** The figures, a row per lane: the overload's recovery, or the partial failure's goodput during it. */
function actTable(act: Act, results: readonly DemoFigures[]): string {
  const overload = act.scenario === 'overload';
  return table([
    [
      'lane',
      'requests',
      'ampl.',
      ...(overload ? ['goodput', 'recovery', 'p99 ok'] : ['during', 'goodput', '503s']),
      'refused',
      'wasted',
      'behind',
    ],
    ...results.map((r) => [
      r.strategy,
      String(r.received),
      `${r.amplification.toFixed(2)}x`,
      ...(overload
        ? [percent(r.goodput), r.recoveryMs === null ? 'never' : formatMs(r.recoveryMs), formatMs(r.p99Ms)]
        : [percent(r.goodputDuring), percent(r.goodput), String(r.failed)]),
      String(r.refused + r.budgetStops),
      String(r.wasted),
      formatMs(r.behindMs),
    ]),
  ]);
}

/** What the partial act says, in a line: each lane's goodput during the failure. */
function partialReading(results: readonly DemoFigures[]): string {
  return `during the failure: ${results.map((r) => `${r.strategy} ${percent(r.goodputDuring)}`).join(', ')} of calls succeeded`;
}

/** Where an act's SVG goes: the overload's at `--svg`, a partial act's beside it, named by its load. */
function actSvgPath(act: Act): string {
  return act.scenario === 'overload'
    ? svgPath
    : svgPath.replace(/(\.svg)?$/, `-partial-${Math.round(act.load * 100)}.svg`);
}

/** Every request the clients wrote was read once by the server, but for those abandoned in flight; no other read. */
function countsMatch(r: DemoFigures): boolean {
  return r.lost === 0 && r.unexpected === 0 && r.sent === r.received + r.abandonedInFlight;
}

function mismatch(r: DemoFigures): string {
  return (
    `${r.strategy}: sent ${r.sent}, received ${r.received}, abandoned in flight ${r.abandonedInFlight}, ` +
    `lost ${r.lost}, unexpected ${r.unexpected}`
  );
}

/** Prints an act's figures and chart, and writes its SVG. */
function report(run: ActRun): void {
  const { act, results } = run;
  const troubleToMs = act.warmupMs + act.troubleMs;
  const label = act.scenario === 'overload' ? 'slowdown' : 'failure';
  const series = results.map((r) => ({ name: r.strategy, load: r.load }));
  const chart = {
    windowMs: s.chartWindowMs,
    capacity: (s.capacity * s.chartWindowMs) / 1_000,
    outageFromMs: act.warmupMs,
    outageMs: troubleToMs,
    outageLabel: label,
    viewMs: troubleToMs + act.afterMs,
  };
  console.log(`${actTable(act, results)}\n\n${terminalChart(series, chart)}\n`);
  if (act.scenario === 'partial') console.log(`${partialReading(results)}\n`);
  if (act === story.find((a) => a.scenario === 'partial'))
    console.log(
      'A breaker that opens on 5 failures in a row (a common default, and herdless’s before 0.1) would open every few\n' +
        'seconds against a 50% failure, refuse every call for its 5 s break, and keep fewer calls than not retrying.\n',
    );
  const title =
    act.scenario === 'overload'
      ? `A real server at ${s.capacity} requests/s, a ${seconds(act.troubleMs)} slowdown`
      : `A real server at ${s.capacity} requests/s and ${percent(act.load)} load, ${percent(act.failureRate)} failing for ${seconds(act.troubleMs)}`;
  writeFileSync(actSvgPath(act), svgChart(series, { ...chart, title }));
}

const started = performance.now();
try {
  const runs: ActRun[] = [];
  for (const [index, act] of story.entries()) {
    console.log(actIntro(act, index + 1));
    const run = await runAct(act, { ...options, signal: interrupt.signal });
    report(run);
    runs.push(run);
  }
  console.log(
    'requests: what the server received; ampl.: requests from the trouble on, over what it can serve; goodput: ' +
      'calls\nthat succeeded; recovery: from the slowdown’s end until 95% of calls succeed ' +
      `${formatMs(5 * s.recoveryWindowMs)} in a row; during: calls begun\nduring the failure that succeeded; 503s: ` +
      'requests the server failed; refused: by the budget;\nwasted: served after the client gave up; ' +
      'behind: work queued when traffic ended.\n',
  );
  const results = runs.flatMap((run) => run.results);
  const lost = results.filter((r) => !countsMatch(r));
  const errors = results.reduce((n, r) => n + r.errors, 0);
  const unsent = results.reduce((n, r) => n + r.attempts - r.sent, 0);
  const abandoned = results.reduce((n, r) => n + r.abandonedInFlight, 0);
  const delayP99Ms = Math.max(...runs.map((run) => run.delayP99Ms));
  const delayMaxMs = Math.max(...runs.map((run) => run.delayMaxMs));
  console.log(`wrote ${runs.map((run) => actSvgPath(run.act)).join(', ')}`);
  console.log(
    lost.length === 0
      ? `every request counted once at client and server; done in ${formatMs(performance.now() - started)}`
      : `MISMATCH between client and server counts: ${lost.map(mismatch).join('; ')}`,
  );
  if (abandoned > 0)
    console.log(
      `${abandoned} requests were written, then abandoned by their client (timed out) before the server read them`,
    );
  console.log(
    `event loop delay (the worst act): p99 ${formatMs(delayP99Ms)}, worst ${formatMs(delayMaxMs)}` +
      (delayMaxMs > s.attemptTimeoutMs / 4 ? ' (a busy machine: some timeouts were the machine, not the server)' : ''),
  );
  if (unsent > 0) console.log(`${unsent} attempts timed out before they left the client: the machine was too busy`);
  if (errors > 0) console.log(`${errors} calls failed in an unexpected way (not a timeout, a 503 or a refusal)`);
  process.exitCode = lost.length === 0 && errors === 0 ? 0 : 1;
} catch (error) {
  console.error(`\ndemo stopped: ${(error as Error).message}`);
  process.exitCode = interrupt.signal.aborted ? 130 : 1;
} finally {
  clearTimeout(deadline);
  process.off('SIGINT', onSigint);
}
