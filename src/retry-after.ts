import { isObject } from './classify';

/** Bounds, as an enum rather than consts: esbuild writes the numbers where they are used, and no variable ships. */
enum Max {
  /** The longest wait a parse returns (`Number.MAX_SAFE_INTEGER`): a delta too large for a number still means "much
   * longer than you will wait". */
  WAIT_MS = 9_007_199_254_740_991,
  /**
   * The longest HTTP-date ("Wednesday, 09-Nov-94 08:49:37 GMT") is 33 characters. Longer text is rejected before any
   * date pattern runs, so the patterns only ever see bounded input and hostile megabytes cost one linear scan.
   */
  DATE_LENGTH = 33,
}
/** The months' names in a date, in order (an enum: esbuild writes the string where it is used). */
enum Months {
  NAMES = 'JanFebMarAprMayJunJulAugSepOctNovDec',
}

/** The number `value` writes (surrounding spaces allowed) if `pattern` accepts it, else undefined. Linear time. */
function digits(value: string | undefined, pattern = /^\d+$/): number | undefined {
  const text = value?.trim();
  return text !== undefined && pattern.test(text) ? Number(text) : undefined;
}

/**
 * Reads a `Retry-After` header value as milliseconds to wait from `nowMs`.
 *
 * Accepts delta-seconds (digits only, surrounding spaces allowed) and an HTTP-date in all three forms of RFC 9110
 * (IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, rfc850 `Sunday, 06-Nov-94 08:49:37 GMT`, asctime
 * `Sun Nov  6 08:49:37 1994`), always read as GMT whatever the machine's time zone. A date in the past gives 0.
 * Anything else, and a value that is not a string, gives `undefined`. Never throws; the result is never negative,
 * NaN or infinite (a delta too large for a number gives `Number.MAX_SAFE_INTEGER`); linear time on any input.
 *
 * @param value - The header's value.
 * @param nowMs - The current time in epoch ms, to measure a date against. Default `Date.now()`.
 * @returns Milliseconds to wait, or `undefined` if `value` is not a valid Retry-After.
 *
 * @example
 * ```ts
 * parseRetryAfter('120'); // 120000
 * parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', Date.UTC(1994, 10, 6, 8, 49, 7)); // 30000
 * parseRetryAfter('soon'); // undefined
 * ```
 */
export function parseRetryAfter(value: unknown, nowMs: number = Date.now()): number | undefined {
  if (typeof value !== 'string' || !Number.isFinite(nowMs)) return undefined;
  const seconds = digits(value);
  if (seconds !== undefined) return clamp(seconds * 1000);
  const text = value.trim();
  if (text.length > Max.DATE_LENGTH) return undefined;
  // An HTTP-date in any of RFC 9110's three forms (section 5.6.7), case-sensitive, always GMT; not Feb 30, 24:00:00
  // and the like. The groups are named alike, so one reader serves all three: d(ay), mo(nth), y(ear), t(ime:
  // hh:mm:ss). A month is any three word characters here, a name only if Months.NAMES holds it at a multiple of 3 (any
  // other text is no date: see below). The patterns are literals here, made when a date is read.
  let g: Record<string, string> | undefined;
  for (const form of [
    // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
    /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (?<d>\d\d) (?<mo>\w{3}) (?<y>\d{4}) (?<t>\d\d:\d\d:\d\d) GMT$/,
    // rfc850-date: Sunday, 06-Nov-94 08:49:37 GMT
    /^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, (?<d>\d\d)-(?<mo>\w{3})-(?<y>\d\d) (?<t>\d\d:\d\d:\d\d) GMT$/,
    // asctime-date: Sun Nov  6 08:49:37 1994
    /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?<mo>\w{3}) (?<d> \d|\d\d) (?<t>\d\d:\d\d:\d\d) (?<y>\d{4})$/,
  ])
    g ??= form.exec(text)?.groups;
  if (!g) return undefined;
  let [day, year, h, min, s] = [g.d, g.y, ...(g.t as string).split(':')].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const month = Months.NAMES.indexOf(g.mo as string) / 3; // not an integer (no date) unless a month's name
  if ((g.y as string).length === 2) {
    // rfc850's two-digit year is the year ending in those digits closest to now, from 49 years back to 50 ahead: one
    // that would be more than 50 years ahead is in the past (RFC 9110), and across a century boundary 00 right after
    // 1999 is 2000, not 1900.
    const from = new Date(nowMs).getUTCFullYear() - 49;
    year = from + ((((year - from) % 100) + 100) % 100);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month, day); // unlike Date.UTC, keeps years 0-99 as they are
  const valid = date.getUTCMonth() === month && date.getUTCDate() === day && h < 24 && min < 60 && s <= 60;
  return valid ? Math.max(0, date.getTime() + ((h * 60 + min) * 60 + s) * 1000 - nowMs) : undefined;
}

