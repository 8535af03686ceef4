import { createRequire } from 'node:module';
import { SpanKind } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fetch, retryingFetch } from '../src/index';
import { resendCountHook, telemetryFetch } from '../src/otel/index';
import { inTurn, reply, serve } from './http-server';
import { useOtel } from './otel-setup';

const otel = useOtel();
const SCOPE = '@opentelemetry/instrumentation-http';

/**
 * @opentelemetry/instrumentation-http makes a span per outgoing node:http request: it patches the `http` module's
 * exports in place when that module is required after the instrumentation was enabled (the instrumentation's require
 * hook), so the module is required here, after it, and its functions read at call time.
 */
let instrumentation: HttpInstrumentation;
let http: typeof import('node:http');
beforeAll(() => {
  instrumentation = new HttpInstrumentation({ startOutgoingSpanHook: resendCountHook });
  http = createRequire(import.meta.url)('node:http');
});
afterAll(() => instrumentation.disable());

/** A fetch sent through node:http (`http.request`), as a fetch-shaped client over node:http is: its status and body. */
const overNodeHttp: Fetch = (input, init) =>
  new Promise((resolve, reject) => {
    const request = http.request(String(input), { method: init?.method ?? 'GET', signal: init?.signal ?? undefined });
    request.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0 })));
      res.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });

const clientSpans = () =>
  otel.spans.getFinishedSpans().filter((s) => s.instrumentationScope.name === SCOPE && s.kind === SpanKind.CLIENT);

describe('http.request.resend_count with the node:http instrumentation (@opentelemetry/instrumentation-http)', () => {
  it('telemetryFetch over a node:http fetch: a client span per attempt, children of the caller, resends 1 and 2', async () => {
    const server = await serve(inTurn(reply(503), reply(503), reply(200, {}, 'ok')));
    const get = telemetryFetch(
      { maxAttempts: 3, baseMs: 0, fetch: overNodeHttp },
      { name: 'api', meterProvider: otel.meterProvider },
    );
    let caller = '';
    await otel.tracer().startActiveSpan('GET /items', async (span) => {
      caller = span.spanContext().spanId;
      const res = await get(server.url);
      expect([res.status, await res.text()]).toEqual([200, 'ok']);
      span.end();
    });
    const attempts = clientSpans();
    expect(attempts.map((s) => s.attributes['http.response.status_code'] ?? s.attributes['http.status_code'])).toEqual([
      503, 503, 200,
    ]);
    expect(attempts.map((s) => s.attributes['http.request.resend_count'])).toEqual([undefined, 1, 2]);
    expect(attempts.map((s) => s.parentSpanContext?.spanId)).toEqual([caller, caller, caller]);
    expect(server.seen).toHaveLength(3);
  });

  it("retryingFetch with the runtime's fetch (undici, not node:http): no node:http span at all", async () => {
    const server = await serve(inTurn(reply(503), reply(200)));
    const viaFetch = telemetryFetch({ baseMs: 0 }, { name: 'api', meterProvider: otel.meterProvider });
    expect((await viaFetch(server.url)).status).toBe(200);
    expect((await retryingFetch({ baseMs: 0 })(server.url)).status).toBe(200);
    expect(server.seen).toHaveLength(3); // 503, 200; then 200
    expect(clientSpans()).toEqual([]); // fetch's attempts need the undici instrumentation (test/otel-fetch.test.ts)
  });

  it('a plain node:http request (no telemetryFetch around it) carries no resend count', async () => {
    const server = await serve(reply(200, {}, 'ok'));
    expect((await overNodeHttp(server.url)).status).toBe(200);
    const [span] = clientSpans();
    expect(span).toBeDefined();
    expect(span?.attributes).not.toHaveProperty('http.request.resend_count');
  });
});
