import { type Attributes, context } from '@opentelemetry/api';
import {
  CircuitOpenError,
  createPolicy,
  type FailureEvent,
  RetryError,
  type RetryEvent,
  type RetryOptions,
  type RetryPolicy,
  type StopReason,
} from '../index';
import { giveUpEvent, retryEvent } from './events';
import { attrs, instruments, Tally } from './instruments';
import { ATTR_BREAKER, ATTR_BUDGET, ATTR_OUTCOME, ATTR_POLICY, ATTR_REASON } from './names';
import { type TelemetryOptions, telemetryOptions } from './options';
import { CALL, type CallState, names, type PolicyTelemetry, policies } from './registry';

/**
 * The policy, validated, with telemetry added to its hooks: `onFailure` counts each failed attempt
 * (`herdless.retry.attempts`, outcome `failure`), `onRetry` counts the retry (`herdless.retry.retries`), records its
 * sleep (`herdless.retry.sleep.duration`, seconds) and adds a `herdless.retry` event to the caller's active span
 * (never a span of its own). Your own `onFailure` and `onRetry` still run, after the recording, in the same order, and
 * what they return or throw behaves as documented. Nothing else about the call changes.
 *
 * Successes and give-ups (`herdless.retry.give_ups` by reason, a `herdless.give_up` span event, a budget's refusals,
 * a breaker's rejections) are read from how the call settles, so call it with `retry` from `herdless/otel` (the same
 * function, which records them); the core `retry` still records the failures, retries and sleeps.
 *
 * Choose it for every policy of a service you run; choose {@link telemetryFetch} for `retryingFetch`, whose attempts
 * also carry the HTTP method and status class.
 *
 * @param policy - Options or a policy from `createPolicy` (checked as `createPolicy` checks them).
 * @param options - `{ name, meterProvider? }`: see {@link TelemetryOptions}.
 * @returns A frozen policy (pass it as it is, or as `{ ...policy, signal }`: the spread keeps its telemetry).
 * @throws TypeError or RangeError naming the bad option.
 *
 * @example
 * ```ts
 * import { createPolicy } from 'herdless';
 * import { retry, withTelemetry } from 'herdless/otel';
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
  const { onFailure, onRetry, shouldRetryResult } = base;
  const tally = new Tally(meterProvider);
  const hooks = {
    onFailure(event: FailureEvent) {
      tally.add(failed);
      const state = context.active().getValue(CALL) as CallState | undefined;
      if (state !== undefined) state.last = event;
      return onFailure?.(event);
    },
    onRetry(event: RetryEvent) {
      recordRetry(meterProvider, name, common, event);
      return onRetry?.(event);
    },
  };
  const telemetry: PolicyTelemetry = {
    name,
    options: { meterProvider },
    policy: base,
    base: common,
    success: attrs({ [ATTR_POLICY]: name, [ATTR_OUTCOME]: 'success' }),
    tally,
  };
  policies.set(hooks.onFailure, telemetry);
  return createPolicy<T>({
    ...base,
    ...hooks,
    // Only wrapped when given (a policy without one keeps retry()'s fast path): tells a call that resolves with a
    // retried result, out of attempts, from one that succeeded.
    ...(shouldRetryResult && { shouldRetryResult: tracking(shouldRetryResult) }),
  });
}

/** The user's `shouldRetryResult`, whose verdicts are noted in the call's state. */
function tracking<T>(check: (value: T, attempt: number) => boolean | PromiseLike<boolean>) {
  return (value: T, attempt: number): boolean | PromiseLike<boolean> => {
    const verdict = check(value, attempt);
    const state = context.active().getValue(CALL) as CallState | undefined;
    if (state === undefined) return verdict;
    if (typeof (verdict as PromiseLike<boolean> | null)?.then !== 'function') {
      state.retried = Boolean(verdict);
      return verdict;
    }
    return Promise.resolve(verdict).then((v) => {
      state.retried = Boolean(v);
      return v;
    });
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

/** The telemetry a policy carries, if `withTelemetry` or `telemetryFetch` made it. */
export function telemetryOf(policy: unknown): PolicyTelemetry | undefined {
  const hook = (policy as { onFailure?: unknown } | null | undefined)?.onFailure;
  return typeof hook === 'function' ? policies.get(hook) : undefined;
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

/**
 * Why a call that resolved with a retried result stopped, from its last failure: retry() says it only in a
 * RetryError, which such a call does not reject with. The order is retry()'s own: attempts, the server's wait, the
 * breaker, the budget; else the deadline. Read after the fact (a shared breaker or budget may have changed since), so
 * it is the likely reason, not a certain one.
 */
export function inferReason(p: RetryPolicy<any>, last: FailureEvent | undefined): StopReason {
  try {
    if (last === undefined || last.attemptsLeft <= 0) return 'attempts';
    const wait = p.retryAfter(last.value ?? last.error);
    if (wait !== undefined && wait > p.maxRetryAfterMs) return 'retry-after';
    if (p.breaker !== undefined && p.breaker.state !== 'closed') return 'circuit-open';
    if (p.budget !== undefined && p.budget.available() < 1) return 'budget';
  } catch {
    // a throwing retryAfter, or a breaker's broken clock: the deadline is what is left
  }
  return 'timeout';
}

/** A call that resolved: its last attempt's success, or (a retried result) its give-up. */
export function recordResolved(t: PolicyTelemetry, state: CallState | undefined): void {
  if (state?.retried) {
    recordGiveUp(t, inferReason(t.policy, state.last), state.last?.attempt ?? 1, state.last?.value);
    return;
  }
  t.tally.add(t.success);
}
