import { describe, expect, it } from 'vitest';
import { createHedge, hedgedFetch } from '../src/hedge/index';
import { retryingFetch } from '../src/index';
import { herd } from '../src/testing/index';

/**
 * herdless/testing sees a hedge (issue 32): a dependency with a long tail (`tail`), and the report's requests beside
 * its callers, so a user's test can hold a hedge to its cut of the tail and its extra load.
 */
describe('herd() with a long tail: what a hedge cuts, and what it costs', () => {
  // 2,000 callers over 20 s (100/s, a tenth of the capacity), no outage; 2% of answers 25x slower (about 500 ms).
  const scene = {
    clients: 2_000,
    startWindowMs: 20_000,
    outageMs: 0,
    capacity: 100, // 1,000/s: no caller shed by a Poisson burst
    tail: { share: 0.02, factor: 25 },
    intercept: false,
  } as const;
  const plain = ({ url, fetch }: { url: string; fetch: typeof globalThis.fetch }) =>
    retryingFetch({ fetch, maxAttempts: 1 })(url);

  it('draws a tail: 2% of calls take about 25 times the median', async () => {
    const [r] = (await herd(plain, scene)).results;
    expect(r?.succeeded).toBe(2_000);
    expect(r?.requests).toBe(2_000);
    expect(r?.p50Ms).toBeLessThan(30);
    expect(r?.p99Ms).toBeGreaterThan(300);
    const [calm] = (await herd(plain, { ...scene, tail: { share: 0, factor: 25 } })).results;
    expect(calm?.p99Ms).toBeLessThan(40);
  });

  it("a hedge at the tail's edge cuts the p99 5x or more for at most 5% more requests", async () => {
    const [none] = (await herd(plain, scene)).results;
    const hedge = createHedge(); // its p95, learnt from the first 100 answers
    const [hedged] = (
      await herd(
        ({ url, fetch }) => retryingFetch({ maxAttempts: 1, fetch: hedgedFetch(hedge, { fetch }) })(url),
        scene,
      )
    ).results;
    expect(hedged?.succeeded).toBe(2_000);
    expect((none?.p99Ms as number) / (hedged?.p99Ms as number)).toBeGreaterThan(5);
    expect(hedged?.requests).toBeGreaterThan(2_000);
    expect(hedged?.requests).toBeLessThanOrEqual(2_000 * 1.05);
  });

  it('names a bad tail', async () => {
    const call = () => 'ok';
    await expect(herd(call, { tail: { share: 2, factor: 25 } })).rejects.toThrow(
      /tail.share must be a number in \[0, 1\], got 2/,
    );
    await expect(herd(call, { tail: { share: 0.1, factor: 0.5 } })).rejects.toThrow(/tail.factor/);
    await expect(herd(call, { tail: 0.1 as never })).rejects.toThrow(/tail must be \{ share, factor \}/);
    await expect(herd(call, { tail: { share: 0.1, factor: 2, extra: 1 } as never })).rejects.toThrow(/extra/);
  });
});
