import { context, metrics } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { describe, expect, it } from 'vitest';
import { retry as coreRetry, createPolicy, RetryError } from '../src/index';
import { names, observeBreaker, observeBudget, retry, telemetryFetch, withTelemetry } from '../src/otel/index';
import { settle, useFakeClock } from './helpers';
import { point, useOtel } from './otel-setup';

const fake = useFakeClock();
const otel = useOtel();

const http503 = () => Object.assign(new Error('HTTP 503'), { status: 503 });
/** Fails with a 503 `failures` times, then resolves with 'ok'. */
const flaky = (failures: number) => {
  let n = 0;
  return async () => {
    if (n++ < failures) throw http503();
    return 'ok';
  };
};
const P = { 'herdless.policy.name': 'pricing' };

/** Runs a call to its end on the fake clock. */
async function run<T>(promise: Promise<T>) {
  const s = settle(promise);
  await fake.clock.runAllAsync();
  return s.result;
}

describe('herdless/otel: a scripted run, every instrument checked', () => {
  it('a success, retries, each give-up reason, a breaker opening and closing', async () => {
    const meterProvider = otel.meterProvider;
    const t = { name: 'pricing', meterProvider };
    const base = { maxAttempts: 3, baseMs: 100, jitter: 'none' } as const;
    const policy = withTelemetry(createPolicy(base), t);

    // 1. a success at once; 2. two retries (sleeps of 0.1 s and 0.2 s), then a success, inside the caller's span.
    expect(await run(retry(async () => 'ok', policy))).toEqual({ status: 'fulfilled', value: 'ok' });
    await otel.tracer().startActiveSpan('GET /prices', async (span) => {
      expect((await run(retry(flaky(2), policy))).value).toBe('ok');
      span.end();
    });
    // 3. attempts: three failures; 4. timeout: the second sleep would cross the 250 ms deadline
    expect((await run(retry(flaky(9), policy))).reason).toMatchObject({ reason: 'attempts' });
    const deadline = withTelemetry({ ...base, timeoutMs: 250 }, t);
    expect((await run(retry(flaky(9), deadline))).reason).toMatchObject({ reason: 'timeout' });
    // 5. retry-after: the server asks for 2 minutes, over maxRetryAfterMs
    const tooLong = Object.assign(http503(), { headers: { 'retry-after': '120' } });
    const patient = withTelemetry({ ...base, maxRetryAfterMs: 60_000 }, t);
    expect((await run(retry(() => Promise.reject(tooLong), patient))).reason).toMatchObject({ reason: 'retry-after' });
    // 6. budget: an empty budget refuses the first retry
    const budget = observeBudget({ ratio: 0, minPerSecond: 0 }, { name: 'pricing-budget', meterProvider });
    const budgeted = withTelemetry({ ...base, budget }, t);
    expect((await run(retry(flaky(9), budgeted))).reason).toMatchObject({ reason: 'budget' });
    // 7. circuit-open: a breaker that opens on the first failure stops the call between attempts...
    const breaker = observeBreaker(
      { consecutiveFailures: 1, breakMs: 1_000 },
      { name: 'pricing-breaker', meterProvider },
    );
    const guarded = withTelemetry({ ...base, breaker }, t);
    expect((await run(retry(flaky(9), guarded))).reason).toMatchObject({ reason: 'circuit-open' });
    expect(breaker.state).toBe('open');
    // ...refuses the next call before its first attempt...
    expect((await run(retry(flaky(0), guarded))).reason).toMatchObject({ name: 'CircuitOpenError' });
    const whileOpen = await otel.collect();
    expect(
      point(whileOpen[names.BREAKER_STATE], {
        'herdless.breaker.name': 'pricing-breaker',
        'herdless.breaker.state': 'open',
      }),
    ).toBe(1);
    // ...and closes on a successful probe once its break has passed.
    await fake.clock.tickAsync(1_000);
    expect((await run(retry(flaky(0), guarded))).value).toBe('ok');
    expect(breaker.state).toBe('closed');

    const m = await otel.collect();
    expect(Object.keys(m).sort()).toEqual(
      [
        names.ATTEMPTS,
        names.RETRIES,
        names.SLEEP,
        names.GIVE_UPS,
        names.BUDGET_AVAILABLE,
        names.BUDGET_REFUSALS,
        names.BREAKER_STATE,
        names.BREAKER_TRANSITIONS,
        names.BREAKER_REJECTIONS,
      ].sort(),
    );

    // Attempts: successes 1 + 1 + 1 (the probe); failures 2 + 3 + 2 (timeout) + 1 (retry-after) + 1 (budget) + 1 (breaker)
    expect(m[names.ATTEMPTS]).toMatchObject({ unit: '{attempt}', type: 'COUNTER' });
    expect(m[names.ATTEMPTS]?.points).toHaveLength(2);
    expect(point(m[names.ATTEMPTS], { ...P, 'herdless.attempt.outcome': 'success' })).toBe(3);
    expect(point(m[names.ATTEMPTS], { ...P, 'herdless.attempt.outcome': 'failure' })).toBe(10);
    // Retries: 2 (flaky) + 2 (attempts) + 1 (timeout: the second would cross the deadline)
    expect(m[names.RETRIES]).toMatchObject({ unit: '{retry}', type: 'COUNTER', points: [{ attributes: P, value: 5 }] });
    // Sleeps: 0.1, 0.2, 0.1, 0.2, 0.1 s
    expect(m[names.SLEEP]).toMatchObject({ unit: 's', type: 'HISTOGRAM' });
    const sleep = m[names.SLEEP]?.points[0]?.value as {
      count: number;
      sum: number;
      min: number;
      max: number;
      buckets: { boundaries: number[]; counts: number[] };
    };
    expect(m[names.SLEEP]?.points[0]?.attributes).toEqual(P);
    expect(sleep).toMatchObject({ count: 5, min: 0.1, max: 0.2 });
    expect(sleep.sum).toBeCloseTo(0.7, 10);
    expect(sleep.buckets.boundaries).toEqual([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]);
    expect(sleep.buckets.counts.slice(0, 7)).toEqual([0, 0, 0, 0, 3, 2, 0]);
    // Give-ups, one of each reason
    expect(m[names.GIVE_UPS]).toMatchObject({ unit: '{call}', type: 'COUNTER' });
    expect(m[names.GIVE_UPS]?.points).toHaveLength(5);
    for (const reason of ['attempts', 'timeout', 'retry-after', 'budget', 'circuit-open']) {
      expect(point(m[names.GIVE_UPS], { ...P, 'herdless.give_up.reason': reason })).toBe(1);
    }
    // The budget: empty, one refusal
    expect(m[names.BUDGET_AVAILABLE]).toMatchObject({
      unit: '{retry}',
      type: 'GAUGE',
      points: [{ attributes: { 'herdless.budget.name': 'pricing-budget' }, value: 0 }],
    });
    expect(m[names.BUDGET_REFUSALS]).toMatchObject({
      unit: '{retry}',
      type: 'COUNTER',
      points: [{ attributes: { ...P, 'herdless.budget.name': 'pricing-budget' }, value: 1 }],
    });
    // The breaker: closed again; opened, half-opened, closed; one call refused
    const b = { 'herdless.breaker.name': 'pricing-breaker' };
    expect(m[names.BREAKER_STATE]).toMatchObject({ unit: '1', type: 'GAUGE' });
    expect(m[names.BREAKER_STATE]?.points).toHaveLength(3);
    expect(point(m[names.BREAKER_STATE], { ...b, 'herdless.breaker.state': 'closed' })).toBe(1);
    expect(point(m[names.BREAKER_STATE], { ...b, 'herdless.breaker.state': 'open' })).toBe(0);
    expect(point(m[names.BREAKER_STATE], { ...b, 'herdless.breaker.state': 'half-open' })).toBe(0);
    expect(m[names.BREAKER_TRANSITIONS]).toMatchObject({ unit: '{transition}', type: 'COUNTER' });
    expect(m[names.BREAKER_TRANSITIONS]?.points).toHaveLength(3);
    const change = (state: string, reason: string) => ({
      ...b,
      'herdless.breaker.state': state,
      'herdless.breaker.change_reason': reason,
    });
    expect(point(m[names.BREAKER_TRANSITIONS], change('open', 'consecutive-failures'))).toBe(1);
    expect(point(m[names.BREAKER_TRANSITIONS], change('half-open', 'break-elapsed'))).toBe(1);
    expect(point(m[names.BREAKER_TRANSITIONS], change('closed', 'probe-succeeded'))).toBe(1);
    expect(m[names.BREAKER_REJECTIONS]).toMatchObject({
      unit: '{call}',
      type: 'COUNTER',
      points: [{ attributes: { ...P, ...b }, value: 1 }],
    });

    // Traces: the two retries as events on the caller's span, and no span of herdless's own.
    const spans = otel.spans.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['GET /prices']);
    expect(spans[0]?.events.map((e) => [e.name, e.attributes])).toEqual([
      ['herdless.retry', { ...P, 'herdless.retry.attempt': 1, 'herdless.retry.delay': 0.1, 'error.type': '503' }],
      ['herdless.retry', { ...P, 'herdless.retry.attempt': 2, 'herdless.retry.delay': 0.2, 'error.type': '503' }],
    ]);
  });
});

