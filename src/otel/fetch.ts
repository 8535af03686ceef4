import { type Attributes, context } from '@opentelemetry/api';
import {
  createPolicy,
  type Fetch,
  type FetchInput,
  givenUp,
  type RetryEvent,
  type RetryingFetchOptions,
  retryingFetch,
  type SettleEvent,
} from '../index';
import { fail, optionalFn } from './check';
import { attrs, quietly, Tally } from './instruments';
import { ATTR_METHOD, ATTR_OUTCOME, ATTR_POLICY, ATTR_RESEND_COUNT, ATTR_STATUS_CLASS } from './names';
import { type TelemetryOptions, telemetryOptions } from './options';
import { afterYours, recordGiveUp, recordRejection, recordRetry } from './policy';
import { CALL, type CallState, type PolicyTelemetry, RESEND } from './registry';

/**
 * retryingFetch's default `statuses` (src/http/fetch.ts; test/otel-fetch.test.ts checks they agree): repeated here,
 * since exporting the core's list changed the bundle of `{ retry }` by a byte.
 */
const RETRIED_STATUSES: readonly number[] = [408, 425, 429, 500, 502, 503, 504];

/** The methods OpenTelemetry's HTTP conventions name; any other is `_OTHER` (a method is not an open set). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH', 'QUERY']);

/** A request's method, as the conventions spell it. */
function methodOf(input: FetchInput, init: RequestInit | undefined): string {
  // Any Request-like input (undici's own Request included, not only globalThis.Request), as retryingFetch reads it.
  const request =
    typeof input === 'object' && input !== null && !(input instanceof URL) && typeof input.method === 'string'
      ? input
      : undefined;
  const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
  return METHODS.has(method) ? method : '_OTHER';
}

/** `2xx` for 204: the status class, a handful of values whatever the status. */
const statusClass = (status: number): string => `${Math.floor(status / 100)}xx`;

/**
 * `retryingFetch(options)`, with telemetry: each attempt counts in `herdless.retry.attempts` by outcome (`failure`:
 * a network error or a status in `statuses`), `http.request.method` and `herdless.http.status_class`; each retry in
 * `herdless.retry.retries` and `herdless.retry.sleep.duration` with a `herdless.retry` event on the caller's active
 * span; each give-up in `herdless.retry.give_ups` by reason, whether the call rejects with a RetryError or resolves
 * with the last retried Response (its reason the one `givenUp()` tells, or the inner `retry()`'s `onSettle`). Your
 * own `onFailure`, `onRetry` and `onSettle` still run, as with `retryingFetch`; a retry your `onRetry` throws on is not
 * counted.
 *
 * Each resend (the second attempt on) is sent with its resend count in the OpenTelemetry context, which
 * {@link resendCountHook} puts on the attempt's span when an HTTP instrumentation (undici's for fetch) creates one.
 *
 * Choose it instead of `retryingFetch` in a service you run; the calls behave exactly as `retryingFetch`'s.
 *
 * @param options - `retryingFetch`'s options, checked as it checks them. Default `{}`.
 * @param telemetry - `{ name, meterProvider? }`: see {@link TelemetryOptions}.
 * @throws TypeError or RangeError naming the bad option.
 *
 * @example
 * ```ts
 * import { telemetryFetch } from 'herdless/otel';
 * const get = telemetryFetch({ maxAttempts: 4, timeoutMs: 5_000 }, { name: 'pricing-api' });
 * const res = await get('https://pricing.internal/v1/prices/42');
 * ```
 */
