import { describe, expect, it } from 'vitest';
import { USAGE } from '../src/cli';
import { runCli } from './cli-helpers';

/**
 * Every flag of every scenario reaches the run (issue 19: the command's overload scenario once ignored `--seed`,
 * `--max-attempts` and `--load`, and contention `--seed`, while the tests checked only that the flags were
 * validated). Each row gives a flag a value other than the base run's; the run's results must differ from the base
 * run's, and the settings the library echoes must hold the value. The table must list every flag a scenario
 * accepts: a flag added to the command and not here fails the completeness test below.
 */

/** `herdless simulate ...args`, in-process. */
const run = (...args: string[]) => runCli('simulate', ...args);

interface Row {
  /** The flag and its value (none for a boolean flag). */
  readonly args: readonly string[];
  /**
   * Flags given to both runs, the base and the flagged (for a flag that shows only with them: instances change
   * nothing for clients without a budget or a breaker, since only those are per instance).
   */
  readonly on?: readonly string[];
  /** What the JSON's settings must hold then (those the flag sets). */
  readonly settings?: Record<string, unknown>;
  /** The strategy names the run must have then (for the flags that change them). */
  readonly strategies?: readonly string[];
}

/** Small, fast base runs: each row adds one flag to its scenario's. */
const SCENARIOS: Record<string, { base: readonly string[]; rows: readonly Row[] }> = {
  outage: {
    base: ['--clients', '50', '--strategies', 'full'],
    rows: [
      { args: ['--clients', '60'], settings: { clients: 60 } },
      { args: ['--outage', '2s'], settings: { outageMs: 2_000 } },
      { args: ['--capacity', '10/50ms'], settings: { capacity: 10, capacityWindowMs: 50 } },
      { args: ['--max-attempts', '3'], settings: { maxAttempts: 3 } },
      { args: ['--timeout', '3s'], settings: { timeoutMs: 3_000 } },
      { args: ['--retry-after', '2s'], settings: { retryAfterMs: 2_000 }, strategies: ['full', 'full*'] },
      { args: ['--budget'], strategies: ['full+budget'] },
      { args: ['--breaker'], strategies: ['full+breaker'] },
      { args: ['--strategies', 'fixed'], strategies: ['fixed'] },
      { args: ['--instances', '2'], on: ['--strategies', 'full+breaker'], settings: { instances: 2 } },
      { args: ['--seed', '2'], settings: { seed: 2 } },
    ],
  },
  contention: {
    base: ['--scenario', 'contention', '--clients', '5', '--runs', '2', '--strategies', 'full'],
    rows: [
      { args: ['--clients', '6,7'], settings: { clients: [6, 7] } },
      { args: ['--runs', '3'], settings: { runs: 3 } },
      { args: ['--strategies', 'equal'], strategies: ['equal'] },
      { args: ['--seed', '2'], settings: { seed: 2 } },
    ],
  },
  overload: {
    base: ['--scenario', 'overload', '--capacity', '100/1s', '--strategies', 'full'],
    rows: [
      { args: ['--capacity', '150/1s'], settings: { capacity: 150 } },
      { args: ['--outage', '2s'], settings: { outage: true, slowdownMs: 2_000 } },
      { args: ['--slowdown', '2s'], settings: { outage: false, slowdownMs: 2_000 } },
      { args: ['--max-attempts', '2'], settings: { maxAttempts: 2 } },
      { args: ['--queue-limit', '1s'], settings: { queueLimitMs: 1_000 } },
      {
        args: ['--shed', '429'],
        on: ['--queue-limit', '1s', '--load', '3', '--budget'],
        settings: { shedStatus: 429 },
      },
      { args: ['--load', '0.5'], settings: { load: 0.5 } },
      { args: ['--budget'], strategies: ['full+budget'] },
      { args: ['--breaker'], strategies: ['full+breaker'] },
      { args: ['--strategies', 'fixed'], strategies: ['fixed'] },
      { args: ['--instances', '2'], on: ['--strategies', 'full+breaker'], settings: { instances: 2 } },
      { args: ['--seed', '2'], settings: { seed: 2 } },
    ],
  },
  partial: {
    base: ['--scenario', 'partial', '--capacity', '100/1s', '--strategies', 'full'],
    rows: [
      { args: ['--capacity', '150/1s'], settings: { capacity: 150 } },
      { args: ['--failure-rate', '0.2'], settings: { failureRate: 0.2 } },
      { args: ['--duration', '10s'], settings: { slowdownMs: 10_000 } },
      { args: ['--max-attempts', '2'], settings: { maxAttempts: 2 } },
      { args: ['--queue-limit', '1s'], settings: { queueLimitMs: 1_000 } },
      {
        args: ['--shed', '429'],
        on: ['--queue-limit', '1s', '--load', '3', '--budget'],
        settings: { shedStatus: 429 },
      },
      { args: ['--load', '0.5'], settings: { load: 0.5 } },
      { args: ['--budget'], strategies: ['full+budget'] },
      { args: ['--breaker'], strategies: ['full+breaker'] },
      { args: ['--strategies', 'fixed'], strategies: ['fixed'] },
      { args: ['--instances', '2'], on: ['--strategies', 'full+breaker'], settings: { instances: 2 } },
      { args: ['--seed', '2'], settings: { seed: 2 } },
    ],
  },
  matrix: {
    // The grid is fixed (9 cells a fleet size): one fleet size and the two references keep a run to about 3 s.
    base: ['--scenario', 'matrix', '--instances', '1', '--strategies', 'no-retries,plain'],
    rows: [
      // Echoed in every cell: the references' figures do not depend on the fleet (they have no budget or breaker).
      { args: ['--instances', '10'], settings: { instances: [10] } },
      { args: ['--strategies', 'no-retries,plain,recommended'], strategies: ['no-retries', 'plain', 'recommended'] },
      { args: ['--seed', '2'], settings: { seed: 2 } },
      {
        args: ['--shed', '429'],
        on: ['--strategies', 'no-retries,plain,recommended'],
        settings: { shedStatus: 429 },
      },
    ],
  },
  explore: {
    // Cells drawn by seed: one cell and the two references keep a run short.
    base: ['--scenario', 'explore', '--cells', '1', '--strategies', 'no-retries,plain'],
    rows: [
      { args: ['--cells', '2'] },
      { args: ['--range', 'evaluation'] },
      { args: ['--from', '1'] },
      { args: ['--strategies', 'no-retries,plain,recommended'], strategies: ['no-retries', 'plain', 'recommended'] },
    ],
  },
  hedge: {
    base: ['--scenario', 'hedge', '--strategies', 'no-hedge,hedge'],
    rows: [
      { args: ['--instances', '10'], settings: { instances: 10 } },
      { args: ['--load', '0.5'], settings: { load: 0.5 } },
      { args: ['--tail', '0.02'], settings: { slowShare: 0.02 } },
      { args: ['--slowdown', '10s'], settings: { slowdownMs: 10_000 } },
      { args: ['--strategies', 'no-hedge,unbounded'], strategies: ['no-hedge', 'unbounded'] },
      { args: ['--seed', '2'], settings: { seed: 2 } },
    ],
  },
};

