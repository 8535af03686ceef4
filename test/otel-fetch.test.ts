import { readFileSync } from 'node:fs';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRetryBudget, givenUp, RetryError, retryingFetch } from '../src/index';
import { errorType, names, observeBreaker, resendCountHook, telemetryFetch } from '../src/otel/index';
import { type Handler, inTurn, reply, reset, serve } from './http-server';
import { point, useOtel } from './otel-setup';

const otel = useOtel();
const A = { 'herdless.policy.name': 'api' };

describe('telemetryFetch: retryingFetch with telemetry, against a real server', () => {
  it('counts each attempt by outcome, method and status class, each retry, and a give-up by reason', async () => {
    const server = await serve(inTurn(reply(503), reply(503), reply(200), reply(503)));
    const get = telemetryFetch({ maxAttempts: 3, baseMs: 0 }, { name: 'api', meterProvider: otel.meterProvider });
    expect((await get(server.url)).status).toBe(200); // 503, 503, 200
    expect((await get(server.url)).status).toBe(503); // 503 x 3: resolves with the last, gave up on attempts
    expect((await get(server.url, { method: 'PURGE' })).status).toBe(503); // _OTHER, not idempotent: sent once
    const m = await otel.collect();
    const attempt = (outcome: string, method: string, status?: string) => ({
      ...A,
      'herdless.attempt.outcome': outcome,
      'http.request.method': method,
      ...(status && { 'herdless.http.status_class': status }),
    });
    expect(m[names.ATTEMPTS]?.points).toHaveLength(3);
    expect(point(m[names.ATTEMPTS], attempt('failure', 'GET', '5xx'))).toBe(5);
    expect(point(m[names.ATTEMPTS], attempt('success', 'GET', '2xx'))).toBe(1);
    expect(point(m[names.ATTEMPTS], attempt('failure', '_OTHER', '5xx'))).toBe(1);
    expect(m[names.RETRIES]?.points).toEqual([
      { attributes: { ...A, 'http.request.method': 'GET', 'herdless.http.status_class': '5xx' }, value: 4 },
    ]);
    expect(m[names.SLEEP]?.points).toMatchObject([
      { attributes: m[names.RETRIES]?.points[0]?.attributes, value: { count: 4, sum: 0 } },
    ]);
    expect(m[names.GIVE_UPS]?.points).toEqual([
      { attributes: { ...A, 'http.request.method': 'GET', 'herdless.give_up.reason': 'attempts' }, value: 1 },
      { attributes: { ...A, 'http.request.method': '_OTHER', 'herdless.give_up.reason': 'attempts' }, value: 1 },
    ]);
  });

  it('counts a network failure (no status class) and the RetryError it rejects with, for a POST sent once', async () => {
    const server = await serve(reset);
    const post = telemetryFetch({ baseMs: 0 }, { name: 'api', meterProvider: otel.meterProvider });
    const error = await post(server.url, { method: 'POST', body: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryError);
    expect(error).toMatchObject({ reason: 'attempts', attempts: 1 });
    const m = await otel.collect();
    expect(m[names.ATTEMPTS]?.points).toEqual([
      { attributes: { ...A, 'herdless.attempt.outcome': 'failure', 'http.request.method': 'POST' }, value: 1 },
    ]);
    expect(m[names.GIVE_UPS]?.points).toEqual([
      { attributes: { ...A, 'http.request.method': 'POST', 'herdless.give_up.reason': 'attempts' }, value: 1 },
    ]);
  });

  it("runs the user's fetch, onFailure and onRetry, and behaves as retryingFetch with the same options", async () => {
    const calls: string[] = [];
    const statuses = [503, 429, 200];
    const options = (into: string[]) => ({
      baseMs: 0,
      fetch: async () => new Response('', { status: statuses[into.filter((c) => c === 'fetch').length - 1] }),
      onFailure: (e: { attempt: number }) => void into.push(`failure ${e.attempt}`),
      onRetry: (e: { attempt: number }) => void into.push(`retry ${e.attempt}`),
    });
    const plain: string[] = [];
    const withFetchLog = (into: string[]) => {
      const o = options(into);
      return {
        ...o,
        fetch: () => {
          into.push('fetch');
          return o.fetch();
        },
      };
    };
    const a = await retryingFetch(withFetchLog(plain))('http://127.0.0.1:9/');
    const b = await telemetryFetch(withFetchLog(calls), { name: 'api', meterProvider: otel.meterProvider })(
      'http://127.0.0.1:9/',
    );
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(calls).toEqual(plain);
    expect(plain).toEqual(['fetch', 'failure 1', 'retry 1', 'fetch', 'failure 2', 'retry 2', 'fetch']);
  });

  it("a call sent once that stops for the inner retry()'s own reason counts that reason (its onSettle says it)", async () => {
    const server = await serve(reply(503, { 'retry-after': '120' })); // over maxRetryAfterMs (60 s)
    const purge = telemetryFetch({ baseMs: 0 }, { name: 'api', meterProvider: otel.meterProvider });
    const res = await purge(server.url, { method: 'PURGE' }); // not idempotent: sent once
    expect([res.status, givenUp(res)]).toEqual([503, 'retry-after']); // the reason counted (issue 30: was undefined)
    const m = await otel.collect();
    expect(m[names.GIVE_UPS]?.points).toEqual([
      { attributes: { ...A, 'http.request.method': '_OTHER', 'herdless.give_up.reason': 'retry-after' }, value: 1 },
    ]);
  });

  it("runs the user's onSettle (retryingFetch's inner call), and counts no retry that the user's onRetry stops", async () => {
    const seen: unknown[] = [];
    const boom = new Error('boom');
    const fetch = async () => new Response(null, { status: 503 });
    const t = { name: 'api', meterProvider: otel.meterProvider };
    const get = telemetryFetch(
      {
        baseMs: 0,
        fetch,
        onSettle: (e) => seen.push([e.ok, e.attempts]),
        onRetry: () => {
          throw boom;
        },
      },
      t,
    );
    await expect(get('http://127.0.0.1:9/')).rejects.toBe(boom);
    expect(seen).toEqual([[false, 1]]);
    const m = await otel.collect();
    expect(m[names.RETRIES]).toBeUndefined();
    expect(m[names.SLEEP]).toBeUndefined();
    expect(() => telemetryFetch({ onSettle: 1 as never }, t)).toThrow(/onSettle must be a function, got 1/);
  });

  it("counts as failures exactly the statuses retryingFetch retries (its default statuses, or the caller's)", async () => {
    for (const statuses of [undefined, [404]]) {
      for (const status of [200, 404, 408, 425, 429, 500, 501, 502, 503, 504]) {
        let sent = 0;
        const fetch = async () => {
          sent++;
          return new Response(null, { status });
        };
        const get = telemetryFetch(
          { maxAttempts: 2, baseMs: 0, fetch, statuses },
          { name: `s${status}${statuses ?? ''}`, meterProvider: otel.meterProvider },
        );
        await get('http://127.0.0.1:9/');
        const m = await otel.collect();
        const failures = point(m[names.ATTEMPTS], {
          'herdless.policy.name': `s${status}${statuses ?? ''}`,
          'herdless.attempt.outcome': 'failure',
          'http.request.method': 'GET',
          'herdless.http.status_class': `${Math.floor(status / 100)}xx`,
        });
        expect(failures ?? 0, `${status} with statuses ${statuses}`).toBe(sent === 2 ? 2 : 0);
      }
    }
  });

  it('checks its options: a TypeError naming the bad one', () => {
    const t = { name: 'api' };
    expect(() => telemetryFetch(null as never, t)).toThrow(/the retryingFetch options must be an object, got null/);
    expect(() => telemetryFetch({ fetch: 1 as never }, t)).toThrow(/fetch must be a function, got 1/);
    expect(() => telemetryFetch({ onRetry: 'x' as never }, t)).toThrow(/onRetry must be a function, got 'x'/);
    expect(() => telemetryFetch({ onFailure: {} as never }, t)).toThrow(/onFailure must be a function/);
    expect(() => telemetryFetch({ methods: 'GET' as never }, t)).toThrow(/methods must be an array of method names/);
    expect(() => telemetryFetch({ shouldRetryResult: () => true } as never, t)).toThrow(/shouldRetryResult/);
    expect(() => telemetryFetch({}, { name: 'api', nmae: 1 } as never)).toThrow(
      /unknown telemetryFetch's telemetry option 'nmae'/,
    );
  });
});

describe('http.request.resend_count on each attempt span of the undici instrumentation (fetch)', () => {
  let instrumentation: UndiciInstrumentation;
  beforeAll(() => {
    instrumentation = new UndiciInstrumentation({ startSpanHook: resendCountHook });
  });
  afterAll(() => instrumentation.disable());

  it('one span per attempt, children of the caller span, the resends counted; none on a request sent once', async () => {
    const server = await serve(inTurn(reply(503), reply(503), reply(200)));
    const get = telemetryFetch({ maxAttempts: 3, baseMs: 0 }, { name: 'api', meterProvider: otel.meterProvider });
    await otel.tracer().startActiveSpan('GET /items', async (span) => {
      expect((await get(server.url)).status).toBe(200);
      span.end();
    });
    expect((await fetch(server.url)).status).toBe(200); // not a herdless call: no resend count
    const spans = otel.spans.getFinishedSpans();
    const caller = spans.find((s) => s.name === 'GET /items');
    const attempts = spans.filter((s) => s !== caller);
    expect(attempts).toHaveLength(4);
    expect(attempts.map((s) => s.attributes['http.response.status_code'])).toEqual([503, 503, 200, 200]);
    expect(attempts.map((s) => s.attributes['http.request.resend_count'])).toEqual([undefined, 1, 2, undefined]);
    const parent = (s: (typeof spans)[number]) => s.parentSpanContext?.spanId;
    expect(attempts.slice(0, 3).map(parent)).toEqual([1, 2, 3].map(() => caller?.spanContext().spanId));
    expect(caller?.events.map((e) => e.name)).toEqual(['herdless.retry', 'herdless.retry']);
  });
});

describe('errorType', () => {
  it('is an HTTP status, else the error name, else _OTHER, and never throws', () => {
    expect(errorType(Object.assign(new Error('x'), { status: 503 }))).toBe('503');
    expect(errorType({ response: { status: 429 } })).toBe('429');
    expect(errorType(new Response(null, { status: 502 }))).toBe('502');
    expect(errorType(new TypeError('fetch failed'))).toBe('TypeError');
    expect(errorType(new DOMException('t', 'TimeoutError'))).toBe('TimeoutError');
    expect(errorType({ name: '' })).toBe('_OTHER');
    expect(errorType('boom')).toBe('_OTHER');
    expect(errorType(null)).toBe('_OTHER');
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(errorType(proxy)).toBe('_OTHER');
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const type = errorType(value);
        expect(typeof type).toBe('string');
        expect(type.length).toBeGreaterThan(0);
      }),
    );
  });
});

