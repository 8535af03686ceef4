import { keep, RetryError, type StopReason } from '../errors';
import {
  createPolicy,
  type FailureEvent,
  knownOptions,
  type RetryContext,
  type RetryEvent,
  type RetryOptions,
  type SettleEvent,
  suggest,
} from '../policy';
import { retry, told } from '../retry';
import { fail, onlyKnown, optionalFn, withCause } from '../validate';
import { subscribe } from '../wait';

/**
 * What fetch takes as its first argument: a URL string, a `URL` or a `Request` (of any fetch implementation: undici's,
 * a polyfill's). Written out rather than the DOM library's `RequestInfo`, which a Node-only project does not have.
 */
export type FetchInput = string | URL | Request;

/** fetch's signature: what {@link retryingFetch} returns, and what its `fetch` option takes. */
export type Fetch = (input: FetchInput, init?: RequestInit) => Promise<Response>;

/**
 * What {@link retryingFetch} accepts: every `retry()` option but `shouldRetryResult` (it retries the `statuses`), and
 * five of its own. A policy from `createPolicy()` is accepted as it is, and so is `{ ...policy, methods }`: an option
 * set to `undefined` is one left out.
 */
export interface RetryingFetchOptions extends Omit<RetryOptions<Response>, 'shouldRetryResult'> {
  /** The fetch to wrap. Default: `globalThis.fetch`, looked up at each call (so a stub installed later is used). */
  readonly fetch?: Fetch | undefined;
  /**
   * The methods retried, any case. Default: the idempotent ones, `GET`, `HEAD`, `OPTIONS`, `PUT`, `DELETE`, `TRACE`.
   * Any other method (`POST`, `PATCH`) is sent once, unless the request carries an idempotency key or the failure
   * proves nothing was sent (a refused connection, a host name that did not resolve, with `redirect: 'error'` or
   * `'manual'`: see {@link retryingFetch}).
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
  readonly idempotencyKey?:
    | boolean
    | string
    | ((input: FetchInput, init: RequestInit | undefined) => string)
    | undefined;
  /**
   * A header that tells the server which attempt this is, 1-based: `attemptHeader: 'X-Attempt'` sends `X-Attempt: 1`,
   * then `X-Attempt: 2` on the first retry, and so on (as the AWS SDKs' `amz-sdk-request`, Envoy's
   * `x-envoy-attempt-count` and gRPC's `grpc-previous-rpc-attempts` do), so that an overloaded server can shed
   * retries first. Choose it when you own the server or its proxy. Default: none (no header is added).
   */
  readonly attemptHeader?: string | undefined;
}

/** retryingFetch's own options, beside retry()'s. */
const OWN_OPTIONS = ['fetch', 'methods', 'statuses', 'idempotencyKey', 'attemptHeader'];
export const IDEMPOTENT_METHODS = ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE'];
export const RETRIED_STATUSES = [408, 425, 429, 500, 502, 503, 504];
export const KEY_HEADER = 'Idempotency-Key';
/** RFC 9110's token: the characters a header name may hold. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * The failures that prove a request never left: the connection was refused (`ECONNREFUSED`), or the host name did not
 * resolve (`ENOTFOUND`, `EAI_AGAIN`), on the error or in its `cause` chain (fetch's `TypeError: fetch failed` holds
 * the code in `cause`). Not a timeout, a reset or a closed socket: the request may have reached the server. Proof only
 * when fetch does not follow redirects: else the refusal may be a later hop's, after the first was processed.
 */
const NEVER_SENT = /* @__PURE__ */ new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
/** How deep {@link neverSent} follows `cause`, as the classifier does. */
const MAX_CAUSE_DEPTH = 8;

/** Whether a failure proves that nothing was sent (see {@link NEVER_SENT}). Never throws. */
function neverSent(error: unknown): boolean {
  try {
    let current = error;
    for (let depth = 0; depth <= MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
      if (NEVER_SENT.has((current as { code?: string }).code as string)) return true;
      current = (current as { cause?: unknown }).cause;
    }
  } catch {
    // a throwing getter or a revoked Proxy proves nothing
  }
  return false;
}

/** A body fetch reads as a stream: it cannot be read a second time, so its request is sent once. */
export const isStream = (body: unknown): boolean =>
  typeof body === 'object' &&
  body !== null &&
  (typeof (body as ReadableStream).getReader === 'function' || Symbol.asyncIterator in body);

/**
 * A `Request` of any fetch implementation (the global one, undici's, a polyfill's): what fetch would read as one.
 * Not `instanceof Request`, which only the runtime's own class passes.
 */
