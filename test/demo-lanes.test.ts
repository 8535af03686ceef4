import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { lanes } from '../demo/lane';
import { demoSettings } from '../demo/settings';
import { createRetryBudget, type RetryError } from '../src/index';

/**
 * "Tests the suite lacks" (issue 19): the demo's budget lanes once built their budget with the library's reserve
 * instead of the demo's settings (`budgetMinPerSecond`, `budgetWindowMs`), and every test passed. Watched here at the
 * source, whatever the library's rules make of those settings: the budget each budget lane makes is made from the
 * demo's settings, and it is the one the lane's calls go through (on a real server on 127.0.0.1).
 */
vi.mock('../src/index', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/index')>();
  return {
    ...actual,
    createRetryBudget: vi.fn((...args: Parameters<typeof actual.createRetryBudget>) => {
      const budget = actual.createRetryBudget(...args);
      vi.spyOn(budget as unknown as { open: () => unknown }, 'open');
      return budget;
    }),
  };
});

const made = vi.mocked(createRetryBudget);

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((_, res) => res.writeHead(503).end('busy')); // fails every request fast
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  made.mockClear();
});

describe("the demo's budget lanes use the demo's budget settings, not the library's defaults", () => {
  const s = demoSettings({ baseMs: 1, maxAttempts: 2, budgetMinPerSecond: 3, budgetWindowMs: 7_000 });

  for (const name of ['herdless, full + budget', 'herdless, full + budget + breaker']) {
    it(`${name}: its budget has the demo's windowMs and minPerSecond, and its calls go through it`, async () => {
      const lane = lanes(s).find(([n]) => n === name) as [string, () => ReturnType<ReturnType<typeof lanes>[0][1]>];
      const call = lane[1]();
      expect(made).toHaveBeenCalledTimes(1);
      expect(made.mock.calls[0]?.[0]).toMatchObject({ windowMs: 7_000, minPerSecond: 3 });
      let ids = 0;
      const error = await call(
        url,
        { next: () => String(++ids), aborted: () => {} },
        new AbortController().signal,
      ).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((error as RetryError).name).toBe('RetryError');
      const budget = made.mock.results[0]?.value as { open: ReturnType<typeof vi.fn> };
      expect(budget.open).toHaveBeenCalled();
    });
  }

  it('the lanes without a budget make none', () => {
    for (const [name, factory] of lanes(s)) if (!name.includes('budget')) factory();
    expect(made).not.toHaveBeenCalled();
  });
});
