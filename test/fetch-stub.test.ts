import { describe, expect, it, vi } from 'vitest';
import { retryingFetch } from '../src/index';
import { settle, useFakeClock } from './helpers';

// retryingFetch over a stub fetch that ignores its signal, on a fake clock: what retryingFetch itself does with the
// two signals and its options, apart from what a real fetch would do with an aborted signal (test/fetch.test.ts).
const fake = useFakeClock();
const URL = 'http://x.test/';
const busy = () => new Response('busy', { status: 503, headers: { 'retry-after-ms': '10000' } });

describe('retryingFetch with both a policy signal and a call signal', () => {
  it.each(['policy', 'call'] as const)(
    'the %s signal aborting mid-sleep rejects at once with its reason',
    async (which) => {
      const fetch = vi.fn(async () => busy());
      const policy = new AbortController();
      const call = new AbortController();
      const result = settle(retryingFetch({ fetch, signal: policy.signal })(URL, { signal: call.signal }));
      await fake.clock.tickAsync(0); // the first attempt got its 503: asleep for 10 s
      expect(fetch).toHaveBeenCalledTimes(1);
      expect(result.result.status).toBe('pending');
      const reason = new Error(which);
      (which === 'policy' ? policy : call).abort(reason);
      await fake.clock.tickAsync(0); // no time passes
      expect(result.result).toMatchObject({ status: 'rejected', reason });
      expect(fetch).toHaveBeenCalledTimes(1);
      expect(fake.clock.countTimers()).toBe(0);
    },
  );

  it.each(['policy', 'call'] as const)('the %s signal already aborted rejects without calling fetch', async (which) => {
    const fetch = vi.fn(async () => new Response('ok'));
    const policy = new AbortController();
    const call = new AbortController();
    const reason = new Error(which);
    (which === 'policy' ? policy : call).abort(reason);
    await expect(retryingFetch({ fetch, signal: policy.signal })(URL, { signal: call.signal })).rejects.toBe(reason);
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('retryingFetch options, at their edges', () => {
  it.each([
    [[123], 'got 123'],
    [[['GET']], 'got GET'],
  ])('methods %o: a named TypeError (a method name is a string), not a raw one', (methods, got) => {
    expect(() => retryingFetch({ methods: methods as never })).toThrow(
      new TypeError(`herdless: methods must be an array of method names, ${got}`),
    );
  });

  it.each([[[600]], [[100, 503.5]]])('statuses %o: a named TypeError', (statuses) => {
    expect(() => retryingFetch({ statuses })).toThrow(
      `herdless: statuses must be an array of integer statuses from 100 to 599, got ${statuses}`,
    );
  });

  it('statuses 100 and 599 are accepted, and a 599 in them is retried', async () => {
    const fetch = vi
      .fn<() => Promise<Response>>()
      .mockResolvedValueOnce(new Response(null, { status: 599 }))
      .mockResolvedValueOnce(new Response('ok'));
    const call = retryingFetch({ fetch, statuses: [100, 599], baseMs: 10, capMs: 10 })(URL);
    await fake.clock.tickAsync(10);
    expect((await call).status).toBe(200);
    expect(fetch).toHaveBeenCalledTimes(2);
  });
});

describe('retryingFetch on older runtimes', () => {
  it('works where Request is missing', async () => {
    const fetch = vi.fn(async () => new Response('ok'));
    vi.stubGlobal('Request', undefined);
    try {
      expect((await retryingFetch({ fetch })(URL)).status).toBe(200);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("works where AbortSignal.any is missing (Node < 20.3): the caller's abort still stops the attempt", async () => {
    const any = AbortSignal.any;
    Object.defineProperty(AbortSignal, 'any', { value: undefined, configurable: true, writable: true });
    try {
      const signals: AbortSignal[] = [];
      const fetch = vi.fn(async (_input: RequestInfo | URL, init?: RequestInit) => {
        signals.push(init?.signal as AbortSignal);
        return busy();
      });
      const controller = new AbortController();
      const result = settle(retryingFetch({ fetch })(URL, { signal: controller.signal }));
      await fake.clock.tickAsync(0);
      const reason = new Error('stop');
      controller.abort(reason);
      await fake.clock.tickAsync(0);
      expect(result.result).toMatchObject({ status: 'rejected', reason });
      expect(signals[0]?.aborted).toBe(true);
      expect(signals[0]?.reason).toBe(reason);
    } finally {
      Object.defineProperty(AbortSignal, 'any', { value: any, configurable: true, writable: true });
    }
  });
});

describe('retryingFetch giving up', () => {
  it("a retried request whose network failures outlast the attempts rejects with retry()'s own RetryError", async () => {
    const fetch = vi.fn(async () => {
      throw new TypeError('fetch failed');
    });
    const call = settle(retryingFetch({ fetch, maxAttempts: 3, baseMs: 1, capMs: 1 })(URL));
    await fake.clock.tickAsync(10);
    expect(fetch).toHaveBeenCalledTimes(3);
    expect(call.result.status).toBe('rejected');
    expect(call.result.reason).toMatchObject({ name: 'RetryError', reason: 'attempts', attempts: 3 });
    expect((call.result.reason as Error).message).toMatch(
      /^gave up after 3 attempts over \d+ ms \(maxAttempts 3\): fetch failed$/,
    );
  });
});
