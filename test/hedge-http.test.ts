import { describe, expect, it } from 'vitest';
import { createHedge, hedgedFetch } from '../src/hedge/index';
import { retryingFetch } from '../src/index';
import { serve } from './http-server';

/**
 * A real node:http server whose tail the test controls: 1 request in 10 (the 5th of each 10) is in a slow mode and
 * answers after 1.5 s, the others after 5 ms. Real sockets, real time.
 */
describe('hedgedFetch on a real node:http server with a slow mode', () => {
  it('the hedge wins over the slow mode; the slow request is aborted and its connection closed', async () => {
    const closedEarly: number[] = [];
    const server = await serve((_seen, res, n) => {
      const ms = n % 10 === 4 ? 1_500 : 5;
      const timer = setTimeout(() => res.end(`answer ${n}`), ms);
      res.on('close', () => {
        clearTimeout(timer);
        if (!res.writableFinished) closedEarly.push(n);
      });
    });
    // A fixed delay far above the fast answers (5 ms), so that only the slow mode crosses it on a loaded machine.
    const hedge = createHedge({ delayMs: 100, maxExtraLoad: 0.5 });
    const get = retryingFetch({ attemptTimeoutMs: 5_000, fetch: hedgedFetch(hedge) });
    const times: number[] = [];
    for (let k = 0; k < 10; k++) {
      const from = performance.now();
      const res = await get(server.url);
      await res.text();
      times.push(performance.now() - from);
    }
    // The 5th call's first request fell in the slow mode; the hedge sent after 100 ms answered.
    expect(times[4]).toBeGreaterThanOrEqual(100);
    expect(Math.max(...times)).toBeLessThan(1_000);
    expect(server.seen).toHaveLength(11); // 10 calls, one hedge
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closedEarly).toEqual([4]);
  });
});
