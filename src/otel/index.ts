/**
 * OpenTelemetry for herdless's policies, retry budgets, circuit breakers and `retryingFetch`: metrics on a meter named
 * `herdless` and events on the caller's active span. `@opentelemetry/api` is an optional peer that only this entry
 * loads; the core does not import it.
 *
 * @module herdless/otel
 */

/**
 * herdless's `retry`, the core's own, re-exported so that `import { retry } from 'herdless/otel'` works too: a
 * policy from {@link withTelemetry} records through its own hooks (`onSettle` included) with any `retry`.
 */
export { retry } from '../index';
export { observeBreaker } from './breaker';
export { observeBudget } from './budget';
export { errorType } from './events';
export { resendCountHook, telemetryFetch } from './fetch';
export { hedgeTelemetry } from './hedge';
export * as names from './names';
export type { TelemetryOptions } from './options';
export { withTelemetry } from './policy';
