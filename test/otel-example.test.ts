import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AggregationTemporality, InMemoryMetricExporter } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { main } from '../examples/otel-console';

/** Keeps its spans through the SDK's shutdown (the SDK's own exporter forgets them then). */
class KeptSpans extends InMemorySpanExporter {
  override shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

// The example service on real sockets and real time (its retries sleep 20 ms at most, with full jitter).
describe('examples/otel-console.ts', () => {
  it('serves every request, with a span per attempt (resends counted) and the herdless metrics', async () => {
    const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const spans = new KeptSpans();
    const { statuses } = await main({ metrics, spans }, 6);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]); // every third answer is a 503, retried once
    const finished = spans.getFinishedSpans();
    expect(finished.filter((s) => s.name === 'POST /checkout')).toHaveLength(6);
    const attempts = finished.filter((s) => s.name === 'GET');
    expect(attempts).toHaveLength(8);
    expect(attempts.filter((s) => s.attributes['http.request.resend_count'] === 1)).toHaveLength(2);
    const scopes = metrics.getMetrics().flatMap((r) => r.scopeMetrics);
    const of = (scope: string) => scopes.filter((s) => s.scope.name === scope).flatMap((s) => s.metrics);
    expect(of('@opentelemetry/instrumentation-undici').map((m) => m.descriptor.name)).toEqual([
      'http.client.request.duration',
    ]);
    expect(
      of('herdless')
        .map((m) => m.descriptor.name)
        .sort(),
    ).toEqual([
      'herdless.breaker.state',
      'herdless.budget.available',
      'herdless.retry.attempts',
      'herdless.retry.retries',
      'herdless.retry.sleep.duration',
    ]);
  });

  it('prints the spans and the metrics to the console when run', async () => {
    const root = join(import.meta.dirname, '..');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/otel-console.ts'], {
      cwd: root,
      timeout: 60_000,
    });
    expect(stdout).toContain("'http.request.resend_count': 1");
    expect(stdout).toContain("name: 'herdless.retry'");
    expect(stdout).toContain("name: 'herdless.retry.attempts'");
    expect(stdout).toMatch(/checkout answered 6 requests: 200 200 200 200 200 200\n$/);
  });
});

// docs/otel.md's example, as it is (test/readme.test.ts checks the page shows this file), run as a user would.
describe('examples/otel-service.ts', () => {
  it('runs: a retry, a resend, a give-up, then every herdless metric printed at shutdown', async () => {
    const root = join(import.meta.dirname, '..');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/otel-service.ts'], {
      cwd: root,
      timeout: 60_000,
    });
    expect(stdout).toContain('price { price: 42 } then 200 { price: 42 }\n');
    expect(stdout).toMatch(/gave up: (attempts|budget)\n/);
    expect(stdout).toContain("'http.request.resend_count': 1");
    expect(stdout).toContain("name: 'herdless.retry'");
    expect(stdout).toContain("name: 'herdless.give_up'");
    for (const metric of ['attempts', 'retries', 'sleep.duration', 'give_ups']) {
      expect(stdout).toContain(`name: 'herdless.retry.${metric}'`);
    }
    expect(stdout).toContain("'herdless.attempt.outcome': 'success'");
  });
});