/** A header value as text: a string as it is, the first of an array (a repeated header, gRPC metadata), a finite
 * number in decimal (`{ 'retry-after': 3 }`); anything else is absent. */
function text(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  // Number.isFinite is false for anything but a finite number (no coercion).
  return typeof first === 'string' ? first : Number.isFinite(first) ? String(first) : undefined;
}

/** Reads one header by its lower-case name. */
type Lookup = (name: string) => string | undefined;

/** Decimal seconds (`12`, `1470173023.123`), surrounding spaces allowed, else undefined. Linear time. */
const seconds = (value: string | undefined): number | undefined => digits(value, /^\d+(?:\.\d+)?$/);

/**
 * Whether a quota is used up: its remaining count is 0, written as an integer or a decimal (`0`, `0.0`, as some APIs
 * send it), or not sent (then its reset is all the server said).
 */
const exhausted = (remaining: string | undefined): boolean => remaining === undefined || seconds(remaining) === 0;

/** A wait in whole ms, never more than the longest wait. */
const clamp = (ms: number): number => Math.min(Math.ceil(ms), Max.WAIT_MS);

/**
 * A quota's reset in `seconds` as a wait in ms (see {@link clamp}), when it is given and, with `remaining` named, the
 * quota is used up (see {@link exhausted}); from `nowMs` if given and it is an epoch time (see {@link Epoch}).
 */
function reset(seconds: number | undefined, get?: Lookup, remaining?: string, nowMs?: number): number | undefined {
  if (seconds === undefined || (get && !exhausted(get(remaining as string)))) return undefined;
  return Math.max(0, clamp(seconds * 1000 - (nowMs === undefined || seconds < Epoch.SECONDS ? 0 : nowMs)));
}

/**
 * X-RateLimit-Reset's rule: 10^9 or more is an epoch time in seconds (GitHub, Discord; 10^9 s after 1970 is
 * September 2001, and no server asks to wait 31 years), less is a delta in seconds (Reddit). An enum, as {@link Max}.
 */
enum Epoch {
  SECONDS = 1e9,
}

/**
 * The structured `RateLimit` field of the IETF draft "RateLimit header fields for HTTP"
 * (`"default";r=0;t=30, "burst";r=5;t=1`): the longest `t` (seconds until the quota resets) of the policies that are
 * used up (`r=0`, or no `r`). Members are split on commas; a policy name holding a comma is not supported.
 */
function structuredReset(value: string | undefined): number | undefined {
  let longest: number | undefined;
  for (const member of value?.split(',') ?? []) {
    const params = new Map<string, string>();
    for (const param of member.split(';').slice(1)) {
      const at = param.indexOf('=');
      if (at > 0) params.set(param.slice(0, at).trim(), param.slice(at + 1).trim());
    }
    const t = digits(params.get('t'));
    if (t !== undefined && exhausted(params.get('r'))) longest = Math.max(longest ?? 0, t);
  }
  return longest;
}

/**
 * How long a server asked to wait, in ms, from the headers of a failed call or a response. Reads a `Response`, a
 * `Headers` instance, a plain object of headers (keys in any case; a value may be a string, a number or an array),
 * and the errors of fetch, axios, got, ky (`response.headers`), the AWS SDK v3 (`$response.headers`) and gRPC
 * (`metadata`).
 *
 * One precedence, the first header present and valid wins: `grpc-retry-pushback-ms`, `retry-after-ms`,
 * `x-ms-retry-after-ms`, `Retry-After` (see {@link parseRetryAfter}), the structured `RateLimit` field's `t=`,
 * `RateLimit-Reset`, `X-RateLimit-Reset`. The reset headers count only when their quota is used up (the matching
 * remaining count is 0 or not sent); `X-RateLimit-Reset` is epoch seconds from 10^9 up, delta seconds below.
 *
 * Returns `Infinity` when the server said not to retry (a negative or malformed `grpc-retry-pushback-ms`, as gRFC A6
 * reads it): `retry()` then stops at once with reason `'retry-after'`, as for any wait over `maxRetryAfterMs`.
 * Otherwise the result is finite, never negative. `undefined` if no header is there and valid. Never throws, even
 * for a throwing getter, a throwing `get()` or a revoked Proxy.
 *
 * @example
 * ```ts
 * readRetryAfter({ response: { headers: new Headers({ 'Retry-After': '3' }) } }); // 3000
 * readRetryAfter({ headers: { 'retry-after-ms': '250' } }); // 250
 * readRetryAfter({ 'retry-after': 3 }); // 3000
 * readRetryAfter(new Headers({ RateLimit: '"default";r=0;t=10' })); // 10000
 * ```
 */
