// Regressions for what the adversarial review of hedging's simulator and fixes found (issue 32): each failed before.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createHedge, hedged, hedgedFetch } from '../src/hedge/index';
import { simulateContention, simulateHedge, simulateOutage } from '../src/simulate/index';
import { herd } from '../src/testing/index';
import { runCli } from './cli-helpers';
import { settle, useFakeClock } from './helpers';

const fake = useFakeClock();
const ctx = (signal = new AbortController().signal) => ({ attempt: 1, elapsedMs: 0, signal });

describe('1: the outage and contention scenarios refuse a hedge they would not simulate', () => {
  it('from code: a RangeError naming the strategy and where hedging runs', () => {
    expect(() => simulateOutage({ clients: 10, strategies: ['full+hedge'] })).toThrow(
      /the outage scenario does not simulate hedges \('full\+hedge'\): hedging runs in the overload, partial, matrix, explore and hedge scenarios/,
    );
    expect(() => simulateContention({ clients: [5], runs: 1, strategies: ['full+hedge'] })).toThrow(
      /the contention scenario does not simulate hedges/,
    );
  });

  it('from the command line: exit 2, one line', () => {
    for (const scenario of ['outage', 'contention']) {
      const { code, err } = runCli('simulate', '--scenario', scenario, '--strategies', 'full,full+hedge');
      expect(code).toBe(2);
      expect(err).toMatch(new RegExp(`^herdless: --strategies for ${scenario} takes no hedge \\('full\\+hedge'\\)`));
    }
  });
});

describe("2: --budget and --breaker go before a strategy's +hedge", () => {
  it('full+hedge with --budget runs as full+budget+hedge', () => {
    const { code, out, err } = runCli(
      'simulate',
      '--scenario',
      'overload',
      '--capacity',
      '100/1s',
      '--budget',
      '--strategies',
      'full+hedge',
      '--json',
    );
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect((JSON.parse(out) as { results: { strategy: string }[] }).results.map((r) => r.strategy)).toEqual([
      'full+budget+hedge',
    ]);
  });
});

describe("3: a herd's tail or slowdown factor past what setTimeout waits is an answer that never comes", () => {
  it('not one that fires at once', async () => {
    const plain = ({ url, fetch }: { url: string; fetch: typeof globalThis.fetch }) =>
      fetch(url, { signal: AbortSignal.any([]) });
    const [r] = (
      await herd(plain, {
        clients: 20,
        startWindowMs: 1_000,
        outageMs: 0,
        capacity: 100,
        intercept: false,
        untilMs: 60_000,
        tail: { share: 1, factor: 1e9 },
      })
    ).results;
    expect(r?.succeeded).toBe(0);
    expect(r?.gaveUpWith.unfinished).toBe(20);
  });
});

describe("5: a hedge measures a round's latency on its own clock (the now option)", () => {
  it('a round of 100 ms on a clock that moved 5 is learnt as 5', async () => {
    let t = 0;
    const hedge = createHedge({ now: () => t, minSamples: 1, percentile: 0.5 });
    const call = settle(
      hedged(
        () =>
          new Promise<string>((resolve) =>
            setTimeout(() => {
              t += 5;
              resolve('ok');
            }, 100),
          ),
        hedge,
      )(ctx()),
    );
    await fake.clock.tickAsync(100);
    expect(call.result.value).toBe('ok');
    expect(hedge.peek()).toBeCloseTo(5, 0); // its histogram's bucket: 100 would be the real clock's
  });
});

describe('7: a failure held while the hedge ran is discarded when the caller aborts the round', () => {
  it('its body cancelled, even from a fetch whose bodies ignore the signal', async () => {
    let cancelled = 0;
    let n = 0;
    const quiet503 = () =>
      new Response(
        new ReadableStream({
          cancel() {
            cancelled++;
          },
        }),
        { status: 503 },
      );
    const f = hedgedFetch(createHedge({ delayMs: 10, maxExtraLoad: 1 }), {
      // The first attempt hangs (it ignores its signal too); the hedge answers 503 at once.
      fetch: () => (n++ === 0 ? new Promise<Response>(() => {}) : Promise.resolve(quiet503())),
    });
    const caller = new AbortController();
    const call = settle(f('http://x/', { signal: caller.signal }));
    await fake.clock.tickAsync(20);
    expect(n).toBe(2);
    expect(cancelled).toBe(0); // held: the first may still answer
    caller.abort(new Error('gone'));
    await fake.clock.tickAsync(0);
    expect(call.result.status).toBe('rejected');
    expect(cancelled).toBe(1);
  });
});

