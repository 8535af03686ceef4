export { observeBreaker } from './breaker';
export { observeBudget } from './budget';
export { errorType } from './events';
export { resendCountHook, telemetryFetch } from './fetch';
export * as names from './names';
export type { TelemetryOptions } from './options';
export { withTelemetry } from './policy';
export { retry } from './retry';
