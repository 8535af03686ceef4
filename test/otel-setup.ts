import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

/** One metric as exported: its name, unit, type and every point's attributes and value. */
export interface Exported {
  readonly unit: string;
  readonly type: string;
  readonly points: { attributes: Record<string, unknown>; value: unknown }[];
}

/**
 * A reader collected by hand: the SDK's periodic one waits on `setTimeout`, which the tests' fake clock holds. What it
 * collects goes to the SDK's InMemoryMetricExporter, as a periodic reader would send it.
 */
class ManualReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/**
 * The SDK's in-memory exporters: a fresh MeterProvider per test (collected with `collect()`), and one tracer provider with the AsyncLocalStorage context manager, registered globally for the
 * file (the API's active span needs a context manager).
 */
export function useOtel() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const contextManager = new AsyncLocalStorageContextManager();
  const holder = {} as { meterProvider: MeterProvider; exporter: InMemoryMetricExporter; reader: ManualReader };
  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable());
    trace.setGlobalTracerProvider(tracerProvider);
  });
  afterAll(() => {
    trace.disable();
    context.disable();
  });
  beforeEach(() => {
    holder.exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    holder.reader = new ManualReader({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
    holder.meterProvider = new MeterProvider({ readers: [holder.reader] });
    spans.reset();
  });
  afterEach(async () => {
    await holder.meterProvider.shutdown();
  });

  return {
    spans,
    tracer: () => trace.getTracer('test'),
    get meterProvider() {
      return holder.meterProvider;
    },
    /** Every `herdless` metric exported now, by name (cumulative). */
    async collect(): Promise<Record<string, Exported>> {
      holder.exporter.reset();
      const { resourceMetrics, errors } = await holder.reader.collect();
      if (errors.length > 0) throw errors[0];
      holder.exporter.export(resourceMetrics, () => {});
      const out: Record<string, Exported> = {};
      for (const resource of holder.exporter.getMetrics()) {
        for (const scope of resource.scopeMetrics) {
          if (scope.scope.name !== 'herdless') throw new Error(`unexpected meter ${scope.scope.name}`);
          for (const metric of scope.metrics) {
            out[metric.descriptor.name] = {
              unit: metric.descriptor.unit,
              // What a dashboard sees: a monotonic sum (a counter), a gauge or a histogram.
              type:
                metric.dataPointType === DataPointType.SUM
                  ? metric.isMonotonic
                    ? 'COUNTER'
                    : 'UP_DOWN_COUNTER'
                  : DataPointType[metric.dataPointType],
              points: metric.dataPoints.map((p) => ({ attributes: { ...p.attributes }, value: p.value })),
            };
          }
        }
      }
      return out;
    },
  };
}

/** The value of the point whose attributes are exactly `attributes`, or undefined. */
export function point(metric: Exported | undefined, attributes: Record<string, unknown>): unknown {
  const key = JSON.stringify(Object.entries(attributes).sort());
  return metric?.points.find((p) => JSON.stringify(Object.entries(p.attributes).sort()) === key)?.value;
}
