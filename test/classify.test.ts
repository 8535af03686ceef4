import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CircuitOpenError,
  getStatus,
  isNetworkError,
  isThrottled,
  isTransient,
  isTransientStatus,
  RetryError,
} from '../src/index';

describe('getStatus', () => {
  it.each([
    [{ status: 503 }, 503],
    [{ statusCode: 429 }, 429],
    [{ response: { status: 502 } }, 502],
    [{ response: { statusCode: 504 } }, 504],
    [{ $metadata: { httpStatusCode: 500 } }, 500],
    [{ status: 404, response: { status: 503 } }, 404],
    [{ status: '503' }, undefined],
    [{ status: 0 }, undefined],
    [{ status: 99 }, undefined],
    [{ status: 100 }, 100],
    [{ status: 599 }, 599],
    [{ status: 600 }, undefined],
    [{ status: 700 }, undefined],
    [{ status: 503.5 }, undefined],
    [{ response: null }, undefined],
    [{ response: null, $metadata: { httpStatusCode: 503 } }, 503], // a null response is passed over, not read
    [null, undefined],
    ['503', undefined],
    [Object.assign(() => {}, { status: 503 }), undefined], // a function carries no status: only objects do
  ])('%o -> %s', (error, status) => {
    expect(getStatus(error)).toBe(status);
  });
});

describe('isTransientStatus', () => {
  it('is true exactly for 408, 425, 429, 500, 502, 503, 504', () => {
    const transient = [];
    for (let s = 100; s <= 599; s++) if (isTransientStatus(s)) transient.push(s);
    expect(transient).toEqual([408, 425, 429, 500, 502, 503, 504]);
  });
});

describe('isNetworkError', () => {
  it.each([
    'ECONNRESET',
    'ECONNREFUSED',
    'ECONNABORTED',
    'ETIMEDOUT',
    'EPIPE',
    'EAI_AGAIN',
    'ENETUNREACH',
    'ENETDOWN',
    'EHOSTUNREACH',
    'UND_ERR_SOCKET',
    'UND_ERR_CONNECT_TIMEOUT',
    'UND_ERR_HEADERS_TIMEOUT',
    'UND_ERR_BODY_TIMEOUT',
  ])('code %s, on the error or deep in its cause chain', (code) => {
    expect(isNetworkError(Object.assign(new Error('x'), { code }))).toBe(true);
    const wrapped = new Error('outer', {
      cause: new Error('mid', { cause: Object.assign(new Error('inner'), { code }) }),
    });
    expect(isNetworkError(wrapped)).toBe(true);
  });

  it.each([
    'fetch failed',
    'Failed to fetch',
    'network error',
    'NetworkError when attempting to fetch resource.',
    'Load failed',
    'The Internet connection appears to be offline.',
    'Network request failed',
    'Network connection lost',
  ])("fetch's TypeError '%s'", (message) => {
    expect(isNetworkError(new TypeError(message))).toBe(true);
    expect(isNetworkError(new Error(message))).toBe(false); // only fetch's TypeError carries these
  });

  it('is false for other codes, other TypeErrors, non-objects, and stops at a bounded depth (cycles too)', () => {
    expect(isNetworkError(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBe(false);
    expect(isNetworkError(new TypeError('x is not a function'))).toBe(false);
    expect(isNetworkError('ECONNRESET')).toBe(false);
    expect(isNetworkError(undefined)).toBe(false);
    const cyclic: { cause?: unknown } = {};
    cyclic.cause = cyclic;
    expect(isNetworkError(cyclic)).toBe(false);
    let deep: unknown = { code: 'ECONNRESET' };
    for (let i = 0; i < 9; i++) deep = { cause: deep };
    expect(isNetworkError(deep)).toBe(false); // 9 levels down: past the bound of 8
    let eight: unknown = { code: 'ECONNRESET' };
    for (let i = 0; i < 8; i++) eight = { cause: eight };
    expect(isNetworkError(eight)).toBe(true);
  });
});

describe('isTransient (the default classifier)', () => {
  it('a status decides alone', () => {
    expect(isTransient({ status: 503 })).toBe(true);
    expect(isTransient({ status: 400, code: 'ECONNRESET' })).toBe(false);
    expect(isTransient(Object.assign(new TypeError('fetch failed'), { status: 501 }))).toBe(false);
  });

  it('network failures are transient, even as TypeErrors', () => {
    expect(isTransient(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }))).toBe(true);
    expect(isTransient(Object.assign(new Error('socket'), { code: 'EPIPE' }))).toBe(true);
  });

  it('aborts, bugs and an inner RetryError are permanent', () => {
    expect(isTransient(new DOMException('stop', 'AbortError'))).toBe(false);
    expect(isTransient(new TypeError('x is not a function'))).toBe(false);
    expect(isTransient(new RangeError('bad'))).toBe(false);
    expect(isTransient(new SyntaxError('bad json'))).toBe(false);
    expect(isTransient(new ReferenceError('x is not defined'))).toBe(false);
    class Subclassed extends TypeError {
      override name = 'ValidationError';
    }
    expect(isTransient(new Subclassed('typed'))).toBe(false);
    expect(
      isTransient(new RetryError({ reason: 'attempts', errors: [new Error('x')], attempts: 3, elapsedMs: 1 })),
    ).toBe(false);
  });

  it('judges errors from another realm, or serialized ones, by name', () => {
    const foreign = runInNewContext('new TypeError("from a vm context")') as unknown;
    expect(foreign instanceof TypeError).toBe(false); // so only the name can tell
    expect(isTransient(foreign)).toBe(false);
    expect(isTransient(runInNewContext('new RangeError("r")'))).toBe(false);
    expect(isTransient(runInNewContext('new Error("e")'))).toBe(true);
    expect(isTransient(JSON.parse('{"name":"TypeError","message":"x is not a function"}'))).toBe(false);
    for (const name of ['AbortError', 'RangeError', 'SyntaxError', 'ReferenceError', 'RetryError']) {
      expect(isTransient({ name, message: 'serialized' })).toBe(false);
    }
    expect(isTransient({ name: 'Error', message: 'serialized' })).toBe(true);
    expect(isTransient({ name: 'TypeError', message: 'fetch failed' })).toBe(true); // still a network failure
  });

  it('anything else is transient: a plain Error, a custom class, a thrown string, a TimeoutError', () => {
    class LockTimeout extends Error {}
    expect(isTransient(new Error('lock timeout'))).toBe(true);
    expect(isTransient(new LockTimeout('busy'))).toBe(true);
    expect(isTransient('oops')).toBe(true);
    expect(isTransient(undefined)).toBe(true);
    expect(isTransient(new DOMException('slow', 'TimeoutError'))).toBe(true);
    // A function is no error, whatever its name (`throw TypeError`, without `new`): an unknown failure, rule 5
    expect(isTransient(TypeError)).toBe(true);
  });
});

