import { formatMs } from '../simulate/chart';
import { finite, onlyKnown } from '../validate';
import { formatHerd, type HerdReport } from './report';

/** What {@link assertNoHerd} allows. */
export interface NoHerdOptions {
  /**
   * The most requests one window after the outage may get, as a multiple of capacity. Default 3: retries spread by
   * jitter keep every window within two to three times what the dependency serves (200 callers of herdless's
   * defaults reach 2x), while callers retrying in step send 5x and more (10x: every caller in one window).
   */
  readonly maxPeakOverCapacity?: number;
  /** The most requests per caller (requests / callers). Default Infinity: not checked. */
  readonly maxAmplification?: number;
}

/** The error {@link assertNoHerd} throws: its message holds the figures and the chart; `report` is the report. */
export class HerdAssertionError extends Error {
  override name = 'AssertionError';
  constructor(
    message: string,
    readonly report: HerdReport,
  ) {
    super(message);
  }
}

/** The problems with a report under `options`: empty when there is no herd. */
export function herdProblems(report: HerdReport, options: NoHerdOptions = {}): string[] {
  onlyKnown(options, new Set(['maxPeakOverCapacity', 'maxAmplification']), 'assertNoHerd');
  const maxPeak = finite('maxPeakOverCapacity', options.maxPeakOverCapacity ?? 3, 0);
  const maxAmp = options.maxAmplification ?? Infinity;
  if (!(typeof maxAmp === 'number' && maxAmp >= 1))
    finite('maxAmplification', maxAmp, 1, 'a number >= 1 (Infinity for none)');
  const problems: string[] = [];
  const s = report.settings;
  for (const f of report.results) {
    if (f.peakOverCapacity > maxPeak)
      problems.push(
        `${f.strategy}: ${f.peakAfterOutage} requests in one ${formatMs(s.capacityWindowMs)} window after the outage, ${f.peakOverCapacity.toFixed(1)}x capacity ${s.capacity} (allowed: ${maxPeak}x)`,
      );
    if (f.amplification > maxAmp)
      problems.push(
        `${f.strategy}: ${f.requests} requests from ${s.clients} callers, ${f.amplification.toFixed(2)} each (allowed: ${maxAmp})`,
      );
  }
  return problems;
}

/**
 * Throws when the report shows a herd: a window after the outage over `maxPeakOverCapacity` times capacity (default
 * 3x), or more requests per caller than `maxAmplification`. The message prints the figures and the load chart, so the
 * failing test shows the herd. A plain function: works in vitest, node:test, Jest, anything that reports a throw.
 *
 * @example
 * ```ts
 * import { test } from 'node:test';
 * test('no herd', async () => assertNoHerd(await herd(({ url }) => retryingFetch({ maxAttempts: 10 })(url))));
 * ```
 */
export function assertNoHerd(report: HerdReport, options: NoHerdOptions = {}): void {
  const problems = herdProblems(report, options);
  if (problems.length > 0)
    throw new HerdAssertionError(
      `the retries herd the dependency:\n${problems.join('\n')}\n\n${formatHerd(report)}`,
      report,
    );
}
