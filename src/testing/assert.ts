import { formatMs } from '../simulate/chart';
import { share } from '../simulate/report';
import { finite, num, onlyKnown } from '../validate';
import { PLAIN_RETRIES, plainSucceeded } from './reference';
import { formatHerd, type HerdFigures, type HerdReport } from './report';

/** What {@link assertNoHerd} allows. */
export interface NoHerdOptions {
  /**
   * The most requests one window after the outage may get, as a multiple of capacity. Default 3: retries spread by
   * jitter keep every window within two to three times what the dependency serves (200 callers of herdless's
   * defaults reach 2x), while callers retrying in step send 5x and more (10x: every caller in one window).
   */
  readonly maxPeakOverCapacity?: number | undefined;
  /** The most requests per caller (requests / callers). Default Infinity: not checked. */
  readonly maxAmplification?: number | undefined;
  /**
   * The share of callers whose call must succeed, in [0, 1]: the goodput check, on by default, so that code that
   * sends no herd because it gives up (a budget or a circuit breaker that refuses every retry, one attempt and no
   * retries) fails the test instead of passing with a peak of 0.
   *
   * Default: 10 points under what plain jittered retries achieve in the same herd: herdless's full jitter
   * (`retry()`'s backoff, 100 ms doubling to 10 s), 10 attempts, no budget, no breaker, no timeouts, run against
   * the same dependency with the report's settings and seed (on an event queue, in milliseconds). In the default
   * herd (200 callers, 1 s outage) plain retries save all 200, so at least 180 must succeed; in a 10 s outage they
   * save 184 (92%), so 164 must (82%); where they save none (a 30 s outage, `failureRate: 1`), the check asks for nothing. The
   * margin leaves room for retries that trade a few calls for less load (fewer attempts, a deadline, a budget that
   * still lets most retries through) while failing code that turns the blip into an outage for most callers.
   *
   * Set a number to choose the bar yourself: `minSuccess: 0` turns the check off (a test of the load alone, or code
   * meant to fail fast: a breaker test, `maxAttempts: 1`); `minSuccess: 1` asks that every call succeed (a
   * dependency that recovers with room for everyone); a share in between when your retries deliberately give up on
   * more calls than plain ones (a short deadline) and you know how many.
   *
   * @example
   * ```ts
   * assertNoHerd(report); // fails when under 90% of callers succeed where plain retries save them all
   * assertNoHerd(report, { minSuccess: 0.5 }); // a 2 s deadline: half the callers must still get through
   * assertNoHerd(report, { minSuccess: 0 }); // the load only: this code fails fast on purpose
   * ```
   */
  readonly minSuccess?: number | undefined;
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

/** The goodput margin under plain retries' share, in points of the callers: the default `minSuccess` is that less. */
const MARGIN = 0.1;

const KNOWN = new Set(['maxPeakOverCapacity', 'maxAmplification', 'minSuccess']);

/** What the callers of a row gave up with, `'6 RetryError (budget), 194 RetryError (circuit-open)'`; '' for none. */
function reasons(f: HerdFigures): string {
  return Object.entries(f.gaveUpWith ?? {})
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
}

/** The problems with a report, in two kinds: the load (a herd), and the calls lost (goodput). */
export function problemsOf(report: HerdReport, options: NoHerdOptions = {}): { load: string[]; goodput: string[] } {
  onlyKnown(options, KNOWN, 'assertNoHerd');
  const maxPeak = finite('maxPeakOverCapacity', options.maxPeakOverCapacity ?? 3, 0);
  const maxAmp = options.maxAmplification ?? Infinity;
  if (!(typeof maxAmp === 'number' && maxAmp >= 1))
    finite('maxAmplification', maxAmp, 1, 'a number >= 1 (Infinity for none)');
  const minSuccess = options.minSuccess;
  if (minSuccess !== undefined) num('minSuccess', minSuccess, 'a number in [0, 1]', (n) => n >= 0 && n <= 1);
  const load: string[] = [];
  const goodput: string[] = [];
  const s = report.settings;
  for (const f of report.results) {
    if (f.peakOverCapacity > maxPeak)
      load.push(
        `${f.strategy}: ${f.peakAfterOutage} requests in one ${formatMs(s.capacityWindowMs)} window after the outage, ${f.peakOverCapacity.toFixed(1)}x capacity ${s.capacity} (allowed: ${maxPeak}x)`,
      );
    if (f.amplification > maxAmp)
      load.push(
        `${f.strategy}: ${f.requests} requests from ${s.clients} callers, ${f.amplification.toFixed(2)} each (allowed: ${maxAmp})`,
      );
  }
  if (minSuccess === 0) return { load, goodput };
  // The reference only when a row might fall short of it: a report where every caller succeeded needs none.
  const plain = report.results.some((f) => f.succeeded < s.clients) ? plainSucceeded(s) : s.clients;
  const bar = minSuccess ?? Math.max(0, plain / s.clients - MARGIN);
  // In calls, rounded up, so that a bar of 90% of 200 callers is 180 calls whatever the floating point says.
  const least = Math.ceil(bar * s.clients - 1e-9);
  const because =
    minSuccess === undefined ? `${MARGIN * 100} points under plain jittered retries` : `minSuccess ${minSuccess}`;
  for (const f of report.results) {
    if (f.succeeded >= least) continue;
    const why = reasons(f);
    goodput.push(
      `${f.strategy}: ${f.succeeded} of ${s.clients} callers succeeded (${share(f.succeeded, s.clients)}), at least ${least} (${share(least, s.clients)}) must (${because}); ${f.gaveUp} gave up${why ? `: ${why}` : ''}\n` +
        `  plain jittered retries (full jitter, ${PLAIN_RETRIES.maxAttempts} attempts, no budget or breaker) bring ${plain} (${share(plain, s.clients)}) through this herd`,
    );
  }
  return { load, goodput };
}

/**
 * The problems with a report under `options`: empty when there is no herd and enough calls succeed (see
 * {@link NoHerdOptions.minSuccess}).
 */
export function herdProblems(report: HerdReport, options: NoHerdOptions = {}): string[] {
  const { load, goodput } = problemsOf(report, options);
  return [...load, ...goodput];
}

/** The first line of a failure: what went wrong, the herd, the lost calls, or both. */
export function headline(problems: { load: readonly string[]; goodput: readonly string[] }): string {
  const herd = problems.load.length > 0;
  const lost = problems.goodput.length > 0;
  return herd && lost
    ? 'the retries herd the dependency, and give up on calls plain jittered retries save'
    : herd
      ? 'the retries herd the dependency'
      : 'the retries give up on calls plain jittered retries save';
}

/**
 * Throws when the report shows a herd, or a protection that prevents one by giving up: a window after the outage
 * over `maxPeakOverCapacity` times capacity (default 3x), more requests per caller than `maxAmplification`, or
 * fewer callers succeeding than `minSuccess` (default: 10 points under what plain jittered retries achieve in the
 * same herd; `minSuccess: 0` turns it off). The message prints the figures, what the callers gave up with and the
 * load chart, so the failing test shows the herd. A plain function: works in vitest, node:test, Jest, anything that
 * reports a throw.
 *
 * @example
 * ```ts
 * import { test } from 'node:test';
 * test('no herd', async () => assertNoHerd(await herd(({ url }) => retryingFetch({ maxAttempts: 10 })(url))));
 * ```
 */
export function assertNoHerd(report: HerdReport, options: NoHerdOptions = {}): void {
  const problems = problemsOf(report, options);
  if (problems.load.length + problems.goodput.length > 0)
    throw new HerdAssertionError(
      `${headline(problems)}:\n${[...problems.load, ...problems.goodput].join('\n')}\n\n${formatHerd(report)}`,
      report,
    );
}