export function readRetryAfter(source: unknown, nowMs: number = Date.now()): number | undefined {
  try {
    if (!isObject(source)) return undefined;
    // Where a source keeps its headers: `headers` (a Response, a got or Node response), `response.headers` (axios,
    // got, ky errors), `$response.headers` (AWS SDK v3 errors), `metadata` (gRPC errors); else the source itself, if
    // it is a `Headers`-like object (with `get`) or a plain object of header names (an error's own fields, `status`
    // or `code`, are not); an error without headers has none. Written out here: a function of its own costs 9 B.
    const { headers: own, response, $response, metadata } = source;
    let headers: object | undefined = isObject(own)
      ? own
      : isObject(response) && isObject(response.headers)
        ? response.headers
        : isObject($response) && isObject($response.headers)
          ? $response.headers
          : isObject(metadata)
            ? metadata
            : [Object.prototype, null].includes(Object.getPrototypeOf(source)) || typeof source.get === 'function'
              ? source
              : undefined;
    if (!headers) return undefined;
    // A lookup by lower-case name: `get()` of a `Headers`-like object (fetch's Headers, axios's AxiosHeaders, gRPC's
    // Metadata, a Map), else the object's own keys in any case (Node's and got's plain objects, the AWS SDK's
    // HttpResponse headers), through a Map of them.
    let { get } = headers as { get?: unknown };
    if (typeof get !== 'function') {
      const lower = new Map<string, unknown>();
      for (const key in headers) {
        const name = key.toLowerCase();
        if (!lower.has(name)) lower.set(name, (headers as Record<string, unknown>)[key]);
      }
      headers = lower;
      get = lower.get;
    }
    const read: Lookup = (name) => text((get as (name: string) => unknown).call(headers, name));
    // The server's wait in ms, in one precedence (the first header present and valid wins; written out here, a
    // function of its own costs 5 B):
    // 1. `grpc-retry-pushback-ms`: ms; negative or not an integer means "do not retry" (gRFC A6), read as `Infinity`.
    // 2. `retry-after-ms`, then 3. `x-ms-retry-after-ms`: ms, digits only.
    // 4. `Retry-After`: delta-seconds or an HTTP-date (see {@link parseRetryAfter}).
    // 5. `RateLimit` (structured, IETF draft): the `t=` seconds of a used-up policy.
    // 6. `RateLimit-Reset`: delta-seconds, when `RateLimit-Remaining` is 0 or absent.
    // 7. `X-RateLimit-Reset`: epoch seconds or delta seconds (see {@link Epoch.SECONDS}), when `X-RateLimit-Remaining`
    //    is 0 or absent.
    const pushback = read('grpc-retry-pushback-ms');
    if (pushback !== undefined) {
      const wait = digits(pushback);
      return wait === undefined ? Infinity : clamp(wait);
    }
    const ms = digits(read('retry-after-ms')) ?? digits(read('x-ms-retry-after-ms'));
    if (ms !== undefined) return clamp(ms);
    // Each read only when the ones before it found nothing, in this order (`??` is lazy).
    return (
      parseRetryAfter(read('retry-after'), nowMs) ??
      reset(structuredReset(read('ratelimit'))) ??
      reset(digits(read('ratelimit-reset')), read, 'ratelimit-remaining') ??
      reset(seconds(read('x-ratelimit-reset')), read, 'x-ratelimit-remaining', nowMs)
    );
  } catch {
    return undefined; // a throwing getter, a throwing headers.get(), a revoked Proxy: no hint, not a failure
  }
}
