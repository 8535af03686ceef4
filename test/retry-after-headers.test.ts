import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RetryError, readRetryAfter, retry } from '../src/index';
import { settle, useFakeClock } from './helpers';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const at = (headers: Record<string, unknown>) => readRetryAfter({ headers }, NOW);

/** The names in their documented precedence, with a valid value meaning `ms` for each. */
const PRECEDENCE: readonly [string, (ms: number) => Record<string, string>][] = [
  ['grpc-retry-pushback-ms', (ms) => ({ 'grpc-retry-pushback-ms': String(ms) })],
  ['retry-after-ms', (ms) => ({ 'retry-after-ms': String(ms) })],
  ['x-ms-retry-after-ms', (ms) => ({ 'x-ms-retry-after-ms': String(ms) })],
  ['Retry-After', (ms) => ({ 'Retry-After': String(ms / 1000) })],
  ['RateLimit', (ms) => ({ RateLimit: `"default";r=0;t=${ms / 1000}` })],
  ['RateLimit-Reset', (ms) => ({ 'RateLimit-Reset': String(ms / 1000), 'RateLimit-Remaining': '0' })],
  ['X-RateLimit-Reset', (ms) => ({ 'X-RateLimit-Reset': String(ms / 1000), 'X-RateLimit-Remaining': '0' })],
];

describe('readRetryAfter: never throws (issue 6, item 6)', () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  it.each([
    [
      'a throwing headers getter',
      {
        get headers() {
          throw new Error('getter');
        },
      },
    ],
    [
      'a throwing get()',
      {
        headers: {
          get() {
            throw new Error('get');
          },
        },
      },
    ],
    ['a revoked Proxy as the source', proxy],
    ['a revoked Proxy as the headers', { headers: proxy }],
    ['a revoked Proxy as the response', { response: proxy }],
    [
      'a throwing key enumeration',
      {
        headers: new Proxy(
          {},
          {
            ownKeys() {
              throw new Error('keys');
            },
          },
        ),
      },
    ],
  ])('%s: undefined', (_, source) => {
    expect(readRetryAfter(source, NOW)).toBeUndefined();
  });

  describe('inside retry()', () => {
    const fake = useFakeClock();
    it('an error with a throwing headers getter is retried, not rejected', async () => {
      let calls = 0;
      const run = settle(
        retry(
          () => {
            calls++;
            if (calls === 1) {
              throw Object.defineProperty(new Error('blip'), 'headers', {
                get() {
                  throw new Error('getter');
                },
              });
            }
            return 'ok';
          },
          { random: () => 0.5 },
        ),
      );
      await fake.clock.runAllAsync();
      expect(run.result).toMatchObject({ status: 'fulfilled', value: 'ok' });
      expect(calls).toBe(2);
    });

    it('grpc-retry-pushback-ms: -1 stops at once with reason retry-after', async () => {
      const pushback = Object.assign(new Error('14 UNAVAILABLE: busy'), {
        code: 14,
        metadata: new Map([['grpc-retry-pushback-ms', ['-1']]]),
      });
      const run = settle(retry(() => Promise.reject(pushback)));
      await fake.clock.runAllAsync();
      expect(run.result.reason).toBeInstanceOf(RetryError);
      expect(run.result.reason).toMatchObject({ reason: 'retry-after', attempts: 1, cause: pushback });
    });
  });
});

