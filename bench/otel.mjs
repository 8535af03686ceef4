/**
 * What herdless/otel adds to a call that succeeds at once: `retry(fn, policy)` against the same call with
 * `withTelemetry(policy)` (recorded through the core's hooks), with no SDK (the API's no-op meter), with the SDK's
 * MeterProvider recording (a reader attached, so every add is aggregated), and with an active span as well; the same
 * for `retryingFetch` against `telemetryFetch`, over a stub fetch that resolves a 200 at once (no socket: the cost
 * measured is herdless's, not the network's).
 *
 * As bench/success-path.mjs: each task in a fresh node process, batches of 20,000 awaited calls, 3 warm-up batches,
 * the median of 7; the parent runs every task BENCH_PROCESSES times (default 5), interleaved, and prints the medians
 * and the difference each pair makes. A policy with a no-op `onSettle` shows what the hook alone costs (such a call
 * leaves retry()'s first-attempt fast path for the loop). Against the built package (dist/). Run: npm run bench:otel (or npm run bench).
 */
import { fileURLToPath } from 'node:url';
import { median, succeed, timeInChild, timeInProcesses } from './fixtures.mjs';

const BATCH = 20_000;
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 5);

async function load() {
  const { createPolicy, retry, retryingFetch } = await import('../dist/index.js');
  const otel = await import('../dist/otel.js');
  const { context, trace } = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { MeterProvider, MetricReader } = await import('@opentelemetry/sdk-metrics');
  const { BasicTracerProvider } = await import('@opentelemetry/sdk-trace-base');

  class Reader extends MetricReader {
    async onForceFlush() {}
    async onShutdown() {}
  }
  const meterProvider = new MeterProvider({ readers: [new Reader()] });
  const tracer = new BasicTracerProvider().getTracer('bench');
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider());

  const policy = createPolicy({ maxAttempts: 3 });
  const settled = createPolicy({ maxAttempts: 3, onSettle() {} });
  const noSdk = otel.withTelemetry(policy, { name: 'bench', meterProvider: undefined });
  const sdk = otel.withTelemetry(policy, { name: 'bench', meterProvider });
  const ok = new Response(null, { status: 200 });
  const fetch = async () => ok;
  const plainFetch = retryingFetch({ fetch });
  const tracedFetch = otel.telemetryFetch({ fetch }, { name: 'bench', meterProvider });
  const span = tracer.startSpan('call');
  const inSpan = trace.setSpan(context.active(), span);
  return {
    'retry(fn, policy)': () => retry(succeed, policy),
    'retry(fn, policy with a no-op onSettle)': () => retry(succeed, settled),
    'retry(fn, withTelemetry(policy)), no SDK': () => retry(succeed, noSdk),
    'retry(fn, withTelemetry(policy)), SDK meter': () => retry(succeed, sdk),
    'retry(fn, policy) inside an active span': () => context.with(inSpan, () => retry(succeed, policy)),
    'retry(fn, withTelemetry(policy)), SDK meter, in the span': () => context.with(inSpan, () => retry(succeed, sdk)),
    'retryingFetch(...)(url)': () => plainFetch('http://127.0.0.1:9/'),
    'telemetryFetch(...)(url), SDK meter': () => tracedFetch('http://127.0.0.1:9/'),
  };
}

async function child(name) {
  await timeInChild((await load())[name], BATCH);
}

async function parent() {
  const names = Object.keys(await load());
  const self = fileURLToPath(import.meta.url);
  const results = timeInProcesses(self, names, PROCESSES);
  const ns = (name) => median(results.get(name));
  console.log(`node ${process.version}, ${PROCESSES} processes a task, median ns per call\n`);
  for (const name of names) console.log(`${name.padEnd(64)} ${ns(name).toFixed(0).padStart(7)}`);
  // Each telemetry task against its baseline: the same call without telemetry, in the same setting.
  const pairs = [
    [names[1], names[0]],
    [names[2], names[0]],
    [names[3], names[0]],
    [names[5], names[4]],
    [names[7], names[6]],
  ];
  console.log('\nadded on the success path:');
  for (const [t, base] of pairs) {
    console.log(`  ${t.padEnd(62)} +${(ns(t) - ns(base)).toFixed(0)} ns (x${(ns(t) / ns(base)).toFixed(2)})`);
  }
}

if (process.argv[2]) await child(process.argv[2]);
else await parent();
