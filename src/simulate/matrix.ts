import { type OverloadFigures, type OverloadOptions, simulateOverload, simulatePartial } from './overload';
import type { Strategy } from './strategies';

/** One kind of trouble in the matrix: a row of it. */
export interface MatrixTrouble {
  /** `'overload'` (a 4 s slowdown to 10%), `'outage'` (4 s of fast 503s) or `'partial'` (a share of 503s for 30 s). */
  readonly scenario: 'overload' | 'outage' | 'partial';
  /** The demand, as a share of capacity. */
  readonly load: number;
  /** The share of served requests that fail during the trouble (partial), else 0. */
  readonly failureRate: number;
  /** The server's queue limit, in ms; null for an unbounded queue. */
  readonly queueLimit: number | null;
}

/** What {@link simulateMatrix} accepts; every field is optional. */
export interface MatrixOptions {
  /** The fleet sizes, the columns. Default 1, 10, 100, 1,000, 10,000. */
  readonly instances?: readonly number[];
  /** The kinds of trouble, the rows. Default {@link MATRIX_TROUBLES}. */
  readonly troubles?: readonly MatrixTrouble[];
  /** Strategies compared in every cell. Default `no-retries`, `plain`, `full+budget`, `full+breaker`, `recommended`. */
  readonly strategies?: readonly Strategy[];
  /** How long each run goes on after the trouble, in ms. Default 30,000 (recovery is measured within it). */
  readonly afterMs?: number;
  /** The seed. Default 1. */
  readonly seed?: number;
  /** Called after each cell with how many are done. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** One strategy's figures in one cell of the matrix. */
export interface MatrixFigures {
  readonly strategy: string;
  /** The share of all logical requests that succeeded, over the run. */
  readonly goodput: number;
  /** The share of the logical requests begun during the trouble that succeeded. */
  readonly goodputDuring: number;
  /** Offered load over capacity from the trouble's start to the run's end. */
  readonly amplification: number;
  /** From the trouble's end until goodput is back to 95% for 5 s in a row, in ms; null when never within the run. */
  readonly recoveryMs: number | null;
  /** Calls the breaker refused outright plus retries the budget or the breaker refused. */
  readonly refused: number;
}

/** One cell: a kind of trouble at one fleet size, and each strategy's figures there. */
export interface MatrixCell extends MatrixTrouble {
  readonly instances: number;
  readonly results: readonly MatrixFigures[];
}

/** What {@link simulateMatrix} returns. */
export interface MatrixResult {
  readonly scenario: 'matrix';
  readonly seed: number;
  readonly cells: readonly MatrixCell[];
}

/** The matrix's rows: the overloads and the outage at 80% load, the partial failures at 50% and 80%. */
export const MATRIX_TROUBLES: readonly MatrixTrouble[] = [
  { scenario: 'overload', load: 0.8, failureRate: 0, queueLimit: null },
  { scenario: 'overload', load: 0.8, failureRate: 0, queueLimit: 1_000 },
  { scenario: 'outage', load: 0.8, failureRate: 0, queueLimit: null },
  ...[0.02, 0.2, 0.5].flatMap((failureRate) =>
    [0.5, 0.8].map((load) => ({ scenario: 'partial' as const, load, failureRate, queueLimit: null })),
  ),
];

/** The matrix's default strategies: the two references, each part alone, and the recommended setup. */
export const MATRIX_STRATEGIES = [
  'no-retries',
  'plain',
  'full+budget',
  'full+breaker',
  'recommended',
] as const satisfies readonly Strategy[];

/**
 * The protection matrix: every strategy in every kind of trouble at every fleet size, the demand split over the
 * instances, each with its own budget and breaker (see `instances` in {@link simulateOverload}). The overload and
 * partial scenarios' numbers (capacity 1,000/s, a 1 s attempt timeout, 3 attempts). Choose it to check that a
 * protection is never worse than not retrying, keeps the benefit of retrying where the server has room, and does both
 * whatever the number of processes that call the dependency; {@link matrixVerdicts} checks exactly that.
 *
 * @example
 * ```ts
 * import { simulateMatrix } from 'herdless/simulate';
 * const { cells } = simulateMatrix({ instances: [1, 100], strategies: ['no-retries', 'recommended'] });
 * console.log(cells.length); // 18
 * ```
 */
export function simulateMatrix(options: MatrixOptions = {}): MatrixResult {
  const instances = options.instances ?? [1, 10, 100, 1_000, 10_000];
  const troubles = options.troubles ?? MATRIX_TROUBLES;
  const strategies = options.strategies ?? MATRIX_STRATEGIES;
  const seed = options.seed ?? 1;
  const afterMs = options.afterMs ?? 30_000;
  const cells: MatrixCell[] = [];
  const total = instances.length * troubles.length;
  for (const trouble of troubles) {
    for (const n of instances) {
      const common: OverloadOptions = {
        load: trouble.load,
        instances: n,
        afterMs,
        seed,
        strategies,
        queueLimitMs: trouble.queueLimit ?? Infinity,
      };
      const { results } =
        trouble.scenario === 'partial'
          ? simulatePartial({ ...common, failureRate: trouble.failureRate })
          : simulateOverload({ ...common, outage: trouble.scenario === 'outage' });
      cells.push({ ...trouble, instances: n, results: results.map(figures) });
      options.onProgress?.(cells.length, total);
    }
  }
  return { scenario: 'matrix', seed, cells };
}

function figures(r: OverloadFigures): MatrixFigures {
  return {
    strategy: r.strategy,
    goodput: r.goodput,
    goodputDuring: r.goodputDuring,
    amplification: r.amplification,
    recoveryMs: r.recoveryMs,
    refused: r.refused + r.budgetStops,
  };
}

/** How one strategy fares against the goals in one cell (see {@link matrixVerdicts}). */
export interface MatrixVerdict extends MatrixTrouble {
  readonly instances: number;
  readonly strategy: string;
  /** Goodput during the trouble at least no-retries' minus 5 points, and recovery at most no-retries' plus 3 s. */
  readonly safe: boolean;
  /**
   * Where plain retries do not overload the server (partial failure at load 0.5): goodput during the trouble at
   * least plain's minus 10 points; null in the other cells.
   */
  readonly beneficial: boolean | null;
  /** Partial 2% (sporadic) only: refuses nothing and adds at most 10% load over no-retries'; null elsewhere. */
  readonly quiet: boolean | null;
}

/** A recovery as a number, never being Infinity. */
const recovery = (ms: number | null) => (ms === null ? Infinity : ms);

/**
 * Each strategy's verdict in each cell against the goals a protection must meet: safe (never worse than not
 * retrying), beneficial (keeps what retrying is for where the server has room), quiet (no refusals and at most 10%
 * added load when failures are sporadic). Needs `no-retries` and `plain` among the strategies.
 */
export function matrixVerdicts(result: MatrixResult): MatrixVerdict[] {
  const out: MatrixVerdict[] = [];
  for (const cell of result.cells) {
    const none = cell.results.find((r) => r.strategy === 'no-retries');
    const plain = cell.results.find((r) => r.strategy === 'plain');
    if (!none || !plain) throw new RangeError('herdless: matrixVerdicts needs no-retries and plain in every cell');
    const { results, ...where } = cell;
    for (const r of results) {
      const safe =
        r.goodputDuring >= none.goodputDuring - 0.05 && recovery(r.recoveryMs) <= recovery(none.recoveryMs) + 3_000;
      const roomy = cell.scenario === 'partial' && cell.load <= 0.5;
      const sporadic = cell.scenario === 'partial' && cell.failureRate <= 0.02;
      out.push({
        ...where,
        strategy: r.strategy,
        safe,
        beneficial: roomy ? r.goodputDuring >= plain.goodputDuring - 0.1 : null,
        quiet: sporadic ? r.refused === 0 && r.amplification <= none.amplification * 1.1 : null,
      });
    }
  }
  return out;
}
