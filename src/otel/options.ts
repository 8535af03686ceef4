import type { MeterProvider } from '@opentelemetry/api';
import { fail, onlyKnown } from './check';

/** What `withTelemetry`, `telemetryFetch`, `observeBudget` and `observeBreaker` take beside what they wrap. */
export interface TelemetryOptions {
  /**
   * The name its metrics and span events carry (`herdless.policy.name`, `herdless.budget.name` or
   * `herdless.breaker.name`): a non-empty string naming the dependency (`'pricing-api'`), never a URL or an id, so
   * that the metrics stay low-cardinality. Required.
   */
  readonly name: string;
  /**
   * The MeterProvider to record into. Default: the global one (`metrics.getMeterProvider()`), looked up at each
   * event, so a policy made before the SDK started still reports once it has.
   */
  readonly meterProvider?: MeterProvider | undefined;
}

const KNOWN: readonly string[] = ['name', 'meterProvider'];

/** The options checked: a TypeError naming the first bad one. */
export function telemetryOptions(options: TelemetryOptions, what: string): TelemetryOptions {
  try {
    if (options === null || typeof options !== 'object')
      fail(TypeError, `${what}'s telemetry options`, 'an object', options);
    const { name } = options;
    if (typeof name !== 'string' || name === '') fail(TypeError, 'name', 'a non-empty string', name);
    const { meterProvider } = options;
    if (meterProvider !== undefined && typeof meterProvider?.getMeter !== 'function') {
      fail(TypeError, 'meterProvider', 'a MeterProvider', meterProvider);
    }
    onlyKnown(options, KNOWN, `${what}'s telemetry`);
    return options;
  } catch (error) {
    // The wing's own errors pass; what reading the bag threw (a getter, a revoked Proxy) becomes one naming it.
    if (error instanceof TypeError && error.message.startsWith('herdless:')) throw error;
    let key = '';
    for (const k of KNOWN) {
      try {
        Reflect.get(options, k);
      } catch {
        key = ` (reading ${k} threw)`;
        break;
      }
    }
    throw new TypeError(`herdless: ${what}'s telemetry options could not be read${key}`, { cause: error });
  }
}
