import { getEventListeners } from 'node:events';
import FakeTimers from '@sinonjs/fake-timers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPolicy, RetryError, retry } from '../src/index';
import { settle } from './helpers';

const never = () => new Promise<never>(() => {});

/**
 * The ways users drive a fake clock in their own tests. A synchronous tick right after the call must fire an
 * attempt's timeout and the deadline: the attempt is pending from the start, and its timer was due within the tick.
 */
const drivers = {
  'sinon install() with its defaults (queueMicrotask and performance faked too)': () => {
    const clock = FakeTimers.install();
    return { tick: (ms: number) => clock.tick(ms), count: () => clock.countTimers(), done: () => clock.uninstall() };
  },
  "sinon with the README's toFake list": () => {
    const clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    return { tick: (ms: number) => clock.tick(ms), count: () => clock.countTimers(), done: () => clock.uninstall() };
  },
  'vitest vi.useFakeTimers() defaults': () => {
    vi.useFakeTimers();
    return {
      tick: (ms: number) => vi.advanceTimersByTime(ms),
      count: () => vi.getTimerCount(),
      done: () => vi.useRealTimers(),
    };
  },
};

describe('a fake clock ticked synchronously right after the call', () => {
  let done: (() => void) | undefined;
  afterEach(() => done?.());

  for (const [name, install] of Object.entries(drivers)) {
    it(`${name}: attemptTimeoutMs fires within the tick`, async () => {
      const clock = install();
      done = clock.done;
      const run = settle(retry(never, { attemptTimeoutMs: 100, maxAttempts: 1 }));
      clock.tick(100);
      for (let i = 0; i < 5; i++) await Promise.resolve();
      expect(run.result.reason).toBeInstanceOf(RetryError);
      expect(run.result.reason).toMatchObject({ reason: 'attempts', attempts: 1 });
      expect(clock.count()).toBe(0);
      // ...and not before it was due.
      const early = settle(retry(never, { attemptTimeoutMs: 100, maxAttempts: 1 }));
      clock.tick(99);
      for (let i = 0; i < 5; i++) await Promise.resolve();
      expect(early.result.status).toBe('pending');
      clock.tick(1);
      for (let i = 0; i < 5; i++) await Promise.resolve();
      expect(early.result.reason).toMatchObject({ reason: 'attempts', attempts: 1 });
    });

    it(`${name}: the deadline fires within the tick, and a call that settles at once leaves no timer`, async () => {
      const clock = install();
      done = clock.done;
      const run = settle(retry(never, { timeoutMs: 100 }));
      clock.tick(100);
      for (let i = 0; i < 5; i++) await Promise.resolve();
      expect(run.result.reason).toMatchObject({ reason: 'timeout', attempts: 1 });
      const quick = settle(retry(async () => 'ok', { timeoutMs: 100, attemptTimeoutMs: 50 }));
      for (let i = 0; i < 5; i++) await Promise.resolve();
      expect(quick.result.value).toBe('ok');
      expect(clock.count()).toBe(0);
    });

    it(`${name}: an attempt that returns a plain value arms no timer and adds no listener, even for a moment`, async () => {
      const clock = install();
      done = clock.done;
      const controller = new AbortController();
      // Looked at synchronously, right after the call: guard() has run up to its first wait by then.
      const run = settle(retry(() => 'sync', { signal: controller.signal, timeoutMs: 5_000, attemptTimeoutMs: 1_000 }));
      expect(clock.count()).toBe(0);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      for (let i = 0; i < 5; i++) await Promise.resolve();
      expect(run.result.value).toBe('sync');
    });
  }
});

describe('on the real clock', () => {
  afterEach(() => vi.restoreAllMocks());

  it('a call whose attempt settles at once never touches the signal, nor arms a timer', async () => {
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const clears = vi.spyOn(globalThis, 'clearTimeout');
    const policy = createPolicy({ signal: controller.signal, timeoutMs: 5_000, attemptTimeoutMs: 1_000 });
    await expect(retry(async () => 'at once', policy)).resolves.toBe('at once');
    await expect(retry(() => 'sync', policy)).resolves.toBe('sync');
    expect(add).not.toHaveBeenCalled();
    expect(timers).not.toHaveBeenCalled();
    expect(clears).not.toHaveBeenCalled(); // nor clears one it never armed
    // One still pending a microtask later does both, and lets go of them.
    await expect(retry(() => new Promise((r) => setTimeout(r, 1, 'later')), policy)).resolves.toBe('later');
    expect(add).toHaveBeenCalledTimes(1);
    expect(timers).toHaveBeenCalledTimes(2); // fn's own and the attempt's
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