describe('readRetryAfter: values and sources', () => {
  it('reads a numeric header value (issue 6, item 6)', () => {
    expect(at({ 'retry-after': 3 })).toBe(3_000);
    expect(at({ 'retry-after-ms': 250 })).toBe(250);
    expect(at({ 'retry-after': [4, 9] })).toBe(4_000);
    expect(at({ 'retry-after': Number.NaN })).toBeUndefined();
    expect(at({ 'retry-after': -3 })).toBeUndefined();
    expect(at({ 'retry-after': 2.5 })).toBeUndefined();
  });

  it('reads a Response, a Headers, a plain object of headers, and the errors of the AWS SDK and gRPC', () => {
    expect(readRetryAfter(new Response(null, { status: 429, headers: { 'Retry-After': '2' } }), NOW)).toBe(2_000);
    expect(readRetryAfter(new Headers({ 'retry-after-ms': '9' }), NOW)).toBe(9);
    expect(readRetryAfter({ 'Retry-After': '7' }, NOW)).toBe(7_000);
    // The AWS SDK v3 hides the raw HttpResponse in a non-enumerable $response (@smithy/middleware-serde,
    // deserializerMiddleware.ts), headers as a plain object with lower-case keys.
    const aws = Object.defineProperty(new Error('Rate exceeded'), '$response', {
      value: { statusCode: 429, headers: { 'retry-after': '4' }, body: undefined },
    });
    expect(readRetryAfter(aws, NOW)).toBe(4_000);
    // gRPC's Metadata: get() returns an array of values.
    const metadata = { get: (name: string) => (name === 'grpc-retry-pushback-ms' ? ['150'] : []) };
    expect(readRetryAfter({ code: 8, details: 'quota', metadata }, NOW)).toBe(150);
  });

  it("an error's own fields are not headers: only a plain object or a Headers-like one is read as headers", () => {
    expect(readRetryAfter(Object.assign(new Error('x'), { 'retry-after': '3' }), NOW)).toBeUndefined();
    expect(readRetryAfter(Object.assign(Object.create(null), { 'retry-after': '3' }), NOW)).toBe(3_000);
    expect(readRetryAfter(new Map([['retry-after', '3']]), NOW)).toBe(3_000);
  });

  it('a null headers field is no headers: the next place is read', () => {
    const error = Object.assign(new Error('busy'), { headers: null, response: { headers: { 'retry-after': '3' } } });
    expect(readRetryAfter(error, NOW)).toBe(3_000);
  });

  it('applies one precedence: each header wins over every one after it', () => {
    PRECEDENCE.forEach(([, first], i) => {
      for (const [, later] of PRECEDENCE.slice(i + 1)) expect(at({ ...later(9_000), ...first(2_000) })).toBe(2_000);
    });
  });

  it('falls through an invalid value to the next header, except grpc-retry-pushback-ms', () => {
    expect(at({ 'retry-after-ms': '1.5', 'x-ms-retry-after-ms': '20' })).toBe(20);
    expect(at({ 'x-ms-retry-after-ms': 'x', 'retry-after': '2' })).toBe(2_000);
    expect(at({ 'retry-after': 'soon', 'ratelimit-reset': '3' })).toBe(3_000);
    expect(at({ 'grpc-retry-pushback-ms': 'soon', 'retry-after': '2' })).toBe(Number.POSITIVE_INFINITY);
  });

  it('grpc-retry-pushback-ms: a negative or malformed value is "do not retry" (Infinity), as gRFC A6 reads it', () => {
    expect(at({ 'grpc-retry-pushback-ms': '0' })).toBe(0);
    expect(at({ 'grpc-retry-pushback-ms': '250' })).toBe(250);
    expect(at({ 'grpc-retry-pushback-ms': '-1' })).toBe(Number.POSITIVE_INFINITY);
    expect(at({ 'grpc-retry-pushback-ms': '' })).toBe(Number.POSITIVE_INFINITY);
  });

  it('RateLimit (structured): the longest t of the used-up policies; a policy with quota left is no wait', () => {
    expect(at({ RateLimit: '"default";r=0;t=30' })).toBe(30_000);
    expect(at({ RateLimit: '"burst";r=0;t=2, "day";r=0;t=3600' })).toBe(3_600_000);
    expect(at({ RateLimit: '"burst";r=0;t=2, "day";r=40;t=3600' })).toBe(2_000);
    expect(at({ RateLimit: '"default";t=5' })).toBe(5_000);
    expect(at({ RateLimit: '"default";r=10;t=30' })).toBeUndefined();
    expect(at({ RateLimit: '"default";r=0' })).toBeUndefined();
    expect(at({ RateLimit: 'garbage' })).toBeUndefined();
    expect(at({ RateLimit: '"default"; r = 0 ; t = 7' })).toBe(7_000);
    expect(at({ RateLimit: 't=10' })).toBeUndefined(); // the first part is the policy's name, never a parameter
    expect(at({ RateLimit: '"default";r=0;t=10;tz' })).toBe(10_000); // a bare (boolean) parameter sets no t
  });

  it('RateLimit-Reset: delta seconds, only when RateLimit-Remaining is 0 or absent', () => {
    expect(at({ 'RateLimit-Reset': '12' })).toBe(12_000);
    expect(at({ 'RateLimit-Reset': '12', 'RateLimit-Remaining': '0' })).toBe(12_000);
    expect(at({ 'RateLimit-Reset': '12', 'RateLimit-Remaining': '3' })).toBeUndefined();
    expect(at({ 'RateLimit-Reset': '1.5' })).toBeUndefined();
  });

  it('X-RateLimit-Reset: epoch seconds from 10^9 up (GitHub, Discord), delta seconds below (Reddit)', () => {
    expect(at({ 'X-RateLimit-Reset': '60' })).toBe(60_000);
    expect(at({ 'X-RateLimit-Reset': '0.25' })).toBe(250);
    expect(at({ 'X-RateLimit-Reset': String(NOW / 1000 + 90) })).toBe(90_000);
    expect(at({ 'X-RateLimit-Reset': `${NOW / 1000 + 1}.123` })).toBe(1_123); // Discord's decimal epoch
    expect(at({ 'X-RateLimit-Reset': String(NOW / 1000 - 5) })).toBe(0); // already reset
    expect(at({ 'X-RateLimit-Reset': '999999999' })).toBe(999_999_999_000); // the largest delta
    expect(at({ 'X-RateLimit-Reset': '1000000000' })).toBe(0); // 10^9 itself is an epoch (September 2001): past
    expect(at({ 'X-RateLimit-Reset': '60', 'X-RateLimit-Remaining': '4999' })).toBeUndefined();
    expect(at({ 'X-RateLimit-Reset': '-60' })).toBeUndefined();
  });
});

