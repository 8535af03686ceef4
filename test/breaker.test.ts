import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  CircuitOpenError,
  type CircuitPermit,
  type CircuitStateChange,
  createCircuitBreaker,
  isTransient,
  RetryError,
  retry,
} from '../src/index';
import { draws, settle, useFakeClock } from './helpers';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
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
    const onRetry = vi.fn();
    const run = settle(retry(fn, { breaker, maxAttempts: 10, baseMs: 10, onRetry }));
    await fake.clock.runAllAsync();
    expect(fn).toHaveBeenCalledTimes(3);
    expect(onRetry).toHaveBeenCalledTimes(2); // no retry announced, nor slept, after the failure that opened it
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
      expect(o.result.reason).toMatchObject({ remainingMs: 5_000 }); // until the round is abandoned, at the latest
      expect((o.result.reason as Error).message).toBe(
        'herdless: circuit half-open, probes in flight (a probe slot frees within 5000 ms)',
      );
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
    expect(breaker.admit()).not.toBeInstanceOf(CircuitOpenError); // its place is free again
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
    const { breaker } = await opened({ maxBreakMs: 12_000, random: draws(0.5, 0, 0.75, 0.25) });
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
    const permit = breaker.admit() as CircuitPermit;
    expect(permit).not.toBeInstanceOf(CircuitOpenError);
    permit.recordFailure();
    expect(breaker.state).toBe('open');
    fake.clock.tick(10_000);
    expect(breaker.state).toBe('open');
    now = 100;
    expect(breaker.state).toBe('half-open');
  });
});

/** A call through retry() whose single attempt's outcome the test decides later. */
function pending(breaker: ReturnType<typeof createCircuitBreaker>) {
  let succeed: (value: string) => void = () => {};
  let fail: (error: unknown) => void = () => {};
  const run = settle(
    retry(
      () =>
        new Promise<string>((resolve, reject) => {
          succeed = resolve;
          fail = reject;
        }),
      { breaker, maxAttempts: 1 },
    ),
  );
  return {
    run,
    succeed: (value = 'late') => succeed(value),
    fail: (error: unknown = transient()) => fail(error),
  };
}

describe('createCircuitBreaker: a probe that never reports', () => {
  it('frees its slot after breakMs: the next call probes, and the abandoned probe is then ignored', async () => {
    const { breaker, changes } = watched({ consecutiveFailures: 1, breakMs: 5_000 });
    await once(breaker, transient());
    fake.clock.tick(5_000);
    const hung = pending(breaker); // the probe: its dependency never answers, and it has no timeout
    await fake.clock.tickAsync(0);
    fake.clock.tick(4_999);
    expect(await once(breaker)).toBeInstanceOf(CircuitOpenError); // the probe still holds its slot
    fake.clock.tick(1);
    // before: every call got CircuitOpenError for as long as the probe hung, here and forever
    const next = pending(breaker);
    await fake.clock.tickAsync(0);
    expect(next.run.result.status).toBe('pending'); // admitted: the new round's probe
    expect(await once(breaker)).toBeInstanceOf(CircuitOpenError); // one probe at a time still
    hung.succeed(); // the abandoned probe's late success does not close it
    await fake.clock.tickAsync(0);
    expect(hung.run.result).toMatchObject({ status: 'fulfilled', value: 'late' }); // its call keeps its value
    expect(breaker.state).toBe('half-open');
    next.fail(); // the live probe decides
    await fake.clock.tickAsync(0);
    expect(breaker.state).toBe('open');
    expect(changes).toEqual([
      'closed>open:consecutive-failures',
      'open>half-open:break-elapsed',
      'half-open>open:probe-failed',
    ]);
  });

  it("an abandoned probe's late failure or release does not touch the new round", async () => {
    const { breaker } = watched({ consecutiveFailures: 1, breakMs: 100, halfOpenProbes: 2 });
    await once(breaker, transient());
    fake.clock.tick(100);
    const old = [pending(breaker), pending(breaker)];
    await fake.clock.tickAsync(0);
    fake.clock.tick(100); // both abandoned
    const fresh = pending(breaker);
    await fake.clock.tickAsync(0);
    old[0]?.fail(notFound()); // a permanent error: its release must not free a slot of the new round
    old[1]?.fail(); // a transient failure: must not re-open it
    await fake.clock.tickAsync(0);
    expect(breaker.state).toBe('half-open');
    const second = pending(breaker); // the new round's second slot
    await fake.clock.tickAsync(0);
    expect(second.run.result.status).toBe('pending');
    expect(await once(breaker)).toBeInstanceOf(CircuitOpenError); // both of the new round's slots are taken
    fresh.succeed('ok');
    second.succeed('ok');
    await fake.clock.tickAsync(0);
    expect(breaker.state).toBe('closed');
  });
});

