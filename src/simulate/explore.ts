import { figures, type MatrixFigures } from './matrix';
import { type OverloadOptions, simulateOverload } from './overload';
import { table } from './report';
import { createRng } from './rng';
import type { Strategy } from './strategies';

/**
 * The kinds of trouble {@link simulateExplore} draws:
 * - `outage`: every request fails with a fast 503;
 * - `hang`: the server answers nothing; every attempt runs to its timeout;
 * - `slowdown`: the FIFO server's capacity drops (to 5-70%), its queue unbounded;
 * - `shed`: the same slowdown, with a queue limit over which the server sheds with a fast 503 or a 429;
 * - `partial`: the server fails 1-95% of what it serves (a fast 503 after its turn) while it has room;
 * - `latency`: answers are late (exponential, a mean of 0.2-1.5 attempt timeouts) at no cost to the server;
 * - `flapping`: an outage that comes and goes every 0.5-5 s;
 * - `metastable`: Brooker's server, whose latency grows with the requests in flight, and a demand spike of 1.5-3x;
 * - `spike`: the FIFO server at full capacity, and a demand spike of 1.3-3x.
 */
export const TROUBLE_KINDS = [
  'outage',
  'hang',
  'slowdown',
  'shed',
  'partial',
  'latency',
  'flapping',
  'metastable',
  'spike',
] as const;

/** A kind of trouble (see {@link TROUBLE_KINDS}). */
export type TroubleKind = (typeof TROUBLE_KINDS)[number];

/**
 * The seed ranges: cells of the development range (seeds 1 to 1,000,000) are the ones to look at and tune on; cells of
 * the evaluation range (seeds 1,000,001 to 2,000,000) are the ones to report, drawn from the same space and never
 * tuned on.
 */
export const EXPLORE_RANGES = { development: 1, evaluation: 1_000_001 } as const;

/** How many cells each range holds: `from + cells` stays within it, so the two never meet. */
const RANGE_SIZE = EXPLORE_RANGES.evaluation - EXPLORE_RANGES.development;

/** What {@link simulateExplore} accepts; every field is optional. */
export interface ExploreOptions {
  /** How many cells to draw. Default 200. */
  readonly cells?: number | undefined;
  /** Which seed range the cells come from (see {@link EXPLORE_RANGES}). Default `'development'`. */
  readonly range?: keyof typeof EXPLORE_RANGES | undefined;
  /** The first cell's index in the range (to run a slice of it); `from + cells` at most 1,000,000. Default 0. */
  readonly from?: number | undefined;
  /** Strategies compared in every cell; `no-retries` and `plain` are the references. Default those and `recommended`. */
  readonly strategies?: readonly Strategy[] | undefined;
  /** Only cells of these kinds (the others are drawn and skipped, so a cell's seed stays its own). Default all. */
  readonly kinds?: readonly TroubleKind[] | undefined;
  /** Called after each cell with how many are done. */
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
}

/** One drawn cell: its kind, its seed, the scenario's settings drawn for it, and each strategy's figures there. */
export interface ExploreCell {
  readonly kind: TroubleKind;
  /** The seed the cell was drawn from, and its simulation runs on. */
  readonly seed: number;
  /** Client instances the demand is split over (1 to 10,000). */
  readonly instances: number;
  /** Whether users re-issue a call that gave up (closed-loop demand). */
  readonly closedLoop: boolean;
  /** The settings drawn (the overload scenario's options; see `OverloadOptions`). */
  readonly settings: Readonly<Record<string, number | boolean>>;
  readonly results: readonly MatrixFigures[];
}

/** What {@link simulateExplore} returns. */
export interface ExploreResult {
  readonly scenario: 'explore';
  readonly range: keyof typeof EXPLORE_RANGES;
  readonly cells: readonly ExploreCell[];
}

/** A log-uniform draw in [lo, hi]. */
const logUniform = (u: number, lo: number, hi: number) => lo * (hi / lo) ** u;

/**
 * Draws one cell's settings from its seed: the trouble (kind, duration 1-60 s, its strength), the demand (load
 * 0.3-0.95 of a capacity of 200-2,000/s, open or closed-loop), the client (2-10 attempts, an attempt timeout of
 * 0.2-10 s, a base backoff of 50 ms-2 s, a deadline or none) and the fleet (1 to 10,000 instances). Pure: the same
 * seed gives the same cell.
 */
