/**
 * herdless/otel in a service, end to end: the OpenTelemetry SDK set up as a service does at start, one budget and one
 * breaker observed, a dependency called with the core `retry()` under a `withTelemetry` policy and over HTTP with
 * `telemetryFetch`, inside a span, and everything exported to the console (the metrics once, at shutdown). The
 * dependency is a local node:http server that answers 503 to every other request, so that there is something to retry.
 *
 * Run: npx tsx examples/otel-service.ts. In your service, import from 'herdless' and 'herdless/otel'.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { ConsoleMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, ConsoleSpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createPolicy, RetryError, retry } from '../src/index';
import { observeBreaker, observeBudget, resendCountHook, telemetryFetch, withTelemetry } from '../src/otel/index';

// 1. The SDK, at start (NodeSDK does the same): a context manager, a tracer, a meter, the fetch instrumentation,
// whose span per attempt gets http.request.resend_count from resendCountHook.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const spans = new SimpleSpanProcessor(new ConsoleSpanExporter());
const tracerProvider = new BasicTracerProvider({ spanProcessors: [spans] });
trace.setGlobalTracerProvider(tracerProvider);
const exporter = new ConsoleMetricExporter();
const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 });
const meterProvider = new MeterProvider({ readers: [reader] });
metrics.setGlobalMeterProvider(meterProvider);
const undici = new UndiciInstrumentation({ startSpanHook: resendCountHook });

// The dependency: a 503 to every other request.
let requests = 0;
const server = createServer((_req, res) => {
  res.writeHead(requests++ % 2 === 0 ? 503 : 200, { 'content-type': 'application/json' }).end('{"price":42}');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prices/42`;

// 2. herdless, observed: one budget and one breaker per dependency (the library's defaults), after the SDK started.
const budget = observeBudget({}, { name: 'pricing-api' });
const breaker = observeBreaker({}, { name: 'pricing-api' });

// A policy for retry() (the core's): your own onFailure, onRetry and onSettle would still run.
const options = { maxAttempts: 4, baseMs: 20, timeoutMs: 5_000, budget, breaker };
const pricing = withTelemetry(createPolicy(options), { name: 'pricing-api' });
// For HTTP: retryingFetch with telemetry (its attempts also carry the method and the status class).
const get = telemetryFetch(options, { name: 'pricing-api' });

await trace.getTracer('checkout').startActiveSpan('POST /checkout', async (span) => {
  // A 503, retried, then the price: a herdless.retry event on this span, a retry, a sleep, a success.
  const price = await retry(async ({ signal }) => {
    const res = await fetch(url, { signal });
    if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status}`), { status: res.status });
    return res.json();
  }, pricing);
  // The same over telemetryFetch: two attempt spans, the second with http.request.resend_count 1.
  const res = await get(url);
  console.log('price', price, 'then', res.status, await res.json());
  // A give-up: herdless.retry.give_ups by reason, and a herdless.give_up event on the span.
  const down = Object.assign(new Error('HTTP 503'), { status: 503 });
  await retry(() => Promise.reject(down), { ...pricing, maxAttempts: 2 }).catch((error: unknown) => {
    console.log('gave up:', error instanceof RetryError ? error.reason : error);
  });
  span.end();
});

// 3. Shutdown: the metrics are exported a last time (herdless.retry.attempts, .retries, .give_ups, the gauges...).
server.closeAllConnections();
server.close();
undici.disable();
await meterProvider.shutdown();
await tracerProvider.shutdown();
