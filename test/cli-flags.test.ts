import { describe, expect, it } from 'vitest';
import { main, USAGE } from '../src/cli';

/**
 * Every flag of every scenario reaches the run (issue 19: the command's overload scenario once ignored `--seed`,
 * `--max-attempts` and `--load`, and contention `--seed`, while the tests checked only that the flags were
 * validated). Each row gives a flag a value other than the base run's; the run's results must differ from the base
 * run's, and the settings the library echoes must hold the value. The table must list every flag a scenario
 * accepts: a flag added to the command and not here fails the completeness test below.
 */

function run(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const files = new Map<string, string>();
  const code = main(['simulate', ...args], {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    errIsTTY: false,
    writeFile: (path, text) => files.set(path, text),
  });
  return { code, out: out.join(''), err: err.join(''), files };
}

interface Row {
  /** The flag and its value (none for a boolean flag). */
  readonly args: readonly string[];
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
      { args: ['--load', '0.5'], settings: { load: 0.5 } },
      { args: ['--budget'], strategies: ['full+budget'] },
      { args: ['--breaker'], strategies: ['full+breaker'] },
      { args: ['--strategies', 'fixed'], strategies: ['fixed'] },
      { args: ['--seed', '2'], settings: { seed: 2 } },
    ],
  },
};

/** The flags that shape the output rather than the run: checked on their own below. */
const OUTPUT_FLAGS = ['--json', '--svg'];

/** The run's JSON: its settings, and its results without their names (so a row must change figures, not only names). */
function json(args: readonly string[]) {
  const { code, out, err } = run(...args, '--json');
  expect({ code, err }).toEqual({ code: 0, err: '' });
  const parsed = JSON.parse(out) as {
    settings: Record<string, unknown>;
    results: { strategy: string; [figure: string]: unknown }[];
  };
  return {
    settings: parsed.settings,
    strategies: parsed.results.map((r) => r.strategy),
    figures: JSON.stringify(parsed.results.map(({ strategy: _, ...figures }) => figures)),
  };
}

/** The base run's flags with the row's flag added, or in place of the base's value of it (a flag is given once). */
function withFlag(base: readonly string[], args: readonly string[]): string[] {
  const at = base.indexOf(args[0] as string);
  if (at === -1) return [...base, ...args];
  const hasValue = at + 1 < base.length && !(base[at + 1] as string).startsWith('--');
  return [...base.slice(0, at), ...args, ...base.slice(at + (hasValue ? 2 : 1))];
}

describe.each(Object.entries(SCENARIOS))('herdless simulate --scenario %s: every flag reaches the run', (_, s) => {
  const base = json(s.base);

  it.each(s.rows.map((row) => [row.args.join(' '), row] as const))('%s', (_, row) => {
    const flagged = json(withFlag(s.base, row.args));
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
  it.each(Object.entries(SCENARIOS))('--scenario %s --json prints the run as JSON, not the table', (_, s) => {
    const text = run(...s.base);
    const asJson = run(...s.base, '--json');
    expect(text.code).toBe(0);
    expect(() => JSON.parse(text.out)).toThrow();
    expect(JSON.parse(asJson.out)).toHaveProperty('results');
  });

  it.each(Object.entries(SCENARIOS).filter(([name]) => name !== 'contention'))(
    '--scenario %s --svg writes the chart of this run',
    (_, s) => {
      const a = run(...s.base, '--svg', 'a.svg');
      const b = run(...withFlag(s.base, ['--seed', '2']), '--svg', 'b.svg');
      expect(a.code).toBe(0);
      expect(a.out).toContain('wrote a.svg');
      expect(a.files.get('a.svg')).toMatch(/^<svg /);
      expect(b.files.get('b.svg')).not.toBe(a.files.get('a.svg')); // the run's own load, not a fixed picture
    },
  );
});