describe('withTelemetry composes with the hooks the policy already has', () => {
  it("runs the user's onFailure and onRetry, in the same order, with the same events, as without telemetry", async () => {
    const log = (into: string[]) => ({
      maxAttempts: 3,
      baseMs: 10,
      jitter: 'none' as const,
      onFailure: async (e: { attempt: number; attemptsLeft: number }) => {
        into.push(`failure ${e.attempt} ${e.attemptsLeft}`);
      },
      onRetry: (e: { attempt: number; delayMs: number }) => {
        into.push(`retry ${e.attempt} ${e.delayMs}`);
      },
    });
    const plain: string[] = [];
    const traced: string[] = [];
    await run(coreRetry(flaky(9), log(plain)));
    await run(retry(flaky(9), withTelemetry(log(traced), { name: 'p', meterProvider: otel.meterProvider })));
    expect(traced).toEqual(plain);
    expect(plain).toEqual(['failure 1 2', 'retry 1 10', 'failure 2 1', 'retry 2 20', 'failure 3 0']);
  });

  it("rejects with what the user's onRetry or onFailure throws, as retry() does; a retry their onRetry stops is not counted", async () => {
    const boom = new Error('boom');
    const t = { name: 'p', meterProvider: otel.meterProvider };
    const throwing = () => {
      throw boom;
    };
    const rejecting = async () => Promise.reject(boom);
    await otel.tracer().startActiveSpan('job', async (span) => {
      // onRetry throws, or rejects: the call rejects with it, and no retry follows, so none is counted.
      expect((await run(coreRetry(flaky(1), withTelemetry({ onRetry: throwing }, t)))).reason).toBe(boom);
      expect((await run(coreRetry(flaky(1), withTelemetry({ onRetry: rejecting }, t)))).reason).toBe(boom);
      span.end();
    });
    expect(otel.spans.getFinishedSpans()[0]?.events).toEqual([]); // no herdless.retry event either
    expect((await run(coreRetry(flaky(1), withTelemetry({ onFailure: rejecting }, t)))).reason).toBe(boom);
    let m = await otel.collect();
    expect(point(m[names.ATTEMPTS], { 'herdless.policy.name': 'p', 'herdless.attempt.outcome': 'failure' })).toBe(3);
    expect(m[names.RETRIES]).toBeUndefined();
    expect(m[names.SLEEP]).toBeUndefined();
    expect(m[names.GIVE_UPS]).toBeUndefined(); // the user's error is no give-up
    // One that returns, or resolves: the retry happens, and is counted once it has.
    const slow = withTelemetry({ baseMs: 0, onRetry: async () => {} }, t);
    expect((await run(coreRetry(flaky(1), slow))).value).toBe('ok');
    m = await otel.collect();
    expect(m[names.RETRIES]?.points[0]?.value).toBe(1);
    expect(m[names.SLEEP]?.points[0]?.value).toMatchObject({ count: 1 });
  });

  it('keeps its telemetry through a spread ({ ...policy, signal }), and every retry() records it all', async () => {
    const policy = withTelemetry({ baseMs: 0 }, { name: 'p', meterProvider: otel.meterProvider });
    const signal = new AbortController().signal;
    await run(coreRetry(flaky(1), { ...policy, signal }));
    await run(retry(flaky(1), policy)); // herdless/otel's retry: the core's, re-exported
    expect(retry).toBe(coreRetry);
    const m = await otel.collect();
    expect(point(m[names.ATTEMPTS], { 'herdless.policy.name': 'p', 'herdless.attempt.outcome': 'success' })).toBe(2);
    expect(point(m[names.ATTEMPTS], { 'herdless.policy.name': 'p', 'herdless.attempt.outcome': 'failure' })).toBe(2);
    expect(m[names.RETRIES]?.points[0]?.value).toBe(2);
  });

  it("still runs the user's onSettle, after the recording, with retry()'s event", async () => {
    const seen: unknown[] = [];
    const policy = withTelemetry(
      { maxAttempts: 1, onSettle: (e) => seen.push({ ...e }) },
      { name: 'p', meterProvider: otel.meterProvider },
    );
    await run(coreRetry(async () => 'v', policy));
    const failed = await run(coreRetry(flaky(1), policy));
    expect(seen).toEqual([
      { ok: true, reason: undefined, attempts: 1, elapsedMs: 0, error: undefined, value: 'v' },
      { ok: false, reason: 'attempts', attempts: 1, elapsedMs: 0, error: failed.reason, value: undefined },
    ]);
    const m = await otel.collect();
    expect(point(m[names.GIVE_UPS], { 'herdless.policy.name': 'p', 'herdless.give_up.reason': 'attempts' })).toBe(1);
  });

  it('records nothing for a policy withTelemetry did not make, and changes no result', async () => {
    expect(await run(retry(flaky(1), { baseMs: 0 }))).toEqual({ status: 'fulfilled', value: 'ok' });
    expect((await run(retry(flaky(9), { baseMs: 0 }))).reason).toBeInstanceOf(RetryError);
    expect(await otel.collect()).toEqual({});
  });

  it('adds a herdless.give_up event to the active span, with the reason, the attempts and the error type', async () => {
    const policy = withTelemetry({ maxAttempts: 2, baseMs: 0 }, { name: 'p', meterProvider: otel.meterProvider });
    await otel.tracer().startActiveSpan('job', async (span) => {
      await run(retry(() => Promise.reject(new TypeError('fetch failed')), policy));
      span.end();
    });
    const [span] = otel.spans.getFinishedSpans();
    expect(span?.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'herdless.retry',
        {
          'herdless.policy.name': 'p',
          'herdless.retry.attempt': 1,
          'herdless.retry.delay': 0,
          'error.type': 'TypeError',
        },
      ],
      [
        'herdless.give_up',
        {
          'herdless.policy.name': 'p',
          'herdless.give_up.reason': 'attempts',
          'herdless.retry.attempt': 2,
          'error.type': 'TypeError',
        },
      ],
    ]);
  });

  it('counts a call that resolves with a retried result as a give-up, with the reason retry() stopped for (sync and async checks)', async () => {
    const meterProvider = otel.meterProvider;
    const t = { name: 'r', meterProvider };
    const busy = { status: 503 };
    const asked = { status: 503, headers: { 'retry-after': '120' } };
    const cases: [string, object, unknown][] = [
      ['attempts', { maxAttempts: 2 }, busy],
      ['retry-after', { maxRetryAfterMs: 1_000 }, asked],
      ['budget', { budget: observeBudget({ ratio: 0, minPerSecond: 0 }, { name: 'b', meterProvider }) }, busy],
      ['circuit-open', { breaker: observeBreaker({ consecutiveFailures: 1 }, { name: 'c', meterProvider }) }, busy],
      ['timeout', { timeoutMs: 150, baseMs: 100, jitter: 'none' }, busy],
    ];
    for (const [reason, options, value] of cases) {
      for (const shouldRetryResult of [(v: unknown) => v === value, async (v: unknown) => v === value]) {
        const policy = withTelemetry({ baseMs: 0, ...options, shouldRetryResult }, t);
        const result = await run(retry(async () => value, policy));
        expect(result, reason).toEqual({ status: 'fulfilled', value });
        (options as { breaker?: { admit(): unknown } }).breaker && (await fake.clock.tickAsync(5_000));
      }
    }
    const ok = withTelemetry({ shouldRetryResult: async () => false }, t);
    expect((await run(retry(async () => 'fine', ok))).value).toBe('fine');
    const m = await otel.collect();
    for (const [reason] of cases)
      expect(point(m[names.GIVE_UPS], { 'herdless.policy.name': 'r', 'herdless.give_up.reason': reason }), reason).toBe(
        2,
      );
    expect(point(m[names.ATTEMPTS], { 'herdless.policy.name': 'r', 'herdless.attempt.outcome': 'success' })).toBe(1);
  });

  it('records into the global MeterProvider, looked up at each event (one set after the policy was made)', async () => {
    const policy = withTelemetry({ baseMs: 0 }, { name: 'global' });
    await run(retry(flaky(0), policy)); // no provider yet: counted all the same (attempts are tallied)
    metrics.setGlobalMeterProvider(otel.meterProvider);
    try {
      await run(retry(flaky(1), policy));
      const m = await otel.collect();
      expect(
        point(m[names.ATTEMPTS], { 'herdless.policy.name': 'global', 'herdless.attempt.outcome': 'success' }),
      ).toBe(2);
      expect(m[names.RETRIES]?.points[0]?.value).toBe(1); // the retry went to the provider of its moment
      expect(
        point(m[names.ATTEMPTS], { 'herdless.policy.name': 'global', 'herdless.attempt.outcome': 'failure' }),
      ).toBe(1);
    } finally {
      metrics.disable();
    }
  });
});

