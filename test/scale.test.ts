// Shared things at scale, on the real clock: 10,000 concurrent calls sharing one signal. The sleeps are a few ms
// (baseMs 1), and nothing about time is asserted: @sinonjs/fake-timers scans every timer it holds on each tick, so
// at this scale it would measure itself. Speed is measured in bench/shared-signal.mjs.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createPolicy, retry } from '../src/index';

// One error object for every failure: making 30,000 stack traces would cost more than everything measured here.
const blip = Object.assign(new Error('blip'), { status: 503 });

// A hang guard, not a speed check: a loaded 2-core CI machine takes a few seconds here.
describe('one signal shared by 10,000 concurrent calls', { timeout: 60_000 }, () => {
  it('holds one listener of ours, all succeed, no MaxListeners warning, none left after', async () => {
    const controller = new AbortController();
    const { signal } = controller;
    const warnings: unknown[] = [];
    const onWarning = (w: unknown) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const policy = createPolicy({ maxAttempts: 5, baseMs: 1, capMs: 5, timeoutMs: 60_000, signal });
      let peak = 0;
      const calls = Array.from({ length: 10_000 }, (_, i) => {
        let failures = 0;
        return retry(() => {
          if (failures === 1) peak = Math.max(peak, getEventListeners(signal, 'abort').length);
          if (failures++ < 3) return Promise.reject(blip);
          return Promise.resolve(i);
        }, policy);
      });
      const values = await Promise.all(calls);
      expect(values).toEqual(Array.from({ length: 10_000 }, (_, i) => i));
      expect(peak).toBe(1); // before: 10,000, one per pending call
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => String(w).includes('MaxListeners'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('an abort rejects all 10,000 pending calls with its reason and leaves no listener', async () => {
    const controller = new AbortController();
    const reason = new Error('shutdown');
    const calls = Array.from({ length: 10_000 }, () =>
      retry(() => new Promise(() => {}), { signal: controller.signal, timeoutMs: 60_000 }).catch((e: unknown) => e),
    );
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(reason);
    const outcomes = await Promise.all(calls);
    expect(outcomes.every((e) => e === reason)).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
