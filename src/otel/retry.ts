import { context } from '@opentelemetry/api';
import { retry as coreRetry, type RetryContext, type RetryOptions, type RetryPolicy } from '../index';
import { recordRejection, recordResolved, telemetryOf } from './policy';
import { CALL, type CallState } from './registry';

/**
 * herdless's `retry`, which also records how the call settled when its policy came from {@link withTelemetry}: a
 * success (`herdless.retry.attempts`, outcome `success`), a give-up (`herdless.retry.give_ups` by the RetryError's
 * `reason`, a `herdless.give_up` event on the active span, a budget's refusal), or a breaker's rejection
 * (`herdless.breaker.rejections`). Same arguments, same result, same errors; with any other policy it is the core
 * `retry` and records nothing.
 *
 * A call that resolves with a retried result (`shouldRetryResult`, out of attempts) counts as a give-up too, when a
 * context manager is installed (any OpenTelemetry SDK setup has one): its reason is then inferred (see docs/otel.md).
 *
 * Choose it wherever a telemetry policy is used; the core `retry` records only failures, retries and sleeps.
 *
 * @example
 * ```ts
 * import { retry, withTelemetry } from 'herdless/otel';
 * const policy = withTelemetry({ maxAttempts: 4 }, { name: 'inventory' });
 * const stock = await retry(({ signal }) => getStock(sku, { signal }), policy);
 * ```
 */
export function retry<T>(
  fn: (context: RetryContext) => T | PromiseLike<T>,
  policy?: RetryOptions<T> | RetryPolicy<T>,
): Promise<T> {
  const t = telemetryOf(policy);
  if (t === undefined) return coreRetry(fn, policy);
  // A call's own state only where a result may be retried: the common policy pays no context switch.
  const state: CallState | undefined =
    t.policy.shouldRetryResult === undefined ? undefined : { last: undefined, retried: false, sent: 0 };
  const call: Promise<T> =
    state === undefined
      ? coreRetry(fn, policy)
      : context.with(context.active().setValue(CALL, state), coreRetry<T>, undefined, fn, policy);
  return call.then(
    (value) => {
      recordResolved(t, state);
      return value;
    },
    (error: unknown) => {
      recordRejection(t, error);
      throw error;
    },
  );
}
