import { afterEach, describe, expect, it, vi } from 'vitest';
import { RetryError, retryingFetch } from '../src/index';

// retryingFetch over a stub fetch, on the real clock (no delays: `baseMs: 0`), with the request shapes and option
// values RequestInit allows that the other fetch tests leave out: a null body or signal, a POST Request with no init,
// a stream that is only an async iterable or only has getReader(), a key function that returns a non-string, no
// `crypto` at all, and a call sent once that gives up for another reason than its attempts. Each but the null signal
// kills a mutant of src/http/fetch.ts that the real-server tests let survive (or time out).
const URL = 'http://x.test/';
const fast = { baseMs: 0, capMs: 0 };
afterEach(() => vi.unstubAllGlobals());

/** A stub fetch that answers 503 `failures` times, then 200. */
const flaky = (failures: number) => {
  let n = 0;
  return vi.fn(async (_input: RequestInfo | URL, _init?: RequestInit) =>
    n++ < failures ? new Response('busy', { status: 503 }) : new Response('ok'),
  );
};

describe('retryingFetch: request shapes', () => {
  it('a null body is no stream: a GET with it is retried', async () => {
    const fetch = flaky(1);
    const response = await retryingFetch({ fetch, ...fast })(URL, { body: null });
    expect(response.status).toBe(200);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('a null signal is no signal: the call is retried as without one', async () => {
    const fetch = flaky(1);
    const response = await retryingFetch({ fetch, ...fast })(URL, { signal: null });
    expect(response.status).toBe(200);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('a POST Request with no init gets a key from the Request alone', async () => {
    const fetch = flaky(1);
    const response = await retryingFetch({ fetch, idempotencyKey: true, ...fast })(
      new Request(URL, { method: 'POST' }),
    );
    expect(response.status).toBe(200);
    expect(fetch).toHaveBeenCalledTimes(2);
    const keys = fetch.mock.calls.map(([, init]) => new Headers(init?.headers).get('Idempotency-Key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
  });

  it.each([
    [
      'an async iterable without getReader()',
      () =>
        (async function* () {
          yield new Uint8Array([1]);
        })(),
    ],
    ['an object with getReader() and no async iterator', () => ({ getReader: () => new ReadableStream().getReader() })],
  ])('a body that is %s is a stream: sent once', async (_, body) => {
    const fetch = flaky(1);
    const response = await retryingFetch({ fetch, ...fast })(URL, { body: body() as never, duplex: 'half' } as never);
    expect(response.status).toBe(503);
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});

describe('retryingFetch: idempotency keys', () => {
  it.each([5, undefined, null])('a key function that returns %o rejects the call, naming it', async (key) => {
    const fetch = vi.fn(async () => new Response());
    const post = retryingFetch({ fetch, idempotencyKey: () => key as never });
    await expect(post(URL, { method: 'POST' })).rejects.toThrow(
      `herdless: idempotencyKey() must be a non-empty string, got ${String(key)}`,
    );
    expect(fetch).not.toHaveBeenCalled();
  });

  it('with no crypto at all, idempotencyKey: true rejects, asking for a function', async () => {
    vi.stubGlobal('crypto', undefined);
    const post = retryingFetch({ fetch: async () => new Response(), idempotencyKey: true });
    await expect(post(URL, { method: 'POST' })).rejects.toThrow(
      'herdless: idempotencyKey must be a function where crypto.randomUUID is missing',
    );
  });
});

describe('retryingFetch: a call sent once', () => {
  it('that reaches its deadline gives up with timeout, saying so, not why it was sent once', async () => {
    const fetch = vi.fn(
      (_input: RequestInfo | URL, init?: RequestInit) =>
        new Promise<Response>((_, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
        ),
    );
    const post = retryingFetch({ fetch, idempotencyKey: false, timeoutMs: 20 });
    const error = await post(URL, { method: 'POST' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryError);
    expect(error).toMatchObject({ reason: 'timeout', attempts: 1 });
    expect((error as RetryError).message).toContain('timeoutMs 20');
    expect((error as RetryError).message).not.toContain('sent once');
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});