describe('observeBreaker and observeBudget', () => {
  it("still call the user's onStateChange, as a method of the options, after counting", async () => {
    const changes: unknown[] = [];
    const options = {
      consecutiveFailures: 1,
      onStateChange(this: unknown, change: unknown) {
        changes.push([this === options, change]);
      },
    };
    const breaker = observeBreaker(options, { name: 'b', meterProvider: otel.meterProvider });
    const permit = breaker.admit();
    if (permit instanceof Error) throw permit;
    permit.recordFailure();
    expect(changes).toEqual([[true, { from: 'closed', to: 'open', reason: 'consecutive-failures' }]]);
  });

  it('report the budget available as it changes, and leave out a budget with no cap and a breaker or budget whose clock breaks', async () => {
    const budget = observeBudget(
      { ratio: 0, minPerSecond: 1, windowMs: 2_000 },
      { name: 'b', meterProvider: otel.meterProvider },
    );
    expect((await otel.collect())[names.BUDGET_AVAILABLE]?.points[0]?.value).toBe(2);
    budget.tryWithdraw();
    expect((await otel.collect())[names.BUDGET_AVAILABLE]?.points[0]?.value).toBe(1);
    // A clock that is broken from the start (the SDK keeps a gauge's last point: a later break would not show).
    let broken = false;
    const now = () => (broken ? Number.NaN : performance.now());
    const breaker = observeBreaker({ now, consecutiveFailures: 1 }, { name: 'c', meterProvider: otel.meterProvider });
    const permit = breaker.admit();
    if (permit instanceof Error) throw permit;
    permit.recordFailure(); // open: reading its state reads the clock
    broken = true;
    expect(() => breaker.state).toThrow(/now\(\)/);
    observeBudget({ now, ratio: 0.1 }, { name: 'd', meterProvider: otel.meterProvider });
    const uncapped = observeBudget({}, { name: 'e', meterProvider: otel.meterProvider });
    expect(uncapped.available()).toBe(Infinity); // no volume cap: nothing to chart
    const m = await otel.collect();
    expect(m[names.BREAKER_STATE]?.points ?? []).toEqual([]);
    expect(m[names.BUDGET_AVAILABLE]?.points.map((p) => p.attributes)).toEqual([{ 'herdless.budget.name': 'b' }]);
  });
});

