import FakeTimers, { type Clock as InstalledClock } from '@sinonjs/fake-timers';
import { afterEach, beforeEach } from 'vitest';
import type { Pass, RetryBudget } from '../src/index';

/** A `random` that returns the given draws in order, then throws: a test sees exactly how many draws were made. */
export function draws(...values: number[]): () => number {
  let i = 0;
  return () => {
    if (i >= values.length) throw new Error(`random() called ${i + 1} times, only ${values.length} draws given`);
    return values[i++] as number;
  };
}

/** A small seeded generator (mulberry32), for reproducible runs. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Installs a @sinonjs fake clock before each test (after the library was imported, as a user would) and
 * uninstalls it after. Only timers and clocks are faked: promises and microtasks run as usual.
 */
export function useFakeClock(): { readonly clock: InstalledClock } {
  const holder = {} as { clock: InstalledClock };
  beforeEach(() => {
    holder.clock = FakeTimers.install({
      toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'],
      now: 1_000_000,
    });
    // Move both clocks off their origin, so that code mixing up `now - start` and `now + start` shows.
    holder.clock.tick(5_000);
  });
  afterEach(() => {
    holder.clock.uninstall();
  });
  return holder;
}

/** Settles a promise into a value the test can inspect without an unhandled rejection in between. */
export function settle<T>(promise: Promise<T>): {
  readonly result: { status: 'pending' | 'fulfilled' | 'rejected'; value?: T; reason?: unknown };
} {
  const state = {
    result: {
      status: 'pending' as 'pending' | 'fulfilled' | 'rejected',
      value: undefined as T | undefined,
      reason: undefined as unknown,
    },
  };
  promise.then(
    (value) => {
      state.result = { status: 'fulfilled', value, reason: undefined };
    },
    (reason: unknown) => {
      state.result = { status: 'rejected', value: undefined, reason };
    },
  );
  return state;
}

/**
 * Runs `body` and returns the unhandled rejections and uncaught exceptions seen while it ran and for three turns of
 * the event loop after (a rejection left unhandled is reported a turn or two late).
 */
export async function stray(body: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const note = (error: unknown) => seen.push(error);
  process.on('unhandledRejection', note);
  process.on('uncaughtException', note);
  try {
    await body();
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('unhandledRejection', note);
    process.off('uncaughtException', note);
  }
  return seen;
}

/**
 * A budget that delegates to `real`, as a user's wrapper of the Guard example does: its passes forward every argument
 * of `settle` (`(...args) => pass.settle(...args)`) and hand each answer to `seen` first.
 */
export function delegating(
  real: RetryBudget,
  seen: (stop: ReturnType<Pass['settle']>) => void = () => {},
): RetryBudget {
  return {
    deposit: () => real.deposit(),
    tryWithdraw: () => real.tryWithdraw(),
    available: () => real.available(),
    reset: () => real.reset(),
    open(next) {
      const pass = real.open(next);
      return {
        settle: (...args) => {
          const stop = pass.settle(...args);
          seen(stop);
          return stop;
        },
      };
    },
  };
}
