import { formatMs } from './chart';
import type { ContentionPoint, ContentionResult } from './contention';
import type { OutageFigures } from './outage';
import type { OverloadFigures } from './overload';

/** A plain text table: the first row is the header; columns after the first are right-aligned. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = (rows[0] ?? []).map((_, c) => rows.reduce((most, r) => Math.max(most, (r[c] ?? '').length), 0));
  return rows
    .map((r) =>
      r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number))).join('  '),
    )
    .join('\n');
}

/** `part / whole` as a percentage: whole, else to a tenth (199 of 200 is 99.5%, not 100%). */
export function share(part: number, whole: number): string {
  const p = (part * 100) / whole;
  return `${Number.isInteger(p) ? p : p.toFixed(1)}%`;
}

/**
 * The outage figures, a row per strategy; with a `refused` column (calls a budget or breaker stopped, among those that
 * gave up) when a strategy refused any. Given `clients`, an `ok/<clients>` column beside the peak: the calls that
 * succeeded and their share (the goodput; herdless/testing's report shows it).
 */
export function outageTable(results: readonly OutageFigures[], capacity: number, clients?: number): string {
  const refusing = results.some((r) => (r.refused ?? 0) > 0);
  const ok = clients !== undefined;
  return table([
    [
      'strategy',
      'requests',
      'ampl.',
      `peak/${capacity}`,
      ...(ok ? [`ok/${clients}`] : []),
      'last done',
      'gave up',
      ...(refusing ? ['refused'] : []),
      'p50 ok',
      'p99 ok',
    ],
    ...results.map((r) => [
      r.strategy,
      String(r.requests),
      r.amplification.toFixed(2),
      `${r.peakAfterOutage} (${r.peakOverCapacity.toFixed(1)}x)`,
      ...(ok ? [`${r.succeeded} (${share(r.succeeded, clients)})`] : []),
      formatMs(r.lastFinishMs),
      String(r.gaveUp),
      ...(refusing ? [String(r.refused ?? 0)] : []),
      formatMs(r.p50Ms),
      formatMs(r.p99Ms),
    ]),
  ]);
}

/**
 * What failing fast bought, and cost, in the outage: a line for each strategy that refused calls, against the same
 * strategy without its `+budget`/`+breaker` when that ran too (else against nothing). Empty when none refused.
 */
export function outageRefusals(results: readonly OutageFigures[]): string {
  const lines: string[] = [];
  for (const r of results) {
    if (!((r.refused ?? 0) > 0)) continue;
    const base = results.find((b) => b.strategy === r.strategy.replace(/\+(?:budget|breaker)/g, '') && b !== r);
    const head = `${r.strategy}: ${r.refused} of ${r.gaveUp} calls that gave up were refused (fail-fast)`;
    if (!base) {
      lines.push(`${head}; the last call ended at ${formatMs(r.lastFinishMs)}, ${r.succeeded} succeeded`);
      continue;
    }
    lines.push(
      `${head}:\n  bought: the server got ${r.requests} requests instead of ${base.requests} (${base.strategy}); ` +
        `every caller had its answer by ${formatMs(r.lastFinishMs)}, not ${formatMs(base.lastFinishMs)}\n` +
        `  cost: ${r.succeeded} calls succeeded, against ${base.succeeded} for ${base.strategy}, which waited the outage out`,
    );
  }
  return lines.join('\n');
}

/** The contention results, two tables that fit 80 columns: mean calls, then mean completion time, a row per N. */
export function contentionTable(result: ContentionResult): string {
  const strategies = [...new Set(result.results.map((r) => r.strategy))];
  const at = (n: number, s: string) =>
    result.results.find((r) => r.clients === n && r.strategy === s) as ContentionPoint;
  const block = (title: string, cell: (p: ContentionPoint) => string) =>
    `${title}\n${table([['clients', ...strategies], ...result.settings.clients.map((n) => [String(n), ...strategies.map((s) => cell(at(n, s)))])])}`;
  return [
    block('work: mean calls (conditional writes) per run', (p) => p.calls.toFixed(0)),
    block('time: mean time until every client has written', (p) => formatMs(p.timeMs)),
  ].join('\n\n');
}

/** The overload figures, a row per strategy. */
export function overloadTable(results: readonly OverloadFigures[]): string {
  // A hedges column only when a strategy hedged: the tables of runs without one stay as they were.
  const hedging = results.some((r) => r.hedges > 0);
  return table([
    [
      'strategy',
      'requests',
      'ampl.',
      'goodput',
      'recovery',
      'p99 ok',
      'refused',
      'wasted',
      ...(hedging ? ['hedges'] : []),
    ],
    ...results.map((r) => [
      r.strategy,
      String(r.requests),
      `${r.amplification.toFixed(2)}x`,
      `${(r.goodput * 100).toFixed(1)}%`,
      r.recoveryMs === null ? 'never' : formatMs(r.recoveryMs),
      formatMs(r.p99Ms),
      String(r.refused + r.budgetStops),
      String(r.wasted),
      ...(hedging ? [String(r.hedges)] : []),
    ]),
  ]);
}
