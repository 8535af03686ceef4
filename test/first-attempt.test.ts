import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createPolicy, permanent, type RetryOptions, retry } from '../src/index';
import { seeded, settle, useFakeClock } from './helpers';

// retry() makes the first attempt of a call with no signal, deadline, attempt timeout, result check, budget or
// breaker in a small function of its own (for speed), and hands a failure over to the loop. These tests hold the two
// paths to one behaviour: the same call, sent down the loop from its start by a `shouldRetryResult` that accepts
// every value, must see the same attempts, events, elapsed times, result and error.
const fake = useFakeClock();

type Step = { kind: 'ok' } | { kind: 'transient' | 'permanent' | 'wrapped' | 'sync'; costMs: number };

/** Runs one scripted call and records everything a user can observe of it. */
async function observe(steps: Step[], options: RetryOptions<unknown>) {
  const seen: unknown[] = [];
  const errors: Error[] = steps.map((_, i) => Object.assign(new Error(`failure ${i + 1}`), { status: 503 }));
  let n = 0;
  const run = settle(
    retry(
      (ctx) => {
        const i = n++;
        const step = steps[Math.min(i, steps.length - 1)] as Step;
        seen.push({ attempt: ctx.attempt, elapsedMs: ctx.elapsedMs });
        if (step.kind === 'ok') return Promise.resolve(`value ${i + 1}`);
        fake.clock.tick(step.costMs); // the attempt's own time, before it fails
        const error = step.kind === 'permanent' ? Object.assign(errors[i] as Error, { status: 404 }) : errors[i];
        if (step.kind === 'sync') throw error;
        return Promise.reject(step.kind === 'wrapped' ? permanent(error) : error);
      },
      {
        ...options,
        onFailure: (e) => void seen.push({ onFailure: { ...e } }),
        onRetry: (e) => void seen.push({ onRetry: { ...e } }),
      },
    ),
  );
  await fake.clock.runAllAsync();
  const { status, value, reason } = run.result;
  const error = reason as { name?: string; reason?: string; attempts?: number; elapsedMs?: number; errors?: unknown[] };
  return {
    seen,
    calls: n,
    status,
    value,
    reason:
      reason === undefined
        ? undefined
        : {
            same: errors.includes(reason as Error),
            name: error.name,
            stop: error.reason,
            attempts: error.attempts,
            elapsedMs: error.elapsedMs,
            errors: error.errors?.map((e) => errors.indexOf(e as Error)),
          },
  };
}

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ kind: 'ok' as const }),
  fc.record({
    kind: fc.constantFrom('transient' as const, 'permanent' as const, 'wrapped' as const, 'sync' as const),
    costMs: fc.integer({ min: 0, max: 50 }),
  }),
);