/** The scenarios that draw no chart: --svg is not theirs. */
const NO_SVG = ['contention', 'explore', 'hedge'];

/** The flags that shape the output rather than the run: checked on their own below. */
const OUTPUT_FLAGS = ['--json', '--svg'];

/**
 * The run's JSON: its settings, the strategies it compared, and its figures without the strategies' names (so a row
 * must change figures, not only names). The matrix has cells instead of results, its seed and fleet sizes in them.
 */
function json(args: readonly string[]) {
  const svg = !NO_SVG.some((name) => args.includes(name));
  const { code, out, err, files } = run(...args, '--json', ...(svg ? ['--svg', 'run.svg'] : []));
  expect({ code, err }).toEqual({ code: 0, err: '' });
  type Results = { strategy: string; [figure: string]: unknown }[];
  const parsed = JSON.parse(out) as {
    settings?: Record<string, unknown>;
    seed?: number;
    shedStatus?: number;
    results?: Results;
    cells?: { instances: number; results: Results; [field: string]: unknown }[];
  };
  const results = parsed.results ?? parsed.cells?.flatMap((c) => c.results) ?? [];
  const nameless = (r: Results) => r.map(({ strategy: _, ...figures }) => figures);
  return {
    settings: parsed.settings ?? {
      seed: parsed.seed,
      shedStatus: parsed.shedStatus,
      instances: [...new Set(parsed.cells?.map((c) => c.instances))],
    },
    strategies: [...new Set(results.map((r) => r.strategy))],
    figures: JSON.stringify(parsed.cells?.map((c) => ({ ...c, results: nameless(c.results) })) ?? nameless(results)),
    svg: files.get('run.svg'),
  };
}

