import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  OutageServer,
  simulateContention,
  simulateOutage,
  simulateOverload,
  svgChart,
  table,
  terminalChart,
} from '../src/simulate/index';
import { MAX_CALLS, MAX_WINDOWS, SimulationLimitError } from '../src/simulate/limits';
import { runCli as run } from './cli-helpers';

/**
 * Issue 19, item 1: every flag value the simulator accepts runs to an answer or a one-line error, never a stack
 * overflow (`Math.max(...)` over millions of windows) or a V8 fatal error (an array of tens of millions of windows).
 */

/** Exit code 2 and exactly one line on stderr, that matches `message`, and nothing on stdout. */
function refused(args: string[], message: RegExp) {
  const { code, out, err } = run('simulate', ...args);
  expect(code).toBe(2);
  expect(out).toBe('');
  expect(err.endsWith('\n')).toBe(true);
  expect(err.trimEnd().split('\n')).toHaveLength(1);
  expect(err).toMatch(message);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the charts over millions of windows (a stack overflow in Math.max(...) before)', () => {
  const long = new Array<number>(7_200_000).fill(1);
  long[3_000_000] = 900;

  it('the terminal chart draws a series of 7.2 million windows, its burst in view', () => {
    const chart = terminalChart([{ name: 'full', load: long }], { windowMs: 1, capacity: 100, outageMs: 7_200_000 });
    expect(chart).toMatch(/^full \|.*█.*\|$/m); // 900 >= 4x capacity: a full block in the burst's column
  });

  it('the SVG draws it in at most 10,000 points a series, keeping the peak', () => {
    const svg = svgChart([{ name: 'full', load: long }], { windowMs: 1, capacity: 100, outageMs: 7_200_000 });
    const points = (/points="([^"]*)"/.exec(svg) as RegExpExecArray)[1]?.split(' ') ?? [];
    expect(points.length).toBeLessThanOrEqual(10_000);
    expect(points.length).toBeGreaterThan(5_000);
    expect(svg).toContain('>full: peak 0 after the outage; 900 before its end (clipped)<');
  });

  it('property: a line of up to 10,000 windows has a point per window; a longer one, its peaks in at most 10,000', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40_000 }), fc.integer({ min: 0, max: 39_999 }), (windows, at) => {
        const load = new Array<number>(windows).fill(2);
        load[at % windows] = 7;
        const svg = svgChart([{ name: 's', load }], { windowMs: 1, capacity: 4, viewMs: windows });
        const points = ((/points="([^"]*)"/.exec(svg) as RegExpExecArray)[1] as string).split(' ');
        expect(points.length).toBe(windows <= 10_000 ? windows : Math.ceil(windows / Math.ceil(windows / 10_000)));
        const ys = points.map((p) => Number(p.split(',')[1]));
        // The highest point (the smallest y) is the one window at 7, the rest at 2: the peak is never averaged away.
        const highest = ys.reduce((a, b) => Math.min(a, b));
        expect(ys.filter((y) => y === highest)).toHaveLength(1);
        expect(new Set(ys).size).toBe(points.length === 1 ? 1 : 2);
      }),
      { numRuns: 30 },
    );
  });

  it('a text table as wide as its widest cell', () => {
    expect(
      table([
        ['a', 'bb'],
        ['ccc', 'd'],
      ]),
    ).toBe('a    bb\nccc   d');
  });
});