export const isRequest = (input: unknown): input is Request =>
  typeof input === 'object' &&
  input !== null &&
  typeof (input as Request).url === 'string' &&
  typeof (input as Request).method === 'string' &&
  typeof (input as Request).clone === 'function';

/** Cancels a discarded response's body, so its socket goes back to the pool (or is closed) instead of held. */
export const discard = (response: Response | undefined): void => {
  response?.body?.cancel().catch(() => {});
};

/** A retried status, thrown inside `retry()` so that giving up on it names its reason; never leaves retryingFetch. */
class Retried {
  constructor(readonly response: Response) {}
}

/**
 * The stop reason of each Response that retryingFetch gave up on: a retried status that outlasted the policy, or that
 * a request sent once by rule got.
 */
const stops = /* @__PURE__ */ new WeakMap<object, StopReason | undefined>();

/**
 * Whether herdless gave up on a call, and why: the {@link StopReason} for
 * - a `Response` from {@link retryingFetch} whose status was retried until the policy ran out (`'attempts'`, the
 *   deadline's `'timeout'`, a `Retry-After` over `maxRetryAfterMs`'s `'retry-after'`, `'budget'`, `'circuit-open'`),
 * - a {@link RetryError} (network failures that outlasted the policy: its `reason`),
 * - a `CircuitOpenError` (the breaker was open before the first attempt): `'circuit-open'`;
 *
 * A request sent once by rule (a `POST` without an idempotency key) that got a retried status (a 503) or failed on the
 * network is given up on after its one attempt: `'attempts'`, as `maxAttempts: 1` would say (`'timeout'` or
 * `'retry-after'` when the deadline or the server's wait stopped it first), the same reason `onSettle` is told.
 *
 * `undefined` for every other outcome: a success, a status that is not retried (a 404, returned at once), a
 * permanent error, the caller's abort. Works on what a `retryingFetch` call resolves or rejects with, and on what
 * `retry()` rejects with. Never throws.
 *
 * Choose it to tell "the dependency stayed down" from "the request was wrong" without parsing messages, while a caller
 * that only checks `res.ok` keeps fetch's contract.
 *
 * @example
 * ```ts
 * import { givenUp, retryingFetch } from 'herdless';
 * const fetchWithRetry = retryingFetch({ maxAttempts: 4, timeoutMs: 10_000 });
 * try {
 *   const res = await fetchWithRetry('https://api.example.com/items');
 *   if (!res.ok) throw new Error(`HTTP ${res.status}, given up: ${givenUp(res) ?? 'not retried'}`);
 *   console.log(await res.json());
 * } catch (error) {
 *   console.warn(givenUp(error) ?? 'not retried', error); // 'attempts', 'timeout', ... or undefined
 * }
 * ```
 */
export function givenUp(outcome: unknown): StopReason | undefined {
  if (isA(outcome, RetryError)) return outcome.reason;
  if (typeof outcome !== 'object' || outcome === null) return undefined;
  try {
    // By name: the class is not imported (it would bring the breaker into retryingFetch's bundle).
    return (outcome as Error).name === 'CircuitOpenError' ? 'circuit-open' : stops.get(outcome);
  } catch {
    return undefined; // a throwing getter or a revoked Proxy
  }
}

/** Releases the caller's signals from a body's controller once its Response is collected (see `follow`). */
const collected =
  typeof FinalizationRegistry === 'function'
    ? /* @__PURE__ */ new FinalizationRegistry<() => void>((release) => release())
    : undefined;
/** Keeps each such controller alive as long as its Response: the caller's signals hold it only weakly. */
const held = /* @__PURE__ */ new WeakMap<object, AbortController>();

/**
 * Where `AbortSignal.any` is missing (Node 18 before 18.17, Node 20 before 20.3, Safari before 17.4), and for a hedged
 * request's winner (herdless/hedge): the caller's signals abort `controller` (the returned Response's body's) after
 * retry() resolved too, as with fetch. Through the registry, holding the controller
 * weakly: the subscription ends when the Response is collected, so a long-lived signal holds nothing per call.
 */
export function follow(signals: readonly AbortSignal[], controller: AbortController, response: Response): void {
  const ref = typeof WeakRef === 'function' ? new WeakRef(controller) : { deref: () => controller };
  const releases: (() => void)[] = [];
  for (const s of signals) {
    if (s.aborted) controller.abort(s.reason);
    else releases.push(subscribe(s, { fire: () => ref.deref()?.abort(s.reason) }));
  }
  held.set(response, controller);
  collected?.register(response, () => {
    for (const release of releases) release();
  });
}

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