describe('RetryError', () => {
  it('takes a detail for its message and renders non-Error causes', () => {
    const e = new RetryError({
      reason: 'timeout',
      errors: [{ code: 1 }],
      attempts: 2,
      elapsedMs: 12.6,
      detail: 'custom',
    });
    expect(e.message).toBe('gave up after 2 attempts over 13 ms (custom): [object Object]');
    const plain = new RetryError({ reason: 'attempts', errors: [42], attempts: 1, elapsedMs: 0 });
    expect(plain.message).toBe('gave up after 1 attempt over 0 ms (attempts): 42');
    expect(plain.cause).toBe(42);
  });

  it('instanceof: by brand for RetryError, as usual for subclasses; never throws', () => {
    const init = { reason: 'attempts', errors: [new Error('x')], attempts: 1, elapsedMs: 0 } as const;
    const brand = 'herdless.RetryError'; // a string key: a computed symbol key would keep the class in every bundle
    const otherBuild = Object.create(null, { [brand]: { get: () => true } }) as object; // as the other build's
    expect(otherBuild instanceof RetryError).toBe(true);
    expect(Object.assign(() => {}, { [brand]: true }) instanceof RetryError).toBe(false); // a function is no error
    expect({ [brand]: 'yes' } instanceof RetryError).toBe(false);
    class Sub extends RetryError {}
    expect(new Sub(init) instanceof Sub).toBe(true);
    expect(new RetryError(init) instanceof Sub).toBe(false);
    expect(otherBuild instanceof Sub).toBe(false);
    // A revoked Proxy or a throwing getter: false, as a value (the hook is called directly here, not coerced).
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const throwing = new Proxy(
      {},
      {
        get: () => {
          throw new Error('getter');
        },
      },
    );
    expect(RetryError[Symbol.hasInstance](proxy)).toBe(false);
    expect(RetryError[Symbol.hasInstance](throwing)).toBe(false);
    expect(RetryError[Symbol.hasInstance](null)).toBe(false);
  });

  it('instanceof: by brand for CircuitOpenError too (issue 30), as usual for subclasses; never throws', () => {
    const brand = 'herdless.CircuitOpenError';
    const otherBuild = Object.create(null, { [brand]: { get: () => true } }) as object; // as the other build's
    expect(otherBuild instanceof CircuitOpenError).toBe(true);
    expect(otherBuild instanceof RetryError).toBe(false); // each class its own brand
    expect(
      new RetryError({ reason: 'attempts', errors: [1], attempts: 1, elapsedMs: 0 }) instanceof CircuitOpenError,
    ).toBe(false);
    expect({ [brand]: 'yes' } instanceof CircuitOpenError).toBe(false);
    expect({ name: 'CircuitOpenError' } instanceof CircuitOpenError).toBe(false);
    class Sub extends CircuitOpenError {}
    expect(new Sub(1) instanceof Sub).toBe(true);
    expect(new Sub(1) instanceof CircuitOpenError).toBe(true);
    expect(new CircuitOpenError(1) instanceof Sub).toBe(false);
    expect(otherBuild instanceof Sub).toBe(false);
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(CircuitOpenError[Symbol.hasInstance](proxy)).toBe(false);
    expect(CircuitOpenError[Symbol.hasInstance](undefined)).toBe(false);
  });

  it('a message getter that throws, or a null cause, falls back to the text of the cause', () => {
    const cause = {
      get message(): string {
        throw new Error('getter');
      },
      toString: () => 'odd cause',
    };
    const e = new RetryError({ reason: 'attempts', errors: [cause], attempts: 1, elapsedMs: 0 });
    expect(e.message).toBe('gave up after 1 attempt over 0 ms (attempts): odd cause');
    const n = new RetryError({ reason: 'attempts', errors: [null], attempts: 1, elapsedMs: 0 });
    expect(n.message).toBe('gave up after 1 attempt over 0 ms (attempts): null');
  });
});

