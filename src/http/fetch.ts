import { RetryError } from '../errors';
import { createPolicy, KNOWN, type RetryContext, type RetryOptions, suggest } from '../policy';
import { retry } from '../retry';
import { fail, onlyKnown, optionalFn } from '../validate';
import { subscribe } from '../wait';

/** fetch's signature: what {@link retryingFetch} returns, and what its `fetch` option takes. */
export type Fetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/** What {@link retryingFetch} accepts: every `retry()` option but `shouldRetryResult`, and four of its own. */
export interface RetryingFetchOptions extends Omit<RetryOptions<Response>, 'shouldRetryResult'> {
  /** The fetch to wrap. Default: `globalThis.fetch`, looked up at each call (so a stub installed later is used). */
  readonly fetch?: Fetch | undefined;
  /**
   * The methods retried, any case. Default: the idempotent ones, `GET`, `HEAD`, `OPTIONS`, `PUT`, `DELETE`, `TRACE`.
   * Any other method (`POST`, `PATCH`) is sent once, unless the request carries an idempotency key.
   */
  readonly methods?: readonly string[] | undefined;
  /** The response statuses retried. Default: `408`, `425`, `429`, `500`, `502`, `503`, `504`. */
  readonly statuses?: readonly number[] | undefined;
  /**
   * Makes `POST` and `PATCH` (any method not in `methods`) retryable by sending an idempotency key, one fresh key per
   * call and the same key on every attempt, so the server can tell a retry from a new request (IETF draft "The
   * Idempotency-Key HTTP Header Field"; Stripe's API). `true`: an `Idempotency-Key` header with `crypto.randomUUID()`;
   * a string: that header name instead; a function: its result is the key, in `Idempotency-Key`. A request that
   * already carries the header keeps its key and is retried, whatever this option. Default `false`.
   */
  readonly idempotencyKey?: boolean | string | ((input: RequestInfo | URL, init: RequestInit | undefined) => string);
}

/** retryingFetch's own options, beside retry()'s. */
const OWN_OPTIONS = ['fetch', 'methods', 'statuses', 'idempotencyKey'];
const IDEMPOTENT_METHODS = ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE'];
const RETRIED_STATUSES = [408, 425, 429, 500, 502, 503, 504];
const KEY_HEADER = 'Idempotency-Key';
/** RFC 9110's token: the characters a header name may hold. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A body fetch reads as a stream: it cannot be read a second time, so its request is sent once. */
const isStream = (body: unknown): boolean =>
  typeof body === 'object' &&
  body !== null &&
  (typeof (body as ReadableStream).getReader === 'function' || Symbol.asyncIterator in body);

/** Cancels a discarded response's body, so its socket goes back to the pool (or is closed) instead of held. */
const discard = (response: Response | undefined): void => {
  response?.body?.cancel().catch(() => {});
};

/**
 * The caller's two signals as one: the policy's and the call's. Allocates only when both are given; `release`
 * removes the listeners it added.
 */
function both(a: AbortSignal | undefined, b: AbortSignal | undefined): [AbortSignal | undefined, () => void] {
  if (!a || !b) return [a ?? b, () => {}];
  const controller = new AbortController();
  if (a.aborted || b.aborted) {
    controller.abort(a.aborted ? a.reason : b.reason);
    return [controller.signal, () => {}];
  }
  // Through the registry: a policy signal shared by thousands of concurrent calls holds one listener, not one each.
  const releaseA = subscribe(a, { fire: () => controller.abort(a.reason) });
  const releaseB = subscribe(b, { fire: () => controller.abort(b.reason) });
  return [
    controller.signal,
    () => {
      releaseA();
      releaseB();
    },
  ];
}

/**
 * A fetch that retries: `(input, init?) => Promise<Response>`, with fetch's signature and semantics, calling
 * `retry()` with your options once per call.
 *
 * - A status in `statuses` (a 503, a 429 with `Retry-After`) is retried; when `retry()` gives up (attempts, deadline,
 *   a Retry-After over `maxRetryAfterMs`), the call resolves with the last Response, as fetch does for any status.
 *   Every discarded Response's body is cancelled, so no socket is held.
 * - A network failure is retried (see `isTransient`); one that outlasts the policy rejects with a `RetryError`. A
 *   permanent error (a bad URL's TypeError) rejects at once.
 * - Only the methods in `methods` are retried, and any request carrying an idempotency key (see `idempotencyKey`).
 *   Any other request, and a request whose body is a stream, is sent once: its network failure rejects with a
 *   `RetryError` whose message says why it was not retried.
 * - Bodies are re-sent byte for byte (a string, ArrayBuffer, typed array, Blob, URLSearchParams or FormData is read
 *   again by fetch); a `Request` input is cloned for each attempt.
 * - `init.signal` (or the Request's signal) is your abort, as is the `signal` option; each attempt gets its own signal,
 *   aborted by either, by `attemptTimeoutMs` and by the deadline.
 *
 * Choose it for HTTP calls made with fetch; for axios, got or ky, call `retry()` around them (their errors are
 * understood by the default `isTransient` and `readRetryAfter`) and turn off their own retries.
 *
 * @param options - See {@link RetryingFetchOptions}; checked now, so a bad option throws here, naming it.
 * @throws TypeError or RangeError for a bad option.
 *
 * @example
 * ```ts
 * import { retryingFetch } from 'herdless';
 * const fetchWithRetry = retryingFetch({ maxAttempts: 5, timeoutMs: 10_000, attemptTimeoutMs: 2_000 });
 * const res = await fetchWithRetry('https://api.example.com/items');
 * ```
 */