/** Why a call that was sent once stopped after its attempt, instead of being retried. */
class Once {
  constructor(readonly event: RetryEvent) {}
}

/**
 * A fetch that retries: `(input, init?) => Promise<Response>`, with fetch's signature and semantics, calling
 * `retry()` with your options once per call.
 *
 * - A status in `statuses` (a 503, a 429 with `Retry-After`) is retried; when `retry()` gives up (attempts, deadline,
 *   a Retry-After over `maxRetryAfterMs`, the budget, the breaker), the call resolves with the last Response, as fetch
 *   does for any status, and {@link givenUp} tells the reason. Every discarded Response's body is cancelled, so no
 *   socket is held.
 * - A network failure is retried (see `isTransient`); one that outlasts the policy rejects with a `RetryError`. A
 *   permanent error (a bad URL's TypeError) rejects at once.
 * - Only the methods in `methods` are retried, and any request carrying an idempotency key (see `idempotencyKey`).
 *   Any other request (a `POST` without a key) is sent once, unless its failure proves it never left: with
 *   `redirect: 'error'` or `'manual'` (on `init` or the `Request`), a refused connection (`ECONNREFUSED`) or a host
 *   name that did not resolve (`ENOTFOUND`, `EAI_AGAIN`) is retried as usual. While fetch follows redirects (the
 *   default) a refusal proves nothing: it may be a later hop's (a 303 to a server that is down) after the first one
 *   was processed, and the error does not say which hop it was. A timeout, a reset or any other failure, and any
 *   status, is never proof. A request whose body is a stream is sent once, whatever the failure. A failure not
 *   retried for these reasons rejects with a `RetryError` whose message says why.
 * - Bodies are re-sent byte for byte (a string, ArrayBuffer, typed array, Blob, URLSearchParams or FormData is read
 *   again by fetch); a `Request` input, of any fetch implementation, is cloned for each attempt and its method read.
 * - `init.signal` (or the Request's signal) is your abort, as is the `signal` option; each attempt gets its own signal,
 *   aborted by either, by `attemptTimeoutMs` and by the deadline, and your abort still cancels the body of the
 *   Response after the call resolved.
 *
 * Choose it for HTTP calls made with fetch; for axios, got or ky, call `retry()` around them (their errors are
 * understood by the default `isTransient` and `readRetryAfter`) and turn off their own retries.
 *
 * @param options - See {@link RetryingFetchOptions}; checked now, so a bad option throws here, naming it. A policy
 *   from `createPolicy()` is accepted.
 * @throws TypeError or RangeError for a bad option.
 *
 * @example
 * ```ts
 * import { retryingFetch } from 'herdless';
 * const fetchWithRetry = retryingFetch({ maxAttempts: 5, timeoutMs: 10_000, attemptTimeoutMs: 2_000 });
 * const res = await fetchWithRetry('https://api.example.com/items');
 * if (!res.ok) throw new Error(`HTTP ${res.status}`);
 * ```
 */