describe('telemetryFetch after the review', () => {
  it("a give-up the budget decided is counted as 'budget' (givenUp), not guessed from available()", async () => {
    const slow: Handler = (_, res) => setTimeout(() => reply(503)(_, res), 30);
    const server = await serve(slow);
    const budget = createRetryBudget({ slowMs: 5 }); // a 503 after 30 ms is slow: no retry
    const get = telemetryFetch({ budget, baseMs: 0 }, { name: 'api', meterProvider: otel.meterProvider });
    const res = await get(server.url);
    expect(res.status).toBe(503);
    expect(givenUp(res)).toBe('budget');
    const m = await otel.collect();
    expect(m[names.GIVE_UPS]?.points).toEqual([
      { attributes: { ...A, 'http.request.method': 'GET', 'herdless.give_up.reason': 'budget' }, value: 1 },
    ]);
  });

  it("reads the method of another fetch implementation's Request (undici's), as retryingFetch does", async () => {
    const undici = await import('undici');
    const server = await serve(reply(200));
    const post = telemetryFetch({ fetch: undici.fetch as never }, { name: 'api', meterProvider: otel.meterProvider });
    expect((await post(new undici.Request(server.url, { method: 'POST' }) as never)).status).toBe(200);
    const m = await otel.collect();
    expect(m[names.ATTEMPTS]?.points[0]?.attributes['http.request.method']).toBe('POST');
  });
});