describe('createCircuitBreaker: an outcome counts only in the state it was admitted in', () => {
  it('an attempt admitted before the breaker opened, ending while half-open, neither closes nor re-opens it', async () => {
    const { breaker, changes } = watched({ consecutiveFailures: 1, breakMs: 100 });
    const before = [pending(breaker), pending(breaker)]; // admitted while closed
    await fake.clock.tickAsync(0);
    await once(breaker, transient()); // opens
    fake.clock.tick(100);
    expect(breaker.state).toBe('half-open');
    before[0]?.succeed(); // before: this stale success closed it, with no probe sent
    await fake.clock.tickAsync(0);
    expect(breaker.state).toBe('half-open');
    before[1]?.fail(); // before: this stale failure re-opened it
    await fake.clock.tickAsync(0);
    expect(breaker.state).toBe('half-open');
    expect(before.map((b) => b.run.result.status)).toEqual(['fulfilled', 'rejected']); // the calls' own outcomes
    await expect(retry(() => 'ok', { breaker })).resolves.toBe('ok'); // the probe slot was still free: it decides
    expect(changes).toEqual([
      'closed>open:consecutive-failures',
      'open>half-open:break-elapsed',
      'half-open>closed:probe-succeeded',
    ]);
  });

  it('nor does it count toward the failures in a row once the breaker has closed again', async () => {
    const { breaker } = watched({ consecutiveFailures: 2, breakMs: 100 });
    const stale = pending(breaker);
    await fake.clock.tickAsync(0);
    await once(breaker, transient());
    await once(breaker, transient()); // opens
    fake.clock.tick(100);
    await once(breaker); // the probe succeeds: closed
    stale.fail(); // news from before it opened
    await fake.clock.tickAsync(0);
    await once(breaker, transient()); // 1 in a row, not 2
    expect(breaker.state).toBe('closed');
    await once(breaker, transient());
    expect(breaker.state).toBe('open');
  });

  it('nor toward the failure ratio', async () => {
    const { breaker } = watched({ consecutiveFailures: 100, failureRatio: 0.5, minimumCalls: 2, breakMs: 100 });
    const stale = [pending(breaker), pending(breaker)];
    await fake.clock.tickAsync(0);
    await once(breaker, transient());
    await once(breaker, transient()); // 2 of 2: opens
    fake.clock.tick(100);
    await once(breaker); // closed, with a fresh window
    for (const s of stale) s.fail();
    await fake.clock.tickAsync(0);
    expect(breaker.state).toBe('closed'); // before: they were 2 of 2 in the new window, and re-opened it
    await once(breaker); // 0 of 1 counted failures, not 2 of 3
    await once(breaker, transient()); // 1 of 2: the ratio is reached only now
    expect(breaker.state).toBe('open');
    fake.clock.tick(100);
    await once(breaker);
    const fresh = pending(breaker);
    await fake.clock.tickAsync(0);
    await once(breaker);
    fresh.fail(); // an outcome of the current state counts: 1 of 2
    await fake.clock.tickAsync(0);
    expect(breaker.state).toBe('open');
  });
});

