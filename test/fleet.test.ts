import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createPolicy } from '../src/index';
import {
  MATRIX_TROUBLES,
  type MatrixResult,
  matrixSvg,
  matrixTable,
  matrixVerdicts,
  type OverloadFigures,
  PRESETS,
  resolveStrategy,
  simulateMatrix,
  simulateOutage,
  simulateOverload,
  simulatePartial,
} from '../src/simulate/index';
import { ClientRetries } from '../src/simulate/retries';
import { protectedPolicy } from '../src/simulate/strategies';
import { runCli } from './cli-helpers';

type Settings = { settings: Record<string, number> };
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const byName = (results: readonly OverloadFigures[]) =>
  Object.fromEntries(results.map((r) => [r.strategy, r])) as Record<string, OverloadFigures>;

// A smaller server and a shorter story than the defaults keep these runs fast; the shapes are the same.
const small = { capacity: 200, durationMs: 10_000, afterMs: 15_000 } as const;

describe('simulatePartial: a dependency that fails part of what it serves while it has room', () => {
  const roomy = byName(simulatePartial({ ...small, load: 0.5 }).results);
  const loaded = byName(simulatePartial({ ...small, load: 0.8 }).results);

  it('names its scenario and settings, and compares the references and the recommended setup by default', () => {
    const result = simulatePartial(small);
    expect(result.scenario).toBe('partial');
    expect(result.settings).toMatchObject({ failureRate: 0.5, slowdownMs: 10_000, slowdownCapacity: 1, instances: 1 });
    expect(result.results.map((r) => r.strategy)).toEqual([
      'no-retries',
      'plain',
      'full+budget',
      'full+breaker',
      'recommended',
    ]);
  });

  it('with room, plain retries keep most calls (1 - 0.5^3), no retries half; recommended keeps what plain does', () => {
    expect(roomy['no-retries']?.goodputDuring).toBeCloseTo(0.5, 1);
    expect(roomy.plain?.goodputDuring).toBeCloseTo(0.875, 1);
    expect(roomy.recommended?.goodputDuring).toBeGreaterThanOrEqual((roomy.plain?.goodputDuring as number) - 0.1);
    expect(roomy.recommended?.refused).toBe(0);
  });

  it('at 80% load plain retries tip the server into overload; recommended stays at or above no retries', () => {
    expect(loaded.plain?.goodputDuring).toBeLessThan(loaded['no-retries']?.goodputDuring as number);
    expect(loaded.plain?.amplification).toBeGreaterThan(2 * (loaded['no-retries']?.amplification as number));
    expect(loaded.recommended?.goodputDuring).toBeGreaterThanOrEqual(
      (loaded['no-retries']?.goodputDuring as number) - 0.05,
    );
    expect(loaded.recommended?.recoveryMs).toBe(loaded['no-retries']?.recoveryMs);
  });

  it('failureRate 0 is a healthy server: every strategy succeeds alike', () => {
    const healthy = simulatePartial({ ...small, failureRate: 0, strategies: ['no-retries', 'plain'] }).results;
    for (const r of healthy) expect(r.goodputDuring).toBeGreaterThan(0.99);
  });

  it('bad settings are one clear RangeError each', () => {
    expect(() => simulatePartial({ failureRate: 1.5 })).toThrow(/failureRate must be a number in \[0, 1\], got 1.5/);
    expect(() => simulatePartial({ instances: 0 })).toThrow(/instances must be an integer >= 1, got 0/);
    expect(() => simulateOverload({ load: -1 })).toThrow(/load must be a finite number > 0, got -1/);
    expect(() => simulateOverload({ capacity: Number.NaN })).toThrow(/capacity must be a finite number > 0/);
    expect(() => simulateOutage({ instances: 1.5 })).toThrow(/instances must be an integer >= 1, got 1.5/);
  });
});