describe('telemetryFetch takes every retryingFetch option (review)', () => {
  it('attemptHeader: accepted, and each attempt carries its number', async () => {
    const seen: (string | null)[] = [];
    const get = telemetryFetch(
      {
        attemptHeader: 'X-Attempt',
        baseMs: 0,
        fetch: async (_input, init) => {
          seen.push(new Headers(init?.headers).get('x-attempt'));
          return new Response('', { status: seen.length < 2 ? 503 : 200 });
        },
      },
      { name: 'api', meterProvider: otel.meterProvider },
    );
    expect((await get('http://x.test/')).status).toBe(200);
    expect(seen).toEqual(['1', '2']);
  });
});

describe('telemetryFetch without a context manager (issue 30)', () => {
  it('still counts each retry by http.request.method (a retried status and a network error)', async () => {
    const { context } = await import('@opentelemetry/api');
    const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
    let n = 0;
    const put = telemetryFetch(
      {
        baseMs: 0,
        fetch: async () => {
          n++;
          if (n === 2) throw new TypeError('fetch failed');
          return new Response('', { status: n === 1 ? 503 : 200 });
        },
      },
      { name: 'api', meterProvider: otel.meterProvider },
    );
    context.disable();
    try {
      expect((await put('http://x.test/', { method: 'PUT', body: 'x' })).status).toBe(200);
    } finally {
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    }
    const m = await otel.collect();
    expect(m[names.RETRIES]?.points).toEqual([
      { attributes: { ...A, 'http.request.method': 'PUT', 'herdless.http.status_class': '5xx' }, value: 1 },
      { attributes: { ...A, 'http.request.method': 'PUT' }, value: 1 },
    ]);
  });
});

