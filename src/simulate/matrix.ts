import { xml } from './chart';
import { type OverloadFigures, type OverloadOptions, simulateOverload, simulatePartial } from './overload';
import { table } from './report';
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
  readonly instances?: readonly number[] | undefined;
  /** The kinds of trouble, the rows. Default {@link MATRIX_TROUBLES}. */
  readonly troubles?: readonly MatrixTrouble[] | undefined;
  /** Strategies compared in every cell. Default `no-retries`, `plain`, `full+budget`, `full+breaker`, `recommended`. */
  readonly strategies?: readonly Strategy[] | undefined;
  /** How long each run goes on after the trouble, in ms. Default 30,000 (recovery is measured within it). */
  readonly afterMs?: number | undefined;
  /** The seed. Default 1. */
  readonly seed?: number | undefined;
  /**
   * The status of the shed answer in the rows with a queue limit: `503` (bare, the default) or `429` (the server says
   * it is saturated). See `OverloadOptions.shedStatus`.
   */
  readonly shedStatus?: 503 | 429 | undefined;
  /** Called after each cell with how many are done. */
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
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
  /** The status of the shed answer in the rows with a queue limit (503 or 429). */
  readonly shedStatus: 503 | 429;
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
  const shedStatus = options.shedStatus ?? 503;
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
        shedStatus,
      };
      const { results } =
        trouble.scenario === 'partial'
          ? simulatePartial({ ...common, failureRate: trouble.failureRate })
          : simulateOverload({ ...common, outage: trouble.scenario === 'outage' });
      cells.push({ ...trouble, instances: n, results: results.map(figures) });
      options.onProgress?.(cells.length, total);
    }
  }
  return { scenario: 'matrix', seed, shedStatus, cells };
}

/** A run's figures as the matrix (and the explore scenario) keep them. */
export function figures(r: OverloadFigures): MatrixFigures {
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

/** A cell's trouble in a few characters: `overload`, `overload 1s`, `outage`, `partial 20% @0.5`. */
export function troubleName(t: MatrixTrouble): string {
  if (t.scenario === 'partial') return `partial ${+(t.failureRate * 100).toFixed(2)}% @${t.load}`;
  if (t.scenario === 'overload') return t.queueLimit === null ? 'overload' : `overload ${t.queueLimit / 1_000}s`;
  return 'outage';
}

const pct = (x: number) => `${Math.round(x * 100)}`;
const secs = (ms: number | null) => (ms === null ? 'never' : `${Math.round(ms / 1_000)}s`);

/**
 * The matrix as a compact terminal table: a row per kind of trouble and fleet size; for each strategy, goodput during
 * the trouble (%) and recovery (s). The last column says whether `recommended` (when compared) met every goal there:
 * `ok`, or which it missed (safe, benefit, quiet).
 */
export function matrixTable(result: MatrixResult): string {
  const strategies = result.cells[0]?.results.map((r) => r.strategy) ?? [];
  const verdicts = strategies.includes('recommended')
    ? matrixVerdicts(result).filter((v) => v.strategy === 'recommended')
    : [];
  const rows: string[][] = [['trouble', 'inst.', ...strategies, ...(verdicts.length ? ['goals'] : [])]];
  result.cells.forEach((cell, i) => {
    const v = verdicts[i];
    const missed = v ? [!v.safe && 'safety', v.beneficial === false && 'benefit', v.quiet === false && 'sporadic'] : [];
    const goals = missed.some(Boolean) ? `missed ${missed.filter(Boolean).join(',')}` : 'ok';
    rows.push([
      troubleName(cell),
      String(cell.instances),
      ...cell.results.map((r) => `${pct(r.goodputDuring)}% ${secs(r.recoveryMs)}`),
      ...(v ? [goals] : []),
    ]);
  });
  const legend = verdicts.length
    ? "\ngoals, for recommended: safety (goodput within 5 points of no-retries', recovery within 3 s of it), benefit\n" +
      "(partial failures at load 0.5: within 10 points of plain's), sporadic (partial 2%: nothing refused, at most 10%\n" +
      "more load than no-retries')"
    : '';
  return `goodput during the trouble, and recovery after it, per strategy\n${table(rows)}${legend}`;
}

/**
 * The matrix as a self-contained SVG heat map: a row per kind of trouble, a column per fleet size and strategy, each
 * cell coloured by its goodput during the trouble against the better of the two references there (`no-retries` and
 * `plain`): green at or above it, through yellow, to red 30 points or more below; its figure written in it.
 */
export function matrixSvg(result: MatrixResult): string {
  const troubles = [...new Map(result.cells.map((c) => [troubleName(c), c])).keys()];
  const fleets = [...new Set(result.cells.map((c) => c.instances))];
  const strategies = result.cells[0]?.results.map((r) => r.strategy) ?? [];
  const [cw, ch, left, top] = [44, 22, 130, 86];
  const groupW = strategies.length * cw + 12;
  const W = left + fleets.length * groupW + 20;
  const H = top + troubles.length * ch + 60;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="10" y="20" font-size="15" font-weight="bold">Goodput during the trouble, by strategy and fleet size (seed ${result.seed})</text>`,
    `<text x="10" y="38" fill="#555">colour: against the better of no-retries and plain in the cell (green: as good or better; red: 30 points or more below)</text>`,
  ];
  fleets.forEach((n, g) => {
    const x0 = left + g * groupW;
    out.push(
      `<text x="${x0 + (strategies.length * cw) / 2}" y="${top - 30}" text-anchor="middle" font-weight="bold">${n} instance${n === 1 ? '' : 's'}</text>`,
    );
    strategies.forEach((s, k) => {
      const x = x0 + k * cw + cw / 2;
      out.push(
        `<text x="${x}" y="${top - 8}" text-anchor="end" transform="rotate(-35 ${x} ${top - 8})" font-size="9">${xml(s)}</text>`,
      );
    });
  });
  troubles.forEach((name, row) => {
    const y = top + row * ch;
    out.push(`<text x="${left - 8}" y="${y + 15}" text-anchor="end">${xml(name)}</text>`);
    fleets.forEach((n, g) => {
      const cell = result.cells.find((c) => troubleName(c) === name && c.instances === n);
      if (!cell) return;
      const best = Math.max(
        ...cell.results
          .filter((r) => r.strategy === 'no-retries' || r.strategy === 'plain')
          .map((r) => r.goodputDuring),
      );
      cell.results.forEach((r, k) => {
        const x = left + g * groupW + k * cw;
        const fill = shade(Number.isFinite(best) ? r.goodputDuring - best : 0);
        out.push(`<rect x="${x}" y="${y}" width="${cw - 2}" height="${ch - 2}" fill="${fill}"/>`);
        out.push(`<text x="${x + cw / 2 - 1}" y="${y + 15}" text-anchor="middle">${pct(r.goodputDuring)}</text>`);
      });
    });
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** Green at 0 or above, yellow at -15 points, red at -30 or below. */
function shade(delta: number): string {
  const t = Math.max(0, Math.min(1, -delta / 0.3));
  const [r, g] = t < 0.5 ? [Math.round(120 + 270 * t), 200] : [235, Math.round(200 - 260 * (t - 0.5))];
  return `rgb(${r},${g},110)`;
}
