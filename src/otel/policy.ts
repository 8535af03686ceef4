import type { Attributes } from '@opentelemetry/api';
import {
  CircuitOpenError,
  createPolicy,
  type FailureEvent,
  RetryError,
  type RetryEvent,
  type RetryOptions,
  type RetryPolicy,
  type SettleEvent,
  type StopReason,
} from '../index';
import { giveUpEvent, retryEvent } from './events';
import { attrs, instruments, quietly, Tally } from './instruments';
import { ATTR_BREAKER, ATTR_BUDGET, ATTR_OUTCOME, ATTR_POLICY, ATTR_REASON } from './names';
import { type TelemetryOptions, telemetryOptions } from './options';
import { names, type PolicyTelemetry } from './registry';

/**
 * The policy, validated, with telemetry added to its hooks, for any `retry()` (the core's) to record: `onFailure`
 * counts each failed attempt (`herdless.retry.attempts`, outcome `failure`); `onRetry` counts the retry
 * (`herdless.retry.retries`), records its sleep (`herdless.retry.sleep.duration`, seconds) and adds a `herdless.retry`
 * event to the caller's active span (never a span of its own); `onSettle` counts the call's end as `retry()` decided
 * it: a success (`herdless.retry.attempts`, outcome `success`), a give-up by its `reason` (`herdless.retry.give_ups`, a
 * `herdless.give_up` span event, and a budget's refusal in `herdless.budget.refusals`), or a breaker's refusal of the
 * first attempt (`herdless.breaker.rejections`). Nothing is inferred: a call that resolves with a retried result
 * counts as the give-up it is, with its reason.
 *
 * Your own hooks still run, with the same events, and what they return or throw behaves as documented: `onFailure`
 * after the count; `onRetry` before the retry is counted, so that a retry your `onRetry` throws on (or rejects: it
 * then does not happen) is not counted; `onSettle` after the recording. Nothing else about the call changes.
 *
 * Choose it for every policy of a service you run; choose {@link telemetryFetch} for `retryingFetch`, whose attempts
 * also carry the HTTP method and status class.
 *
 * @param policy - Options or a policy from `createPolicy` (checked as `createPolicy` checks them).
 * @param options - `{ name, meterProvider? }`: see {@link TelemetryOptions}.
 * @returns A frozen policy (pass it as it is, or as `{ ...policy, signal }`: the spread keeps its hooks).
 * @throws TypeError or RangeError naming the bad option.
 *
 * @example
 * ```ts
 * import { createPolicy, retry } from 'herdless';
 * import { withTelemetry } from 'herdless/otel';
 * const pricing = withTelemetry(createPolicy({ maxAttempts: 4, timeoutMs: 5_000 }), { name: 'pricing-api' });
 * const price = await retry(() => getPrice(sku), pricing);
 * ```
 */
export function withTelemetry<T = unknown>(
  policy: RetryOptions<T> | RetryPolicy<T>,
  options: TelemetryOptions,
): RetryPolicy<T> {
  const base = createPolicy<T>(policy);
  const { name, meterProvider } = telemetryOptions(options, 'withTelemetry');
  const common = attrs({ [ATTR_POLICY]: name });
  const failed = attrs({ [ATTR_POLICY]: name, [ATTR_OUTCOME]: 'failure' });
  const { onFailure, onRetry, onSettle } = base;
  const t: PolicyTelemetry = {
    name,
    options: { meterProvider },
    policy: base,
    base: common,
    success: attrs({ [ATTR_POLICY]: name, [ATTR_OUTCOME]: 'success' }),
    tally: new Tally(meterProvider),
  };
  return createPolicy<T>({
    ...base,
    onFailure(event: FailureEvent) {
      quietly(() => t.tally.add(failed));
      return onFailure?.(event);
    },
    onRetry: afterYours(onRetry, (event) => recordRetry(meterProvider, name, common, event)),
    onSettle(event: SettleEvent) {
      quietly(() => recordSettle(t, event));
      return onSettle?.(event); // what yours returns or throws is retry()'s to report
    },
  });
}

/**
 * An `onRetry` that runs yours first and records the retry only once yours has returned (or its promise resolved):
 * one that throws or rejects stops the call, so no retry follows and none is counted.
 */
export function afterYours(
  yours: ((event: RetryEvent) => void | PromiseLike<void>) | undefined,
  record: (event: RetryEvent) => void,
): (event: RetryEvent) => void | PromiseLike<void> {
  return (event) => {
    const done = yours?.(event);
    if (typeof (done as PromiseLike<void> | undefined)?.then !== 'function') return quietly(() => record(event));
    return Promise.resolve(done).then(() => quietly(() => record(event)));
  };
}

/** A retry's counter, sleep and span event. */
export function recordRetry(
  provider: TelemetryOptions['meterProvider'],
  name: string,
  attributes: Attributes,
  event: RetryEvent,
  spanExtra?: Attributes,
): void {
  const i = instruments(provider);
  i.retries.add(1, attributes);
  i.sleep.record(event.delayMs / 1000, attributes);
  retryEvent(name, event, spanExtra);
}

/** How a call ended, as retry() tells its `onSettle`: a success, a give-up by reason, a breaker's rejection. */
export function recordSettle(t: PolicyTelemetry, event: SettleEvent): void {
  const { reason } = event;
  if (reason !== undefined) {
    const last = event.ok ? event.value : (event.error as RetryError).cause;
    recordGiveUp(t, reason, event.attempts, last);
  } else if (event.ok) t.tally.add(t.success);
  else recordRejection(t, event.error);
}

/** How a call that rejected is counted: a RetryError's give-up by reason, a breaker's rejection. Else nothing. */
export function recordRejection(t: PolicyTelemetry, error: unknown, extra?: Attributes): void {
  if (error instanceof RetryError) recordGiveUp(t, error.reason, error.attempts, error.cause, extra);
  else if (error instanceof CircuitOpenError) {
    const breaker = t.policy.breaker;
    instruments(t.options.meterProvider).breakerRejections.add(1, {
      ...t.base,
      ...(breaker && names.has(breaker) && { [ATTR_BREAKER]: names.get(breaker) }),
    });
  }
}

/** A give-up: its counter by reason, its span event, and a budget's refusal when the budget stopped it. */
export function recordGiveUp(
  t: PolicyTelemetry,
  reason: StopReason,
  attempts: number,
  last: unknown,
  extra?: Attributes,
): void {
  const i = instruments(t.options.meterProvider);
  i.giveUps.add(1, { ...t.base, ...extra, [ATTR_REASON]: reason });
  giveUpEvent(t.name, reason, attempts, last);
  const budget = t.policy.budget;
  if (reason === 'budget' && budget !== undefined) {
    i.budgetRefusals.add(1, { ...t.base, ...(names.has(budget) && { [ATTR_BUDGET]: names.get(budget) }) });
  }
}
