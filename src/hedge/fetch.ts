import {
  discard,
  type Fetch,
  follow,
  IDEMPOTENT_METHODS,
  isRequest,
  isStream,
  KEY_HEADER,
  RETRIED_STATUSES,
} from '../http/fetch';
import { fail, onlyKnown, optionalFn, unreadable } from '../validate';
import type { Hedge } from './hedge';
import { isHedge, race } from './race';

/** What {@link hedgedFetch} accepts beside the hedge; every field is optional. */
export interface HedgedFetchOptions {
  /** The fetch to hedge. Default: `globalThis.fetch`, looked up at each call. */
  readonly fetch?: Fetch | undefined;
  /**
   * The statuses that are failures, not answers: a hedge's 503 does not win while another attempt is in flight.
   * Default: `retryingFetch`'s, `408`, `425`, `429`, `500`, `502`, `503`, `504`.
   */
  readonly statuses?: readonly number[] | undefined;
}

const KNOWN: ReadonlySet<string> = /* @__PURE__ */ new Set(['fetch', 'statuses']);
const IDEMPOTENT: ReadonlySet<string> = /* @__PURE__ */ new Set(IDEMPOTENT_METHODS);

/**
 * Whether a request may be sent twice at once: an idempotent method (`GET`, `HEAD`, `OPTIONS`, `PUT`, `DELETE`,
 * `TRACE`), or any method with an `Idempotency-Key` header, and an `init.body` that can be sent again (not a stream; a
 * `Request`'s body is cloned for each attempt). A `POST` or `PATCH` without a key is never hedged: two of them may do
 * the work twice.
 */
export function isHedgeable(method: string, headers: Headers, body: unknown): boolean {
  return !isStream(body) && (IDEMPOTENT.has(method.toUpperCase()) || headers.has(KEY_HEADER));
}

/**
 * A fetch that hedges (see {@link createHedge}): give it to `retryingFetch` as its `fetch`, so that each of its
 * attempts is a round of up to `1 + maxHedges` requests, the first answer that is not a failure status winning. The
 * others are aborted and their bodies cancelled (a late one's too), so their sockets go back to the pool. A failure
 * status (a 503) from one request does not win while another is in flight; when all fail, the last one's Response is
 * returned with its body whole, as a winner's (the others' bodies cancelled), for `retryingFetch` to retry or give.
 *
 * Only an idempotent request is hedged (see {@link isHedgeable}): a `POST` or `PATCH` goes through once, as it is,
 * unless it carries an `Idempotency-Key` (`retryingFetch({ idempotencyKey: true })` adds one before this fetch sees the
 * request; a key under another header name is not seen, so such a request is never hedged). The hedge's attempts are
 * `fetch` calls, so an HTTP instrumentation records one span per request, as OpenTelemetry asks.
 *
 * @param hedge - From {@link createHedge}, shared by the calls to one dependency.
 * @param options - See {@link HedgedFetchOptions}.
 * @throws TypeError or RangeError naming the option, for a bad option.
 *
 * @example
 * ```ts
 * import { createRetryBudget, retryingFetch } from 'herdless';
 * import { createHedge, hedgedFetch } from 'herdless/hedge';
 * const budget = createRetryBudget();
 * const hedge = createHedge({ budget });
 * const get = retryingFetch({ budget, attemptTimeoutMs: 2_000, fetch: hedgedFetch(hedge) });
 * const res = await get('https://api.example.com/items/42');
 * ```
 */
export function hedgedFetch(hedge: Hedge, options: HedgedFetchOptions = {}): Fetch {
  isHedge(hedge);
  if (options === null || typeof options !== 'object') fail(TypeError, 'the hedgedFetch options', 'an object', options);
  let send: Fetch | undefined;
  let failing: ReadonlySet<number>;
  try {
    onlyKnown(options, KNOWN, 'hedgedFetch');
    send = optionalFn('fetch', options.fetch);
    const statuses = options.statuses ?? RETRIED_STATUSES;
    if (!Array.isArray(statuses) || !statuses.every((s) => Number.isInteger(s) && s >= 100 && s <= 599)) {
      fail(TypeError, 'statuses', 'an array of HTTP statuses (integers 100-599)', statuses);
    }
    failing = new Set(statuses);
  } catch (error) {
    return unreadable('hedgedFetch', options, error); // a getter that throws: an error naming the options
  }
  // A bad header, a method that is not a string: a rejected promise, as fetch gives, not a throw.
  return (input, init) => {
    try {
      const fetch = send ?? globalThis.fetch;
      const request = isRequest(input) ? input : undefined;
      const method = init?.method ?? request?.method ?? 'GET';
      if (!isHedgeable(method, new Headers(init?.headers ?? request?.headers), init?.body)) return fetch(input, init);
      const parent = init?.signal ?? request?.signal ?? undefined;
      return race<Response>(
        hedge,
        () => parent,
        // Each attempt sends a clone of a Request, so the body of the first is still there for a hedge.
        (signal) => fetch(signal && request ? request.clone() : input, signal ? { ...init, signal } : init),
        (response) => failing.has(response.status),
        discard,
        // The winner's body outlives the round: the caller's abort must still cancel it, as with fetch (held weakly).
        (response, controller) => parent && follow([parent], controller, response),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  };
}
