import { type Attributes, createContextKey } from '@opentelemetry/api';
import type { RetryPolicy } from '../index';
import type { Tally } from './instruments';

/** What `withTelemetry` or `telemetryFetch` knows of the policy it records for. */
export interface PolicyTelemetry {
  readonly name: string;
  readonly options: { readonly meterProvider?: import('@opentelemetry/api').MeterProvider | undefined };
  /** The policy as validated (its budget and breaker, named by observeBudget and observeBreaker). */
  readonly policy: RetryPolicy<any>;
  /** `{ herdless.policy.name }`, frozen. */
  readonly base: Attributes;
  /** `{ herdless.policy.name, herdless.attempt.outcome: success }`, frozen. */
  readonly success: Attributes;
  /** Its attempts, by attributes. */
  readonly tally: Tally;
}

/** The names given to `observeBudget` and `observeBreaker`, by object. */
export const names = new WeakMap<object, string>();

/**
 * One `telemetryFetch` call's state, carried in the OpenTelemetry context from the wrapper that knows the call to the
 * shared fetch and hooks that do not: the requests sent so far, the method, and the attempts the inner `retry()` made.
 */
export interface CallState {
  sent: number;
  /** The HTTP method (normalised). */
  readonly method: string;
  /** The attempts the inner `retry()` made, as its `onSettle` said (undefined until it settles). */
  attempts?: number;
}

/** The context key of a call's {@link CallState}; `createContextKey` is `Symbol.for`, shared by both builds. */
export const CALL = createContextKey('herdless.otel.call');
/** The context key of the resend count of the request being sent (see `resendCountHook`). */
export const RESEND = createContextKey('herdless.otel.resend_count');