export function drawCell(seed: number): Pick<ExploreCell, 'kind' | 'seed' | 'instances' | 'closedLoop'> & {
  readonly settings: OverloadOptions;
} {
  const r = createRng(seed ^ 0x2f6b1d3);
  const u = () => r.next();
  const kind = TROUBLE_KINDS[Math.floor(u() * TROUBLE_KINDS.length)] as TroubleKind;
  const slowdownMs = Math.round(logUniform(u(), 1_000, 60_000));
  const load = 0.3 + 0.65 * u();
  const capacity = Math.round(logUniform(u(), 200, 2_000));
  const maxAttempts = 2 + Math.floor(u() * 9);
  const attemptTimeoutMs = Math.round(logUniform(u(), 200, 10_000));
  const baseMs = Math.round(logUniform(u(), 50, 2_000));
  const deadline = u() < 0.5;
  const timeoutMs = deadline ? Math.round(attemptTimeoutMs * logUniform(u(), 1.5, 6)) : undefined;
  const closedLoop = u() < 0.3;
  const reissueMs = closedLoop ? Math.round(logUniform(u(), 500, 3_000)) : undefined;
  const instances = Math.max(1, Math.round(logUniform(u(), 1, 10_000)));
  const strength = u();
  const trouble: OverloadOptions = (() => {
    switch (kind) {
      case 'outage':
        return { outage: true };
      case 'hang':
        return { hang: true };
      case 'slowdown':
        return { slowdownCapacity: 0.05 + 0.65 * strength };
      case 'shed':
        return {
          slowdownCapacity: 0.05 + 0.65 * strength,
          queueLimitMs: Math.round(attemptTimeoutMs * logUniform(u(), 0.1, 1)),
          shedStatus: u() < 0.5 ? 503 : 429,
        };
      case 'partial':
        return { slowdownCapacity: 1, failureRate: 0.01 + 0.94 * strength };
      case 'latency':
        return { slowdownCapacity: 1, addedLatencyMs: Math.round(attemptTimeoutMs * (0.2 + 1.3 * strength)) };
      case 'flapping':
        return { outage: true, flapMs: Math.round(logUniform(strength, 500, 5_000)) };
      case 'metastable':
        return {
          slowdownCapacity: 1,
          concurrencyBaseMs: Math.round(attemptTimeoutMs * (0.1 + 0.3 * u())),
          demandSpike: 1.5 + 1.5 * strength,
        };
      default:
        return { slowdownCapacity: 1, demandSpike: 1.3 + 1.7 * strength };
    }
  })();
  return {
    kind,
    seed,
    instances,
    closedLoop,
    settings: {
      capacity,
      load,
      attemptTimeoutMs,
      maxAttempts,
      baseMs,
      slowdownMs,
      instances,
      afterMs: 30_000,
      seed,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(reissueMs === undefined ? {} : { reissueMs }),
      ...trouble,
    },
  };
}

/** The default strategies of {@link simulateExplore}: the two references and the recommended setup. */
export const EXPLORE_STRATEGIES = ['no-retries', 'plain', 'recommended'] as const satisfies readonly Strategy[];

/**
 * The scenario space: cells drawn by seed from every kind of trouble, duration, demand, client and fleet size, each
 * run for every strategy (see {@link drawCell}), to judge a protection on troubles it was not tuned on. Tune on the
 * `'development'` range; report the `'evaluation'` range, with {@link exploreVerdicts} and {@link exploreSummary}.
 * Choose it over the matrix (a fixed list of nine troubles, a regression check) to learn whether a setup holds in
 * general.
 *
 * @example
 * ```ts
 * import { exploreSummary, simulateExplore } from 'herdless/simulate';
 * console.log(exploreSummary(simulateExplore({ cells: 20, range: 'evaluation' })));
 * ```
 */
export function simulateExplore(options: ExploreOptions = {}): ExploreResult {
  const count = options.cells ?? 200;
  if (!(Number.isInteger(count) && count >= 1 && count <= 100_000))
    throw new RangeError(`herdless: cells must be an integer in [1, 100000], got ${String(count)}`);
  const range = options.range ?? 'development';
  if (!Object.hasOwn(EXPLORE_RANGES, range))
    throw new RangeError(`herdless: range must be 'development' or 'evaluation', got ${String(range)}`);
  const from = options.from ?? 0;
  if (!(Number.isInteger(from) && from >= 0 && from < RANGE_SIZE))
    throw new RangeError(`herdless: from must be an integer in [0, ${RANGE_SIZE - 1}], got ${String(from)}`);
  // The ranges must never meet: a development cell past the range's end would be an evaluation cell.
  if (from + count > RANGE_SIZE)
    throw new RangeError(
      `herdless: from + cells must be at most ${RANGE_SIZE} (a range's size), got ${from} + ${count}: the development range would run into the evaluation range`,
    );
  const strategies = options.strategies ?? EXPLORE_STRATEGIES;
  const kinds = options.kinds;
  const cells: ExploreCell[] = [];
  for (let i = 0; i < count; i++) {
    const drawn = drawCell(EXPLORE_RANGES[range] + from + i);
    if (kinds && !kinds.includes(drawn.kind)) continue;
    const { results } = simulateOverload({ ...drawn.settings, strategies });
    cells.push({
      kind: drawn.kind,
      seed: drawn.seed,
      instances: drawn.instances,
      closedLoop: drawn.closedLoop,
      settings: drawn.settings as Record<string, number | boolean>,
      results: results.map(figures),
    });
    options.onProgress?.(i + 1, count);
  }
  return { scenario: 'explore', range, cells };
}

