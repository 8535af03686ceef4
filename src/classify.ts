/** The HTTP statuses worth retrying: timeouts, too early, too many requests, and the server-side failures that pass. */
const TRANSIENT_STATUSES = /* @__PURE__ */ new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * Socket and DNS failures (Node's `code`s) and undici's connection and timeout errors. This list, the two below and
 * AWS_THROTTLING_NAMES are in the order that gzips smallest (a Set is only asked what it holds), found by trying swaps
 * and keeping those that shrink `{ retry }` (as bench/README.md's "In bytes" says).
 */
const NETWORK_CODES = /* @__PURE__ */ new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ERR_NETWORK', // axios, when the request failed without a response (the browser's network error)
  'UND_ERR_SOCKET',
  'ETIMEDOUT',
  'EPIPE',
  'ECONNABORTED', // also axios's timeout
  'ECONNREFUSED',
  'ENETUNREACH',
  'ECONNRESET',
  'EAI_AGAIN',
  'ENETDOWN',
  'ENOTFOUND', // a DNS failure: the name may resolve again (the AWS SDK retries it too)
  'EHOSTUNREACH',
]);

/** The messages of the TypeError that `fetch` rejects with on a network failure, runtime by runtime. */
const FETCH_FAILURES = /* @__PURE__ */ new Set([
  'fetch failed', // Node (undici)
  'network error', // Chromium, some paths
  'Load failed', // Safari
  'Network connection lost', // Cloudflare Workers
  'Network request failed', // React Native, whatwg-fetch, cross-fetch
  'The Internet connection appears to be offline.', // Safari
  'NetworkError when attempting to fetch resource.', // Firefox
  'Failed to fetch', // Chromium, Deno
]);

/** Errors that mean a bug or a deliberate stop, not a passing failure. */
const PERMANENT_NAMES = /* @__PURE__ */ new Set([
  'RangeError',
  'SyntaxError',
  'RetryError',
  'CircuitOpenError',
  'CanceledError', // axios: the caller cancelled the request
  'ReferenceError',
  'CancelError', // got: the caller cancelled the request
  'TypeError',
  'AbortError',
]);

/**
 * AWS SDK v3's throttling error names, THROTTLING_ERROR_CODES of @smithy/service-error-classification
 * (src/constants.ts), in the order that gzips smallest (see NETWORK_CODES): the service says it is saturated, or the
 * caller over quota, whatever the status (a throttled DynamoDB call is a 400).
 */
const AWS_THROTTLING_NAMES = /* @__PURE__ */ new Set([
  'RequestThrottledException',
  'ThrottledException',
  'ThrottlingException',
  'PriorRequestNotComplete',
  'Throttling',
  'SlowDown',
  'EC2ThrottledException',
  'TooManyRequestsException',
  'BandwidthLimitExceeded',
  'RequestLimitExceeded',
  'RequestThrottled',
  'TransactionInProgressException',
  'LimitExceededException',
  'ProvisionedThroughputExceededException',
]);

/** AWS SDK v3's timeout error names: TRANSIENT_ERROR_CODES of @smithy/service-error-classification. */
const AWS_TIMEOUT_NAMES = /* @__PURE__ */ new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);

/**
 * gRPC status codes worth retrying: DEADLINE_EXCEEDED (4), RESOURCE_EXHAUSTED (8), ABORTED (10), UNAVAILABLE (14).
 * Every other code, 0 to 16, is permanent.
 */
const GRPC_TRANSIENT_CODES = /* @__PURE__ */ new Set([4, 8, 10, 14]);

/** Bounds, as an enum rather than consts: esbuild writes the numbers where they are used, and no variable ships. */
enum Max {
  /** The highest gRPC status code. */
  GRPC_CODE = 16,
  /** How deep {@link isNetworkError} follows `cause`: enough for wrapped fetch errors, bounded against cycles. */
  CAUSE_DEPTH = 8,
}

type Bag = Record<string, unknown>;
/** Whether `value` is an object (not null), whose fields can be read. */
export const isObject = (value: unknown): value is Bag => typeof value === 'object' && value !== null;
const asStatus = (value: unknown): number | undefined =>
  Number.isInteger(value) && (value as number) >= 100 && (value as number) <= 599 ? (value as number) : undefined;

