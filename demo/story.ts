/**
 * The demo's story, told: the opening, each act's intro, table and chart, its SVG, and the closing counts, written
 * through `io` (demo/herd.ts passes the process's streams; a test passes its own, and its own `runAct`).
 */
import { writeFileSync } from 'node:fs';
import { formatMs, svgChart, table, terminalChart } from '../src/simulate/index';
import { type ActRun, type RunDemoOptions, runAct } from './run-demo';
import { type Act, acts, type DemoFigures, type DemoOptions, demoSettings } from './settings';

/** Where the demo writes; a test passes its own. */
export interface DemoIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Whether stderr is a terminal (the progress line is only for terminals). */
  readonly errIsTTY: boolean;
}

export interface TellOptions {
  /** The demo's settings (`QUICK` for `--quick`). */
  readonly options: DemoOptions;
  /** The first act's SVG; the others beside it. */
  readonly svgPath: string;
  /** Stops the story (Ctrl-C, the demo's time bound). */
  readonly signal: AbortSignal;
  readonly io: DemoIo;
  /** Runs an act; a test passes one that answers at once. Default {@link runAct}. */
  readonly run?: (act: Act, options: RunDemoOptions) => Promise<ActRun>;
}

/** Tells the whole story; resolves with the exit code (0 done, 1 a count mismatch or an unexpected failure, 130 stopped). */
export async function tell({ options, svgPath, signal, io, run = runAct }: TellOptions): Promise<number> {
  const s = demoSettings(options);
  const story = acts(s);
  const log = (text = '') => io.out(`${text}\n`);
  const seconds = (ms: number) => formatMs(ms).replace(' ', '\u00a0');
  const percent = (share: number) => `${(share * 100).toFixed(0)}%`;
  log(
    `A real server on 127.0.0.1 serves ${s.capacity} requests a second, one at a time, first in first out, with no ` +
      `queue limit.\nEach call: ${seconds(s.attemptTimeoutMs)} attempt timeout, ${s.maxAttempts} attempts. The lanes ` +
      `of an act run at once, each with its own server\nand the same arrivals:\n` +
      `  naive loop: try, wait ${seconds(s.fixedDelayMs)}, try again; no-retries: one attempt; plain: retry() with ` +
      'full jitter;\n  recommended: what the README recommends, retry() with full jitter, one createRetryBudget() ' +
      'and the attempt\n  timeout (no circuit breaker: added to the budget, it was less often safe in the ' +
      "simulator's drawn troubles).\n",
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
    log(`${actTable(act, results)}\n\n${terminalChart(series, chart)}\n`);
    if (act.scenario === 'partial') log(`${partialReading(results)}\n`);
    if (act === story.find((a) => a.scenario === 'partial'))
      log(
        'A breaker that opens on 5 failures in a row (a common default) would open every few\n' +
          'seconds against a 50% failure, refuse every call for its 5 s break, and keep fewer calls than not retrying.\n',
      );
    const title =
      act.scenario === 'overload'
        ? `A real server at ${s.capacity} requests/s, a ${seconds(act.troubleMs)} slowdown`
        : `A real server at ${s.capacity} requests/s and ${percent(act.load)} load, ${percent(act.failureRate)} failing for ${seconds(act.troubleMs)}`;
    writeFileSync(actSvgPath(act), svgChart(series, { ...chart, title }));
  }

  /**
   * While an act runs (its traffic, then its calls winding down), a line on a terminal's stderr says where it is,
   * redrawn each second and erased before the act's figures print: each act is silent for 10 to 30 s otherwise.
   */
  function progress(act: Act, n: number): () => void {
    if (!io.errIsTTY) return () => {};
    const begun = Date.now();
    const name = act.scenario === 'overload' ? 'overload' : `partial failure at ${percent(act.load)}`;
    const trouble = act.scenario === 'overload' ? 'the slowdown' : 'the failure';
    const trafficMs = act.warmupMs + act.troubleMs + act.afterMs;
    const draw = () => {
      const t = Date.now() - begun;
      const phase =
        t < act.warmupMs
          ? 'steady traffic'
          : t < act.warmupMs + act.troubleMs
            ? trouble
            : t < trafficMs
              ? `traffic after ${trouble}`
              : 'winding down: the last calls end';
      io.err(
        `\r\x1b[Kact ${n} of ${story.length}, ${name}: ${Math.floor(t / 1_000)} s of ${Math.round(trafficMs / 1_000)} s, ` +
          `${phase} (Ctrl-C stops)`,
      );
    };
    draw();
    const timer = setInterval(draw, 1_000);
    return () => {
      clearInterval(timer);
      io.err('\r\x1b[K');
    };
  }

  const started = performance.now();
  try {
    const runs: ActRun[] = [];
    log(
      'The columns: requests: what the server received; ampl.: requests from the trouble on, over what it can ' +
        'serve;\ngoodput: calls that succeeded; recovery: from the slowdown’s end until 95% of calls succeed ' +
        `${formatMs(5 * s.recoveryWindowMs)} in a row;\nduring: calls begun during the failure that succeeded; 503s: ` +
        'requests the server failed; p99 ok: the time 99% of the successful calls took;\nrefused: retries the ' +
        'budget refused; wasted: requests served after their client gave up (an attempt timed out:\nwhen its retry ' +
        'was refused too, the two counts match); behind: the work still queued when traffic ended.\n',
    );
    for (const [index, act] of story.entries()) {
      log(actIntro(act, index + 1));
      const endProgress = progress(act, index + 1);
      let actRun: ActRun;
      try {
        actRun = await run(act, { ...options, signal });
      } finally {
        endProgress();
      }
      report(actRun);
      runs.push(actRun);
    }
    const results = runs.flatMap((run) => run.results);
    const lost = results.filter((r) => !countsMatch(r));
    const errors = results.reduce((n, r) => n + r.errors, 0);
    const unsent = results.reduce((n, r) => n + r.attempts - r.sent, 0);
    const abandoned = results.reduce((n, r) => n + r.abandonedInFlight, 0);
    const delayP99Ms = Math.max(...runs.map((run) => run.delayP99Ms));
    const delayMaxMs = Math.max(...runs.map((run) => run.delayMaxMs));
    const [first, ...others] = runs.map((run) => actSvgPath(run.act));
    log(
      `open ${first} in a browser: the first act in one picture, each lane's load against the server's capacity` +
        (others.length > 0 ? `\n(and ${others.join(', ')}: the partial failures)` : ''),
    );
    log(
      lost.length === 0
        ? `every request counted once at client and server; done in ${formatMs(performance.now() - started)}`
        : `MISMATCH between client and server counts: ${lost.map(mismatch).join('; ')}`,
    );
    if (abandoned > 0)
      log(`${abandoned} requests were written, then abandoned by their client (timed out) before the server read them`);
    log(
      `event loop delay (the worst act): p99 ${formatMs(delayP99Ms)}, worst ${formatMs(delayMaxMs)}` +
        (delayMaxMs > s.attemptTimeoutMs / 4
          ? ' (a busy machine: some timeouts were the machine, not the server)'
          : ''),
    );
    if (unsent > 0) log(`${unsent} attempts timed out before they left the client: the machine was too busy`);
    if (errors > 0) log(`${errors} calls failed in an unexpected way (not a timeout, a 503 or a refusal)`);
    return lost.length === 0 && errors === 0 ? 0 : 1;
  } catch (error) {
    io.err(`\ndemo stopped: ${(error as Error).message}\n`);
    return signal.aborted ? 130 : 1;
  }
}
