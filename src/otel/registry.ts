import { type Attributes, createContextKey } from '@opentelemetry/api';
import type { FailureEvent, RetryPolicy } from '../index';
import type { Tally } from './instruments';

/** What `withTelemetry` or `telemetryFetch` knows of a policy, found again from the hook it installed. */
export interface PolicyTelemetry {
  readonly name: string;
  readonly options: { readonly meterProvider?: import('@opentelemetry/api').MeterProvider | undefined };
  /** The policy as validated (its budget, breaker, retryAfter and maxRetryAfterMs tell a resolved give-up's reason). */
  readonly policy: RetryPolicy<any>;
  /** `{ herdless.policy.name }`, frozen. */
  readonly base: Attributes;
  /** `{ herdless.policy.name, herdless.attempt.outcome: success }`, frozen. */
  readonly success: Attributes;
  /** Its attempts, by attributes. */
  readonly tally: Tally;
}

/** By the `onFailure` a telemetry policy carries: the same function in a spread (`{ ...policy, signal }`). */
export const policies = new WeakMap<object, PolicyTelemetry>();

/** The names given to `observeBudget` and `observeBreaker`, by object. */
export const names = new WeakMap<object, string>();

/**
 * One call's state, carried in the OpenTelemetry context from the wrapper that knows the call to the shared hooks
 * that do not: the last failure, whether the last attempt's result was retried, the requests sent so far.
 */
export interface CallState {
  last: FailureEvent | undefined;
  retried: boolean;
  sent: number;
  /** The HTTP method of a `telemetryFetch` call (normalised). */
  method?: string;
}

/** The context key of a call's {@link CallState}; `createContextKey` is `Symbol.for`, shared by both builds. */
export const CALL = createContextKey('herdless.otel.call');
/** The context key of the resend count of the request being sent (see `resendCountHook`). */
export const RESEND = createContextKey('herdless.otel.resend_count');