export function retryingFetch(options: RetryingFetchOptions = {}): Fetch {
  const { fetch, methods, statuses, idempotencyKey, attemptHeader, ...rest } = options;
  const retryOptions: RetryOptions<Response> & { shouldRetryResult?: unknown } = rest;
  if (retryOptions.shouldRetryResult !== undefined) {
    fail(
      TypeError,
      'shouldRetryResult',
      'left out of retryingFetch (it retries the `statuses`)',
      retryOptions.shouldRetryResult,
    );
  }
  // Its own options named among the known ones, and suggested for a near miss (`method`: did you mean methods?);
  // not shouldRetryResult, which it refuses (checked above: left undefined, as a createPolicy() gives it, it passes).
  const known = new Set([...OWN_OPTIONS, ...knownOptions()]);
  known.delete('shouldRetryResult');
  const { shouldRetryResult: _, ...named } = retryOptions;
  onlyKnown({ ...named, fetch, methods, statuses, idempotencyKey, attemptHeader }, known, 'retryingFetch', (key) =>
    suggest(key, known),
  );
  const policy = createPolicy<Response>({ ...rest, shouldRetryResult: undefined });
  optionalFn('fetch', fetch);
  const retried = upperSet('methods', methods ?? IDEMPOTENT_METHODS);
  const retriedStatus = statusSet(statuses ?? RETRIED_STATUSES);
  const keyOption = idempotencyKey ?? false;
  const keyed = keyOption !== false;
  const name = typeof keyOption === 'string' && TOKEN.test(keyOption);
  if (!(name || typeof keyOption === 'boolean' || typeof keyOption === 'function')) {
    fail(TypeError, 'idempotencyKey', 'a boolean, a header name or a function', keyOption);
  }
  if (attemptHeader !== undefined && !(typeof attemptHeader === 'string' && TOKEN.test(attemptHeader))) {
    fail(TypeError, 'attemptHeader', 'a header name', attemptHeader);
  }
  const keyHeader = typeof keyOption === 'string' ? keyOption : KEY_HEADER;
  // The policy's hooks see a retried status as fetch gives it, a Response in `value`, never the wrapper.
  const { isTransient, retryAfter, onFailure, onRetry, onSettle } = policy;
  const unwrap = <E extends FailureEvent | RetryEvent>(e: E): E =>
    isA(e.error, Retried) ? Object.freeze<E>({ ...e, error: undefined, value: e.error.response }) : e;
  const base: RetryOptions<Response> = {
    ...policy,
    shouldRetryResult: undefined,
    onSettle: undefined, // told below, of the call's own outcome (a retried status resolves; a Once is no error)
    isTransient: (error, attempt) => isA(error, Retried) || isTransient(error, attempt),
    retryAfter: (source) => retryAfter(isA(source, Retried) ? source.response : source),
  };

  return async (input, init) => {
    const request = isRequest(input) ? input : undefined;
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    let headers: Headers | undefined; // this call's headers, when a key is added to them
    let once: string | undefined; // why this call is sent once
    let stream = false; // ...and whether that is for its stream body (then whatever the failure)
    // Whether fetch follows redirects (the default): then a refusal may be a later hop's, the first one processed (a
    // 303 to a server that is down), and proves nothing. The error does not say which hop it was: an address names no
    // hop, and a redirect to the same origin (Post/Redirect/Get) has the first hop's.
    const redirect = init?.redirect ?? request?.redirect;
    const follows = redirect !== 'manual' && redirect !== 'error';
    if (isStream(init?.body)) {
      once = 'a stream body is sent once, not retried';
      stream = true;
    } else if (!retried.has(method)) {
      const carried = new Headers(init?.headers ?? request?.headers);
      if (carried.has(keyHeader)) {
        // The caller's own key: retried, as it is.
      } else if (keyed) {
        carried.set(keyHeader, newKey(keyOption, input, init));
        headers = carried;
      } else {
        once = `${method} is sent once without an ${keyHeader} header; pass idempotencyKey to retry it`;
      }
    }

    let discarded: Response | undefined; // the last retried Response, to discard if another attempt follows
    let last: AbortController | undefined; // the last attempt's own controller, where AbortSignal.any is missing
    const callers = [init?.signal ?? request?.signal, policy.signal].filter((s) => s !== undefined && s !== null);
    const linkAny = typeof AbortSignal.any === 'function';
    const attempt = async (ctx: RetryContext): Promise<Response> => {
      discard(discarded);
      discarded = undefined;
      const send = fetch ?? globalThis.fetch;
      // The body outlives retry(): the caller's abort must still cancel it after retry() resolved, as with fetch.
      // AbortSignal.any (the runtime's own weak links: no listener of ours left per call) where there is one; else a
      // controller of the attempt's own, which the callers' signals follow once retry() has resolved.
      let signal = ctx.signal;
      if (callers.length > 0 && linkAny) signal = AbortSignal.any([ctx.signal, ...callers]);
      else if (callers.length > 0) {
        const own = new AbortController();
        const from = ctx.signal;
        if (from.aborted) own.abort(from.reason);
        else from.addEventListener('abort', () => own.abort(from.reason), { once: true });
        last = own;
        signal = own.signal;
      }
      let sent = headers;
      if (attemptHeader !== undefined) {
        sent = new Headers(headers ?? init?.headers ?? request?.headers);
        sent.set(attemptHeader, String(ctx.attempt));
      }
      const response = await send(request ? request.clone() : input, {
        ...init,
        signal,
        ...(sent && { headers: sent }),
      });
      if (!retriedStatus.has(response.status)) return response;
      discarded = response;
      throw new Retried(response);
    };
    const [signal, release] = both(policy.signal, init?.signal ?? request?.signal);
    const errors: unknown[] = []; // a call sent once: its failures, for the RetryError that says why (bounded)
    /** A refusal (see {@link NEVER_SENT}) of a call that may otherwise retry: proof unless redirects are followed. */
    const refused = (error: unknown) => !stream && neverSent(error);
    /** Whether a call sent once may retry after this failure: only one that proves nothing was sent. */
    const mayRetry = (error: unknown) => !follows && refused(error);
    /** Why a call sent once was not retried after this failure: a refusal under redirects says how to make it proof. */
    const why = (error: unknown) =>
      follows && refused(error)
        ? `${once}; a refusal proves nothing while fetch follows redirects (redirect: 'error' makes it proof)`
        : once;
    let response: Response;
    let inner: SettleEvent | undefined; // the inner retry()'s end: its attempts and time, for onSettle
    let reason: StopReason | undefined; // why a call that resolves with a retried status stopped
    try {
      response = await retry(attempt, {
        ...base,
        signal,
        ...(onSettle && {
          onSettle: (e: SettleEvent) => {
            inner = e;
          },
        }),
        onFailure:
          once === undefined
            ? onFailure && ((e) => onFailure(unwrap(e)))
            : (e) => {
                keep(errors, e.error);
                // Sent once: no attempt left, unless this failure proves nothing was sent.
                const left = mayRetry(e.error) ? e.attemptsLeft : 0;
                return onFailure?.(unwrap(left === e.attemptsLeft ? e : Object.freeze({ ...e, attemptsLeft: left })));
              },
        onRetry:
          once === undefined
            ? onRetry && ((e) => onRetry(unwrap(e)))
            : (e) => {
                if (!mayRetry(e.error)) throw new Once(e);
                return onRetry?.(e);
              },
      });
    } catch (error) {
      let outcome = isA(error, Once) ? error.event.error : error;
      if (isA(outcome, RetryError)) {
        const { cause, attempts, elapsedMs } = outcome;
        reason = outcome.reason;
        // Not retried because it was sent once: it stopped on its first answer, a budget or breaker refusing a retry
        // that would not have come anyway included (no give-up of theirs); a deadline that passed first still says so.
        const sentOnce = once !== undefined && !mayRetry(cause) && reason !== 'timeout' && reason !== 'retry-after';
        if (sentOnce) reason = 'attempts';
        if (isA(cause, Retried)) outcome = cause;
        else if (sentOnce) {
          outcome = new RetryError({
            reason: 'attempts',
            errors,
            attempts,
            elapsedMs,
            detail: why(cause),
          });
        }
        // A retried status is no error: out of `errors`, as retry() leaves out a retried result.
        else (outcome as { errors: readonly unknown[] }).errors = outcome.errors.filter((e) => !isA(e, Retried));
      } else if (isA(error, Once)) {
        reason = 'attempts'; // sent once: it stopped on its first answer
        if (!isA(outcome, Retried)) {
          const { attempt, elapsedMs } = error.event;
          outcome = new RetryError({
            reason: 'attempts',
            errors,
            attempts: attempt,
            elapsedMs,
            detail: why(outcome),
          });
        }
      }
      if (!isA(outcome, Retried)) {
        discard(discarded); // a retried Response before an abort or a later failure
        // herdless's own error about a retried status (a bad retryAfter, a broken random) names the Response, not
        // the wrapper that carried it through retry()
        const carried = causeOf(outcome);
        if (isA(carried, Retried)) withCause(outcome, carried.response);
        // The inner retry()'s attempts and time, with the call's own outcome (a retried status resolves below).
        if (inner) {
          const stopped = isA(outcome, RetryError) ? outcome.reason : undefined;
          told(policy, { ...inner, ok: false, reason: stopped, error: outcome, value: undefined });
        }
        throw outcome;
      }
      response = outcome.response; // the last attempt's: never discarded, whatever its status
      stops.set(response, reason); // for givenUp(), as onSettle is told below
    } finally {
      release();
    }
    if (last !== undefined) follow(callers, last, response);
    if (inner) told(policy, { ...inner, ok: true, reason, error: undefined, value: response });
    return response;
  };
}

/** `value instanceof Class`, or false where asking throws (a revoked Proxy has no prototype to read). */
function isA<T>(value: unknown, Class: abstract new (...args: never[]) => T): value is T {
  try {
    return value instanceof Class;
  } catch {
    return false;
  }
}

/** A failure's `cause`, or undefined where reading it throws (a hostile getter). */
function causeOf(value: unknown): unknown {
  try {
    return (value as { cause?: unknown } | null)?.cause;
  } catch {
    return undefined;
  }
}

/** A fresh idempotency key: the caller's function's, or a random UUID. */
function newKey(
  option: true | string | ((input: FetchInput, init: RequestInit | undefined) => string),
  input: FetchInput,
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