describe('what the counters tell apart (issue 30: bugs that passed every test)', () => {
  it('a breaker entering one state for different reasons counts each reason apart', async () => {
    const breaker = observeBreaker({ consecutiveFailures: 1 }, { name: 'b', meterProvider: otel.meterProvider });
    const permit = breaker.admit();
    if (permit instanceof Error) throw permit;
    permit.recordFailure(); // open: consecutive-failures
    breaker.reset(); // closed: reset
    breaker.isolate(); // open again: isolated
    const m = await otel.collect();
    const change = (state: string, reason: string) => ({
      'herdless.breaker.name': 'b',
      'herdless.breaker.state': state,
      'herdless.breaker.change_reason': reason,
    });
    expect(m[names.BREAKER_TRANSITIONS]?.points).toHaveLength(3);
    expect(point(m[names.BREAKER_TRANSITIONS], change('open', 'consecutive-failures'))).toBe(1);
    expect(point(m[names.BREAKER_TRANSITIONS], change('open', 'isolated'))).toBe(1);
    expect(point(m[names.BREAKER_TRANSITIONS], change('closed', 'reset'))).toBe(1);
  });

  it('a give-up of a policy with an observed budget is a budget refusal only when the budget stopped it', async () => {
    const meterProvider = otel.meterProvider;
    const budget = observeBudget({}, { name: 'bud', meterProvider });
    const policy = withTelemetry({ maxAttempts: 2, baseMs: 0, budget }, { name: 'p', meterProvider });
    expect((await run(retry(flaky(9), policy))).reason).toMatchObject({ reason: 'attempts' });
    let m = await otel.collect();
    expect(point(m[names.GIVE_UPS], { 'herdless.policy.name': 'p', 'herdless.give_up.reason': 'attempts' })).toBe(1);
    expect(m[names.BUDGET_REFUSALS]?.points ?? []).toEqual([]);
    const slow = () => new Promise((_, reject) => setTimeout(() => reject(http503()), 600));
    const timed = withTelemetry({ maxAttempts: 2, attemptTimeoutMs: 1_000, budget }, { name: 'p', meterProvider });
    expect((await run(retry(slow, timed))).reason).toMatchObject({ reason: 'budget' });
    m = await otel.collect();
    expect(m[names.BUDGET_REFUSALS]?.points.map((p) => p.value)).toEqual([1]);
  });
});