describe('the fleet: the demand split over instances, each with its own budget and breaker', () => {
  it('reports instances, and a strategy without state gives the same figures at every fleet size', () => {
    const one = simulateOverload({ ...small, strategies: ['no-retries'] });
    const many = simulateOverload({ ...small, instances: 1_000, strategies: ['no-retries'] });
    expect(many.settings.instances).toBe(1_000);
    expect(many.results[0]?.requests).toBe(one.results[0]?.requests);
    expect(many.results[0]?.goodput).toBe(one.results[0]?.goodput);
  });

  it('the budget is as safe at 100 instances as at 1: its rules read speeds and shares, not a reserve per process', () => {
    const strategies = ['no-retries', 'full+budget'] as const;
    for (const instances of [1, 100]) {
      const r = byName(simulateOverload({ ...small, instances, strategies: [...strategies] }).results);
      const none = r['no-retries'] as { recoveryMs: number; goodputDuring: number; requests: number };
      const mine = r['full+budget'] as typeof none & { retries: number };
      expect(mine.recoveryMs).not.toBeNull();
      expect(mine.recoveryMs).toBeLessThanOrEqual(none.recoveryMs);
      expect(mine.goodputDuring).toBeGreaterThanOrEqual(none.goodputDuring - 0.05);
      // Every attempt times out in this slowdown: retries are held through it and go only on fast answers after it,
      // paced (0.3 per first attempt while they come back; a reserve per process would add 100 times as many at 100).
      expect(mine.retries).toBeLessThan(none.requests / 3);
    }
  });

  it('each instance gets fresh objects: one ClientRetries per run, its clients spread over their instances', () => {
    const event = { time: 0 };
    const strategy = resolveStrategy('full+budget+breaker');
    const policies = [0, 1].map(() => createPolicy({ ...protectedPolicy(strategy, () => event.time), maxAttempts: 2 }));
    expect(policies[0]?.budget).not.toBe(policies[1]?.budget);
    expect(policies[0]?.breaker).not.toBe(policies[1]?.breaker);
    // Instance 0's breaker opened by its own clients' failures does not refuse instance 1's clients.
    const retries = new ClientRetries(
      40,
      policies,
      'spread',
      new Uint32Array(40).map((_, c) => (c < 20 ? 0 : 1)),
    );
    for (let c = 0; c < 10; c++) {
      expect(retries.start(c)).toBe(true);
      retries.failed(c, 1, undefined, 1, 1_000); // 10 fast failures of 10: instance 0's breaker opens
    }
    expect(policies[0]?.breaker?.state).toBe('open');
    expect(policies[1]?.breaker?.state).toBe('closed');
    expect(retries.start(25)).toBe(true); // instance 1
    expect(retries.start(15)).toBe(false); // instance 0: refused
  });

  it('the outage scenario splits its clients over instances too', () => {
    const result = simulateOutage({ clients: 200, instances: 200, strategies: ['full+breaker'] });
    expect(result.settings.instances).toBe(200);
    const [r] = result.results;
    expect((r?.succeeded as number) + (r?.gaveUp as number)).toBe(200);
  });

  it('10,000 instances run (the default story, split over a big fleet)', () => {
    const result = simulatePartial({ ...small, instances: 10_000, strategies: ['recommended'] });
    expect(result.results[0]?.calls).toBeGreaterThan(0);
  });
});

describe('a server that sheds with a 429 says it is saturated', () => {
  const cell = (shedStatus: 503 | 429, instances: number) =>
    simulateOverload({
      queueLimitMs: 1_000,
      instances,
      shedStatus,
      afterMs: 10_000,
      strategies: ['no-retries', 'plain', 'recommended'],
    }).results;

  it.each([1, 10_000])(
    'at %i instances the recommended setup refuses the shed retries and serves what no retries serve',
    (instances) => {
      const [none, plain, recommended] = cell(429, instances);
      expect(recommended?.goodputDuring).toBeGreaterThanOrEqual((none?.goodputDuring as number) - 0.05);
      expect(recommended?.budgetStops).toBeGreaterThan(0);
      // plain retries have no budget to read it: the 429 changes nothing for them
      expect(plain?.goodputDuring).toBe(cell(503, instances)[1]?.goodputDuring);
    },
  );

  it('with a bare 503 at 10,000 instances, no process has the history to tell: the cell the matrix reports missed', () => {
    const [none, , recommended] = cell(503, 10_000);
    expect(recommended?.goodputDuring).toBeLessThan((none?.goodputDuring as number) - 0.05);
  });

  it('refuses a shed status other than 503 or 429', () => {
    expect(() => simulateOverload({ shedStatus: 500 as 429 })).toThrow(
      'herdless: shedStatus must be 503 or 429, got 500',
    );
  });
});