describe('retry: the first attempt made outside the loop', () => {
  it('behaves as the loop does: same attempts, events, elapsed times, result and error', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom(0, 10),
        fc.integer(),
        async (steps, maxAttempts, baseMs, seed) => {
          const options = { maxAttempts, baseMs, capMs: 40, random: seeded(seed) };
          const fast = await observe(steps, options);
          const looped = await observe(steps, { ...options, random: seeded(seed), shouldRetryResult: () => false });
          expect(fast).toEqual(looped);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("counts the first attempt's own time in elapsedMs, as the loop does", async () => {
    const outcome = await observe([{ kind: 'transient', costMs: 30 }, { kind: 'ok' }], { baseMs: 0, capMs: 0 });
    expect(outcome.seen).toEqual([
      { attempt: 1, elapsedMs: 0 },
      { onFailure: { attempt: 1, error: expect.any(Error), value: undefined, attemptsLeft: 2, elapsedMs: 30 } },
      {
        onRetry: { attempt: 1, attemptsLeft: 2, error: expect.any(Error), value: undefined, delayMs: 0, elapsedMs: 30 },
      },
      { attempt: 2, elapsedMs: 30 },
    ]);
    expect(outcome).toMatchObject({ status: 'fulfilled', value: 'value 2', calls: 2 });
  });

  it('gives up after the first attempt when maxAttempts is 1, with that attempt in the RetryError', async () => {
    const outcome = await observe([{ kind: 'transient', costMs: 5 }], { maxAttempts: 1 });
    expect(outcome.reason).toEqual({
      same: false,
      name: 'RetryError',
      stop: 'attempts',
      attempts: 1,
      elapsedMs: 5,
      errors: [0],
    });
  });
});

/** The microtask on which `promise` settles, counted from the call that made it (0: already settled). */
async function tickOf(make: () => Promise<unknown>): Promise<number> {
  let ticks = 0;
  let settledAt = -1;
  const count = () => {
    ticks++;
    if (settledAt < 0 && ticks < 50) queueMicrotask(count);
  };
  queueMicrotask(count);
  const mark = () => {
    settledAt = ticks;
  };
  make().then(mark, mark);
  for (let i = 0; i < 60; i++) await Promise.resolve();
  return settledAt;
}

describe('retry: the first attempt outside the loop, at its edges (review)', () => {
  const blip = () => Object.assign(new Error('blip'), { status: 503 });

  it('never throws synchronously, even for a policy whose getters throw (a Proxy of one, an object made from one)', async () => {
    const policy = createPolicy({ maxAttempts: 2 });
    const trap = new Error('trap');
    const hostile = [
      new Proxy(policy, {
        get: (target, key, receiver) => (key === 'budget' ? thrower(trap) : Reflect.get(target, key, receiver)),
      }),
      Object.defineProperty(Object.create(policy), 'breaker', { get: () => thrower(trap) }),
      Object.defineProperty(Object.create(policy), 'attemptTimeoutMs', { get: () => thrower(trap) }),
    ];
    for (const options of hostile) {
      const fn = vi.fn(() => 'value');
      let result: Promise<unknown> | undefined;
      expect(() => {
        result = retry(fn, options);
      }).not.toThrow();
      await expect(result).rejects.toBe(trap);
      expect(fn).not.toHaveBeenCalled();
    }
  });

  it('settles a first attempt that throws synchronously on the microtask the loop would; a rejection at most one later', async () => {
    const forced = { shouldRetryResult: () => false };
    for (const options of [{ maxAttempts: 1 }, {}]) {
      const sync = () =>
        retry(() => {
          throw permanent(blip());
        }, options);
      const syncLooped = () =>
        retry(
          () => {
            throw permanent(blip());
          },
          { ...options, ...forced },
        );
      expect(await tickOf(sync)).toBe(await tickOf(syncLooped));
      const failOnce = (extra: object) => {
        let n = 0;
        return () => retry(() => (n++ === 0 ? Promise.reject(blip()) : 'ok'), { baseMs: 0, ...extra });
      };
      const looped = await tickOf(failOnce(forced));
      expect(await tickOf(failOnce({}))).toBeLessThanOrEqual(looped + 1);
      expect(await tickOf(() => retry(() => Promise.reject(blip()), { maxAttempts: 1 }))).toBeLessThanOrEqual(
        (await tickOf(() => retry(() => Promise.reject(blip()), { maxAttempts: 1, ...forced }))) + 1,
      );
    }
  });

  it('rejects a bad call with a native promise, whatever globalThis.Promise is at the time', async () => {
    const Native = Promise;
    class Zone<T> extends Native<T> {}
    globalThis.Promise = Zone as PromiseConstructor;
    let results: Promise<unknown>[];
    try {
      results = [retry(undefined as never), retry(() => 1, { maxAttemps: 2 } as never)];
    } finally {
      globalThis.Promise = Native;
    }
    for (const result of results) {
      expect(Object.getPrototypeOf(result)).toBe(Native.prototype);
      await expect(result).rejects.toThrow(TypeError);
    }
  });
});

function thrower(error: Error): never {
  throw error;
}