describe('bad telemetry options: a TypeError naming the option', () => {
  const mp = () => otel.meterProvider;
  it.each([
    ['undefined', undefined, /withTelemetry's telemetry options must be an object, got undefined/],
    ['no name', {}, /name must be a non-empty string, got undefined/],
    ['an empty name', { name: '' }, /name must be a non-empty string, got ''/],
    ['a number name', { name: 7 }, /name must be a non-empty string, got 7/],
    ['a bad meterProvider', { name: 'x', meterProvider: {} }, /meterProvider must be a MeterProvider/],
    [
      'an unknown key',
      { name: 'x', meter: 1 },
      /unknown withTelemetry's telemetry option 'meter' \(known: name, meterProvider\)/,
    ],
  ])('withTelemetry: %s', (_, options, message) => {
    expect(() => withTelemetry({}, options as never)).toThrow(message);
  });

  it('checks the policy as createPolicy does, and the breaker and budget options as their factories do', () => {
    const t = { name: 'x', meterProvider: mp() };
    expect(() => withTelemetry({ maxAttemps: 3 } as never, t)).toThrow(
      /unknown option 'maxAttemps'; did you mean maxAttempts\?/,
    );
    expect(() => observeBreaker(null as never, t)).toThrow(/the breaker options must be an object, got null/);
    expect(() => observeBreaker({ onStateChange: 5 as never }, t)).toThrow(/onStateChange must be a function, got 5/);
    expect(() => observeBreaker({ breakMs: -1 }, t)).toThrow(/breakMs/);
    expect(() => observeBreaker({}, { name: '' })).toThrow(/observeBreaker's telemetry|name must be/);
    expect(() => observeBudget({ ratio: -1 }, t)).toThrow(/ratio/);
    expect(() => observeBudget({}, undefined as never)).toThrow(/observeBudget's telemetry options must be an object/);
  });
});

describe('edges', () => {
  it('without a context manager, a retried result given up still counts, with its reason; a throwing retryAfter is no give-up', async () => {
    const meterProvider = otel.meterProvider;
    const t = { name: 'e', meterProvider };
    const budget = observeBudget({ ratio: 0, minPerSecond: 0 }, { name: 'b', meterProvider });
    context.disable(); // what the wrapper of 0.1 could not see: no context, no call state, the reason guessed
    try {
      const policy = withTelemetry({ baseMs: 0, budget, shouldRetryResult: () => true }, t);
      expect((await run(coreRetry(async () => 'v', policy))).value).toBe('v');
    } finally {
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    }
    const retryAfter = (v: unknown) => {
      if (v === 'second') throw new Error('unreadable');
      return undefined;
    };
    let n = 0;
    const broken = withTelemetry({ maxAttempts: 3, baseMs: 0, retryAfter, shouldRetryResult: () => true }, t);
    // retry() itself rejects with retryAfter's error on the second result: no give-up.
    expect((await run(coreRetry(async () => (++n === 1 ? 'first' : 'second'), broken))).reason).toMatchObject({
      message: 'unreadable',
    });
    const m = await otel.collect();
    expect(m[names.GIVE_UPS]?.points).toEqual([
      { attributes: { 'herdless.policy.name': 'e', 'herdless.give_up.reason': 'budget' }, value: 1 },
    ]);
    expect(m[names.BUDGET_REFUSALS]?.points).toEqual([
      { attributes: { 'herdless.policy.name': 'e', 'herdless.budget.name': 'b' }, value: 1 },
    ]);
  });

  it('a gauge reports only the budgets and breakers meant for its provider', async () => {
    const { MeterProvider, MetricReader } = await import('@opentelemetry/sdk-metrics');
    class Reader extends MetricReader {
      protected override async onForceFlush() {}
      protected override async onShutdown() {}
    }
    const reader = new Reader();
    const other = new MeterProvider({ readers: [reader] });
    observeBreaker({}, { name: 'mine', meterProvider: otel.meterProvider });
    observeBreaker({}, { name: 'theirs', meterProvider: other });
    const { resourceMetrics } = await reader.collect();
    const points = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .flatMap((x) => x.dataPoints as { attributes: Record<string, unknown> }[]);
    expect(new Set(points.map((p) => p.attributes['herdless.breaker.name']))).toEqual(new Set(['theirs']));
    const mine = await otel.collect();
    expect(new Set(mine[names.BREAKER_STATE]?.points.map((p) => p.attributes['herdless.breaker.name']))).toEqual(
      new Set(['mine']),
    );
    await other.shutdown();
  });

  it('names a value that cannot be printed', () => {
    expect(() => withTelemetry({}, { name: Object.create(null) })).toThrow(
      /name must be a non-empty string, got \[object Object\]/,
    );
  });
});

describe('a broken meter never changes what a call does (review)', () => {
  it('a counter whose add() throws: the call still retries and succeeds, the error goes to diag', async () => {
    const broken = {
      getMeter: () => {
        const instrument = {
          add() {
            throw new Error('meter broke');
          },
          record() {
            throw new Error('meter broke');
          },
        };
        return {
          createCounter: () => instrument,
          createHistogram: () => instrument,
          createUpDownCounter: () => instrument,
          createObservableGauge: () => ({ addCallback() {} }),
          createObservableCounter: () => ({ addCallback() {} }),
          createObservableUpDownCounter: () => ({ addCallback() {} }),
          createGauge: () => instrument,
          addBatchObservableCallback() {},
          removeBatchObservableCallback() {},
        };
      },
    };
    const logged: unknown[] = [];
    const { diag } = await import('@opentelemetry/api');
    diag.setLogger(
      { error: (...a: unknown[]) => logged.push(a), warn() {}, info() {}, debug() {}, verbose() {} },
      { suppressOverrideMessage: true },
    );
    try {
      let calls = 0;
      const mine: string[] = [];
      const policy = withTelemetry(
        { baseMs: 0, onSettle: (e) => mine.push(e.ok ? 'ok' : 'failed') },
        { name: 'api', meterProvider: broken as never },
      );
      const value = await coreRetry(() => {
        if (calls++ === 0) throw new Error('once');
        return 'ok';
      }, policy);
      expect(value).toBe('ok');
      expect(calls).toBe(2);
      expect(mine).toEqual(['ok']); // your own onSettle still ran
      expect(logged.length).toBeGreaterThan(0);
    } finally {
      diag.disable();
    }
  });
});

/** A MeterProvider whose meter fails as told: `create` (making an instrument throws), else `record` (add() throws). */
function brokenProvider(how: 'getMeter' | 'create' | 'record') {
  const broke = () => {
    throw new Error('meter broke');
  };
  const instrument = { add: broke, record: broke };
  const make = how === 'create' ? broke : () => instrument;
  const meter = {
    createCounter: make,
    createHistogram: make,
    createUpDownCounter: make,
    createObservableGauge: how === 'create' ? broke : () => ({ addCallback() {} }),
    createObservableCounter: how === 'create' ? broke : () => ({ addCallback() {} }),
  };
  return { getMeter: how === 'getMeter' ? broke : () => meter } as never;
}

/** Runs `body` with OpenTelemetry's diag errors and the runtime's reportError captured. */
async function capturing(body: (logged: unknown[][], reported: unknown[]) => Promise<void>): Promise<void> {
  const logged: unknown[][] = [];
  const reported: unknown[] = [];
  const { diag } = await import('@opentelemetry/api');
  diag.setLogger(
    { error: (...a: unknown[]) => logged.push(a), warn() {}, info() {}, debug() {}, verbose() {} },
    { suppressOverrideMessage: true },
  );
  const g = globalThis as { reportError?: (e: unknown) => void };
  const before = g.reportError;
  g.reportError = (e) => reported.push(e); // where the breaker reports an onStateChange error (else a setTimeout throw)
  try {
    await body(logged, reported);
  } finally {
    if (before === undefined) delete g.reportError;
    else g.reportError = before;
    diag.disable();
  }
}

describe('a broken meter: no constructor throws, no transition is lost (issue 30)', () => {
  it('observeBreaker: a transition counter that throws still lets your onStateChange run; its error goes to diag', async () => {
    await capturing(async (logged, reported) => {
      const seen: string[] = [];
      const breaker = observeBreaker(
        { onStateChange: (c) => seen.push(`${c.to}:${c.reason}`) },
        { name: 'b', meterProvider: brokenProvider('record') },
      );
      breaker.reset();
      expect(seen).toEqual(['closed:reset']);
      expect(reported).toEqual([]);
      expect(logged.map((a) => a[0])).toEqual(['herdless/otel: a recording failed']);
    });
  });

  for (const how of ['getMeter', 'create'] as const) {
    it(`a meter whose ${how} throws: the four constructors return, calls behave, the error goes to diag once`, async () => {
      await capturing(async (logged, reported) => {
        const meterProvider = brokenProvider(how);
        const t = { name: 'api', meterProvider };
        const budget = observeBudget({}, t);
        const seen: string[] = [];
        const breaker = observeBreaker({ onStateChange: (c) => seen.push(c.reason) }, t);
        const policy = withTelemetry({ baseMs: 0, budget, breaker }, t);
        let calls = 0;
        const flaky = async () => {
          if (calls++ === 0) throw new Error('once');
          return 'ok';
        };
        expect(await coreRetry(flaky, policy)).toBe('ok');
        const statuses = [503, 200];
        const get = telemetryFetch({ baseMs: 0, fetch: async () => new Response('', { status: statuses.shift() }) }, t);
        expect((await get('http://x.test/')).status).toBe(200);
        breaker.reset();
        expect(seen).toEqual(['reset']);
        expect(reported).toEqual([]);
        expect(logged.map((a) => a[0])).toEqual([
          'herdless/otel: the meter could not create its instruments (nothing is recorded for it)',
        ]);
        expect(logged[0]?.[1]).toMatchObject({ message: 'meter broke' });
      });
    });
  }
});

describe('the meter (issue 30)', () => {
  it("is named herdless, with the package's version, as names.METER says", async () => {
    const { MeterProvider, MetricReader } = await import('@opentelemetry/sdk-metrics');
    const { readFileSync } = await import('node:fs');
    class Reader extends MetricReader {
      protected override async onForceFlush() {}
      protected override async onShutdown() {}
    }
    const reader = new Reader();
    const provider = new MeterProvider({ readers: [reader] });
    await coreRetry(async () => 'ok', withTelemetry({}, { name: 'v', meterProvider: provider }));
    const { resourceMetrics } = await reader.collect();
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(resourceMetrics.scopeMetrics.map((s) => s.scope)).toEqual([{ name: names.METER, version: pkg.version }]);
    await provider.shutdown();
  });
});

describe('what was collected leaves the instruments (coverage of the weak references)', () => {
  it('a dropped policy, budget and breaker leave the counter and the gauges; 1,024 dropped policies are pruned', async () => {
    const { setFlagsFromString } = await import('node:v8');
    const { runInNewContext } = await import('node:vm');
    const { setImmediate: turn } = await import('node:timers/promises');
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const meterProvider = otel.meterProvider;
    const kept = withTelemetry({}, { name: 'kept', meterProvider });
    await coreRetry(async () => 'ok', kept);
    (() => {
      for (let i = 0; i < 1_100; i++) withTelemetry({}, { name: 'dropped', meterProvider });
      observeBudget({ ratio: 0.1 }, { name: 'dropped', meterProvider });
      observeBreaker({}, { name: 'dropped', meterProvider });
    })();
    await turn(); // a WeakRef's target lives to the end of the job that made it
    gc();
    withTelemetry({}, { name: 'pruning', meterProvider }); // past 1,024: prunes the dead
    const m = await otel.collect();
    const policiesIn = (metric: string) => new Set(m[metric]?.points.map((p) => Object.values(p.attributes)[0]));
    expect(policiesIn(names.ATTEMPTS)).toEqual(new Set(['kept']));
    expect(m[names.BUDGET_AVAILABLE]).toBeUndefined();
    expect(m[names.BREAKER_STATE]).toBeUndefined();
    expect(kept).toBeDefined();
  });
});