describe('createCircuitBreaker: its random and its clock are checked where used', () => {
  it.each([5, Number.NaN, -0.1, 1])(
    'random() returning %s: a RangeError naming it, the failure as its cause',
    async (r) => {
      const breaker = createCircuitBreaker({ consecutiveFailures: 1, maxBreakMs: 20_000, random: () => r });
      const failure = transient();
      // before: a break of NaN ms or 5 breaks long, silently
      const error = await retry(() => Promise.reject(failure), { breaker }).catch((e) => e);
      expect(error).toBeInstanceOf(RangeError);
      expect(error.message).toBe(`herdless: random() must be a number in [0, 1), got ${r}`);
      expect(error.cause).toBe(failure);
    },
  );

  it('random() returning a string: a TypeError naming it', () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 1, maxBreakMs: 20_000, random: () => '0.5' as never });
    expect(() => (breaker.admit() as CircuitPermit).recordFailure()).toThrow(TypeError);
    expect(() => (breaker.admit() as CircuitPermit).recordFailure()).toThrow(
      /^herdless: random\(\) must be a number \(a number in \[0, 1\)\), got '0.5'$/,
    );
  });

  it.each([
    [Number.NaN, RangeError, /^herdless: now\(\) must be a finite number, got NaN$/],
    [Infinity, RangeError, /got Infinity$/],
    ['5', TypeError, /^herdless: now\(\) must be a number \(a finite number\), got '5'$/],
  ])('now() returning %s: an error naming it', (bad, Kind, message) => {
    let t: unknown = 0;
    const breaker = createCircuitBreaker({ consecutiveFailures: 1, breakMs: 100, now: () => t as number });
    (breaker.admit() as CircuitPermit).recordFailure();
    t = bad; // before: an open breaker that never (NaN) or at once (Infinity) let a probe through
    expect(() => breaker.state).toThrow(Kind);
    expect(() => breaker.admit()).toThrow(message);
  });

  it('inside retry(), a bad now() found after a failure keeps that failure as its cause', async () => {
    let t = 0;
    const breaker = createCircuitBreaker({
      consecutiveFailures: 1,
      failureRatio: 1,
      minimumCalls: 1,
      now: () => t,
    });
    const failure = transient();
    const error = await retry(
      () => {
        t = Number.NaN; // the clock breaks while the attempt runs: found when its failure is counted
        return Promise.reject(failure);
      },
      { breaker },
    ).catch((e) => e);
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toMatch(/now\(\) must be a finite number/);
    expect(error.cause).toBe(failure);
  });

  it('so does a bad now() found when the next attempt asks to start', async () => {
    let t = 0;
    const breaker = createCircuitBreaker({ consecutiveFailures: 2, now: () => t });
    const failure = transient();
    const run = settle(
      retry(() => Promise.reject(failure), { breaker, maxAttempts: 3, baseMs: 1_000, random: () => 0.5 }),
    );
    await fake.clock.tickAsync(0); // one failure in a row; sleeping 500 ms
    await once(breaker, transient()); // two: open, read at t = 0
    t = Number.NaN;
    await fake.clock.tickAsync(500);
    expect(run.result.reason).toBeInstanceOf(RangeError);
    expect(run.result.reason).toMatchObject({ message: expect.stringMatching(/now\(\)/), cause: failure });
  });

  it('a clock that goes back reads as no time passed: the break neither lengthens nor ends early', () => {
    let t = 10_000;
    const breaker = createCircuitBreaker({ consecutiveFailures: 1, breakMs: 100, now: () => t });
    (breaker.admit() as CircuitPermit).recordFailure(); // open until 10,100
    t = 0; // an NTP step back
    // before: 10,100 ms to go, a hundred breaks
    expect((breaker.admit() as CircuitOpenError).remainingMs).toBe(100);
    t = 50;
    expect((breaker.admit() as CircuitOpenError).remainingMs).toBe(100);
    t = 10_100;
    expect(breaker.state).toBe('half-open');
  });
});

describe('createCircuitBreaker: only the first report of a permit counts', () => {
  it('a probe released twice frees one slot, not two: a third probe is still refused', () => {
    let t = 0;
    const breaker = createCircuitBreaker({ consecutiveFailures: 1, breakMs: 100, halfOpenProbes: 2, now: () => t });
    (breaker.admit() as CircuitPermit).recordFailure();
    t = 100;
    const first = breaker.admit() as CircuitPermit;
    const second = breaker.admit();
    expect(second).not.toBeInstanceOf(CircuitOpenError);
    expect(second).not.toBe(first); // a permit per attempt
    first.release();
    first.release(); // before: the permit shared by both probes freed the second probe's slot too
    expect(breaker.admit()).not.toBeInstanceOf(CircuitOpenError); // the slot the first probe freed
    expect(breaker.admit()).toBeInstanceOf(CircuitOpenError); // both slots taken again
    expect(breaker.state).toBe('half-open');
  });

  it('a failure reported twice counts once', () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 2 });
    const permit = breaker.admit() as CircuitPermit;
    permit.recordFailure();
    permit.recordFailure(); // before: two failures in a row from one attempt, and the breaker opened
    expect(breaker.state).toBe('closed');
    (breaker.admit() as CircuitPermit).recordFailure();
    expect(breaker.state).toBe('open');
  });

  it('after its first report, a permit reports nothing: a success after a failure, a failure after a success', () => {
    const breaker = createCircuitBreaker({ consecutiveFailures: 2 });
    const a = breaker.admit() as CircuitPermit;
    a.recordFailure();
    a.recordSuccess(); // before: reset the failure in a row it had just counted
    const b = breaker.admit() as CircuitPermit;
    b.recordSuccess();
    b.recordFailure(); // ignored
    (breaker.admit() as CircuitPermit).recordFailure();
    expect(breaker.state).toBe('closed'); // b's success reset a's failure; b's failure did not count
    (breaker.admit() as CircuitPermit).recordFailure();
    expect(breaker.state).toBe('open');
  });

  it('property: with any reports, repeated or not, probes in flight never exceed halfOpenProbes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.oneof(fc.constant(-1), fc.nat({ max: 7 })), { maxLength: 40 }),
        (probes, steps) => {
          let t = 0;
          const breaker = createCircuitBreaker({
            consecutiveFailures: 1,
            breakMs: 100,
            halfOpenProbes: probes,
            now: () => t,
          });
          (breaker.admit() as CircuitPermit).recordFailure();
          t = 100;
          const admitted: CircuitPermit[] = [];
          const released = new Set<CircuitPermit>();
          for (const step of steps) {
            if (step === -1) {
              const permit = breaker.admit();
              const inFlight = admitted.length - released.size;
              if (permit instanceof CircuitOpenError) expect(inFlight).toBe(probes);
              else {
                expect(inFlight).toBeLessThan(probes);
                admitted.push(permit);
              }
            } else {
              const permit = admitted[step % Math.max(1, admitted.length)];
              if (permit === undefined) continue;
              permit.release();
              released.add(permit);
            }
          }
        },
      ),
    );
  });
});

