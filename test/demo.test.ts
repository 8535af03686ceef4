import { describe, expect, it } from 'vitest';
import { runDemo } from '../demo/run-demo';

// A smoke test of `npm run demo` on real sockets and real time: a few dozen clients and a short outage (about 2 s).
describe('the real-server demo', () => {
  const small = { clients: 30, outageMs: 300, capacity: 10, maxAttempts: 5, fixedDelayMs: 100, capMs: 300 };

  it('runs every strategy, and the counts at client and server agree', async () => {
    const results = await runDemo(small);
    expect(results.map((r) => r.strategy)).toEqual([
      'naive loop, fixed 100 ms',
      'herdless, full jitter',
      'herdless, decorrelated',
      'herdless, full + budget',
      'herdless, full + budget + breaker',
    ]);
    for (const r of results) {
      expect(r.sent).toBe(r.received);
      expect(r.requests).toBe(r.received);
      expect(r.load.reduce((a, b) => a + b, 0)).toBe(r.received);
      expect(r.succeeded + r.gaveUp + r.errors).toBe(30);
      expect(r.errors).toBe(0);
      // Every client sends at least once, except those an open breaker refused (it opens after 5 failures).
      expect(r.requests).toBeGreaterThanOrEqual(r.strategy.includes('breaker') ? 5 : 30);
      expect(r.requests).toBeLessThanOrEqual(30 * 5);
    }
    // A budget holds retries to 10% of the 30 first attempts plus its reserve of 10 a second over 10 s.
    const budget = results[3] as (typeof results)[0];
    expect(budget.requests).toBeLessThanOrEqual(30 + 0.1 * 30 + 100);
    expect((results[4] as (typeof results)[0]).requests).toBeLessThanOrEqual(budget.requests);
  }, 20_000);

  it('stops early when its signal aborts, closing the server', async () => {
    const controller = new AbortController();
    const run = runDemo({ ...small, outageMs: 5_000, onStrategy: () => {}, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 200);
    await expect(run).rejects.toThrow('stop');
  }, 20_000);
});