/** One strategy's verdict in one drawn cell. */
export interface ExploreVerdict {
  readonly kind: TroubleKind;
  readonly seed: number;
  readonly instances: number;
  readonly closedLoop: boolean;
  readonly strategy: string;
  /** Goodput during the trouble at least no-retries' minus 5 points, and recovery at most no-retries' plus 3 s. */
  readonly safe: boolean;
  /** Where plain retries are safe: goodput during the trouble at least plain's minus 10 points; else null. */
  readonly beneficial: boolean | null;
}

const recovery = (ms: number | null) => (ms === null ? Number.POSITIVE_INFINITY : ms);

/**
 * Each strategy's verdict in each cell, by the matrix's rules: safe (never worse than not retrying: goodput during
 * within 5 points of no-retries', recovery within 3 s of it) and, where plain retries are themselves safe, beneficial
 * (goodput during within 10 points of plain's). Needs `no-retries` and `plain` among the strategies.
 */
export function exploreVerdicts(result: ExploreResult): ExploreVerdict[] {
  const out: ExploreVerdict[] = [];
  for (const cell of result.cells) {
    const none = cell.results.find((r) => r.strategy === 'no-retries');
    const plain = cell.results.find((r) => r.strategy === 'plain');
    if (!none || !plain) throw new RangeError('herdless: exploreVerdicts needs no-retries and plain in every cell');
    const safe = (r: MatrixFigures) =>
      r.goodputDuring >= none.goodputDuring - 0.05 && recovery(r.recoveryMs) <= recovery(none.recoveryMs) + 3_000;
    const plainSafe = safe(plain);
    for (const r of cell.results) {
      out.push({
        kind: cell.kind,
        seed: cell.seed,
        instances: cell.instances,
        closedLoop: cell.closedLoop,
        strategy: r.strategy,
        safe: safe(r),
        beneficial: plainSafe ? r.goodputDuring >= plain.goodputDuring - 0.1 : null,
      });
    }
  }
  return out;
}

/** The fleet-size bands of the summary: 1, 2-10, 11-100, 101-1,000, 1,001-10,000. */
const FLEETS = [1, 10, 100, 1_000, 10_000] as const;
const fleetBand = (n: number) => FLEETS.find((f) => n <= f) ?? 10_000;

/**
 * The share of cells in which each strategy is safe, and beneficial where plain is safe, per kind of trouble and per
 * fleet size, as a terminal table.
 */
export function exploreSummary(result: ExploreResult): string {
  const verdicts = exploreVerdicts(result);
  const bySeed = new Map(result.cells.map((c) => [c.seed, c.settings]));
  /** A cell's drawn setting (Infinity for one it was not given: no deadline). */
  const setting = (v: ExploreVerdict, name: string) => {
    const value = bySeed.get(v.seed)?.[name];
    return typeof value === 'number' ? value : Number.POSITIVE_INFINITY;
  };
  const strategies = [...new Set(verdicts.map((v) => v.strategy))];
  const share = (vs: readonly ExploreVerdict[], pick: (v: ExploreVerdict) => boolean | null) => {
    const judged = vs.filter((v) => pick(v) !== null);
    if (judged.length === 0) return '-';
    const yes = judged.filter((v) => pick(v)).length;
    return `${Math.round((100 * yes) / judged.length)}% (${yes}/${judged.length})`;
  };
  const groups: [string, (v: ExploreVerdict) => boolean][] = [
    ['all', () => true],
    ...TROUBLE_KINDS.map((k): [string, (v: ExploreVerdict) => boolean] => [k, (v) => v.kind === k]),
    ...FLEETS.map((f): [string, (v: ExploreVerdict) => boolean] => [
      `fleet <= ${f}`,
      (v) => fleetBand(v.instances) === f,
    ]),
    ['closed loop', (v) => v.closedLoop],
    ['2-3 attempts', (v) => setting(v, 'maxAttempts') <= 3],
    ['4-6 attempts', (v) => setting(v, 'maxAttempts') >= 4 && setting(v, 'maxAttempts') <= 6],
    ['7-10 attempts', (v) => setting(v, 'maxAttempts') >= 7],
    ['timeout < 1 s', (v) => setting(v, 'attemptTimeoutMs') < 1_000],
    ['timeout 1-3 s', (v) => setting(v, 'attemptTimeoutMs') >= 1_000 && setting(v, 'attemptTimeoutMs') <= 3_000],
    ['timeout > 3 s', (v) => setting(v, 'attemptTimeoutMs') > 3_000],
    ['a deadline', (v) => setting(v, 'timeoutMs') < Number.POSITIVE_INFINITY],
  ];
  const rows: string[][] = [['cells', ...strategies.flatMap((s) => [`${s} safe`, `${s} benefit`])]];
  for (const [name, pick] of groups) {
    const vs = verdicts.filter(pick);
    if (vs.length === 0) continue;
    rows.push([
      name,
      ...strategies.flatMap((s) => {
        const mine = vs.filter((v) => v.strategy === s);
        return [share(mine, (v) => v.safe), share(mine, (v) => v.beneficial)];
      }),
    ]);
  }
  return `explore: the ${result.range} range, ${result.cells.length} cells; safe: never worse than no retries (goodput during within 5 points, recovery within 3 s); benefit: within 10 points of plain where plain is safe\n${table(rows)}`;
}