/** The base run's flags with the row's flag added, or in place of the base's value of it (a flag is given once). */
function withFlag(base: readonly string[], args: readonly string[]): string[] {
  const at = base.indexOf(args[0] as string);
  if (at === -1) return [...base, ...args];
  const hasValue = at + 1 < base.length && !(base[at + 1] as string).startsWith('--');
  return [...base.slice(0, at), ...args, ...base.slice(at + (hasValue ? 2 : 1))];
}

/** Each scenario's base run, and its run with each row's flag, once (the matrix takes seconds a run). */
const runs = new Map<string, ReturnType<typeof json>>();
const once = (args: readonly string[]) => {
  const key = args.join(' ');
  if (!runs.has(key)) runs.set(key, json(args));
  return runs.get(key) as ReturnType<typeof json>;
};

describe.each(Object.entries(SCENARIOS))('herdless simulate --scenario %s: every flag reaches the run', (_, s) => {
  it.each(s.rows.map((row) => [row.args.join(' '), row] as const))('%s', (_, row) => {
    const base = once(withFlag(s.base, row.on ?? []));
    const flagged = once(withFlag(withFlag(s.base, row.on ?? []), row.args));
    expect(flagged.figures).not.toBe(base.figures);
    if (row.settings) expect(flagged.settings).toMatchObject(row.settings);
    if (row.strategies) expect(flagged.strategies).toEqual(row.strategies);
  });
});

describe('herdless simulate: the flags table is complete', () => {
  /** Every flag USAGE names, but help and version. */
  const documented = [...new Set(USAGE.match(/--[a-z][a-z-]+/g) ?? [])].filter(
    (f) => f !== '--help' && f !== '--version',
  );
  const tested = (scenario: string) =>
    new Set([...(SCENARIOS[scenario]?.rows ?? []).map((r) => r.args[0] as string), '--scenario', ...OUTPUT_FLAGS]);

  it('every documented flag is in the table of each scenario that accepts it, and refused by the others', () => {
    expect(documented.length).toBeGreaterThan(15);
    for (const scenario of Object.keys(SCENARIOS)) {
      for (const flag of documented.filter((f) => !tested(scenario).has(f))) {
        // Not in this scenario's table: the command must refuse it there (a value that would be valid elsewhere).
        const value = Object.values(SCENARIOS)
          .flatMap((x) => x.rows)
          .find((r) => r.args[0] === flag)
          ?.args.slice(1);
        const { code, err } = run('--scenario', scenario, flag, ...(value ?? []));
        expect({ scenario, flag, code }).toEqual({ scenario, flag, code: 2 });
        expect(err).toMatch(new RegExp(`^herdless: ${flag} is for the .* only, not ${scenario}`));
      }
    }
  });
});

describe('herdless simulate: the output flags', () => {
  it.each(Object.entries(SCENARIOS))('--scenario %s: --json prints the run as JSON, else a table', (name, s) => {
    const text = run(...withFlag(s.base, NO_SVG.includes(name) ? [] : ['--svg', 'text.svg']));
    expect(text.code).toBe(0);
    expect(() => JSON.parse(text.out)).toThrow();
    expect(text.out).toMatch(/^[\w ]+: /); // the scenario's heading
    if (!NO_SVG.includes(name)) expect(text.out).toContain('wrote text.svg');
    expect(once(s.base).figures).toMatch(/^\[\{"/); // --json: parsed, with its figures
  });

  it.each(Object.entries(SCENARIOS).filter(([name]) => !NO_SVG.includes(name)))(
    '--scenario %s: --svg writes the chart of this run',
    (_, s) => {
      const base = once(s.base).svg;
      expect(base).toMatch(/^<svg /);
      expect(once(withFlag(s.base, ['--seed', '2'])).svg).not.toBe(base); // the run's own figures, not a fixed picture
    },
  );
});