describe('the library: a RangeError that names the setting and the limit', () => {
  it('simulateOutage: an outage of more than MAX_WINDOWS windows of capacityWindowMs', () => {
    expect(() => simulateOutage({ clients: 1, capacityWindowMs: 0.0001 })).toThrow(RangeError);
    expect(() => simulateOutage({ clients: 1, capacityWindowMs: 0.0001 })).toThrow(
      `herdless: simulateOutage: outageMs (4000) spans 40000000 windows of capacityWindowMs (0.0001), more than ${MAX_WINDOWS}: use wider windows or a shorter outage`,
    );
    // At the limit it runs.
    expect(
      simulateOutage({ clients: 1, outageMs: MAX_WINDOWS, capacityWindowMs: 1, maxAttempts: 1 }).results,
    ).toHaveLength(6);
  });

  it('OutageServer: a request past MAX_WINDOWS windows (a run that outgrew the limit as it went)', () => {
    const server = new OutageServer(0, 1, 1);
    expect(server.arrive(MAX_WINDOWS - 0.5)).toBe(true);
    expect(() => server.arrive(MAX_WINDOWS)).toThrow(
      new RangeError(
        `herdless: a request arrived at ${MAX_WINDOWS} ms, past ${MAX_WINDOWS} windows of 1 ms (each a counter in memory): use wider windows or a shorter run`,
      ),
    );
  });

  it('simulateOverload: more than MAX_CALLS requests expected, or MAX_WINDOWS windows', () => {
    expect(() => simulateOverload({ capacity: 1e9 })).toThrow(RangeError);
    expect(() => simulateOverload({ capacity: 1e9 })).toThrow(
      `herdless: simulateOverload: load x capacity (0.8 x 1000000000/s) over 69000 ms is 55200000000 requests, more than ${MAX_CALLS}: shorten the run or lower the rate`,
    );
    expect(() => simulateOverload({ load: 1e-9, windowMs: 0.001 })).toThrow(
      /^herdless: simulateOverload: the run spans 69000000 windows of windowMs \(0\.001\), more than 10000000/,
    );
    expect(() => simulateOverload({ load: 1e-12, afterMs: 1e13, windowMs: 1e15 })).toThrow(
      /the run spans 10000000000 windows of windowMs \(1000000000000000\)/, // the seconds after the blip
    );
  });
});