describe('8: refund() gives back only a hedge the last decision sent', () => {
  it('never makes tokens from nothing', () => {
    const hedge = createHedge({ delayMs: 10 });
    hedge.refund();
    hedge.refund();
    expect(hedge.tokens).toBe(0);
    hedge.begin();
    expect(hedge.decide(1, 10).send).toBe(false); // 0.05 of a token: refused ('load')
    hedge.refund();
    expect(hedge.tokens).toBeCloseTo(0.05, 10);
  });
});

describe('9: the guide gives the seed its table was taken with', () => {
  it("herdless simulate --scenario hedge --seed 7 gives the table's no-hedge row", () => {
    const guide = readFileSync('docs/guide/hedging.md', 'utf8');
    expect(guide).toContain('--seed 7');
    const [none] = simulateHedge({ seed: 7, strategies: ['no-hedge'] }).results;
    expect(guide).toMatch(
      new RegExp(
        `\\| no-hedge +\\| +${Math.round(none?.p50Ms as number)} \\| +${Math.round(none?.p99Ms as number)} \\| +${Math.round(none?.p999Ms as number)} \\|`,
      ),
    );
  });
});

describe('10 and 11: degenerate hedge runs are named, not NaN or a raw error', () => {
  it('no calls: the healthy p95 prints as -', () => {
    const { code, out } = runCli('simulate', '--scenario', 'hedge', '--load', '0.0000001');
    expect(code).toBe(0);
    expect(out).toContain('the healthy p95, - ms');
  });

  it('2^32 instances: a RangeError naming instances', () => {
    expect(() => simulateHedge({ instances: 2 ** 32, strategies: [] })).toThrow(
      /instances must be an integer in \[1, 1000000\], got 4294967296/,
    );
  });
});

describe('a new user: simulateHedge names a misspelt option, as createHedge does', () => {
  it('slowshare: did you mean slowShare?', () => {
    expect(() => simulateHedge({ slowshare: 0.5 } as never)).toThrow(/slowshare.*slowShare/);
    expect(() => simulateHedge(null as never)).toThrow(/simulateHedge's options must be an object, got null/);
  });
});

describe('the overload table shows the hedges a strategy sent, and only when one did', () => {
  it('a hedges column beside full+hedge, none without', () => {
    const hedged = runCli(
      'simulate',
      '--scenario',
      'overload',
      '--capacity',
      '100/1s',
      '--strategies',
      'full,full+hedge',
    );
    expect(hedged.code).toBe(0);
    expect(hedged.out).toMatch(/ +wasted +hedges\n/);
    expect(hedged.out).toMatch(/\nfull +.* 0\n/);
    const plain = runCli('simulate', '--scenario', 'overload', '--capacity', '100/1s', '--strategies', 'full');
    expect(plain.out).not.toContain('hedges');
  });
});

describe('reading the whole change again: a round whose start the clock could not read teaches the hedge nothing', () => {
  it('not a sample in no bucket, which made the percentile delay 26 days (hedging silently off)', async () => {
    let t = 0;
    let reads = 0;
    const hedge = createHedge({
      now: () => {
        if (reads++ === 0) throw new Error('clock');
        return t;
      },
      minSamples: 1,
      percentile: 0.5,
    });
    const ask = (ms: number) =>
      hedged(async () => {
        t += ms;
        return 'ok';
      }, hedge)(ctx());
    await expect(ask(5)).resolves.toBe('ok'); // the clock throws as this round begins (reported): no hedge
    expect(hedge.peek()).toBeUndefined(); // and nothing learnt from it
    await expect(ask(5)).resolves.toBe('ok');
    expect(hedge.peek()).toBeCloseTo(5, 0);
  });
});