/**
 * The HTTP status an error carries, read from `status`, `statusCode`, `response.status`, `response.statusCode` or
 * `$metadata.httpStatusCode` (AWS SDK v3), first found wins; `undefined` if none is an integer from 100 to 599.
 *
 * @example
 * ```ts
 * getStatus({ response: { status: 503 } }); // 503
 * ```
 */
export function getStatus(error: unknown): number | undefined {
  try {
    if (!isObject(error)) return undefined;
    const { response, $metadata } = error;
    return (
      asStatus(error.status) ??
      asStatus(error.statusCode) ??
      (isObject(response) ? (asStatus(response.status) ?? asStatus(response.statusCode)) : undefined) ??
      (isObject($metadata) ? asStatus($metadata.httpStatusCode) : undefined)
    );
  } catch {
    return undefined; // a throwing getter or a revoked Proxy carries no status we can read
  }
}

/**
 * Whether a failure is the dependency saying it is saturated, or the caller over its quota: an HTTP 429 (see
 * {@link getStatus}), an AWS SDK v3 throttling error (a `$retryable` trait with `throttling: true`, or a throttling
 * name such as `ThrottlingException` or `SlowDown`), or a gRPC RESOURCE_EXHAUSTED (code 8 beside a `metadata` object).
 * Never throws. A retry budget reads such a failure that names no wait (no Retry-After) as it reads a timeout: no
 * retry for it, unless it is an isolated one. Compose it in your own `isTransient` or `onFailure` to count or log them.
 *
 * @example
 * ```ts
 * isThrottled({ status: 429 }); // true
 * isThrottled({ status: 503 }); // false: a 503 alone says nothing of why
 * ```
 */
export function isThrottled(error: unknown): boolean {
  try {
    if (getStatus(error) === 429) return true;
    if (!isObject(error)) return false;
    const { $metadata, $retryable, code, metadata } = error;
    return (
      (isObject($retryable) && $retryable.throttling === true) ||
      (isObject($metadata) && AWS_THROTTLING_NAMES.has(error.name as string)) ||
      (isObject(metadata) && code === 8)
    );
  } catch {
    return false; // a throwing getter or a revoked Proxy says nothing we can read
  }
}

/**
 * Whether an HTTP status is worth retrying: 408, 425, 429, 500, 502, 503 or 504. Every other status is permanent
 * (a 501 or a 4xx will not change by asking again).
 *
 * @example
 * ```ts
 * isTransientStatus(503); // true
 * isTransientStatus(404); // false
 * ```
 */
export function isTransientStatus(status: number): boolean {
  return TRANSIENT_STATUSES.has(status);
}

/** The causes undici gives a `fetch failed` it refused before sending anything, and would refuse again. */
const REFUSED_LOCALLY: ReadonlySet<string> = /* @__PURE__ */ new Set(['unknown scheme', 'bad port']);

/**
 * Whether an error, or any error in its `cause` chain (8 deep at most), is a network failure: a socket or DNS error
 * code (`ECONNRESET`, `ECONNREFUSED`, `ECONNABORTED`, `ETIMEDOUT`, `EPIPE`, `EAI_AGAIN`, `ENOTFOUND`, `ENETUNREACH`,
 * `ENETDOWN`, `EHOSTUNREACH`), undici's `UND_ERR_SOCKET`, `UND_ERR_CONNECT_TIMEOUT`, `UND_ERR_HEADERS_TIMEOUT`,
 * `UND_ERR_BODY_TIMEOUT`, axios's `ERR_NETWORK`, or the TypeError that `fetch` rejects with when the network fails, in any runtime
 * (`'fetch failed'`, `'Failed to fetch'`, `'Load failed'`, ...).
 *
 * @example
 * ```ts
 * isNetworkError(new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } })); // true
 * ```
 */