describe('herdless simulate: an answer or a one-line error, exit code 2', () => {
  it("--outage 7200s --max-attempts 2000 --capacity 100/1ms answers (the issue's stack overflow)", () => {
    const { code, out, err } = run(
      'simulate',
      ...['--outage', '7200s', '--max-attempts', '2000', '--capacity', '100/1ms', '--clients', '2'],
      ...['--strategies', 'none'],
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(/^none\s+\|▁+\|$/m);
    expect(out).toMatch(/^none +1452 +726\.00 .* 7207 s +0 +7207 s +7207 s$/m);
  });

  it('--capacity 1/0.0001ms: the outage in more windows than the limit (a V8 fatal error before)', () => {
    refused(
      ['--capacity', '1/0.0001ms'],
      /^herdless: --capacity's window \(0\.0001 ms\) cuts the 4 s --outage into 40000000 load windows, more than 10000000: use a wider window or a shorter outage/,
    );
    refused(['--capacity', '1/1ms', '--outage', '10000.001s'], /into 10000001 load windows/);
  });

  it('--scenario overload --capacity 1000/0.001ms: more requests than the limit (a V8 fatal error before)', () => {
    refused(
      ['--scenario', 'overload', '--capacity', '1000/0.001ms'],
      /^herdless: --capacity 1000\/0\.001ms at --load 0\.8 over the 69 s run is 55200000000 requests, more than 10000000: lower/,
    );
    refused(['--scenario', 'overload', '--load', '200'], /--capacity 1000\/1s at --load 200 over the 69 s run/);
  });

  it('--scenario overload with a blip of years: more windows than the limit', () => {
    refused(
      ['--scenario', 'overload', '--load', '0.00000001', '--slowdown', '99999999s'],
      /^herdless: --slowdown makes a run of 100000064 s, more than 10000000 s \(one load window a second\): shorten it/,
    );
    refused(
      ['--scenario', 'overload', '--load', '0.00000001', '--outage', '99999999s'],
      /^herdless: --outage makes a run of/,
    );
  });

  it('--scenario partial: the same limits, naming --duration', () => {
    refused(
      ['--scenario', 'partial', '--capacity', '1000/0.001ms'],
      /^herdless: --capacity 1000\/0\.001ms at --load 0\.8 over the 95 s run is 76000000000 requests, more than 10000000: lower the capacity or the load, or shorten the --duration/,
    );
    refused(
      ['--scenario', 'partial', '--load', '0.00000001', '--duration', '99999999s'],
      /^herdless: --duration makes a run of 100000064 s, more than 10000000 s/,
    );
  });

  it('a run that outgrows the windows as it goes: one line, exit 2', () => {
    refused(
      [
        '--outage',
        '9999s',
        '--capacity',
        '1/1ms',
        '--max-attempts',
        '100000',
        '--clients',
        '1',
        '--strategies',
        'full',
      ],
      /^herdless: a request arrived at \d+ ms, past 10000000 windows of 1 ms \(each a counter in memory\)/,
    );
  });

  it('a result too large for one JSON string: one line, exit 2', () => {
    const stringify = JSON.stringify;
    vi.spyOn(JSON, 'stringify').mockImplementation((...args: Parameters<typeof stringify>) => {
      if ((args[0] as { scenario?: unknown })?.scenario !== undefined) throw new RangeError('Invalid string length');
      return stringify(...args);
    });
    refused(['--clients', '2', '--strategies', 'full', '--json'], /^herdless: the result is too large to print/);
  });

  it('another error still surfaces as itself (not mistaken for a bad command line)', () => {
    vi.spyOn(JSON, 'stringify').mockImplementation(() => {
      throw new RangeError('something else');
    });
    expect(() => run('simulate', '--clients', '2', '--strategies', 'full', '--json')).toThrow('something else');
  });
});

describe('issue 30 item 7: settings that ran for hours, or gave nonsense, are refused up front', () => {
  it('simulateOutage checks its settings and its keys (capacity: -5 reported a peak of -0.4x)', () => {
    expect(() => simulateOutage({ capacity: -5 })).toThrow(/^herdless: capacity must be a finite number > 0, got -5$/);
    expect(() => simulateOutage({ clients: 0 })).toThrow(/^herdless: clients must be an integer >= 1, got 0$/);
    expect(() => simulateOutage({ clients: 1.5 })).toThrow(/clients must be an integer >= 1, got 1.5/);
    expect(() => simulateOutage({ outageMs: Number.NaN })).toThrow(/outageMs must be a finite number >= 0, got NaN/);
    expect(() => simulateOutage({ capacityWindowMs: 0 })).toThrow(/capacityWindowMs must be a finite number > 0/);
    expect(() => simulateOutage({ hopSdMs: -1 })).toThrow(/hopSdMs must be a finite number >= 0, got -1/);
    expect(() => simulateOutage({ retryAfterMs: Infinity })).toThrow(/retryAfterMs must be a finite number >= 0/);
    expect(() => simulateOutage({ capacty: 10 } as never)).toThrow(TypeError);
    expect(() => simulateOutage({ capacty: 10 } as never)).toThrow(/capacty.*did you mean capacity/);
  });

  it('a run whose attempts could number over the limit (MAX_ATTEMPTS) is a SimulationLimitError naming the settings', () => {
    expect(() => simulateOutage({ clients: 100_000, maxAttempts: 2_000 })).toThrow(SimulationLimitError);
    expect(() => simulateOutage({ clients: 100_000, maxAttempts: 2_000 })).toThrow(
      /clients x maxAttempts \(100000 x 2000\) is 200000000 attempts at most, more than 10000000/,
    );
    expect(() => simulateOverload({ maxAttempts: 100_000 })).toThrow(
      /its 55200 calls x maxAttempts \(100000\) is 5520000000 attempts at most, more than 10000000/,
    );
    expect(() => simulateContention({ clients: [100_000] })).toThrow(SimulationLimitError);
    expect(() => simulateContention({ clients: [100_000] })).toThrow(/clients squared .* more than 100000000/);
    expect(() => simulateContention({ clients: [0] })).toThrow(/clients must be integers >= 1, got 0/);
    expect(() => simulateContention({ runs: 0 })).toThrow(/runs must be an integer >= 1, got 0/);
  });

  it.each([
    [['--scenario', 'overload', '--max-attempts', '100000'], /calls x maxAttempts/],
    [['--scenario', 'contention', '--clients', '100000'], /clients squared/],
  ])('herdless simulate %j answers at once with exit code 2', (flags, message) => {
    const { code, err } = run('simulate', ...flags);
    expect(code).toBe(2);
    expect(err).toMatch(message);
  });
});
