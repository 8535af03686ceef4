import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lanes } from '../demo/lane';
import { demoSettings } from '../demo/settings';
import { createCircuitBreaker, RetryError, retry } from '../src/index';
import { simulateOutage, simulateOverload } from '../src/simulate/index';
import { useFakeClock } from './helpers';

/**
 * "Tests the suite lacks" (issue 19): each test here fails on a bug an independent review wrote by hand and that
 * passed every test before. Each was applied by hand, seen to fail the test, and reverted (see the commit message).
 */

const transient = () => Object.assign(new Error('busy'), { status: 503 });

describe('breaker: a retry may follow a failure only while the breaker is closed', () => {
  const fake = useFakeClock();

  it("a failure landing while it is half-open stops the call with 'circuit-open', not a retry", async () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 1, breakMs: 1_000 });
    let failFirst: (error: unknown) => void = () => {};
    let attempts = 0;
    // Call A: its first attempt is admitted while closed and hangs until the breaker is half-open.
    const a = retry(
      () => {
        attempts++;
        if (attempts === 1) return new Promise<string>((_, reject) => (failFirst = reject));
        return 'ok';
      },
      { breaker, maxAttempts: 3, baseMs: 10 },
    ).catch((e: unknown) => e);
    // Call B fails: the breaker opens; 1 s later it is half-open.
    await retry(() => Promise.reject(transient()), { breaker, maxAttempts: 1 }).catch(() => {});
    expect(breaker.state).toBe('open');
    await fake.clock.tickAsync(1_000);
    expect(breaker.state).toBe('half-open');
    // A's failure is stale (admitted in an older generation) and leaves the breaker half-open: no retry may follow.
    failFirst(transient());
    await fake.clock.runAllAsync();
    const error = await a;
    expect(error).toBeInstanceOf(RetryError);
    expect((error as RetryError).reason).toBe('circuit-open');
    expect(attempts).toBe(1);
    expect(breaker.state).toBe('half-open');
  });
});

describe('simulateOutage: every client is counted once, as succeeded or gave up', () => {
  it('for +breaker strategies too, whose clients the open breaker refuses', () => {
    const strategies = ['immediate', 'fixed', 'none', 'full', 'equal', 'decorrelated'].flatMap((s) => [
      s as 'full',
      `${s}+breaker` as 'full+breaker',
      `${s}+budget+breaker` as 'full+budget+breaker',
    ]);
    const { results } = simulateOutage({ clients: 300, strategies });
    for (const r of results)
      expect({ strategy: r.strategy, total: r.succeeded + r.gaveUp }).toEqual({
        strategy: r.strategy,
        total: 300,
      });
    // The breaker does refuse: its clients send fewer requests than the same strategy without it.
    const requests = (name: string) => results.find((r) => r.strategy === name)?.requests as number;
    expect(requests('full+breaker')).toBeLessThan(requests('full'));
  });
});

describe('simulateOverload: recovery is the first of 5 good seconds in a row', () => {
  // No slowdown at all (its capacity is the full capacity): every second after it is good.
  const calm = { capacity: 100, slowdownCapacity: 1, strategies: ['full'] as const };

  it('5 seconds after the blip: recovered at once', () => {
    expect(simulateOverload({ ...calm, afterMs: 5_000 }).results[0]?.recoveryMs).toBe(0);
  });

  it('4 good seconds are not a recovery', () => {
    expect(simulateOverload({ ...calm, afterMs: 4_000 }).results[0]?.recoveryMs).toBeNull();
  });

  it('a bad second restarts the count: after a slowdown, recovery is where 5 good seconds begin', () => {
    const { results } = simulateOverload({ capacity: 100, strategies: ['full+breaker'], afterMs: 30_000 });
    const recovery = results[0]?.recoveryMs as number;
    expect(recovery).toBeGreaterThan(0);
    expect(recovery % 1_000).toBe(0);
    // The same run cut 1 s short of those 5 seconds has not recovered; cut at them, it has, at the same second.
    const cut = (afterMs: number) =>
      simulateOverload({ capacity: 100, strategies: ['full+breaker'], afterMs }).results[0]?.recoveryMs;
    expect(cut(recovery + 5_000)).toBe(recovery);
    expect(cut(recovery + 4_000)).toBeNull();
  });
});

describe("the demo's budget lanes use the demo's budget, not the library's defaults", () => {
  let server: Server;
  let url: string;
  let received = 0;
  beforeAll(async () => {
    // A real server that fails every request fast, with a 503.
    server = createServer((_, res) => {
      received++;
      res.writeHead(503).end('busy');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  /** One call of the lane named `name` under `options`: what it rejected with and the requests it sent. */
  async function oneCall(name: string, options: Parameters<typeof demoSettings>[0]) {
    const lane = lanes(demoSettings({ baseMs: 1, maxAttempts: 3, ...options })).find(([n]) => n === name);
    const call = (lane as [string, () => (url: string, tally: unknown, stop: AbortSignal) => Promise<void>])[1]();
    let ids = 0;
    received = 0;
    const error = await call(url, { next: () => String(++ids), aborted: () => {} }, new AbortController().signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    return { reason: (error as RetryError).reason, received };
  }

  for (const name of ['herdless, full + budget', 'herdless, full + budget + breaker']) {
    it(`${name}: budgetMinPerSecond 0 leaves no reserve: the first failure's retry is refused`, async () => {
      // The library's reserve (10 a second over 10 s) would pay for both retries.
      expect(await oneCall(name, { budgetMinPerSecond: 0 })).toEqual({ reason: 'budget', received: 1 });
    });

    it(`${name}: the reserve is budgetMinPerSecond over budgetWindowMs`, async () => {
      // 0.1 a second over 20 s: a reserve of 2, both retries paid; over the library's 10 s window, 1.
      expect(await oneCall(name, { budgetMinPerSecond: 0.1, budgetWindowMs: 20_000 })).toEqual({
        reason: 'attempts',
        received: 3,
      });
      expect(await oneCall(name, { budgetMinPerSecond: 0.1, budgetWindowMs: 10_000 })).toEqual({
        reason: 'budget',
        received: 2,
      });
    });
  }
});