describe('isNetworkError: the codes of the HTTP clients', () => {
  it.each([
    [{ code: 'ENOTFOUND' }, true], // a DNS failure: the name may resolve again
    [{ code: 'ERR_NETWORK' }, true], // axios without a response
    [new TypeError('fetch failed', { cause: { code: 'ENOTFOUND' } }), true],
    [{ code: 'ERR_CANCELED' }, false],
  ])('%o -> %s', (error, network) => {
    expect(isNetworkError(error)).toBe(network);
  });
});

describe('the classifiers never throw on a hostile value', () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  const getter = (name: string) =>
    Object.defineProperty({}, name, {
      get() {
        throw new Error(`${name} getter`);
      },
    });
  it.each([
    ['a revoked Proxy', proxy],
    ['a throwing status getter', getter('status')],
    ['a throwing code getter', getter('code')],
    ['a throwing $metadata getter', getter('$metadata')],
  ])('%s: no status, no network error, an unknown failure (transient)', (_name, value) => {
    expect(getStatus(value)).toBeUndefined();
    expect(isNetworkError(value)).toBe(false);
    expect(isTransient(value)).toBe(true);
    expect(isThrottled(value)).toBe(false);
  });

  it('isThrottled: a throwing $retryable, name or metadata getter reads as not throttled', () => {
    expect(isThrottled(getter('$retryable'))).toBe(false);
    expect(isThrottled(Object.assign(getter('name'), { $metadata: {} }))).toBe(false);
    expect(isThrottled(Object.assign(getter('metadata'), { code: 8 }))).toBe(false);
  });

  it('property: isThrottled never throws, and is true for anything carrying a 429', () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withObjectString: true }), (value) => {
        expect(typeof isThrottled(value)).toBe('boolean');
        if (getStatus(value) === 429) expect(isThrottled(value)).toBe(true);
      }),
    );
  });
});

describe('isThrottled: the dependency says it is saturated', () => {
  const aws = (name: string, extra: object = {}) =>
    Object.assign(new Error(name), { name, $metadata: { httpStatusCode: 400 }, ...extra });
  it.each([
    ['an HTTP 429', { status: 429 }, true],
    ["axios's error.response.status 429", { response: { status: 429 } }, true],
    ['an AWS SDK v3 429', { $metadata: { httpStatusCode: 429 } }, true],
    ['AWS ThrottlingException (a 400)', aws('ThrottlingException'), true],
    ['S3 SlowDown (a 503)', aws('SlowDown', { $metadata: { httpStatusCode: 503 } }), true],
    ['an AWS error with the throttling trait', aws('Whatever', { $retryable: { throttling: true } }), true],
    ['an AWS error retryable but not throttling', aws('Whatever', { $retryable: {} }), false],
    ['AWS RequestTimeout (transient, not throttling)', aws('RequestTimeout'), false],
    ['a throttling name without $metadata (not an AWS error)', { name: 'SlowDown' }, false],
    ['gRPC RESOURCE_EXHAUSTED', { code: 8, details: 'quota', metadata: {} }, true],
    ['gRPC UNAVAILABLE', { code: 14, details: 'down', metadata: {} }, false],
    ['a code 8 without metadata (not gRPC)', { code: 8 }, false],
    ['a 503', { status: 503 }, false],
    ['a string 429', { status: '429' }, false],
    ['a network error', new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } }), false],
  ])('%s: %s', (_name, error, expected) => {
    expect(isThrottled(error)).toBe(expected);
  });
});

describe('a fetch failed that undici refused before any network (review)', () => {
  it("Node's own fetch: an unknown scheme and a blocked port are permanent, a refused connection is not", async () => {
    const scheme = await fetch('nope://x').catch((e) => e);
    const port = await fetch('http://127.0.0.1:1/').catch((e) => e);
    expect(scheme.message).toBe('fetch failed');
    expect(isNetworkError(scheme)).toBe(false);
    expect(isTransient(scheme)).toBe(false);
    expect(isNetworkError(port)).toBe(false);
    expect(isNetworkError(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }))).toBe(true);
    expect(isNetworkError(new TypeError('fetch failed'))).toBe(true); // no cause: as before
  });
});
