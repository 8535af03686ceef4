/** The longest wait a parse returns: a delta too large for a number still means "much longer than you will wait". */
const MAX_WAIT_MS = Number.MAX_SAFE_INTEGER;
/**
 * The longest HTTP-date ("Wednesday, 09-Nov-94 08:49:37 GMT") is 33 characters. Longer text is rejected before any
 * date pattern runs, so the patterns only ever see bounded input and hostile megabytes cost one linear scan.
 */
const MAX_DATE_LENGTH = 33;
const MONTHS = 'JanFebMarAprMayJunJulAugSepOctNovDec';

// RFC 9110 section 5.6.7: the three forms of HTTP-date, case-sensitive, always GMT. The groups are named alike, so
// one reader serves all three: d(ay), mo(nth), y(ear), h(our), mi(nute), s(econd).
const HTTP_DATES = [
  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (?<d>\d\d) (?<mo>[A-Z][a-z]{2}) (?<y>\d{4}) (?<h>\d\d):(?<mi>\d\d):(?<s>\d\d) GMT$/,
  // rfc850-date: Sunday, 06-Nov-94 08:49:37 GMT
  /^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, (?<d>\d\d)-(?<mo>[A-Z][a-z]{2})-(?<y>\d\d) (?<h>\d\d):(?<mi>\d\d):(?<s>\d\d) GMT$/,
  // asctime-date: Sun Nov  6 08:49:37 1994
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?<mo>[A-Z][a-z]{2}) (?<d> \d|\d\d) (?<h>\d\d):(?<mi>\d\d):(?<s>\d\d) (?<y>\d{4})$/,
];

/** The number a header value writes in digits only (surrounding spaces allowed), else undefined. Linear time. */
function delta(value: string): number | undefined {
  const text = value.trim();
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

/** Epoch ms for an HTTP-date in any of RFC 9110's three forms, or NaN (also for Feb 30, 24:00:00 and the like). */
function parseHttpDate(text: string, nowMs: number): number {
  let g: Record<string, string> | undefined;
  for (const form of HTTP_DATES) g ??= form.exec(text)?.groups;
  if (!g) return Number.NaN;
  const [day, h, min, s] = [g.d, g.h, g.mi, g.s].map(Number) as [number, number, number, number];
  const month = MONTHS.indexOf(g.mo as string) / 3;
  let year = Number(g.y);
  if (year < 100 && g.y?.length === 2) {
    // rfc850's two-digit year is the year ending in those digits closest to now: one that would be more than 50 years
    // ahead is in the past (RFC 9110), and across a century boundary 00 right after 1999 is 2000, not 1900.
    const nowYear = new Date(nowMs).getUTCFullYear();
    year += nowYear - (nowYear % 100);
    if (year > nowYear + 50) year -= 100;
    else if (year < nowYear - 49) year += 100;
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month, day); // unlike Date.UTC, keeps years 0-99 as they are
  const valid = date.getUTCMonth() === month && date.getUTCDate() === day && h < 24 && min < 60 && s <= 60;
  return valid ? date.getTime() + ((h * 60 + min) * 60 + s) * 1000 : Number.NaN;
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
  const seconds = delta(value);
  if (seconds !== undefined) return Math.min(seconds * 1000, MAX_WAIT_MS);
  const text = value.trim();
  if (text.length > MAX_DATE_LENGTH) return undefined;
  const at = parseHttpDate(text, nowMs);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

type Headers = { get(name: string): string | null } | Record<string, unknown>;

/** A header's value from a `Headers`-like object (`get`, case-insensitive there) or a plain object (any key case). */
function header(headers: Headers, name: string): unknown {
  if (typeof headers.get === 'function') return (headers as { get(name: string): unknown }).get(name) ?? undefined;
  for (const key in headers) {
    if (key.toLowerCase() === name) {
      const value = (headers as Record<string, unknown>)[key];
      return Array.isArray(value) ? value[0] : value;
    }
  }
  return undefined;
}

/**
 * How long a server asked to wait, in ms, from the headers of a failed call: `source.headers` or
 * `source.response.headers`, a `Headers` instance or a plain object with keys in any case. `retry-after-ms`
 * (milliseconds, digits only) wins over `Retry-After` (see {@link parseRetryAfter}). `undefined` if neither is there
 * and valid. Never throws.
 *
 * @example
 * ```ts
 * readRetryAfter({ response: { headers: new Headers({ 'Retry-After': '3' }) } }); // 3000
 * readRetryAfter({ headers: { 'retry-after-ms': '250' } }); // 250
 * ```
 */
export function readRetryAfter(source: unknown, nowMs: number = Date.now()): number | undefined {
  try {
    return readHeaders(source, nowMs);
  } catch {
    return undefined; // a throwing getter, a throwing headers.get(), a revoked Proxy: no hint, not a failure
  }
}

function readHeaders(source: unknown, nowMs: number): number | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const { headers, response } = source as { headers?: unknown; response?: { headers?: unknown } };
  const found = headers ?? (typeof response === 'object' && response !== null ? response.headers : undefined);
  if (typeof found !== 'object' || found === null) return undefined;
  const ms = header(found as Headers, 'retry-after-ms');
  const exact = typeof ms === 'string' ? delta(ms) : undefined;
  return exact === undefined
    ? parseRetryAfter(header(found as Headers, 'retry-after'), nowMs)
    : Math.min(exact, MAX_WAIT_MS);
}