describe('the protection matrix', () => {
  const troubles = [MATRIX_TROUBLES[0], MATRIX_TROUBLES[7], MATRIX_TROUBLES[8]].filter((t) => t !== undefined);
  const result = simulateMatrix({ instances: [1, 1_000], troubles, afterMs: 20_000 });

  it('has a cell per trouble and fleet size, each with every strategy, in the JSON shape the issue names', () => {
    expect(result.scenario).toBe('matrix');
    expect(result.cells).toHaveLength(6);
    for (const cell of result.cells) {
      expect(Object.keys(cell)).toEqual(['scenario', 'load', 'failureRate', 'queueLimit', 'instances', 'results']);
      expect(cell.results.map((r) => r.strategy)).toEqual([
        'no-retries',
        'plain',
        'full+budget',
        'full+breaker',
        'recommended',
      ]);
      for (const r of cell.results) {
        expect(Object.keys(r)).toEqual([
          'strategy',
          'goodput',
          'goodputDuring',
          'amplification',
          'recoveryMs',
          'refused',
        ]);
      }
    }
  });

  it('recommended meets every goal in these cells, at 1 and 1,000 instances', () => {
    const verdicts = matrixVerdicts(result).filter((v) => v.strategy === 'recommended');
    expect(verdicts).toHaveLength(6);
    for (const v of verdicts) {
      expect(v.safe, JSON.stringify(v)).toBe(true);
      expect(v.beneficial ?? true, JSON.stringify(v)).toBe(true);
      expect(v.quiet ?? true, JSON.stringify(v)).toBe(true);
    }
  });

  it('the verdicts follow the goals exactly: 5 points, 3 s, 10 points, no refusal and 10% load', () => {
    const cell = (
      results: {
        strategy: string;
        goodputDuring: number;
        recoveryMs: number | null;
        refused?: number;
        amplification?: number;
      }[],
      t = { scenario: 'partial' as const, load: 0.5, failureRate: 0.02, queueLimit: null },
    ) => ({
      ...t,
      instances: 1,
      results: results.map((r) => ({ goodput: 0, amplification: 1, refused: 0, ...r })),
    });
    const judged = matrixVerdicts({
      scenario: 'matrix',
      seed: 1,
      shedStatus: 503,
      cells: [
        cell([
          { strategy: 'no-retries', goodputDuring: 0.5, recoveryMs: 1_000 },
          { strategy: 'plain', goodputDuring: 0.9, recoveryMs: 0 },
          { strategy: 'a', goodputDuring: 0.45, recoveryMs: 4_000 }, // exactly at both limits: safe
          { strategy: 'b', goodputDuring: 0.449, recoveryMs: 0 }, // 5.1 points below: not safe
          { strategy: 'c', goodputDuring: 0.8, recoveryMs: 4_001 }, // 3.001 s later: not safe; 10 below plain: beneficial
          { strategy: 'd', goodputDuring: 0.79, recoveryMs: null, refused: 1, amplification: 1.11 },
        ]),
      ],
    } as MatrixResult);
    const of = (s: string) => judged.find((v) => v.strategy === s);
    expect(of('a')).toMatchObject({ safe: true, beneficial: false, quiet: true });
    expect(of('b')?.safe).toBe(false);
    expect(of('c')).toMatchObject({ safe: false, beneficial: true });
    expect(of('d')).toMatchObject({ safe: false, beneficial: false, quiet: false });
    expect(() =>
      matrixVerdicts({
        scenario: 'matrix',
        seed: 1,
        shedStatus: 503,
        cells: [cell([{ strategy: 'plain', goodputDuring: 1, recoveryMs: 0 }])],
      } as MatrixResult),
    ).toThrow(/needs no-retries and plain/);
  });

  it("the table's goals column names the goal a cell missed, with a legend (review: 'safe' read as met)", () => {
    const saved = JSON.parse(readFileSync(join(root, 'docs', 'matrix.json'), 'utf8')) as MatrixResult;
    // The saved matrix meets every goal; one cell made to miss safety (recommended serving none of what no retries
    // serve) must say so.
    const shed = saved.cells.find((c) => c.queueLimit !== null && c.instances === 10_000);
    const mine = shed?.results.find((r) => r.strategy === 'recommended') as { goodputDuring: number };
    mine.goodputDuring = 0;
    const text = matrixTable(saved);
    const row = text.split('\n').find((l) => l.startsWith('overload 1s       10000'));
    expect(row).toMatch(/missed safety$/);
    const verdicts = matrixVerdicts(saved).filter((v) => v.strategy === 'recommended');
    const met = verdicts.filter((v) => v.safe && v.beneficial !== false && v.quiet !== false).length;
    expect(text.match(/ ok$/gm)).toHaveLength(met); // one 'ok' per cell that met every goal, and no other
    expect(text).toContain('goals, for recommended: safety (goodput within 5 points');
  });

  it('renders as a terminal table and an SVG heat map', () => {
    const text = matrixTable(result);
    expect(text).toMatch(/^goodput during the trouble/);
    expect(text).toContain('partial 50% @0.8');
    expect(text).not.toContain('NaN');
    const svg = matrixSvg(result);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('1000 instances');
    expect((svg.match(/<rect /g) ?? []).length).toBe(1 + 6 * 5);
  });

  it('docs/matrix.json is `herdless simulate --scenario matrix --json`: its cells recompute to the same figures', () => {
    const saved = JSON.parse(readFileSync(join(root, 'docs', 'matrix.json'), 'utf8')) as MatrixResult;
    expect(saved.cells).toHaveLength(45);
    for (const index of [17, 44]) {
      const cell = saved.cells[index];
      if (!cell) throw new Error('no such cell');
      const { results: _, instances, ...trouble } = cell;
      const again = simulateMatrix({ instances: [instances], troubles: [trouble] });
      expect(JSON.parse(JSON.stringify(again.cells[0]))).toEqual(cell);
    }
  });

  it('the recommended preset is exactly the setup the README recommends', () => {
    expect(PRESETS.recommended).toEqual({
      name: 'recommended',
      policy: { jitter: 'full' },
      budget: true,
      breaker: false,
    });
  });
});