export function retryingFetch(options: RetryingFetchOptions = {}): Fetch {
  const { fetch, methods, statuses, idempotencyKey = false, ...rest } = options;
  if ('shouldRetryResult' in rest) {
    fail(
      TypeError,
      'shouldRetryResult',
      'left out of retryingFetch (it retries the `statuses`)',
      rest.shouldRetryResult,
    );
  }
  // Its own options named among the known ones, and suggested for a near miss (`method`: did you mean methods?).
  const known: ReadonlySet<string> = new Set([...OWN_OPTIONS, ...KNOWN]);
  onlyKnown(options, known, 'retryingFetch', (key) => suggest(key, known));
  const policy = createPolicy<Response>(rest);
  optionalFn('fetch', fetch);
  const retried = upperSet('methods', methods ?? IDEMPOTENT_METHODS);
  const retriedStatus = statusSet(statuses ?? RETRIED_STATUSES);
  const keyed = idempotencyKey !== false;
  const name = typeof idempotencyKey === 'string' && TOKEN.test(idempotencyKey);
  if (!(name || typeof idempotencyKey === 'boolean' || typeof idempotencyKey === 'function')) {
    fail(TypeError, 'idempotencyKey', 'a boolean, a header name or a function', idempotencyKey);
  }
  const keyHeader = typeof idempotencyKey === 'string' ? idempotencyKey : KEY_HEADER;
  const shouldRetryResult = (response: Response) => retriedStatus.has(response.status);

  return async (input, init) => {
    const request = typeof Request === 'function' && input instanceof Request ? input : undefined;
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    let headers: Headers | undefined; // this call's headers, when a key is added to them
    let once: string | undefined; // why this call is sent once
    if (isStream(init?.body)) once = 'a stream body is sent once, not retried';
    else if (!retried.has(method)) {
      const carried = new Headers(init?.headers ?? request?.headers);
      if (carried.has(keyHeader)) {
        // The caller's own key: retried, as it is.
      } else if (keyed) {
        carried.set(keyHeader, newKey(idempotencyKey, input, init));
        headers = carried;
      } else {
        once = `${method} is sent once without an ${keyHeader} header; pass idempotencyKey to retry it`;
      }
    }

    let held: Response | undefined; // the last retried Response, to discard if another attempt follows
    const callers = [init?.signal ?? request?.signal, policy.signal].filter((s) => s !== undefined && s !== null);
    const attempt = async (ctx: RetryContext): Promise<Response> => {
      discard(held);
      held = undefined;
      const send = fetch ?? globalThis.fetch;
      // The body outlives retry(): the caller's abort must still cancel it after retry() resolved, as with fetch.
      // AbortSignal.any (the runtime's own weak links: no listener of ours left per call) where there is one.
      const signal =
        callers.length > 0 && typeof AbortSignal.any === 'function'
          ? AbortSignal.any([ctx.signal, ...callers])
          : ctx.signal;
      const response = await send(request ? request.clone() : input, { ...init, signal, ...(headers && { headers }) });
      if (shouldRetryResult(response)) held = response;
      return response;
    };
    const [signal, release] = both(policy.signal, init?.signal ?? request?.signal);
    try {
      // The Response it resolves with is the last attempt's: never discarded, whatever its status.
      return await retry(attempt, {
        ...policy,
        signal,
        shouldRetryResult,
        ...(once !== undefined && { maxAttempts: 1 }),
      });
    } catch (error) {
      discard(held); // a retried Response before an abort or a later failure
      if (once === undefined || !(error instanceof RetryError) || error.reason !== 'attempts') throw error;
      const { reason, errors, attempts, elapsedMs } = error;
      throw new RetryError({ reason, errors, attempts, elapsedMs, detail: once });
    } finally {
      release();
    }
  };
}

/** A fresh idempotency key: the caller's function's, or a random UUID. */
function newKey(
  option: true | string | ((input: RequestInfo | URL, init: RequestInit | undefined) => string),
  input: RequestInfo | URL,
  init: RequestInit | undefined,
): string {
  if (typeof option === 'function') {
    const key = option(input, init);
    if (typeof key !== 'string' || key === '') fail(TypeError, 'idempotencyKey()', 'a non-empty string', key);
    return key;
  }
  const uuid = globalThis.crypto?.randomUUID;
  if (typeof uuid !== 'function') {
    fail(
      TypeError,
      'idempotencyKey',
      'a function where crypto.randomUUID is missing (Node < 19, insecure page)',
      option,
    );
  }
  return uuid.call(globalThis.crypto);
}

function upperSet(name: string, values: unknown): Set<string> {
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string' && TOKEN.test(v))) {
    fail(TypeError, name, 'an array of method names', values);
  }
  return new Set(values.map((v: string) => v.toUpperCase()));
}

function statusSet(values: unknown): Set<number> {
  if (!Array.isArray(values) || !values.every((v) => Number.isInteger(v) && v >= 100 && v <= 599)) {
    fail(TypeError, 'statuses', 'an array of integer statuses from 100 to 599', values);
  }
  return new Set(values as number[]);
}
