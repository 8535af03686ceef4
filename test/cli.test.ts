import { describe, expect, it } from 'vitest';
import { main, parseCapacity, parseDuration, USAGE } from '../src/cli';

function run(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const files = new Map<string, string>();
  const code = main(args, {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    errIsTTY: false,
    writeFile: (path, text) => files.set(path, text),
  });
  return { code, out: out.join(''), err: err.join(''), files };
}

describe('herdless simulate', () => {
  it('prints the figures table and the load chart, within 80 columns', () => {
    const { code, out, err } = run('simulate', '--clients', '200', '--strategies', 'fixed,full');
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).toMatch(/^outage: 200 clients fail for 4 s/);
    expect(out).toMatch(/strategy\s+requests\s+ampl\./);
    expect(out).toMatch(/\nfixed\s+\d+/);
    expect(out).toMatch(/\nfull\s+\|/);
    for (const line of out.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
  });

  it('is reproducible with --seed and prints JSON with --json', () => {
    const a = run('simulate', '--clients', '50', '--seed', '9', '--json');
    const b = run('simulate', '--clients', '50', '--seed', '9', '--json');
    expect(a.out).toBe(b.out);
    const parsed = JSON.parse(a.out);
    expect(parsed.scenario).toBe('outage');
    expect(parsed.settings).toMatchObject({ clients: 50, seed: 9 });
    expect(parsed.results).toHaveLength(6);
  });

  it('reads --outage, --capacity and --max-attempts', () => {
    const { out } = run(
      'simulate',
      '--clients',
      '20',
      '--outage',
      '1.5s',
      '--capacity',
      '5/50ms',
      '--max-attempts',
      '4',
      '--json',
    );
    const parsed = JSON.parse(out);
    expect(parsed.settings).toMatchObject({ outageMs: 1_500, capacity: 5, capacityWindowMs: 50, maxAttempts: 4 });
  });

  it('writes a self-contained SVG with --svg', () => {
    const { code, out, files } = run('simulate', '--clients', '40', '--svg', 'chart.svg');
    expect(code).toBe(0);
    expect(out).toContain('wrote chart.svg');
    expect(files.get('chart.svg')).toMatch(/^<svg xmlns/);
  });

  it('runs the contention scenario', () => {
    const { code, out } = run(
      'simulate',
      '--scenario',
      'contention',
      '--clients',
      '10,20',
      '--runs',
      '3',
      '--strategies',
      'full,none',
    );
    expect(code).toBe(0);
    expect(out).toMatch(/work: mean calls.*\nclients\s+full\s+none\n/);
    expect(out).toMatch(/time: mean time.*\nclients\s+full\s+none\n/);
    expect(out).toMatch(/\n10\s+\d+/);
    expect(out).toMatch(/\n20\s+\d+/);
    const json = JSON.parse(
      run('simulate', '--scenario', 'contention', '--clients', '10', '--runs', '2', '--json').out,
    );
    expect(json.results).toHaveLength(5);
  });

  it('prints help', () => {
    expect(run('--help')).toMatchObject({ code: 0, out: USAGE });
    expect(run('simulate', '-h').out).toContain('--scenario outage|contention');
  });

  it.each([
    [['simulate', '--clients', '-3'], "--clients must be a positive integer, got '-3'"],
    [['simulate', '--clients', 'many'], "--clients must be a positive integer, got 'many'"],
    [['simulate', '--clients', '0'], "--clients must be a positive integer, got '0'"],
    [['simulate', '--outage', 'soon'], "--outage must be a duration like 4s or 250ms, got 'soon'"],
    [['simulate', '--capacity', 'lots'], "--capacity must be like 100/100ms (requests per window), got 'lots'"],
    [['simulate', '--capacity', '10/0ms'], "--capacity needs a window longer than 0, got '10/0ms'"],
    [
      ['simulate', '--strategies', 'full,wild'],
      "--strategies takes immediate, fixed, none, full, equal, decorrelated; got 'wild'",
    ],
    [['simulate', '--scenario', 'storm'], "--scenario must be outage or contention, got 'storm'"],
    [['simulate', '--scenario', 'contention', '--svg', 'x.svg'], '--svg draws the outage scenario only'],
    [['simulate', '--bogus'], "Unknown option '--bogus'"],
    [['simulate', 'extra'], "unknown command 'simulate extra'"],
    [['simulate', '--seed', '1.5'], "--seed must be a positive integer, got '1.5'"],
    [[], 'missing command: simulate'],
  ])('%j is one clear line on stderr and exit code 2', (args, message) => {
    const { code, out, err } = run(...args);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err.split('\n').filter(Boolean)).toHaveLength(1);
    expect(err).toContain(message);
    expect(err).toMatch(/^herdless: /);
  });

  it('parses durations and capacities', () => {
    expect(parseDuration('outage', '250ms')).toBe(250);
    expect(parseDuration('outage', '4s')).toBe(4_000);
    expect(parseDuration('outage', '900')).toBe(900);
    expect(parseCapacity('100')).toEqual({ capacity: 100, windowMs: 100 });
    expect(parseCapacity('20/1s')).toEqual({ capacity: 20, windowMs: 1_000 });
    expect(() => parseCapacity('1/2/3')).toThrow(/--capacity must be like/);
  });

  it('shows a progress line on a terminal once a run takes over a second, and clears it', () => {
    const runWith = (errIsTTY: boolean, times: number[]) => {
      const err: string[] = [];
      const clock = [...times];
      main(['simulate', '--clients', '10', '--strategies', 'fixed,full,equal'], {
        out: () => {},
        err: (t) => err.push(t),
        errIsTTY,
        writeFile: () => {},
        now: () => clock.shift() ?? 5_000,
      });
      return err;
    };
    // started at 0; after the first strategy 500 ms (no line yet), then 1.5 s and on
    expect(runWith(true, [0, 500, 1_500, 2_500])).toEqual([
      '\rsimulating: 2 of 3 done',
      '\rsimulating: 3 of 3 done',
      '\r\x1b[K',
    ]);
    expect(runWith(true, [0, 100, 200, 300])).toEqual([]); // fast: no line
    expect(runWith(false, [0, 1_500, 2_500, 3_500])).toEqual([]); // not a terminal: no line
  });
});
