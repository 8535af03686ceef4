import { getStatus } from '../classify';
import { type ChartOptions, type LoadSeries, svgChart, terminalChart } from '../simulate/chart';
import type { OutageFigures } from '../simulate/outage';
import { outageTable } from '../simulate/report';
import type { HerdSettings } from './options';

/**
 * One run's figures: the simulator's outage figures (same fields, same meaning), and what the callers gave up with.
 * One difference: when the outage ends inside a window, `peakAfterOutage` counts that window too, with its arrivals
 * from the end on (the simulator starts at the next window), so a herd right after the outage is not missed.
 */
export interface HerdFigures extends OutageFigures {
  /**
   * The callers that gave up, by what they ended with: an error's name and its code, status or stop reason
   * (`'RetryError (attempts)'`, `'AxiosError 503'`, `'TypeError ECONNRESET'`), `'status 503'` for a call that resolved
   * with a failed response, `'unfinished'` for one still running at `untilMs`, `'isSuccess threw TypeError'` for one
   * whose judge threw.
   */
  readonly gaveUpWith: Readonly<Record<string, number>>;
}

/**
 * What {@link herd} resolves with: the settings used and one row of figures, in the JSON shape of the simulator's
 * results (`herdless simulate --json`, `simulateOutage()`), with `scenario: 'herd'`. Plain data: `JSON.stringify` it.
 */
export interface HerdReport {
  readonly scenario: 'herd';
  readonly settings: HerdSettings;
  readonly results: readonly HerdFigures[];
}

/** A field of a value, or undefined when reading it throws (a throwing getter, a revoked Proxy). */
function field(value: unknown, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/**
 * What a caller's call ended with, as a short key for {@link HerdFigures.gaveUpWith}. Never throws: a field that
 * cannot be read (a throwing getter, a revoked Proxy) is left out, so a hostile thrown value still gets a key.
 */
export function describeFailure(error: unknown): string {
  if (typeof error !== 'object' || error === null) return `thrown ${typeof error}`;
  const n = field(error, 'name');
  const name = typeof n === 'string' ? n : 'Error';
  const reason = field(error, 'reason');
  if (name === 'RetryError' && typeof reason === 'string') return `RetryError (${reason})`;
  const status = getStatus(error);
  if (status !== undefined) return `${name} ${status}`;
  const own = field(error, 'code');
  const code = typeof own === 'string' ? own : field(field(error, 'cause'), 'code');
  return typeof code === 'string' ? `${name} ${code}` : name;
}

/** What a call that resolved but did not succeed ended with: `'status 503'`, else `'unsuccessful result'`. */
export function describeResult(value: unknown): string {
  const status = getStatus(value);
  return status === undefined ? 'unsuccessful result' : `status ${status}`;
}

/** One report or several, as a non-empty list. */
function list(reports: HerdReport | readonly HerdReport[]): readonly HerdReport[] {
  const all = Array.isArray(reports) ? (reports as readonly HerdReport[]) : [reports as HerdReport];
  if (all.length === 0 || all.some((r) => typeof r !== 'object' || r === null || !Array.isArray(r.results)))
    throw new TypeError(
      'herdless/testing: expected a herd report (what herd() resolves with), or a non-empty list of them',
    );
  return all;
}

function series(reports: HerdReport | readonly HerdReport[]): { series: LoadSeries[]; options: ChartOptions } {
  const all = list(reports);
  const first = all[0] as HerdReport;
  const { capacity, capacityWindowMs: windowMs, outageMs } = first.settings;
  const rows = all.flatMap((r) => r.results.map((f) => ({ name: f.strategy, load: f.load })));
  const lastMs = Math.max(...all.flatMap((r) => r.results.map((f) => f.lastFinishMs)));
  return {
    series: rows,
    // The run's span, at least 2 s past the outage and at most the simulator's 10 s (a longer run ends in '>').
    options: {
      windowMs,
      capacity,
      outageMs,
      viewMs: Math.min(outageMs + 10_000, Math.max(outageMs + 2_000, lastMs + windowMs)),
    },
  };
}

/**
 * The load the dependency saw, as the terminal chart `herdless simulate` prints (80 columns): one row per report,
 * on one scale, capacity and the outage's end marked. Pass several reports (same settings) to compare them.
 *
 * @example
 * ```ts
 * console.log(herdChart([await herd(naive), await herd(jittered)]));
 * ```
 */
export function herdChart(reports: HerdReport | readonly HerdReport[]): string {
  const { series: rows, options } = series(reports);
  return terminalChart(rows, options);
}

/**
 * The same chart as a self-contained SVG (the simulator's `--svg`): write it to a file next to the test's output.
 *
 * @example
 * ```ts
 * writeFileSync('herd.svg', herdSvg(report));
 * ```
 */
export function herdSvg(reports: HerdReport | readonly HerdReport[]): string {
  const { series: rows, options } = series(reports);
  return svgChart(rows, { ...options, title: 'Requests reaching the dependency' });
}

/**
 * A report as text: the simulator's figures table with the goodput beside the peak (`ok/200`: the callers whose call
 * succeeded, and their share), what the callers gave up with, and the chart. What `assertNoHerd` prints when it fails.
 */
export function formatHerd(reports: HerdReport | readonly HerdReport[]): string {
  const all = list(reports);
  const rows = all.flatMap((r) => r.results);
  const s = (all[0] as HerdReport).settings;
  const gave = rows
    .filter((f) => f.gaveUp > 0)
    .map(
      (f) =>
        `${f.strategy} gave up: ${Object.entries(f.gaveUpWith)
          .map(([k, n]) => `${n} ${k}`)
          .join(', ')}`,
    );
  return [
    `herd: ${s.clients} callers; the dependency fails for ${s.outageMs} ms (${s.outageFailure}), then serves ${s.capacity} per ${s.capacityWindowMs} ms`,
    outageTable(rows, s.capacity, s.clients),
    ...gave,
    '',
    herdChart(all),
  ].join('\n');
}
