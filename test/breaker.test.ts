import { describe, expect, it, vi } from 'vitest';
import {
  CircuitOpenError,
  type CircuitStateChange,
  createCircuitBreaker,
  isTransient,
  RetryError,
  retry,
} from '../src/index';
import { draws, settle, useFakeClock } from './helpers';

const fake = useFakeClock();

const transient = () => Object.assign(new Error('busy'), { status: 503 });
const notFound = () => Object.assign(new Error('not found'), { status: 404 });

/** A breaker that records its changes as 'from>to:reason'. */
function watched(options: Parameters<typeof createCircuitBreaker>[0] = {}) {
  const changes: string[] = [];
  const breaker = createCircuitBreaker({
    ...options,
    onStateChange: (c: CircuitStateChange) => {
      expect(Object.isFrozen(c)).toBe(true);
      changes.push(`${c.from}>${c.to}:${c.reason}`);
    },
  });
  return { breaker, changes };
}

/** Runs one single-attempt call through retry() that fails with `error` (or succeeds without one). */
const once = (breaker: ReturnType<typeof createCircuitBreaker>, error?: unknown) =>
  retry(() => (error === undefined ? 'ok' : Promise.reject(error)), { breaker, maxAttempts: 1 }).catch((e) => e);

describe('createCircuitBreaker: closed to open', () => {
  it('opens after consecutiveFailures counted failures in a row', async () => {
    const { breaker, changes } = watched({ consecutiveFailures: 3 });
    await once(breaker, transient());
    await once(breaker, transient());
    expect(breaker.state).toBe('closed');
    await once(breaker, transient());
    expect(breaker.state).toBe('open');
    expect(changes).toEqual(['closed>open:consecutive-failures']);
  });

  it('a success resets the failures in a row', async () => {
    const { breaker } = watched({ consecutiveFailures: 3 });
    for (const error of [transient(), transient(), undefined, transient(), transient()]) await once(breaker, error);
    expect(breaker.state).toBe('closed');
  });

  it('counts each attempt, not each retry() call', async () => {
    const { breaker, changes } = watched({ consecutiveFailures: 3 });
    const fn = vi.fn(() => Promise.reject(transient()));
    const run = settle(retry(fn, { breaker, maxAttempts: 10, baseMs: 10 }));
    await fake.clock.runAllAsync();
    expect(fn).toHaveBeenCalledTimes(3);
    expect(changes).toEqual(['closed>open:consecutive-failures']);
    // the third failure opened it, so the call gave up instead of sleeping towards a fourth attempt
    expect(run.result.reason).toMatchObject({ reason: 'circuit-open', attempts: 3 });
    expect((run.result.reason as RetryError).message).toMatch(/\(circuit-open\)/);
  });

  it('permanent errors (as the policy classifies them) do not count, and neither do they reset', async () => {
    const { breaker } = watched({ consecutiveFailures: 2 });
    for (let i = 0; i < 10; i++) await once(breaker, notFound());
    await once(breaker, new TypeError('bug'));
    expect(breaker.state).toBe('closed');
    await once(breaker, transient());
    await once(breaker, notFound());
    await once(breaker, transient());
    expect(breaker.state).toBe('open');
    // the policy's own isTransient decides what counts
    const custom = createCircuitBreaker({ consecutiveFailures: 1 });
    await retry(() => Promise.reject(transient()), { breaker: custom, isTransient: () => false }).catch(() => {});
    expect(custom.state).toBe('closed');
  });

  it('an attempt timeout and a retried result count as failures', async () => {
    const { breaker } = watched({ consecutiveFailures: 2 });
    const run = settle(
      retry(() => new Promise(() => {}), { breaker, maxAttempts: 1, attemptTimeoutMs: 100 }).catch(() => {}),
    );
    await fake.clock.tickAsync(100);
    expect(run.result.status).toBe('fulfilled');
    await retry(() => 503, { breaker, maxAttempts: 1, shouldRetryResult: (v) => v === 503 });
    expect(breaker.state).toBe('open');
  });

  it('opens on the failure ratio over the window once there are minimumCalls', async () => {
    const { breaker, changes } = watched({ consecutiveFailures: 100, failureRatio: 0.5, minimumCalls: 5 });
    for (const error of [transient(), undefined, transient(), undefined]) await once(breaker, error);
    expect(breaker.state).toBe('closed'); // 2 of 4: under minimumCalls
    await once(breaker, transient()); // 3 of 5
    expect(changes).toEqual(['closed>open:failure-ratio']);
  });

  it('the failure ratio forgets failures older than windowMs', async () => {
    const { breaker } = watched({ consecutiveFailures: 100, failureRatio: 0.5, minimumCalls: 4, windowMs: 1_000 });
    await once(breaker, transient());
    await once(breaker, transient());
    fake.clock.tick(1_000);
    for (const error of [undefined, undefined, transient()]) await once(breaker, error);
    expect(breaker.state).toBe('closed'); // 1 of 3 in the window
    await once(breaker, undefined);
    await once(breaker, transient()); // 2 of 5
    expect(breaker.state).toBe('closed');
  });
});

