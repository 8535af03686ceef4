/**
 * An example service with herdless's OpenTelemetry telemetry, exporting to the console: a "checkout" service that
 * calls a flaky "pricing" dependency (a real node:http server on 127.0.0.1 that answers 503 to every third request)
 * through `telemetryFetch`, with a retry budget and a circuit breaker, inside a span per incoming request; undici's
 * instrumentation makes a span per attempt, and `resendCountHook` marks the resends.
 *
 * Run: npx tsx examples/otel-console.ts (it prints the spans as they end, then the metrics once).
 * In your service, import from 'herdless' and 'herdless/otel'; this file imports the sources so it runs unbuilt.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import {
  ConsoleMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { observeBreaker, observeBudget, resendCountHook, telemetryFetch } from '../src/otel/index';

/** Runs the service for `requests` incoming requests, then flushes and shuts the SDK down. */
export async function main(
  exporters: { metrics?: PushMetricExporter; spans?: SpanExporter } = {},
  requests = 6,
): Promise<{ statuses: number[] }> {
  // The SDK, as a service sets it up at start (NodeSDK does the same): context manager, tracer, meter, instrumentation.
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporters.spans ?? new ConsoleSpanExporter())],
  });
  trace.setGlobalTracerProvider(tracerProvider);
  const reader = new PeriodicExportingMetricReader({
    exporter: exporters.metrics ?? new ConsoleMetricExporter(),
    exportIntervalMillis: 60_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);
  const undici = new UndiciInstrumentation({ startSpanHook: resendCountHook });

  // The flaky dependency.
  let seen = 0;
  const pricing = createServer((_req, res) => {
    res.writeHead(++seen % 3 === 0 ? 503 : 200, { 'content-type': 'application/json' });
    res.end('{"price":42}');
  });
  await new Promise<void>((resolve) => pricing.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(pricing.address() as AddressInfo).port}/prices/42`;

  // herdless, observed: one budget and one breaker per dependency, and a fetch that retries.
  // A volume cap (10% of first attempts, plus 10 a second), so its gauge has a number to report.
  const budget = observeBudget({ ratio: 0.1, minPerSecond: 10 }, { name: 'pricing' });
  const breaker = observeBreaker({ consecutiveFailures: 5, breakMs: 5_000 }, { name: 'pricing' });
  const getPrice = telemetryFetch(
    { maxAttempts: 3, baseMs: 20, timeoutMs: 2_000, budget, breaker },
    { name: 'pricing' },
  );

  const tracer = trace.getTracer('checkout');
  const statuses: number[] = [];
  try {
    for (let i = 0; i < requests; i++) {
      await tracer.startActiveSpan('POST /checkout', async (span) => {
        const res = await getPrice(url);
        await res.text();
        statuses.push(res.status);
        span.end();
      });
    }
  } finally {
    pricing.closeAllConnections();
    await new Promise<void>((resolve) => pricing.close(() => resolve()));
    undici.disable();
    await meterProvider.shutdown(); // exports the metrics a last time
    await tracerProvider.shutdown();
    metrics.disable();
    trace.disable();
    context.disable();
  }
  return { statuses };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { statuses } = await main();
  console.log(`checkout answered ${statuses.length} requests: ${statuses.join(' ')}`);
}
