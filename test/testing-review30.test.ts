import { describe, expect, it } from 'vitest';
import { assertNoHerd } from '../src/testing/assert';
import { herd } from '../src/testing/herd';
import type { HerdContext } from '../src/testing/options';

/** Every caller: one request at 0 ms, then one more at `atMs` (all in step), whatever the first answered. */
const inStepAt =
  (atMs: number) =>
  async ({ url, fetch }: HerdContext): Promise<Response> => {
    await fetch(url);
    await new Promise((resolve) => setTimeout(resolve, atMs - Date.now())); // the clock starts at 0 ms
    return fetch(url);
  };

describe('issue 30 item 5: the window in which the outage ends counts after the outage', () => {
  it('a herd landing 30 ms after an outage of 1,010 ms is the peak after the outage, and fails assertNoHerd', async () => {
    const report = await herd(inStepAt(1_040), { outageMs: 1_010, intercept: false, latencyMs: 0 });
    const [f] = report.results;
    expect(f?.load[10]).toBe(200);
    expect(f?.peakAfterOutage).toBe(200);
    expect(f?.peakOverCapacity).toBe(10);
    expect(() => assertNoHerd(report, { minSuccess: 0 })).toThrow(/200 requests in one 100 ms window after the outage/);
  });

  it("counts only that window's arrivals from the end on: the outage's own requests are not a herd after it", async () => {
    // 200 requests at 0 ms and 200 at 1,005 ms, in the outage; none after it.
    const report = await herd(inStepAt(1_005), { outageMs: 1_010, intercept: false, latencyMs: 0 });
    expect(report.results[0]?.load[10]).toBe(200);
    expect(report.results[0]?.peakAfterOutage).toBe(0);
  });

  it('an outage that ends on a window edge is as before: the next window is the first after it', async () => {
    const report = await herd(inStepAt(1_040), { outageMs: 1_000, intercept: false, latencyMs: 0 });
    expect(report.results[0]?.peakAfterOutage).toBe(200);
    const early = await herd(inStepAt(990), { outageMs: 1_000, intercept: false, latencyMs: 0 });
    expect(early.results[0]?.peakAfterOutage).toBe(0);
  });
});