describe('docs/otel.md lists what is emitted (issue 30)', () => {
  const doc = readFileSync(new URL('../docs/otel.md', import.meta.url), 'utf8');
  /** The table row that starts with `` | `first` `` (whitespace-padded). */
  const row = (first: string) => doc.split('\n').find((l) => new RegExp(`^\\|\\s*\`${first}\`\\s*\\|`).test(l)) ?? '';

  it("every change_reason a breaker's transitions carry, isolated and reset included", async () => {
    const breaker = observeBreaker({ consecutiveFailures: 1 }, { name: 'b', meterProvider: otel.meterProvider });
    breaker.isolate();
    breaker.reset();
    const m = await otel.collect();
    const reasons = m[names.BREAKER_TRANSITIONS]?.points.map((p) => p.attributes['herdless.breaker.change_reason']);
    expect(reasons).toEqual(['isolated', 'reset']);
    for (const reason of reasons ?? []) expect(row(names.BREAKER_TRANSITIONS)).toContain(`\`${reason}\``);
  });

  it("every attribute of telemetryFetch's herdless.retry span event", async () => {
    const statuses = [503, 200];
    const get = telemetryFetch(
      { baseMs: 0, fetch: async () => new Response('', { status: statuses.shift() }) },
      { name: 'api', meterProvider: otel.meterProvider },
    );
    await otel.tracer().startActiveSpan('caller', async (span) => {
      await get('http://x.test/');
      span.end();
    });
    const event = otel.spans.getFinishedSpans()[0]?.events.find((e) => e.name === names.EVENT_RETRY);
    const keys = Object.keys(event?.attributes ?? {});
    expect(keys).toContain('http.request.method');
    expect(keys).toContain('herdless.http.status_class');
    for (const key of keys) expect(row(names.EVENT_RETRY)).toContain(`\`${key}\``);
  });
});