describe('createCircuitBreaker: closing forgets the failures that opened it', () => {
  it('after a probe closes a ratio breaker, one failure does not re-open it', async () => {
    const { breaker, changes } = watched({
      consecutiveFailures: 100,
      failureRatio: 0.5,
      minimumCalls: 4,
      windowMs: 60_000,
      breakMs: 100,
    });
    for (let i = 0; i < 4; i++) await once(breaker, transient());
    expect(breaker.state).toBe('open');
    fake.clock.tick(100);
    await once(breaker, undefined); // the probe succeeds
    expect(breaker.state).toBe('closed');
    await once(breaker, transient()); // 1 of 1 in a fresh window: under minimumCalls
    expect(breaker.state).toBe('closed');
    expect(changes).toEqual([
      'closed>open:failure-ratio',
      'open>half-open:break-elapsed',
      'half-open>closed:probe-succeeded',
    ]);
  });
});

describe('createCircuitBreaker: a dependency that hangs', () => {
  it('attempts the deadline abandons count as failures, so a hang opens the breaker', async () => {
    const { breaker, changes } = watched({ consecutiveFailures: 3 });
    const fn = vi.fn(() => new Promise(() => {}));
    for (let i = 0; i < 5; i++) {
      const run = settle(retry(fn, { breaker, timeoutMs: 30 }));
      await fake.clock.tickAsync(30);
      expect(run.result.status).toBe('rejected');
    }
    expect(changes).toEqual(['closed>open:consecutive-failures']); // before: closed after 5 hung calls
    expect(fn).toHaveBeenCalledTimes(3); // the 4th and 5th calls were refused at once
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('a callback still running at the deadline says nothing of the dependency: not counted', async () => {
    const { breaker } = watched({ consecutiveFailures: 1 });
    const run = settle(
      retry(() => Promise.reject(transient()), { breaker, timeoutMs: 30, isTransient: () => new Promise(() => {}) }),
    );
    await fake.clock.tickAsync(30);
    expect(run.result.reason).toMatchObject({ reason: 'timeout' });
    expect(breaker.state).toBe('closed');
  });
});

describe('createCircuitBreaker: open, half-open, and back', () => {
  async function opened(options: Parameters<typeof createCircuitBreaker>[0] = {}) {
    const w = watched({ consecutiveFailures: 1, breakMs: 5_000, ...options });
    await once(w.breaker, transient());
    expect(w.breaker.state).toBe('open');
    return w;
  }

  it('while open, retry() rejects at once with CircuitOpenError without calling fn', async () => {
    const { breaker } = await opened();
    fake.clock.tick(1_000);
    const fn = vi.fn(() => 'ok');
    const error = await retry(fn, { breaker }).catch((e) => e);
    expect(fn).not.toHaveBeenCalled();
    expect(error).toBeInstanceOf(CircuitOpenError);
    expect(error).toMatchObject({ name: 'CircuitOpenError', remainingMs: 4_000 });
    expect(error.message).toBe('herdless: circuit open, next probe in 4000 ms');
    expect(isTransient(error)).toBe(false); // an outer retry does not hammer an open breaker
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('after breakMs it is half-open: a probe goes through and its success closes it', async () => {
    const { breaker, changes } = await opened();
    fake.clock.tick(4_999);
    expect(breaker.state).toBe('open');
    fake.clock.tick(1);
    expect(breaker.state).toBe('half-open');
    await expect(retry(() => 'ok', { breaker })).resolves.toBe('ok');
    expect(breaker.state).toBe('closed');
    expect(changes).toEqual([
      'closed>open:consecutive-failures',
      'open>half-open:break-elapsed',
      'half-open>closed:probe-succeeded',
    ]);
  });

  it("a probe's failure opens it again for another breakMs", async () => {
    const { breaker, changes } = await opened();
    fake.clock.tick(5_000);
    const error = await once(breaker, transient());
    expect(error).toBeInstanceOf(RetryError);
    expect(breaker.state).toBe('open');
    expect(changes.at(-1)).toBe('half-open>open:probe-failed');
    fake.clock.tick(4_999);
    expect(breaker.state).toBe('open');
    fake.clock.tick(1);
    expect(breaker.state).toBe('half-open');
  });

  it('while half-open, calls beyond halfOpenProbes get CircuitOpenError while the probes are in flight', async () => {
    const { breaker } = await opened({ halfOpenProbes: 2 });
    fake.clock.tick(5_000);
    let finish: (value: string) => void = () => {};
    const slow = () => new Promise<string>((resolve) => (finish = resolve));
    const probes = [settle(retry(slow, { breaker })), settle(retry(slow, { breaker }))];
    const others = Array.from({ length: 5 }, () => settle(retry(() => 'ok', { breaker })));
    await fake.clock.tickAsync(0);
    for (const o of others) {
      expect(o.result.reason).toBeInstanceOf(CircuitOpenError);
      expect(o.result.reason).toMatchObject({ remainingMs: 0 });
    }
    expect(probes.map((p) => p.result.status)).toEqual(['pending', 'pending']);
    finish('ok');
    await fake.clock.tickAsync(0);
    expect(breaker.state).toBe('closed');
  });

  it('a probe ending in a permanent error or an abort gives its place to the next call', async () => {
    const { breaker } = await opened();
    fake.clock.tick(5_000);
    await once(breaker, notFound());
    expect(breaker.state).toBe('half-open');
    const controller = new AbortController();
    const aborted = settle(retry(() => new Promise(() => {}), { breaker, signal: controller.signal }));
    expect(breaker.admit()).toBeInstanceOf(CircuitOpenError); // the probe is in flight
    controller.abort(new Error('stop'));
    await fake.clock.tickAsync(0);
    expect(aborted.result.status).toBe('rejected');
    expect(breaker.admit()).toBeUndefined(); // its place is free again
  });

  it('a call retrying when the breaker opens during its sleep gives up with circuit-open', async () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 2 });
    const a = vi.fn(() => Promise.reject(transient()));
    const run = settle(retry(a, { breaker, maxAttempts: 5, baseMs: 1_000, random: () => 0.5 }));
    await fake.clock.tickAsync(0); // a failed once (1 in a row) and sleeps 500 ms
    await once(breaker, transient()); // another call's failure: 2 in a row, open
    await fake.clock.tickAsync(500);
    expect(a).toHaveBeenCalledTimes(1);
    expect(run.result.reason).toMatchObject({ reason: 'circuit-open', attempts: 1 });
  });

  it('grows the break with jitter on repeated opens up to maxBreakMs, and starts over once closed', async () => {
    const { breaker } = await opened({ maxBreakMs: 12_000, random: draws(0.5, 0, 1, 0.25) });
    fake.clock.tick(7_499); // first open: uniform in [5 s, 10 s] at 0.5
    expect(breaker.state).toBe('open');
    fake.clock.tick(1);
    expect(breaker.state).toBe('half-open');
    await once(breaker, transient()); // second open in a row: [10 s, 12 s] at 0
    fake.clock.tick(9_999);
    expect(breaker.state).toBe('open');
    fake.clock.tick(1);
    await once(breaker, transient()); // third: the ceiling is capped, [12 s, 12 s]
    expect((breaker.admit() as CircuitOpenError).remainingMs).toBe(12_000);
    fake.clock.tick(12_000);
    await once(breaker); // closes
    await once(breaker, transient()); // opens again: from [5 s, 10 s] at 0.25
    expect((breaker.admit() as CircuitOpenError).remainingMs).toBe(6_250);
  });

  it('takes time from an injected clock', () => {
    let now = 0;
    const breaker = createCircuitBreaker({ consecutiveFailures: 1, breakMs: 100, now: () => now });
    expect(breaker.admit()).toBeUndefined();
    breaker.recordFailure();
    expect(breaker.state).toBe('open');
    fake.clock.tick(10_000);
    expect(breaker.state).toBe('open');
    now = 100;
    expect(breaker.state).toBe('half-open');
  });

  it('what onStateChange throws reaches the call that caused the change, and the change still happens', async () => {
    const boom = new Error('listener');
    const breaker = createCircuitBreaker({
      consecutiveFailures: 1,
      onStateChange: () => {
        throw boom;
      },
    });
    await expect(retry(() => Promise.reject(transient()), { breaker })).rejects.toBe(boom);
    expect(breaker.state).toBe('open');
  });
});

describe('createCircuitBreaker: bad options name themselves', () => {
  it.each([
    [{ consecutiveFailures: 0 }, RangeError, /consecutiveFailures must be an integer >= 1, got 0/],
    [{ consecutiveFailures: 1.5 }, RangeError, /consecutiveFailures .* got 1.5/],
    [{ failureRatio: 0 }, RangeError, /failureRatio must be a number in \(0, 1\], got 0/],
    [{ failureRatio: 1.1 }, RangeError, /failureRatio .* got 1.1/],
    [{ failureRatio: '0.5' }, TypeError, /failureRatio must be a number/],
    [{ minimumCalls: 0 }, RangeError, /minimumCalls must be an integer >= 1/],
    [{ windowMs: -1 }, RangeError, /windowMs must be a finite number > 0, got -1/],
    [{ breakMs: 0 }, RangeError, /breakMs must be a finite number > 0, got 0/],
    [{ breakMs: 100, maxBreakMs: 50 }, RangeError, /maxBreakMs must be a finite number >= breakMs \(100\), got 50/],
    [{ halfOpenProbes: 0 }, RangeError, /halfOpenProbes must be an integer >= 1/],
    [{ onStateChange: 'log' }, TypeError, /onStateChange must be a function, got 'log'/],
    [{ random: 1 }, TypeError, /random must be a function/],
    [{ now: null }, TypeError, /now must be a function, got null/],
    [{ threshold: 5 }, TypeError, /unknown circuit breaker option 'threshold' \(known: consecutiveFailures, /],
  ])('%o', (options, Kind, message) => {
    expect(() => createCircuitBreaker(options as never)).toThrow(Kind);
    expect(() => createCircuitBreaker(options as never)).toThrow(message);
  });

  it('retry() checks that breaker is a breaker', async () => {
    await expect(retry(() => 1, { breaker: {} as never })).rejects.toThrow(
      /herdless: breaker must be a CircuitBreaker \(createCircuitBreaker\(\)\), got \[object Object\]/,
    );
  });
});
