import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeDelay, createPolicy } from '../src/index';
import { postBackoff } from '../src/simulate/contention';
import {
  type ContentionPoint,
  OutageServer,
  outageTable,
  percentile,
  resolveStrategy,
  STRATEGIES,
  simulateContention,
  simulateOutage,
  svgChart,
  terminalChart,
} from '../src/simulate/index';
import { selectPercentile } from '../src/simulate/outage';
import { EventQueue } from '../src/simulate/queue';
import { ClientRetries } from '../src/simulate/retries';
import { createRng } from '../src/simulate/rng';

describe('the outage simulator', () => {
  const small = { clients: 300, seed: 7 } as const;

  it('is deterministic: the same seed gives the same result, byte for byte', () => {
    expect(JSON.stringify(simulateOutage(small))).toBe(JSON.stringify(simulateOutage(small)));
    expect(JSON.stringify(simulateOutage({ ...small, seed: 8 }))).not.toBe(JSON.stringify(simulateOutage(small)));
  });

  it('conserves: every request counted once, every client ends once', () => {
    for (const r of simulateOutage(small).results) {
      expect(r.load.reduce((a, b) => a + b, 0)).toBe(r.requests);
      expect(r.succeeded + r.gaveUp).toBe(300);
      // each client makes between 1 and maxAttempts requests; successes and failures add up to requests
      expect(r.requests).toBeGreaterThanOrEqual(300);
      expect(r.requests).toBeLessThanOrEqual(300 * 10);
    }
  });

  it("a breaker's refusals end calls in the outage scenario, counted as refused and given up", () => {
    const [r] = simulateOutage({ ...small, strategies: ['full+breaker'] }).results;
    expect(r?.refused).toBeGreaterThan(0);
    expect(r?.gaveUp).toBeGreaterThanOrEqual(r?.refused ?? Infinity);
  });

  it("counts both kinds of a breaker's refusal: a first attempt refused and a retry stopped with 'circuit-open'", () => {
    // The default outage outlasts every call's attempts only once the breaker is open: each of the 1,000 give-ups is
    // a refusal, 176 of first attempts (or of retries about to start) and 824 of retries after a failure. Counting
    // only one kind reported 824 (or 176) of 1,000 and passed every other test (issue 30).
    for (const strategy of ['full+breaker', 'full+budget+breaker'] as const) {
      const [r] = simulateOutage({ strategies: [strategy] }).results;
      expect(r).toMatchObject({ gaveUp: 1_000, refused: 1_000 });
    }
  });

  it('immediate retries spend all their attempts during the outage', () => {
    const [immediate] = simulateOutage({ ...small, strategies: ['immediate'] }).results;
    expect(immediate).toMatchObject({ requests: 3_000, gaveUp: 300, succeeded: 0 });
  });

  it('in the default outage, the fixed-delay peak after recovery is at least 5x full jitter, which stays near capacity', () => {
    const { results } = simulateOutage({ strategies: ['fixed', 'full'] });
    const [fixed, full] = results;
    expect(fixed?.peakAfterOutage).toBeGreaterThanOrEqual(5 * (full?.peakAfterOutage ?? Infinity));
    expect(fixed?.peakOverCapacity).toBeGreaterThan(3);
    expect(full?.peakOverCapacity).toBeLessThanOrEqual(1);
  });

  it('takes a user policy next to the built-in strategies, and respects its limits', () => {
    const { results } = simulateOutage({
      ...small,
      strategies: ['full', { name: 'mine', policy: { jitter: 'full', baseMs: 1_000 } }],
      maxAttempts: 3,
    });
    expect(results.map((r) => r.strategy)).toEqual(['full', 'mine']);
    for (const r of results) expect(r.requests).toBeLessThanOrEqual(900);
  });

  it('gives up at the deadline when timeoutMs is set', () => {
    const [r] = simulateOutage({ ...small, strategies: ['fixed'], timeoutMs: 1_000 }).results;
    expect(r?.lastFinishMs).toBeLessThan(1_200);
    expect(r?.gaveUp).toBe(300);
  });

  it('gives these figures for 50 clients at the default seed, pinned (the table `herdless simulate --clients 50` prints)', () => {
    const { results: rows } = simulateOutage({ clients: 50 });
    expect(rows.map((r) => [r.strategy, r.requests, r.peakAfterOutage, r.succeeded, r.gaveUp])).toEqual([
      ['immediate', 500, 0, 0, 50],
      ['fixed', 450, 33, 50, 0],
      ['none', 350, 36, 50, 0],
      ['full', 395, 3, 50, 0],
      ['equal', 353, 6, 50, 0],
      ['decorrelated', 379, 5, 44, 6],
    ]);
    expect(rows.map((r) => [Math.round(r.lastFinishMs), Math.round(r.p50Ms), Math.round(r.p99Ms)])).toEqual([
      [308, Number.NaN, Number.NaN],
      [4_298, 4_183, 4_208],
      [6_550, 6_442, 6_465],
      [12_312, 5_701, 12_218],
      [10_115, 4_936, 10_060],
      [9_091, 5_378, 9_012],
    ]);
  });

  it('names unknown strategies', () => {
    expect(() => simulateOutage({ strategies: ['jittery' as never] })).toThrow(
      /unknown strategy 'jittery' \(known: immediate, fixed/,
    );
    expect(resolveStrategy('full')).toEqual({ name: 'full', policy: STRATEGIES.full, budget: false, breaker: false });
    expect(resolveStrategy('none+breaker+budget')).toEqual({
      name: 'none+breaker+budget',
      policy: STRATEGIES.none,
      budget: true,
      breaker: true,
    });
    for (const bad of ['full+budget+budget', 'full+retries', '+budget', 'full+']) {
      expect(() => resolveStrategy(bad as never)).toThrow(
        /unknown strategy .* each optionally with \+budget and\/or \+breaker/,
      );
    }
  });

  it('with a Retry-After in the outage, spreads the returning clients within capacity; the old rule did not', () => {
    const old = (name: 'full' | 'equal' | 'decorrelated') =>
      ({ name: `${name}*`, policy: STRATEGIES[name], retryAfter: 'floor-plus-backoff' }) as const;
    const { results, settings } = simulateOutage({
      retryAfterMs: 2_000,
      strategies: ['full', old('full'), 'equal', old('equal'), 'decorrelated', old('decorrelated')],
    });
    expect(settings.retryAfterMs).toBe(2_000);
    const peak = Object.fromEntries(results.map((r) => [r.strategy, r.peakOverCapacity]));
    for (const name of ['full', 'equal', 'decorrelated']) {
      expect(peak[name]).toBeLessThanOrEqual(1);
      expect(peak[`${name}*`]).toBeGreaterThanOrEqual(2 * (peak[name] as number));
    }
    expect(peak['full*']).toBeGreaterThan(4);
    // One rule whatever the jitter: here every retry is a hinted one, so the three runs are the same run.
    expect(results[2]?.load).toEqual(results[0]?.load);
    expect(results[4]?.load).toEqual(results[0]?.load);
  });

  it('without a Retry-After, the old-rule reference is the strategy itself', () => {
    const ref = { name: 'ref', policy: STRATEGIES.decorrelated, retryAfter: 'floor-plus-backoff' } as const;
    const [plain, old] = simulateOutage({ ...small, strategies: ['decorrelated', ref] }).results;
    expect(old?.load).toEqual(plain?.load);
    expect(simulateOutage(small).settings.retryAfterMs).toBe(0);
  });

  it('reports progress per strategy', () => {
    const seen: string[] = [];
    simulateOutage({ clients: 10, strategies: ['full', 'equal'], onProgress: (d, t) => seen.push(`${d}/${t}`) });
    expect(seen).toEqual(['1/2', '2/2']);
  });
});

describe('the contention simulator maps the AWS post exactly', () => {
  it("gives exponential strategies the post's ceilings, base * 2 ** attempt, and decorrelated the post's base", () => {
    // the post's simulator numbers its first retry 1, so its first ceiling is 2 * base
    for (let attempt = 1; attempt <= 12; attempt++) {
      expect(computeDelay(attempt, postBackoff({ jitter: 'none' }, 5, 2_000))).toBe(Math.min(2_000, 5 * 2 ** attempt));
      expect(computeDelay(attempt, postBackoff({ jitter: 'none', factor: 3 }, 5, 2_000))).toBe(
        Math.min(2_000, 5 * 3 ** attempt),
      );
    }
    expect(postBackoff({ jitter: 'full' }, 5, 2_000)).toEqual({ jitter: 'full', baseMs: 10, capMs: 2_000 });
    expect(postBackoff({ jitter: 'equal' }, 5, 2_000)).toEqual({ jitter: 'equal', baseMs: 10, capMs: 2_000 });
    // decorrelated starts from base and ignores the attempt, in both
    expect(postBackoff({ jitter: 'decorrelated' }, 5, 2_000)).toEqual({
      jitter: 'decorrelated',
      baseMs: 5,
      capMs: 2_000,
    });
    // a strategy with its own base keeps it
    expect(postBackoff(STRATEGIES.fixed, 5, 2_000)).toBe(STRATEGIES.fixed);
  });

  it('matches the post at 100 clients, 100 runs: within 2% of its calls and 7% of its time', {
    timeout: 60_000,
  }, () => {
    // Calls for full and equal jitter as the post reports them (796, 812); every figure here is also the post's own
    // simulator (aws-samples/aws-arch-backoff-simulator) re-run at 1,000 runs a point: calls, then time in ms.
    const post = {
      immediate: [2_422, 2_029],
      none: [1_856, 63_461],
      full: [796, 4_909],
      equal: [812, 6_644],
      decorrelated: [1_002, 4_561],
    } as const;
    const { results } = simulateContention({ clients: [100] });
    expect(results).toHaveLength(5);
    for (const r of results) {
      const [calls, timeMs] = post[r.strategy as keyof typeof post];
      expect(Math.abs(r.calls - calls) / calls, `${r.strategy} calls`).toBeLessThan(0.02);
      expect(Math.abs(r.timeMs - timeMs) / timeMs, `${r.strategy} time`).toBeLessThan(0.07);
    }
  });
});

describe('the contention simulator reproduces the AWS post', () => {
  const { results } = simulateContention({ clients: [50, 100], runs: 30, seed: 3 });
  const at = (clients: number, strategy: string) =>
    results.find((r) => r.clients === clients && r.strategy === strategy)!;

  it.each([50, 100])('at %i clients', (n) => {
    const [immediate, none, full, equal, decorrelated] = ['immediate', 'none', 'full', 'equal', 'decorrelated'].map(
      (s) => at(n, s),
    ) as [ContentionPoint, ContentionPoint, ContentionPoint, ContentionPoint, ContentionPoint];
    // exponential backoff without jitter barely reduces work and takes far longer
    expect(none.calls).toBeGreaterThan(0.7 * immediate.calls);
    expect(none.timeMs).toBeGreaterThan(5 * immediate.timeMs);
    // full and equal jitter do about the same work; equal takes longer
    expect(Math.abs(full.calls - equal.calls) / full.calls).toBeLessThan(0.15);
    expect(equal.timeMs).toBeGreaterThan(full.timeMs);
    // decorrelated does somewhat more work but finishes sooner than full
    expect(decorrelated.calls).toBeGreaterThan(full.calls);
    expect(decorrelated.timeMs).toBeLessThan(full.timeMs);
  });

  it('gives these figures, pinned: seed 3, 30 runs (total calls over the runs, mean time to 1 us)', () => {
    // The loose comparisons above say what the post found; these say the seeded run did not move at all.
    expect(results.map((r) => [r.clients, r.strategy, Math.round(r.calls * 30), Number(r.timeMs.toFixed(3))])).toEqual([
      [50, 'immediate', 20_687, 1_139.375],
      [50, 'none', 18_639, 36_586.205],
      [50, 'full', 9_962, 2_951.162],
      [50, 'equal', 10_382, 4_119.861],
      [50, 'decorrelated', 11_165, 2_154.43],
      [100, 'immediate', 72_664, 2_017.856],
      [100, 'none', 55_765, 63_786.343],
      [100, 'full', 23_814, 4_815.639],
      [100, 'equal', 24_323, 6_584.836],
      [100, 'decorrelated', 29_641, 4_712.155],
    ]);
  });

  it('full jitter cuts calls by more than half against exponential without jitter at 100 clients', () => {
    expect(at(100, 'full').calls).toBeLessThan(0.5 * at(100, 'none').calls);
  });

  it('is deterministic and reports progress per point', () => {
    const seen: number[] = [];
    const a = simulateContention({ clients: [10], runs: 3, onProgress: (d) => seen.push(d) });
    expect(JSON.stringify(simulateContention({ clients: [10], runs: 3 }))).toBe(JSON.stringify(a));
    expect(seen).toEqual([1]);
    expect(a.results.every((r) => r.calls >= 10)).toBe(true); // every client writes at least once
  });
});

describe('simulator parts', () => {
  it('the event queue pops in time order, ties in insertion order', () => {
    const q = new EventQueue();
    const rng = createRng(1);
    const times = Array.from({ length: 500 }, () => Math.floor(rng.next() * 50));
    for (const [i, t] of times.entries()) q.push(t, i, 0);
    const out = { time: 0, client: 0, kind: 0 };
    const popped: [number, number][] = [];
    while (q.pop(out)) popped.push([out.time, out.client]);
    const expected = times.map((t, i) => [t, i] as [number, number]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(popped).toEqual(expected);
    expect(q.size).toBe(0);
  });

  it('the event queue, pushes and pops interleaved, gives what a sorted list gives (property)', () => {
    // The simulators pop, then push the client's next event: the queue replaces the popped root then. Any mix of
    // pushes (times with many ties, earlier than the last pop too) and pops, and the sizes along the way.
    const op = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constant('pop' as const));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const q = new EventQueue();
        const model: [number, number, number, number][] = []; // time, sequence, client, kind
        const out = { time: -1, client: -1, kind: -1 };
        let seq = 0;
        const pop = () => {
          model.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
          const next = model.shift();
          expect(q.pop(out)).toBe(next !== undefined);
          if (next) expect([out.time, out.client, out.kind]).toEqual([next[0], next[2], next[3]]);
          expect(q.size).toBe(model.length);
        };
        for (const o of ops) {
          if (o === 'pop') pop();
          else {
            q.push(o, seq * 7, seq % 5);
            model.push([o, seq, seq * 7, seq % 5]);
            seq++;
            expect(q.size).toBe(model.length);
          }
        }
        while (model.length > 0) pop(); // then what the ops left, in order, and one pop of an empty queue
        pop();
      }),
    );
  });

  it('the event queue orders events far apart, in crowds and past its ring as a sorted list does (property)', () => {
    // Times over hours (past the calendar's 131 s ring), crowds of one time (a bucket sorted whole), times too large to
    // step through buckets to, Infinity, and times before the last pop; on buckets of several widths.
    const time = fc.oneof(
      fc.double({ min: 0, max: 200, noNaN: true }),
      fc.double({ min: 0, max: 1e7, noNaN: true }),
      fc.constantFrom(1e18, 3e18, Number.POSITIVE_INFINITY, 40_000, 40_000.5),
    );
    const op = fc.oneof(
      fc.tuple(time, fc.integer({ min: 1, max: 80 })),
      fc.constant('pop' as const),
      fc.constant('pop' as const),
    );
    fc.assert(
      fc.property(fc.constantFrom(1, 0.5, 1_000), fc.array(op, { maxLength: 200 }), (width, ops) => {
        const q = new EventQueue(width);
        const model: [number, number][] = []; // time, sequence (the client)
        const out = { time: -1, client: -1, kind: -1 };
        let seq = 0;
        const pop = () => {
          model.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
          const next = model.shift();
          expect(q.pop(out)).toBe(next !== undefined);
          if (next) expect([out.time, out.client, out.kind]).toEqual([next[0], next[1], next[1] % 3]);
          expect(q.size).toBe(model.length);
        };
        for (const o of ops) {
          if (o === 'pop') pop();
          else
            for (let k = 0; k < o[1]; k++, seq++) {
              q.push(o[0], seq, seq % 3);
              model.push([o[0], seq]);
            }
        }
        while (model.length > 0) pop();
        pop();
      }),
      { numRuns: 300 },
    );
  });

  it('the event queue keeps order when many events are pushed into the bucket it is popping from', () => {
    const q = new EventQueue();
    const out = { time: -1, client: -1, kind: -1 };
    const model: [number, number][] = []; // time, sequence (the client)
    let seq = 0;
    const push = (time: number, count: number) => {
      for (let k = 0; k < count; k++, seq++) {
        q.push(time, seq, 0);
        model.push([time, seq]);
      }
    };
    const pop = (count: number) => {
      for (let k = 0; k < count; k++) {
        model.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        const next = model.shift();
        expect(q.pop(out)).toBe(next !== undefined);
        if (next === undefined) return;
        expect([out.time, out.client]).toEqual(next);
      }
    };
    push(0.75, 300);
    pop(1); // the bucket is the batch now: what follows is pushed into it
    push(0.5, 212);
    pop(10);
    push(0.25, 1); // the batch is full: moved to the front
    push(0.5, 600); // and grown
    pop(Infinity);
    expect(seq).toBe(1_113);
  });

  it('the rng is seeded, uniform in [0, 1), and hops are |Normal(10, 2)|', () => {
    const a = createRng(42);
    const b = createRng(42);
    const xs = Array.from({ length: 20_000 }, () => a.next());
    expect(Array.from({ length: 20_000 }, () => b.next())).toEqual(xs);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    expect(xs.reduce((s, x) => s + x, 0) / xs.length).toBeCloseTo(0.5, 1);
    const hops = Array.from({ length: 20_000 }, () => a.hop(10, 2));
    const mean = hops.reduce((s, x) => s + x, 0) / hops.length;
    const sd = Math.sqrt(hops.reduce((s, x) => s + (x - mean) ** 2, 0) / hops.length);
    expect(mean).toBeCloseTo(10, 0);
    expect(sd).toBeCloseTo(2, 0);
    expect(Math.min(...hops)).toBeGreaterThanOrEqual(0);
  });

  it('the outage server fails during the outage, then serves capacity per window, counting every arrival', () => {
    const server = new OutageServer(1_000, 2, 100);
    const served = [0, 500, 999, 1_000, 1_010, 1_020, 1_099, 1_100, 1_150].map((t) => server.arrive(t));
    expect(served).toEqual([false, false, false, true, true, false, false, true, true]);
    expect(server.received).toBe(9);
    expect(server.load).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 4, 2]);
  });

  it('the outage server names its Retry-After with the outage failures only, and none unless given one', () => {
    const server = new OutageServer(1_000, 2, 100, 2_000);
    expect([0, 999, 1_000, 5_000].map((t) => server.retryAfter(t))).toEqual([2_000, 2_000, undefined, undefined]);
    // The demo's server is built without one.
    expect(new OutageServer(1_000, 2, 100).retryAfter(0)).toBeUndefined();
  });

  it("client retries under the old rule sleep the wait plus the attempt's backoff, with decide's checks", () => {
    const policy = createPolicy({ maxAttempts: 4, timeoutMs: 10_000, random: () => 0.5 });
    const old = new ClientRetries(1, policy, 'floor-plus-backoff');
    expect(old.failed(0, 0, 2_000)).toEqual({ retry: true, delayMs: 2_050, backoffMs: 50 });
    expect(old.failed(0, 0, 2_000)).toEqual({ retry: true, delayMs: 2_100, backoffMs: 100 });
    expect(old.failed(0, 7_800, 2_000)).toEqual({ retry: false, reason: 'timeout' }); // 7 800 + 2 000 + 200
    const capped = new ClientRetries(
      1,
      createPolicy({ maxRetryAfterMs: 1_000, random: () => 0.5 }),
      'floor-plus-backoff',
    );
    expect(capped.failed(0, 0, 2_000)).toEqual({ retry: false, reason: 'retry-after' });
    // The library's rule, for the same failures: the wait plus half of it, whatever the attempt.
    const spread = new ClientRetries(1, policy);
    expect(spread.failed(0, 0, 2_000)).toEqual({ retry: true, delayMs: 3_000, backoffMs: undefined });
    expect(spread.failed(0, 0)).toEqual({ retry: true, delayMs: 100, backoffMs: 100 });
  });

  it('client retries count failed attempts per client, grow decorrelated jitter from the last backoff, and stop', () => {
    const retries = new ClientRetries(2, createPolicy({ jitter: 'decorrelated', maxAttempts: 3, random: () => 0.5 }));
    expect(retries.failed(0, 0)).toEqual({ retry: true, delayMs: 200, backoffMs: 200 });
    expect(retries.failed(1, 0)).toEqual({ retry: true, delayMs: 200, backoffMs: 200 }); // its own count
    expect(retries.failed(0, 0)).toEqual({ retry: true, delayMs: 350, backoffMs: 350 });
    expect(retries.failed(0, 0)).toEqual({ retry: false, reason: 'attempts' });
  });

  it('percentile is nearest-rank', () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(percentile([1, 2, 3, 4], 0.99)).toBe(4);
    expect(percentile([], 0.5)).toBeNaN();
  });

  it('selectPercentile finds the percentile of values in any order, as percentile of them sorted (property)', () => {
    const values = fc.array(fc.oneof(fc.integer({ min: 0, max: 5 }), fc.double({ min: 0, max: 1e4, noNaN: true })), {
      maxLength: 300,
    });
    fc.assert(
      fc.property(values, fc.constantFrom(0, 0.01, 0.5, 0.99, 1), fc.constantFrom(64, 1, 0), (xs, p, rounds) => {
        const sorted = Float64Array.from(xs).sort();
        expect(selectPercentile(Float64Array.from(xs), p, rounds)).toBe(percentile(sorted, p));
      }),
    );
    expect(selectPercentile(new Float64Array(0), 0.99)).toBeNaN();
  });
});