describe('herdless simulate: the fleet flags reach the run', () => {
  const run = runCli;
  const base = ['simulate', '--scenario', 'partial', '--capacity', '100/1s', '--json'];
  const short = [...base, '--duration', '5s'];

  it.each([
    ['--instances', '10', (j: Settings) => j.settings.instances === 10],
    ['--failure-rate', '0.2', (j: Settings) => j.settings.failureRate === 0.2],
    ['--load', '0.5', (j: Settings) => j.settings.load === 0.5],
    ['--max-attempts', '2', (j: Settings) => j.settings.maxAttempts === 2],
    ['--seed', '2', (j: Settings) => j.settings.seed === 2],
  ])('%s %s', (flag, value, check) => {
    const { code, out } = run(...short, flag, value);
    expect(code).toBe(0);
    expect(check(JSON.parse(out))).toBe(true);
    expect(JSON.parse(out).results).not.toEqual(JSON.parse(run(...short).out).results);
  });

  it('--duration 8s', () => {
    const { out } = run(...base, '--duration', '8s');
    expect(JSON.parse(out).settings.slowdownMs).toBe(8_000);
    expect(JSON.parse(out).results).not.toEqual(JSON.parse(run(...short).out).results);
  });

  it('--scenario partial prints its story', () => {
    const { code, out } = run('simulate', '--scenario', 'partial', '--capacity', '100/1s', '--duration', '5s');
    expect(code).toBe(0);
    expect(out).toMatch(/^partial: demand 80% of 100\/s .*5 s of 50% of what it serves failing/);
    expect(out).toContain('recommended');
  });

  it('docs/partial.txt is `herdless simulate --scenario partial --load 0.8`, pasted', () => {
    const doc = readFileSync(join(root, 'docs', 'partial.txt'), 'utf8');
    expect(run('simulate', '--scenario', 'partial', '--load', '0.8').out).toBe(doc);
    expect(readFileSync(join(root, 'docs', 'protection.md'), 'utf8')).toContain(doc);
  }, 60_000);

  it('--instances reaches the outage and overload scenarios', () => {
    const outage = JSON.parse(run('simulate', '--clients', '100', '--instances', '7', '--json').out);
    expect(outage.settings.instances).toBe(7);
    const overload = JSON.parse(
      run('simulate', '--scenario', 'overload', '--capacity', '100/1s', '--instances', '3', '--json').out,
    );
    expect(overload.settings.instances).toBe(3);
  });
});