export function telemetryFetch(options: RetryingFetchOptions = {}, telemetry: TelemetryOptions): Fetch {
  const { name, meterProvider } = telemetryOptions(telemetry, 'telemetryFetch');
  if (options === null || typeof options !== 'object')
    fail(TypeError, 'the retryingFetch options', 'an object', options);
  const {
    fetch: send,
    methods: _,
    statuses,
    idempotencyKey: __,
    attemptHeader: ___,
    onRetry,
    onSettle,
    ...rest
  } = options;
  // The three this wraps, checked here (retryingFetch checks the rest, and these three as wrapped).
  optionalFn('fetch', send);
  optionalFn('onRetry', onRetry);
  optionalFn('onSettle', onSettle);
  // Frozen attributes by (outcome, method, status class): at most 2 x 11 x 6 objects, made once each.
  const cache = new Map<string, Attributes>();
  const attributes = (outcome: string | undefined, method: string | undefined, status: number | undefined) => {
    const key = `${outcome}|${method}|${status === undefined ? '' : statusClass(status)}`;
    let a = cache.get(key);
    if (a === undefined) {
      a = attrs({
        [ATTR_POLICY]: name,
        ...(outcome !== undefined && { [ATTR_OUTCOME]: outcome }),
        ...(method !== undefined && { [ATTR_METHOD]: method }),
        ...(status !== undefined && { [ATTR_STATUS_CLASS]: statusClass(status) }),
      });
      cache.set(key, a);
    }
    return a;
  };

  const tally = new Tally(meterProvider);
  // The method of the request each Response or error came from: onRetry reads it there, so that a retry keeps its
  // method without a context manager too (the call's state travels in the context, which then carries nothing).
  const sentWith = new WeakMap<object, string>();
  const attempt: Fetch = (input, init) => {
    const state = context.active().getValue(CALL) as CallState | undefined;
    const resends = state === undefined ? 0 : state.sent++;
    const method = methodOf(input, init);
    const go = send ?? globalThis.fetch;
    const sent =
      resends > 0
        ? context.with(context.active().setValue(RESEND, resends), go, undefined, input, init)
        : go(input, init);
    return sent.then(
      (response) => {
        const outcome = retried.has(response.status) ? 'failure' : 'success';
        quietly(() => {
          sentWith.set(response, method);
          tally.add(attributes(outcome, method, response.status));
        });
        return response;
      },
      (error: unknown) => {
        quietly(() => {
          if (typeof error === 'object' && error !== null) sentWith.set(error, method);
          tally.add(attributes('failure', method, undefined));
        });
        throw error;
      },
    );
  };
  const hooks = {
    onRetry: afterYours(onRetry, (event: RetryEvent) => {
      const state = context.active().getValue(CALL) as CallState | undefined;
      const status = (event.value as Response | undefined)?.status;
      const method = state?.method ?? sentWith.get((event.value ?? event.error) as object);
      const a = attributes(undefined, method, status);
      recordRetry(meterProvider, name, a, event, a);
    }),
    onSettle(event: SettleEvent) {
      // The attempts the call made, for its give-up's span event (givenUp() tells the reason).
      const state = context.active().getValue(CALL) as CallState | undefined;
      if (state !== undefined) state.attempts = event.attempts;
      return onSettle?.(event);
    },
  };
  const call = retryingFetch({ ...options, fetch: attempt, ...hooks });
  const t: PolicyTelemetry = {
    name,
    options: { meterProvider },
    policy: createPolicy(rest),
    base: attrs({ [ATTR_POLICY]: name }),
    success: attributes('success', undefined, undefined), // unused: each attempt counts itself
    tally,
  };
  const retried = new Set<number>(statuses ?? RETRIED_STATUSES);

  return (input, init) => {
    const method = methodOf(input, init);
    const state: CallState = { sent: 0, method };
    const extra = attributes(undefined, method, undefined);
    return context.with(context.active().setValue(CALL, state), call, undefined, input, init).then(
      (response) => {
        // givenUp() names why a call that resolved with a retried status gave up (out of attempts, a POST sent once
        // by rule, the deadline, the server's wait, the budget...), and nothing for any other answer.
        const reason = givenUp(response);
        if (reason !== undefined) quietly(() => recordGiveUp(t, reason, state.attempts ?? 1, response, extra));
        return response;
      },
      (error: unknown) => {
        quietly(() => recordRejection(t, error, extra));
        throw error;
      },
    );
  };
}

/**
 * An HTTP instrumentation's start-span hook that adds `http.request.resend_count` to the span of each resend
 * `telemetryFetch` sends (1 for the second attempt, 2 for the third...), as OpenTelemetry's HTTP conventions ask, and
 * nothing to any other request. It reads the count from the active context, so it works with every instrumentation
 * that creates its span in the caller's context and takes such a hook: `startSpanHook` of
 * `@opentelemetry/instrumentation-undici` (fetch: the runtime's, which `retryingFetch` uses), `startOutgoingSpanHook`
 * of `@opentelemetry/instrumentation-http` (only `http.request`, so only for a `telemetryFetch` whose `fetch` option
 * sends through `node:http`; it sees no request of the runtime's fetch).
 *
 * @example
 * ```ts
 * import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
 * import { resendCountHook } from 'herdless/otel';
 * registerInstrumentations({ instrumentations: [new UndiciInstrumentation({ startSpanHook: resendCountHook })] });
 * ```
 */
export function resendCountHook(_request?: unknown): Attributes {
  const resends = context.active().getValue(RESEND);
  return typeof resends === 'number' ? { [ATTR_RESEND_COUNT]: resends } : {};
}