export function isNetworkError(error: unknown): boolean {
  try {
    let current = error;
    for (let depth = 0; depth <= Max.CAUSE_DEPTH && isObject(current); depth++) {
      if (NETWORK_CODES.has(current.code as string)) return true;
      if (current.name === 'TypeError' && FETCH_FAILURES.has(current.message as string)) {
        // undici refuses some requests before any network: a URL scheme it cannot fetch, a port the fetch standard
        // blocks. The same on every attempt: not a network failure.
        const cause = current.cause;
        return !(isObject(cause) && REFUSED_LOCALLY.has(cause.message as string));
      }
      current = current.cause;
    }
    return false;
  } catch {
    return false; // a throwing getter or a revoked Proxy somewhere in the chain
  }
}

/**
 * The default classifier of `retry()`: whether a failure may pass if the call is tried again.
 *
 * 1. An AWS SDK v3 error with a `$retryable` trait or a throttling name (`ThrottlingException`, `SlowDown`, ...) is
 *    transient whatever its status; a gRPC error (a numeric `code` with `metadata`) is transient iff its code is
 *    UNAVAILABLE, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED or ABORTED.
 * 2. An error with an HTTP status of 400 or more (see {@link getStatus}: fetch, axios, got, ky, the AWS SDK) is
 *    transient iff {@link isTransientStatus}. A status below 400 on an error is the headers of an answer that failed
 *    after them (got's `ReadError` and axios's "stream has been aborted" for a body cut after a 200): it says nothing
 *    of the failure, and the rules below decide (a cut connection's `ECONNRESET` is transient).
 * 3. A network failure (see {@link isNetworkError}, including axios's `ERR_NETWORK` and `ECONNABORTED`) is transient.
 * 4. An `AbortError`, a cancelled axios or got request (`CanceledError`, `CancelError`), a `RetryError` (an inner
 *    `retry()` already gave up: retrying it would multiply attempts), and `TypeError`, `RangeError`, `SyntaxError`,
 *    `ReferenceError` (bugs) are permanent.
 * 5. Anything else, a plain `Error`, your own error class or a thrown string, is transient.
 *
 * Never throws: a value it cannot read (a throwing getter, a revoked Proxy) is an unknown failure, so rule 5 applies.
 *
 * Rule 5 is lenient on purpose: an unknown failure is usually worth a few bounded, jittered tries. To be stricter,
 * pass your own `isTransient` to `retry()` and compose: `(e) => e instanceof MyTransientError || isNetworkError(e)`.
 *
 * @example
 * ```ts
 * isTransient({ status: 503 }); // true
 * isTransient({ status: 400 }); // false
 * isTransient(new Error('lock timeout')); // true
 * isTransient(new TypeError('x is not a function')); // false
 * ```
 */
export function isTransient(error: unknown): boolean {
  try {
    if (isObject(error)) {
      // Rule 1, what an AWS SDK v3 or a gRPC error says of itself, before its HTTP status is read:
      // - AWS SDK v3 (a `$metadata` object): a `$retryable` trait, or a throttling or timeout name, is transient.
      // - gRPC (`@grpc/grpc-js`'s `callErrorFromStatus`: an integer `code` from 0 to 16 beside a `metadata` object;
      //   also Connect's and grpc-web's errors): transient iff the code is in GRPC_TRANSIENT_CODES.
      const { $metadata, $retryable, code, metadata } = error;
      const name = error.name as string;
      if (
        isObject($retryable) ||
        (isObject($metadata) && (AWS_THROTTLING_NAMES.has(name) || AWS_TIMEOUT_NAMES.has(name)))
      )
        return true;
      if (isObject(metadata) && Number.isInteger(code) && (code as number) >= 0 && (code as number) <= Max.GRPC_CODE) {
        return GRPC_TRANSIENT_CODES.has(code as number);
      }
    }
    const status = getStatus(error);
    // A status below 400 is the headers of an answer that then failed (a body cut after its 200): no verdict on it.
    if ((status as number) >= 400) return TRANSIENT_STATUSES.has(status as number);
    if (isNetworkError(error) || !isObject(error)) return true;
    return !(
      PERMANENT_NAMES.has(error.name as string) ||
      error instanceof TypeError ||
      error instanceof RangeError ||
      error instanceof SyntaxError ||
      error instanceof ReferenceError
    );
  } catch {
    return true; // unreadable (a throwing getter, a revoked Proxy): an unknown failure, as rule 5 has it
  }
}