describe('createCircuitBreaker: a broken clock never turns a success into an error', () => {
  const broken = () => {
    let t = 0;
    const breaker = createCircuitBreaker({ consecutiveFailures: 2, failureRatio: 0.5, minimumCalls: 3, now: () => t });
    return { breaker, breakClock: () => (t = Number.NaN) };
  };

  it('recordSuccess() does not throw; the error is rethrown from a setTimeout(0), and the breaker is as it was', () => {
    const { breaker, breakClock } = broken();
    (breaker.admit() as CircuitPermit).recordFailure(); // one failure in a row, 1 of 1 in the window
    const permit = breaker.admit() as CircuitPermit;
    breakClock();
    expect(() => permit.recordSuccess()).not.toThrow(); // before: a RangeError naming now()
    expect(fake.clock.countTimers()).toBe(1);
    expect(() => fake.clock.tick(0)).toThrow(/^herdless: now\(\) must be a finite number, got NaN$/);
    expect(breaker.state).toBe('closed');
    permit.recordSuccess(); // reported already: nothing more
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('inside retry(): the call resolves with its value, and the clock error is reported (reportError)', async () => {
    const reported: unknown[] = [];
    vi.stubGlobal('reportError', (error: unknown) => reported.push(error));
    try {
      const { breaker, breakClock } = broken();
      const value = retry(
        async () => {
          breakClock(); // breaks while the attempt runs: found when its success is counted
          return 'ok';
        },
        { breaker },
      );
      await expect(value).resolves.toBe('ok'); // before: rejected with the RangeError although fn succeeded
      expect(reported).toHaveLength(1);
      expect(reported[0]).toBeInstanceOf(RangeError);
      expect((reported[0] as Error).message).toMatch(/now\(\) must be a finite number, got NaN/);
      expect(fake.clock.countTimers()).toBe(0);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('release() never reads the clock', () => {
    const { breaker, breakClock } = broken();
    const permit = breaker.admit() as CircuitPermit;
    breakClock();
    expect(() => permit.release()).not.toThrow();
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('recordFailure() still throws, and the breaker does not change state on that failure', () => {
    const { breaker, breakClock } = broken();
    (breaker.admit() as CircuitPermit).recordFailure();
    const permit = breaker.admit() as CircuitPermit;
    breakClock();
    expect(() => permit.recordFailure()).toThrow(RangeError);
    expect(breaker.state).toBe('closed'); // not counted: a second failure in a row would have opened it
  });
});

describe('createCircuitBreaker: onStateChange that throws', () => {
  const boom = new Error('listener');
  const throwing = () =>
    createCircuitBreaker({
      consecutiveFailures: 1,
      breakMs: 100,
      onStateChange: () => {
        throw boom;
      },
    });

  it("changes no call's outcome: the change stands, and its error is rethrown from a setTimeout(0)", async () => {
    const breaker = throwing();
    const failure = transient();
    // before: the call that opened the breaker rejected with the hook's error instead of its own
    const error = await retry(() => Promise.reject(failure), { breaker, maxAttempts: 1 }).catch((e) => e);
    expect(error).toBeInstanceOf(RetryError);
    expect(error).toMatchObject({ reason: 'attempts', errors: [failure] });
    expect(breaker.state).toBe('open');
    // Not lost: thrown from a timer, as Node's EventTarget does a listener's error (there, an 'uncaughtException').
    expect(fake.clock.countTimers()).toBe(1);
    expect(() => fake.clock.tick(0)).toThrow(boom);
    // Every later change too, the getter's open -> half-open included, and the probe's call still gets its value.
    fake.clock.tick(100);
    expect(breaker.state).toBe('half-open');
    expect(() => fake.clock.tick(0)).toThrow(boom);
    await expect(retry(() => 'ok', { breaker })).resolves.toBe('ok');
    expect(breaker.state).toBe('closed');
    expect(() => fake.clock.tick(0)).toThrow(boom);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it("in Node, with real timers, the hook's error is an 'uncaughtException' after the call settled as its own", () => {
    // A child process: a real event loop and no fake clock, and an uncaughtException cannot disturb the test runner.
    const script = `
      const { createCircuitBreaker, retry, RetryError } = await import(${JSON.stringify(join(root, 'src', 'index.ts'))});
      const seen = [];
      process.on('uncaughtException', (error) => {
        seen.push('uncaught: ' + error.message);
        console.log(JSON.stringify(seen));
      });
      const breaker = createCircuitBreaker({ consecutiveFailures: 1, onStateChange: () => { throw new Error('hook'); } });
      const error = await retry(() => Promise.reject(Object.assign(new Error('busy'), { status: 503 })), { breaker, maxAttempts: 1 }).catch((e) => e);
      seen.push('call: ' + (error instanceof RetryError ? error.reason : error.message), 'state: ' + breaker.state);`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
    expect(JSON.parse(String(out))).toEqual(['call: attempts', 'state: open', 'uncaught: hook']);
  });

  it('reports through globalThis.reportError where the runtime has one (browsers, Deno, Bun)', async () => {
    const reported: unknown[] = [];
    vi.stubGlobal('reportError', (error: unknown) => reported.push(error));
    try {
      const breaker = throwing();
      await expect(retry(() => Promise.reject(transient()), { breaker, maxAttempts: 1 })).rejects.toBeInstanceOf(
        RetryError,
      );
      expect(reported).toEqual([boom]);
      expect(fake.clock.countTimers()).toBe(0);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('createCircuitBreaker: bad options name themselves', () => {
  it.each([
    [{ consecutiveFailures: 0 }, RangeError, /consecutiveFailures must be an integer >= 1 or Infinity \(off\), got 0/],
    [{ consecutiveFailures: 1.5 }, RangeError, /consecutiveFailures .* got 1.5/],
    [{ failureRatio: 0 }, RangeError, /failureRatio must be a number in \(0, 1\], got 0/],
    [{ failureRatio: 1.1 }, RangeError, /failureRatio .* got 1.1/],
    [{ failureRatio: '0.5' }, TypeError, /failureRatio must be a number/],
    [{ minimumCalls: 0 }, RangeError, /minimumCalls must be an integer >= 1/],
    [{ windowMs: -1 }, RangeError, /windowMs must be a finite number of ms >= 1, got -1/],
    [{ windowMs: 1e-320 }, RangeError, /windowMs must be a finite number of ms >= 1, got 1e-320/],
    [{ breakMs: 0 }, RangeError, /breakMs must be a finite number of ms >= 1, got 0/],
    [{ breakMs: 1e-320 }, RangeError, /breakMs must be a finite number of ms >= 1, got 1e-320/],
    [{ breakMs: 100, maxBreakMs: 50 }, RangeError, /maxBreakMs must be a finite number >= breakMs \(100\), got 50/],
    [{ halfOpenProbes: 0 }, RangeError, /halfOpenProbes must be an integer >= 1/],
    [{ onStateChange: 'log' }, TypeError, /onStateChange must be a function, got 'log'/],
    [{ random: 1 }, TypeError, /random must be a function/],
    [{ now: null }, TypeError, /now must be a function, got null/],
    [{ threshold: 5 }, TypeError, /unknown circuit breaker option 'threshold' \(known: consecutiveFailures, /],
    [
      { consecutiveFailure: 5 },
      TypeError,
      /^herdless: unknown circuit breaker option 'consecutiveFailure'; did you mean consecutiveFailures\? \(known: /,
    ],
    [{ halfOpenProbe: 2 }, TypeError, /option 'halfOpenProbe'; did you mean halfOpenProbes\?/],
    [{ breakms: 2 }, TypeError, /option 'breakms'; did you mean breakMs\?/],
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
