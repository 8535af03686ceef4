import { isMainThread } from 'node:worker_threads';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter, readRetryAfter } from '../src/index';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const time = (d: Date) => `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;

/** The three RFC 9110 forms, written independently of the parser. */
const imf = (d: Date) => d.toUTCString();
const rfc850 = (d: Date) =>
  `${LONG[d.getUTCDay()]}, ${pad(d.getUTCDate())}-${MONTHS[d.getUTCMonth()]}-${pad(d.getUTCFullYear() % 100)} ${time(d)} GMT`;
const asctime = (d: Date) =>
  `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${time(d)} ${d.getUTCFullYear()}`;

describe('parseRetryAfter: delta-seconds', () => {
  it.each([
    ['0', 0],
    ['120', 120_000],
    ['  7 ', 7_000],
    ['007', 7_000],
  ])('%j -> %s ms', (value, ms) => {
    expect(parseRetryAfter(value, NOW)).toBe(ms);
  });

  it('a delta too large for a number is the largest safe wait, never Infinity', () => {
    expect(parseRetryAfter('9'.repeat(400), NOW)).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('parseRetryAfter: HTTP-dates', () => {
  it('reads the three forms of the RFC example as the same moment, in GMT', () => {
    const at = Date.UTC(1994, 10, 6, 8, 49, 37);
    const before = at - 30_000;
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', before)).toBe(30_000);
    expect(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', before)).toBe(30_000);
    expect(parseRetryAfter('Sun Nov  6 08:49:37 1994', before)).toBe(30_000);
  });

  it('a date in the past gives 0', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(0);
  });

  it('reads a two-digit rfc850 year more than 50 years ahead as the past century', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(parseRetryAfter('Thursday, 01-Jan-76 00:00:00 GMT', now)).toBe(Date.UTC(2076, 0, 1) - now);
    expect(parseRetryAfter('Friday, 01-Jan-77 00:00:00 GMT', now)).toBe(0); // 1977, in the past
  });

  it('reads a two-digit rfc850 year across a century boundary as the nearer century', () => {
    // fast-check found this one: just before 2000, '00' is 2000, one millisecond away, not 1900
    const now = Date.UTC(2000, 0, 1) - 1;
    expect(parseRetryAfter('Saturday, 01-Jan-00 00:00:00 GMT', now)).toBe(1);
    expect(parseRetryAfter('Friday, 31-Dec-99 23:59:58 GMT', Date.UTC(2000, 0, 1))).toBe(0); // 1999, just past
    expect(parseRetryAfter('Sunday, 01-Jan-51 00:00:00 GMT', Date.UTC(2100, 0, 1))).toBe(0); // 2051, not 2151
  });

  it('keeps four-digit years below 100 as they are', () => {
    // Measured from within the year 99 itself, so reading 0099 as 1999 or 2099 (or as 99 -> 1999 as Date.UTC does)
    // would give years, not 10 s.
    const year99 = new Date(0);
    year99.setUTCFullYear(99, 0, 1);
    expect(parseRetryAfter('Thu, 01 Jan 0099 00:00:10 GMT', year99.getTime())).toBe(10_000);
    expect(parseRetryAfter('Thu Jan  1 00:00:10 0099', year99.getTime())).toBe(10_000);
  });

  it('reads only two-digit years as two-digit: a four-digit year below 100 is not moved into another century', () => {
    const year150 = new Date(0);
    year150.setUTCFullYear(150, 0, 1);
    // 0099 is 51 years before now, so 0; read as a two-digit 99 it would be 199, 49 years ahead.
    expect(parseRetryAfter('Thu, 01 Jan 0099 00:00:00 GMT', year150.getTime())).toBe(0);
  });

  it('reads a two-digit year 49 years back as the past, and 50 back as 50 ahead (RFC 9110: > 50 ahead is past)', () => {
    // now 2099: '50' is 2050, 49 years ago (given up on at once), not 2150
    expect(parseRetryAfter('Friday, 01-Jul-50 00:00:00 GMT', Date.UTC(2099, 6, 1))).toBe(0);
    // while '49' would be 2049, 50 years ago, so it is 2149: exactly 50 years ahead is not more than 50
    expect(parseRetryAfter('Tuesday, 01-Jul-49 00:00:00 GMT', Date.UTC(2099, 6, 1))).toBe(
      Date.UTC(2149, 6, 1) - Date.UTC(2099, 6, 1),
    );
  });

  it('accepts surrounding spaces and tabs, and a leap second :60 (the next minute); no junk around the date', () => {
    const at = Date.UTC(1994, 10, 6, 8, 49, 0);
    expect(parseRetryAfter('  Sun, 06 Nov 1994 08:49:37 GMT\t', at)).toBe(37_000);
    expect(parseRetryAfter(' Sunday, 06-Nov-94 08:49:37 GMT ', at)).toBe(37_000);
    expect(parseRetryAfter('\tSun Nov  6 08:49:37 1994  ', at)).toBe(37_000);
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:60 GMT', at)).toBe(60_000);
    expect(parseRetryAfter('Sun Nov  6 08:49:60 1994', at)).toBe(60_000);
    for (const junk of [
      'xSun, 06 Nov 1994 08:49:37 GMT',
      'Sun, 06 Nov 1994 08:49:37 GMTx',
      'Sun, 06 Nov 1994 08:49:37 GMT;',
      '1 Sun, 06 Nov 1994 08:49:37 GMT',
      'Sunday, 06-Nov-94 08:49:37 GMT.',
      '[Sun Nov  6 08:49:37 1994]',
      'Sun Nov  6 08:49:37 19945',
    ]) {
      expect(parseRetryAfter(junk, at), junk).toBeUndefined();
    }
  });

  it('round-trips generated dates in all three forms', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2070, 0, 1) }),
          // century boundaries, where a two-digit year is easiest to misread
          fc.constantFrom(Date.UTC(2000, 0, 1), Date.UTC(2100, 0, 1), Date.UTC(2000, 0, 1, 0, 0, 5)),
        ),
        fc.integer({ min: 0, max: 10 ** 9 }),
        (s, ahead) => {
          const at = new Date(Math.floor(s / 1000) * 1000);
          const now = at.getTime() - ahead;
          expect(parseRetryAfter(imf(at), now)).toBe(ahead);
          expect(parseRetryAfter(asctime(at), now)).toBe(ahead);
          expect(parseRetryAfter(rfc850(at), now)).toBe(ahead); // within 50 years of now, so the century is right
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('does not depend on the machine time zone, in any of the three forms', () => {
    const original = process.env.TZ;
    const now = Date.UTC(1994, 10, 6, 8, 49, 0);
    try {
      for (const zone of ['Pacific/Kiritimati', 'America/St_Johns', 'Asia/Kathmandu']) {
        process.env.TZ = zone;
        // The zone takes effect in a process of its own (vitest's forks); in a worker thread (Stryker's runner) it
        // may not, and this test then checks only what UTC does.
        if (isMainThread) expect(new Date(now).getTimezoneOffset(), zone).not.toBe(0);
        expect(parseRetryAfter('Sun Nov  6 08:49:37 1994', now)).toBe(37_000);
        expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', now)).toBe(37_000);
        expect(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', now)).toBe(37_000);
      }
    } finally {
      if (original === undefined) delete process.env.TZ;
      else process.env.TZ = original;
    }
  });
});

describe('parseRetryAfter: everything else is undefined', () => {
  it.each([
    '',
    '   ',
    '-5',
    '1.5',
    '+3',
    '0x10',
    '1e3',
    '５',
    'soon',
    'Sun, 06 Nov 1994 08:49:37 UTC',
    'sun, 06 Nov 1994 08:49:37 GMT',
    'Sun, 6 Nov 1994 08:49:37 GMT',
    'Sun, 31 Feb 1994 08:49:37 GMT',
    'Sun, 06 Foo 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 24:00:00 GMT',
    'Sun, 06 Nov 1994 08:60:00 GMT',
    'Sun, 06 Nov 1994 08:49:61 GMT',
    'Sun, 06 Nov 1994 08:49 GMT',
    'Sunday, 06-Nov-1994 08:49:37 GMT',
    'Sun Nov 6 08:49:37 1994',
    'Sun Nov  6 08:49:37 1994 GMT',
    '2026-11-29T12:00:00Z',
  ])('%j', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });

  it('non-strings and a bad now', () => {
    expect(parseRetryAfter(5 as never, NOW)).toBeUndefined();
    expect(parseRetryAfter(null as never)).toBeUndefined();
    expect(parseRetryAfter('5', Number.NaN)).toBeUndefined();
  });

  // The time limit is this test's own (vitest's default is 5 s): a pattern that backtracked on these would take minutes.
  it('hostile megabyte inputs return undefined (or a clamped wait) without hanging', { timeout: 2_000 }, () => {
    const mb = 1 << 20;
    expect(parseRetryAfter(`${'1'.repeat(mb)}x`, NOW)).toBeUndefined();
    expect(parseRetryAfter(`${' '.repeat(mb)}x${' '.repeat(mb)}`, NOW)).toBeUndefined();
    expect(parseRetryAfter('Sun, '.repeat(mb / 5), NOW)).toBeUndefined();
    expect(parseRetryAfter('1'.repeat(mb), NOW)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('never throws, and is never negative, NaN or infinite, on fuzzed strings', () => {
    const near = fc.constantFrom(
      'Sun, 06 Nov 1994 08:49:37 GMT',
      'Sunday, 06-Nov-94 08:49:37 GMT',
      'Sun Nov  6 08:49:37 1994',
      '120',
    );
    const mutated = fc
      .tuple(near, fc.nat(40), fc.string({ maxLength: 3 }))
      .map(([s, i, ins]) => s.slice(0, i) + ins + s.slice(i + 1));
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'binary' }), mutated),
        fc.integer({ min: 0, max: 4e12 }),
        (value, now) => {
          const ms = parseRetryAfter(value, now);
          if (ms !== undefined) {
            expect(Number.isFinite(ms)).toBe(true);
            expect(ms).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      { numRuns: 3_000 },
    );
  });
});

describe('readRetryAfter', () => {
  it('reads error.headers and error.response.headers, plain objects in any key case or Headers', () => {
    expect(readRetryAfter({ headers: { 'RETRY-AFTER': '3' } }, NOW)).toBe(3_000);
    expect(readRetryAfter({ response: { headers: { 'retry-after': ['4', '9'] } } }, NOW)).toBe(4_000);
    expect(readRetryAfter({ response: { headers: new Headers({ 'Retry-After': '5' }) } }, NOW)).toBe(5_000);
  });

  it('prefers retry-after-ms (digits only), falling back to Retry-After when it is invalid', () => {
    expect(readRetryAfter({ headers: { 'Retry-After-Ms': '250', 'Retry-After': '9' } }, NOW)).toBe(250);
    expect(readRetryAfter({ headers: { 'retry-after-ms': '2.5', 'Retry-After': '9' } }, NOW)).toBe(9_000);
    expect(readRetryAfter({ headers: new Headers({ 'retry-after-ms': '12' }) }, NOW)).toBe(12);
  });

  it('is undefined without headers or a valid value, and never throws', () => {
    expect(readRetryAfter(new Error('x'), NOW)).toBeUndefined();
    expect(readRetryAfter({ headers: null }, NOW)).toBeUndefined();
    expect(readRetryAfter({ response: null }, NOW)).toBeUndefined();
    expect(readRetryAfter({ response: { headers: null } }, NOW)).toBeUndefined();
    // Only objects carry headers: a function with the right properties is not a response, nor headers.
    const headers = { 'retry-after': '3' };
    expect(readRetryAfter({ headers }, NOW)).toBe(3_000); // the same headers, where they belong
    expect(
      readRetryAfter(
        Object.assign(() => {}, { headers }),
        NOW,
      ),
    ).toBeUndefined();
    expect(readRetryAfter({ response: Object.assign(() => {}, { headers }) }, NOW)).toBeUndefined();
    expect(readRetryAfter({ headers: Object.assign(() => {}, headers) }, NOW)).toBeUndefined();
    expect(readRetryAfter({ response: { headers: Object.assign(() => {}, headers) } }, NOW)).toBeUndefined();
    expect(readRetryAfter({ response: 'x', headers: undefined }, NOW)).toBeUndefined();
    expect(readRetryAfter({ headers: 'Retry-After: 5' }, NOW)).toBeUndefined();
    expect(readRetryAfter({ response: 5 }, NOW)).toBeUndefined();
    expect(readRetryAfter({ headers: { 'retry-after': 'soon' } }, NOW)).toBeUndefined();
    expect(readRetryAfter({ headers: new Headers() }, NOW)).toBeUndefined();
    expect(readRetryAfter('x')).toBeUndefined();
    expect(readRetryAfter(null)).toBeUndefined();
  });
});
