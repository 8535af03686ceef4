import { delayFor, spreadAfter } from './delay';
import type { StopReason } from './errors';
import type { RetryPolicy } from './policy';

/**
 * The decision after a transient failure, as a value: retry after `delayMs`, or stop for a named reason.
 * `backoffMs` is the client's own backoff, what `'decorrelated'` jitter grows from next time: the delay when the
 * server gave no wait, and the previous backoff (unchanged, `undefined` if none yet) when it did, since that sleep
 * was the server's, not the client's.
 */
export type Decision =
  | {
      readonly retry: true;
      readonly delayMs: number;
      readonly backoffMs: number | undefined;
    }
  | { readonly retry: false; readonly reason: StopReason };

/**
 * Whether to retry after `attempt` failed, `elapsedMs` into the call, the server having asked for `retryAfterMs`
 * (or not), the policy's budget holding the retry for `holdMs` (0: not held). Checks, in order: attempts left, the
 * server's wait against `maxRetryAfterMs`, the budget's hold against it too (`'budget'`), and whether the sleep would
 * end at or after the deadline (the policy's breaker and budget are asked by the caller, through its `Pass`). With no
 * wait (or a wait of 0) the delay is the jittered backoff; with one, the longer of the server's wait and the hold, it
 * is that wait plus a spread that grows with it ({@link spreadAfter}), so clients told the same moment do not return
 * together. A hold is first cut to half the time left before the deadline, so a held call still makes its last
 * attempt, at a spread moment, within its deadline. Pure but for `policy.random`.
 */
export function decide(
  policy: RetryPolicy<never>,
  attempt: number,
  elapsedMs: number,
  retryAfterMs: number | undefined,
  previousBackoffMs: number | undefined,
  holdMs = 0,
): Decision {
  if (attempt >= policy.maxAttempts) return { retry: false, reason: 'attempts' };
  // Infinity is "do not retry" (a negative gRPC pushback), whatever maxRetryAfterMs allows.
  if (retryAfterMs !== undefined && (retryAfterMs > policy.maxRetryAfterMs || retryAfterMs === Infinity))
    return { retry: false, reason: 'retry-after' };
  if (holdMs > policy.maxRetryAfterMs) return { retry: false, reason: 'budget' };
  // The budget's hold, taken as a server's wait, but never so long that it leaves no time before the deadline: a
  // call with less time left waits a spread share of what it has, rather than giving up at once.
  const held = Math.min(holdMs, (policy.timeoutMs - elapsedMs) / 2);
  const waitMs = held > (retryAfterMs ?? 0) ? held : retryAfterMs;
  const hinted = waitMs !== undefined && waitMs > 0;
  const delayMs = hinted ? spreadAfter(waitMs, policy) : delayFor(policy, attempt, previousBackoffMs);
  // A server wait near the largest double, spread, overflows: a wait no deadline or none could ever see end.
  if (delayMs === Infinity) return { retry: false, reason: 'retry-after' };
  const backoffMs = hinted ? previousBackoffMs : delayMs;
  if (elapsedMs + delayMs >= policy.timeoutMs) return { retry: false, reason: 'timeout' };
  return { retry: true, delayMs, backoffMs };
}
