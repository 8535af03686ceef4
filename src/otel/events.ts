import { type Attributes, trace } from '@opentelemetry/api';
import type { RetryEvent, StopReason } from '../index';
import {
  ATTR_ATTEMPT,
  ATTR_DELAY,
  ATTR_ERROR_TYPE,
  ATTR_POLICY,
  ATTR_REASON,
  EVENT_GIVE_UP,
  EVENT_RETRY,
} from './names';

/**
 * OpenTelemetry's `error.type` for a failure, low-cardinality: the HTTP status of a Response (or of an error carrying
 * `status` or `response.status`), else the error's `name` (`TypeError`, `TimeoutError`), else `_OTHER`. Never reads a
 * message. Never throws (a throwing getter reads as `_OTHER`).
 */
export function errorType(error: unknown): string {
  try {
    if (typeof error !== 'object' || error === null) return '_OTHER';
    const e = error as { status?: unknown; response?: { status?: unknown }; name?: unknown };
    const status = e.status ?? e.response?.status;
    if (Number.isInteger(status)) return String(status);
    return typeof e.name === 'string' && e.name !== '' ? e.name : '_OTHER';
  } catch {
    return '_OTHER';
  }
}

/** A `herdless.retry` event on the caller's active span, if there is one: never a span of its own. */
export function retryEvent(name: string, event: RetryEvent, extra?: Attributes): void {
  const span = trace.getActiveSpan();
  if (span === undefined) return;
  span.addEvent(EVENT_RETRY, {
    ...extra,
    [ATTR_POLICY]: name,
    [ATTR_ATTEMPT]: event.attempt,
    [ATTR_DELAY]: event.delayMs / 1000,
    [ATTR_ERROR_TYPE]: errorType(event.error ?? event.value),
  });
}

/** A `herdless.give_up` event on the caller's active span, if there is one. */
export function giveUpEvent(name: string, reason: StopReason, attempts: number, last: unknown): void {
  const span = trace.getActiveSpan();
  if (span === undefined) return;
  span.addEvent(EVENT_GIVE_UP, {
    [ATTR_POLICY]: name,
    [ATTR_REASON]: reason,
    [ATTR_ATTEMPT]: attempts,
    [ATTR_ERROR_TYPE]: errorType(last),
  });
}
