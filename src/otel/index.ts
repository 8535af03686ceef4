/**
 * herdless's `retry`, the core's own, re-exported so that `import { retry } from 'herdless/otel'` (0.1) still works: a
 * policy from {@link withTelemetry} records through its own hooks (`onSettle` included) with any `retry`.
 */
export { retry } from '../index';
export { observeBreaker } from './breaker';
export { observeBudget } from './budget';
export { errorType } from './events';
export { resendCountHook, telemetryFetch } from './fetch';
export * as names from './names';
export type { TelemetryOptions } from './options';
export { withTelemetry } from './policy';