describe('readRetryAfter: a remaining count written as a decimal (issue 20, item 4)', () => {
  it('0.0 is used up, as 0 is: the reset beside it is read', () => {
    expect(at({ 'X-RateLimit-Reset': '60', 'X-RateLimit-Remaining': '0.0' })).toBe(60_000);
    expect(at({ 'RateLimit-Reset': '12', 'RateLimit-Remaining': '0.0' })).toBe(12_000);
    expect(at({ RateLimit: '"default";r=0.0;t=7' })).toBe(7_000);
    expect(at({ 'X-RateLimit-Reset': '60', 'X-RateLimit-Remaining': '0.5' })).toBeUndefined(); // quota left
    expect(at({ 'X-RateLimit-Reset': '60', 'X-RateLimit-Remaining': 'none' })).toBeUndefined(); // unreadable: not 0
  });

  it('property: any spelling of zero is used up, any count above zero is not', () => {
    const digits = (min: number) => fc.stringMatching(new RegExp(`^\\d{${min},4}$`));
    const zero = fc
      .tuple(fc.integer({ min: 1, max: 4 }), fc.option(fc.integer({ min: 1, max: 4 })), fc.constantFrom('', ' '))
      .map(([i, f, pad]) => `${pad}${'0'.repeat(i)}${f === null ? '' : `.${'0'.repeat(f)}`}${pad}`);
    const positive = fc
      .tuple(digits(1), fc.option(digits(1)))
      .map(([i, f]) => (f === null ? i : `${i}.${f}`))
      .filter((v) => Number(v) > 0);
    fc.assert(
      fc.property(zero, positive, (used, left) => {
        expect(at({ 'X-RateLimit-Reset': '60', 'X-RateLimit-Remaining': used })).toBe(60_000);
        expect(at({ 'RateLimit-Reset': '9', 'RateLimit-Remaining': used })).toBe(9_000);
        expect(at({ 'X-RateLimit-Reset': '60', 'X-RateLimit-Remaining': left })).toBeUndefined();
        expect(at({ 'RateLimit-Reset': '9', 'RateLimit-Remaining': left })).toBeUndefined();
      }),
    );
  });
});

describe('readRetryAfter: properties', () => {
  const anyCase = (name: string) =>
    fc
      .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
      .map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));
  const names = PRECEDENCE.map(([name]) => name.toLowerCase()).concat(['ratelimit-remaining', 'x-ratelimit-remaining']);

  it('never throws; the result is undefined, a finite wait >= 0, or Infinity only for grpc-retry-pushback-ms', () => {
    const value = fc.oneof(
      fc.string(),
      fc.stringMatching(/^-?\d{1,12}(\.\d{1,4})?$/),
      fc.double(),
      fc.array(fc.string(), { maxLength: 2 }),
      fc.constant(null),
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...names).chain(anyCase), value),
        fc.integer({ min: 0, max: 4e12 }),
        (headers, now) => {
          const wait = readRetryAfter({ headers }, now);
          if (wait === undefined) return;
          if (wait === Number.POSITIVE_INFINITY) {
            expect(Object.keys(headers).map((k) => k.toLowerCase())).toContain('grpc-retry-pushback-ms');
          } else {
            expect(Number.isFinite(wait) && wait >= 0).toBe(true);
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('each header alone reads back the wait written into it, in any key case', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PRECEDENCE), fc.integer({ min: 0, max: 10 ** 6 }), ([, write], s) => {
        const headers = Object.fromEntries(Object.entries(write(s * 1000)).map(([k, v]) => [k.toUpperCase(), v]));
        expect(at(headers)).toBe(s * 1000);
      }),
    );
  });

  it('any set of the headers reads as the first one present in the precedence', () => {
    fc.assert(
      fc.property(fc.subarray([...PRECEDENCE.keys()], { minLength: 1 }), fc.nat(10 ** 5), (present, s) => {
        const headers = Object.assign({}, ...present.map((i) => PRECEDENCE[i]?.[1]((s + i) * 1000)));
        expect(at(headers)).toBe((s + (present[0] as number)) * 1000);
      }),
    );
  });

  it('RateLimit: the longest t among the used-up policies, whatever the list', () => {
    const policy = fc.record({ name: fc.stringMatching(/^[a-z]{1,8}$/), r: fc.nat(5), t: fc.nat(10 ** 6) });
    fc.assert(
      fc.property(fc.array(policy, { minLength: 1, maxLength: 6 }), (policies) => {
        const field = policies.map((p) => `"${p.name}";r=${p.r};t=${p.t}`).join(', ');
        const used = policies.filter((p) => p.r === 0).map((p) => p.t * 1000);
        expect(at({ RateLimit: field })).toBe(used.length ? Math.max(...used) : undefined);
      }),
    );
  });

  it('X-RateLimit-Reset: below 10^9 a delta, from 10^9 the time left until that epoch second (0 once past)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e9 }), fc.integer({ min: 1e12, max: 4e12 }), (value, now) => {
        const wait = readRetryAfter({ headers: { 'x-ratelimit-reset': String(value) } }, now);
        expect(wait).toBe(value < 1e9 ? value * 1000 : Math.max(0, value * 1000 - now));
      }),
    );
  });
});
