import { expect, it } from 'vitest';
import { createHedge, hedgedFetch } from '../../src/hedge/index';
import { retryingFetch } from '../../src/index';
import { herd } from '../../src/testing/index';

// A dependency with a long tail and no outage: 2% of answers 25x slower, 2,000 calls over 20 s (a busy process).
const scene = {
  clients: 2_000,
  startWindowMs: 20_000,
  outageMs: 0,
  capacity: 100,
  tail: { share: 0.02, factor: 25 },
} as const;

it('the hedge cuts the p99 at least 5x for at most 5% more requests', async () => {
  const [plain] = (await herd(({ url }) => retryingFetch()(url), scene)).results;
  const hedge = createHedge(); // its p95, once it has seen 100 answers
  const [hedged] = (await herd(({ url }) => retryingFetch({ fetch: hedgedFetch(hedge) })(url), scene)).results;
  expect(hedged?.succeeded).toBe(2_000);
  expect((plain?.p99Ms ?? 0) / (hedged?.p99Ms ?? 1)).toBeGreaterThanOrEqual(5);
  expect(hedged?.requests).toBeLessThanOrEqual(2_000 * 1.05);
});