describe('charts', () => {
  const series = [
    { name: 'fixed', load: [0, 500, 0, 0, 450, 0, 90] },
    { name: 'full', load: [300, 100, 80, 60, 40, 20, 10] },
  ];
  const options = { windowMs: 100, capacity: 100, outageMs: 300 };

  it('the terminal chart fits 80 columns and marks spans over capacity', () => {
    const text = terminalChart(series, options);
    for (const line of text.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
    expect(text).toContain('fixed |');
    expect(text).toMatch(/!/);
    expect(text).toContain('^ outage ends');
  });

  it.each(['a', 'full', 'decorrelated', 'a-strategy-with-a-long-name'])(
    "the terminal chart puts '^' in the column where the outage ends, whatever the name column (%s)",
    (name) => {
      // 140 windows of 100 ms; an outage of 4 s ends in window 40
      const text = terminalChart([{ name, load: Array.from({ length: 140 }, () => 50) }], {
        windowMs: 100,
        capacity: 100,
        outageMs: 4_000,
      });
      const lines = text.split('\n');
      const row = lines.find((l) => l.startsWith(`${name} `) && l.includes('|')) as string;
      const columns = row.length - row.indexOf('|') - 2;
      const span = Math.ceil(140 / columns);
      const marker = lines.find((l) => l.includes('outage ends')) as string;
      expect(marker.indexOf('^') - (row.indexOf('|') + 1)).toBe(Math.floor(40 / span));
      for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
    },
  );

  it('the outage marker label moves left of the ^ when the outage ends near the right edge of 80 columns', () => {
    const name = 'x'.repeat(20);
    const text = terminalChart([{ name, load: Array.from({ length: 56 }, () => 50) }], {
      windowMs: 100,
      capacity: 100,
      outageMs: 5_400,
    });
    const marker = text.split('\n').find((l) => l.includes('outage ends')) as string;
    expect(marker).toMatch(/outage ends \^$/);
    expect(marker.indexOf('^')).toBe(`${name} |`.length + 54);
    expect(marker.length).toBeLessThanOrEqual(80);
  });

  it('the outage marker is a bare ^ when its label fits on neither side', () => {
    const name = 'y'.repeat(60); // 17 columns of bars; the label fits neither right of column 6 nor left of it
    const text = terminalChart([{ name, load: Array.from({ length: 17 }, () => 50) }], {
      windowMs: 100,
      capacity: 100,
      outageMs: 600,
    });
    const lines = text.split('\n');
    const marker = lines[lines.length - 2] as string;
    expect(marker.trim()).toBe('^');
    expect(marker.indexOf('^')).toBe(`${name} |`.length + 6);
  });

  it('the SVG is self-contained small multiples: a panel per series on one scale, each with capacity and outage', () => {
    const svg = svgChart([...series, { name: 'burst', load: [9_000, 0, 0, 0] }], { ...options, title: 'a <b> & c' });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).not.toMatch(/<script|href=|@import|url\(/);
    expect(svg).toContain('time (s)');
    expect(svg).toContain('requests per 100 ms');
    expect(svg).toContain('capacity 100');
    expect(svg).toContain('a &lt;b&gt; &amp; c');
    // The shared scale stops at 4x capacity; the burst is before the outage's end, named apart from the peak after.
    expect(svg).toContain('burst: peak 0 after the outage; 9000 before its end (clipped)');
    expect(svg).toContain('>fixed: peak 450 after the outage<'); // under the scale's top, 500
    expect(svg).toContain('>full: peak 60 after the outage<');
    const panels = series.length + 1;
    expect(svg.match(/<polyline/g)).toHaveLength(panels);
    expect(svg.match(/stroke-dasharray="6 4"/g)).toHaveLength(panels); // a capacity line in each
    expect(svg.match(/fill="#ececec"/g)).toHaveLength(panels); // the outage shaded in each
    // One scale: the capacity line sits at the same height within every panel.
    const heights = [...svg.matchAll(/y1="([\d.]+)" y2="[\d.]+" stroke="#000"/g)].map((m) => Number(m[1]));
    const gaps = heights.slice(1).map((h, i) => h - (heights[i] as number));
    expect(new Set(gaps).size).toBe(1);
  });

  it('the shaded span runs from outageFromMs, and the view to viewMs', () => {
    const svg = svgChart([{ name: 'a', load: Array.from({ length: 100 }, () => 50) }], {
      windowMs: 100,
      capacity: 100,
      outageFromMs: 2_000,
      outageMs: 3_000,
      outageLabel: 'slowdown',
      viewMs: 5_000,
    });
    expect(svg).toContain('shaded: the slowdown');
    const [, x, width] = /<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"[^>]*#ececec/.exec(svg) ?? [];
    // The plot is 866 px for 5 s from x = 70: the slowdown is 2 s to 3 s.
    expect(Number(x)).toBeCloseTo(70 + 866 * 0.4, 0);
    expect(Number(width)).toBeCloseTo(866 * 0.2, 0);
    expect(svg).toContain('cut at 5.0 s; runs last to 10 s');
  });

  it("an outage SVG's panel titles give the peak after the outage, the figure the table's peak/N gives", () => {
    const { results, settings } = simulateOutage({ clients: 300, strategies: ['fixed', 'full'] });
    const svg = svgChart(
      results.map((r) => ({ name: r.strategy, load: r.load })),
      { windowMs: settings.capacityWindowMs, capacity: settings.capacity, outageMs: settings.outageMs },
    );
    const titles = [...svg.matchAll(/font-weight="bold">([^<]*)</g)].map((m) => m[1]);
    for (const r of results) {
      const title = titles.find((t) => t?.startsWith(`${r.strategy}: `)) as string;
      expect(title).toMatch(new RegExp(`^${r.strategy}: peak ${r.peakAfterOutage} after the outage`));
      expect(outageTable(results, settings.capacity)).toMatch(
        new RegExp(`\\n${r.strategy} .* ${r.peakAfterOutage} \\(`),
      );
    }
    // The first wave, at 0 s, is over every later peak here: naming it as the peak contradicted the table.
    expect(Math.max(...(results[1]?.load.slice(0, 10) ?? []))).toBeGreaterThan(results[1]?.peakAfterOutage as number);
  });

  it("a series' note follows its panel's title", () => {
    const svg = svgChart([{ name: 'a', load: [50, 50], note: 'goodput 80.0%' }], { windowMs: 100, capacity: 100 });
    expect(svg).toContain('>a; goodput 80.0%<');
  });

  it('a run that ends inside the outage is drawn to the outage end, its marker in range and its axis labels apart', () => {
    const text = terminalChart([{ name: 'immediate', load: [5, 3, 2] }], {
      windowMs: 100,
      capacity: 100,
      outageMs: 4_000,
    });
    const lines = text.split('\n');
    const row = lines.find((l) => l.startsWith('immediate |')) as string;
    const columns = row.length - 'immediate |'.length - 1;
    expect(columns).toBe(40); // 4 s of 100 ms windows, not the 3 windows with requests
    const marker = lines.find((l) => l.includes('outage ends')) as string;
    expect(marker.indexOf('^') - 'immediate |'.length).toBe(39);
    expect(lines.at(-1)).toMatch(/^ +0 s +4\.0 s$/);
    // A run shorter than its labels: still a space between them (it printed `0 s300 ms`).
    const short = terminalChart([{ name: 'a', load: [5, 3, 2] }], { windowMs: 100, capacity: 100 });
    expect(short.split('\n').at(-1)).toBe('      0 s 300 ms');
  });
});
