import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { RetryError, type RetryEvent, retryingFetch } from '../src/index';
import { inTurn, reply, reset, serve } from './http-server';

// Real sockets need real time: these tests keep every wait tiny (baseMs 1) instead of faking the clock.
const quick = { baseMs: 1, capMs: 2 } as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('retryingFetch against a real server', () => {
  it('retries a 503, then resolves with the 200', async () => {
    const server = await serve(inTurn(reply(503, {}, 'busy'), reply(200, {}, 'items')));
    const res = await retryingFetch(quick)(server.url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('items');
    expect(server.seen).toHaveLength(2);
  });

  it('resolves with the last Response when the attempts run out (statuses do not throw, as in fetch)', async () => {
    const server = await serve(reply(503, {}, 'still busy'));
    const res = await retryingFetch({ ...quick, maxAttempts: 3 })(server.url);
    expect(res.status).toBe(503);
    expect(await res.text()).toBe('still busy');
    expect(server.seen).toHaveLength(3);
  });

  it('does not retry a status outside `statuses`, and retries one inside', async () => {
    const notFound = await serve(reply(404));
    expect((await retryingFetch(quick)(notFound.url)).status).toBe(404);
    expect(notFound.seen).toHaveLength(1);
    const teapot = await serve(inTurn(reply(418), reply(200)));
    expect((await retryingFetch({ ...quick, statuses: [418] })(teapot.url)).status).toBe(200);
    expect(teapot.seen).toHaveLength(2);
  });

  describe('429 with each header form', () => {
    // A few ms: the sleep is the server's wait exactly (jitter 'none' spreads nothing on top of it), or with no wait
    // the backoff (1 ms), seen in onRetry's delayMs.
    it.each([
      ['retry-after-ms', '7', 7],
      ['x-ms-retry-after-ms', '7', 7],
      ['grpc-retry-pushback-ms', '7', 7],
      ['Retry-After', '0', 1],
      ['Retry-After', 'Sun, 06 Nov 1994 08:49:37 GMT', 1], // a date in the past: no wait
      ['RateLimit', '"default";r=0;t=0', 1],
      ['RateLimit-Reset', '0', 1],
      ['X-RateLimit-Reset', '0', 1],
    ])('%s: %s is honoured, then retried', async (name, value, delayMs) => {
      const server = await serve(inTurn(reply(429, { [name]: value }), reply(200)));
      const events: RetryEvent[] = [];
      const res = await retryingFetch({ jitter: 'none', baseMs: 1, onRetry: (e) => void events.push(e) })(server.url);
      expect(res.status).toBe(200);
      expect(events.map((e) => e.delayMs)).toEqual([delayMs]);
    });

    // Seconds: too long to wait in a test, so maxRetryAfterMs (2 s) stops at once on a 3 s wait, with the 429.
    it.each([
      ['Retry-After', () => '3'],
      ['Retry-After', () => new Date(Date.now() + 3_500).toUTCString()],
      ['RateLimit', () => '"default";r=0;t=3'],
      ['RateLimit-Reset', () => '3'],
      ['X-RateLimit-Reset', () => '3'],
      ['X-RateLimit-Reset', () => String(Math.ceil(Date.now() / 1000) + 3)], // epoch seconds
      ['grpc-retry-pushback-ms', () => '-1'], // "do not retry"
    ])('%s asking for more than maxRetryAfterMs: the 429 at once, not retried', async (name, value) => {
      const server = await serve(inTurn((seen, res) => reply(429, { [name]: value() })(seen, res), reply(200)));
      const onRetry = vi.fn();
      const res = await retryingFetch({ ...quick, maxRetryAfterMs: 2_000, onRetry })(server.url);
      expect(res.status).toBe(429);
      expect(onRetry).not.toHaveBeenCalled();
      expect(server.seen).toHaveLength(1);
    });

    it('a reset header with quota left is not a wait', async () => {
      const server = await serve(
        inTurn(reply(503, { 'X-RateLimit-Remaining': '41', 'X-RateLimit-Reset': '3600' }), reply(200)),
      );
      const res = await retryingFetch({ ...quick, maxRetryAfterMs: 2_000 })(server.url);
      expect(res.status).toBe(200);
    });
  });

  it('retries a connection reset in the middle of the response', async () => {
    const server = await serve(inTurn(reset, reply(200, {}, 'ok')));
    const res = await retryingFetch(quick)(server.url);
    expect(await res.text()).toBe('ok');
    expect(server.seen).toHaveLength(2);
  });

  it('rejects with a RetryError holding every network failure when resets outlast the attempts', async () => {
    const server = await serve(reset);
    const error = await retryingFetch({ ...quick, maxAttempts: 3 })(server.url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryError);
    expect(error).toMatchObject({ reason: 'attempts', attempts: 3 });
    expect((error as RetryError).errors).toHaveLength(3);
    expect((error as RetryError).cause).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
  });

  it('a reset after the headers surfaces when the body is read, outside the retry', async () => {
    const server = await serve((_, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
      setTimeout(() => res.socket?.destroy(), 5);
    });
    const res = await retryingFetch(quick)(server.url);
    await expect(res.text()).rejects.toThrow();
    expect(server.seen).toHaveLength(1);
  });

  it('abandons an attempt whose headers are slow (attemptTimeoutMs), aborting its request, and retries', async () => {
    let aborted = false;
    const server = await serve(
      inTurn(
        (_, res) => {
          res.on('close', () => {
            aborted = !res.writableEnded;
          });
          setTimeout(() => res.end('late'), 5_000).unref();
        },
        reply(200, {}, 'fast'),
      ),
    );
    const started = performance.now();
    const res = await retryingFetch({ ...quick, attemptTimeoutMs: 250 })(server.url);
    expect(await res.text()).toBe('fast');
    expect(performance.now() - started).toBeLessThan(2_500);
    expect(server.seen).toHaveLength(2);
    await vi.waitFor(() => expect(aborted).toBe(true));
  });

  it('rejects a permanent error at once: a bad URL is a TypeError, not retried', async () => {
    const fetch = vi.fn(globalThis.fetch);
    await expect(retryingFetch({ ...quick, fetch })('not a url')).rejects.toThrow(TypeError);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  describe('methods and idempotency keys', () => {
    it('sends a POST without a key once: a 503 resolves as it is', async () => {
      const server = await serve(reply(503));
      const res = await retryingFetch(quick)(server.url, { method: 'POST', body: 'order' });
      expect(res.status).toBe(503);
      expect(server.seen).toHaveLength(1);
      expect(server.seen[0]?.headers['idempotency-key']).toBeUndefined();
    });

    it('a POST without a key that fails on the network rejects once, saying why it was not retried', async () => {
      const server = await serve(reset);
      const error = await retryingFetch(quick)(server.url, { method: 'post', body: 'order' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RetryError);
      expect((error as RetryError).message).toMatch(
        /gave up after 1 attempt .*\(POST is sent once without an Idempotency-Key header; pass idempotencyKey to retry it\): fetch failed/,
      );
      expect(server.seen).toHaveLength(1);
    });

    it('idempotencyKey: true retries a POST with one fresh key, the same on every attempt', async () => {
      const server = await serve(inTurn(reply(503), reset, reply(201)));
      const post = retryingFetch({ ...quick, idempotencyKey: true });
      const res = await post(server.url, { method: 'POST', body: '{"amount":100}' });
      expect(res.status).toBe(201);
      const keys = server.seen.map((s) => s.headers['idempotency-key']);
      expect(keys).toHaveLength(3);
      expect(new Set(keys).size).toBe(1);
      expect(keys[0]).toMatch(UUID);
      expect(server.seen.map((s) => s.body.toString())).toEqual(Array(3).fill('{"amount":100}'));
      // The next call is another logical call: another key.
      await post(server.url, { method: 'POST', body: '{"amount":100}' });
      expect(server.seen[3]?.headers['idempotency-key']).toMatch(UUID);
      expect(server.seen[3]?.headers['idempotency-key']).not.toBe(keys[0]);
    });

    it('a header name or a function chooses the header or the key; other headers are kept', async () => {
      const server = await serve(inTurn(reply(503), reply(200)));
      await retryingFetch({ ...quick, idempotencyKey: 'X-Request-Id' })(server.url, {
        method: 'PATCH',
        headers: { 'x-trace': 't1' },
      });
      expect(server.seen.map((s) => [s.headers['x-request-id'], s.headers['x-trace']])).toEqual([
        [server.seen[0]?.headers['x-request-id'], 't1'],
        [server.seen[0]?.headers['x-request-id'], 't1'],
      ]);
      expect(server.seen[0]?.headers['x-request-id']).toMatch(UUID);
      const key = vi.fn(() => 'order-42');
      await retryingFetch({ ...quick, idempotencyKey: key })(server.url, { method: 'POST' });
      expect(key).toHaveBeenCalledTimes(1);
      expect(server.seen[2]?.headers['idempotency-key']).toBe('order-42');
    });

    it('a request that carries its own key keeps it and is retried, without the option', async () => {
      const server = await serve(inTurn(reply(503), reply(200)));
      const res = await retryingFetch(quick)(server.url, {
        method: 'POST',
        headers: { 'Idempotency-Key': 'mine' },
      });
      expect(res.status).toBe(200);
      expect(server.seen.map((s) => s.headers['idempotency-key'])).toEqual(['mine', 'mine']);
    });

    it('retries the idempotent methods and only the ones listed in `methods`', async () => {
      for (const method of ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']) {
        const server = await serve(inTurn(reply(503), reply(200)));
        expect((await retryingFetch(quick)(server.url, { method })).status).toBe(200);
        expect(server.seen.map((s) => s.method)).toEqual([method, method]);
      }
      const server = await serve(inTurn(reply(503), reply(200)));
      expect((await retryingFetch({ ...quick, methods: ['get'] })(server.url, { method: 'PUT' })).status).toBe(503);
      expect((await retryingFetch({ ...quick, methods: ['post'] })(server.url, { method: 'POST' })).status).toBe(200);
    });
  });

  describe('bodies', () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const form = () => {
      const data = new FormData();
      data.set('field', 'value');
      data.set('file', new Blob([bytes]), 'bytes.bin');
      return data;
    };
    it.each([
      ['a string', () => 'héllo, wörld', 'text/plain;charset=UTF-8'],
      ['an ArrayBuffer', () => bytes.slice().buffer, undefined],
      ['a typed array', () => bytes.slice(), undefined],
      ['a Blob', () => new Blob([bytes], { type: 'application/octet-stream' }), 'application/octet-stream'],
      [
        'URLSearchParams',
        () => new URLSearchParams({ a: '1', b: 'two' }),
        'application/x-www-form-urlencoded;charset=UTF-8',
      ],
      ['FormData', form, 'multipart/form-data; boundary=<boundary>'],
    ])('%s is re-sent byte for byte', async (_, body, type) => {
      const server = await serve(inTurn(reply(503), reply(502), reply(200)));
      const res = await retryingFetch(quick)(server.url, { method: 'PUT', body: body() });
      expect(res.status).toBe(200);
      // A multipart body has a fresh boundary on each send (fetch draws it); the rest is the same, byte for byte.
      const sent = server.seen.map((s) => {
        const boundary = /boundary=(.+)$/.exec(s.headers['content-type'] ?? '')?.[1];
        const replace = (b: string) => (boundary ? b.replaceAll(boundary, '<boundary>') : b);
        return [replace(s.body.toString('latin1')), replace(s.headers['content-type'] ?? '')];
      });
      const [first, ...rest] = sent as [string[], ...string[][]];
      expect(first[0]?.length).toBeGreaterThan(0);
      for (const again of rest) expect(again).toEqual(first);
      if (type) expect(first[1]).toBe(type);
      expect(rest).toHaveLength(2);
    });

    it('a Request input is cloned for each attempt: method, headers and body every time, the original unused', async () => {
      const server = await serve(inTurn(reply(503), reset, reply(200)));
      const request = new Request(server.url, { method: 'PUT', body: 'payload', headers: { 'x-a': '1' } });
      const res = await retryingFetch(quick)(request);
      expect(res.status).toBe(200);
      expect(server.seen.map((s) => [s.method, s.headers['x-a'], s.body.toString()])).toEqual(
        Array(3).fill(['PUT', '1', 'payload']),
      );
      expect(request.bodyUsed).toBe(false);
    });

    it('a stream body is sent once, not retried; a network failure says so', async () => {
      const stream = () =>
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('streamed'));
            controller.close();
          },
        });
      const busy = await serve(reply(503));
      const init = { method: 'PUT', duplex: 'half' } as RequestInit;
      const res = await retryingFetch(quick)(busy.url, { ...init, body: stream() });
      expect(res.status).toBe(503);
      expect(busy.seen.map((s) => s.body.toString())).toEqual(['streamed']);

      const cut = await serve(reset);
      const error = await retryingFetch(quick)(cut.url, { ...init, body: stream() }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RetryError);
      expect((error as RetryError).message).toContain('(a stream body is sent once, not retried)');
      expect(cut.seen).toHaveLength(1);
    });
  });

  describe('abort', () => {
    it('an abort mid-sleep rejects at once with the reason, and leaves no listener', async () => {
      const server = await serve(reply(503, { 'retry-after-ms': '10000' }, 'busy'));
      const controller = new AbortController();
      const started = performance.now();
      const call = retryingFetch({ ...quick, onRetry: () => controller.abort(new Error('user left')) })(server.url, {
        signal: controller.signal,
      });
      await expect(call).rejects.toThrow('user left');
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(server.seen).toHaveLength(1);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });

    it("an abort mid-sleep cancels the retried Response's body: the socket that carried it closes", async () => {
      let closed = false;
      const server = await serve((seen, res) => {
        res.socket?.once('close', () => {
          closed = true;
        });
        reply(503, { 'retry-after-ms': '10000' }, 'x'.repeat(256 * 1024))(seen, res);
      });
      const controller = new AbortController();
      const call = retryingFetch({ ...quick, onRetry: () => controller.abort(new Error('user left')) })(server.url, {
        signal: controller.signal,
      });
      await expect(call).rejects.toThrow('user left');
      await vi.waitFor(() => expect(closed).toBe(true));
    });

    it('the policy signal and the call signal both abort; an aborted one rejects before any request', async () => {
      const server = await serve(reply(200));
      const policy = new AbortController();
      const call = new AbortController();
      const fetchWithRetry = retryingFetch({ ...quick, signal: policy.signal });
      expect((await fetchWithRetry(server.url, { signal: call.signal })).status).toBe(200);
      expect(getEventListeners(policy.signal, 'abort')).toHaveLength(0);
      expect(getEventListeners(call.signal, 'abort')).toHaveLength(0);
      call.abort(new Error('call'));
      await expect(fetchWithRetry(server.url, { signal: call.signal })).rejects.toThrow('call');
      policy.abort(new Error('policy'));
      await expect(fetchWithRetry(server.url, { signal: new AbortController().signal })).rejects.toThrow('policy');
      expect(server.seen).toHaveLength(1);
    });

    it("a Request's own signal is the caller's abort", async () => {
      const server = await serve(reply(503, { 'retry-after-ms': '10000' }));
      const controller = new AbortController();
      const request = new Request(server.url, { signal: controller.signal });
      const call = retryingFetch({ ...quick, onRetry: () => controller.abort(new Error('gone')) })(request);
      await expect(call).rejects.toThrow('gone');
    });
  });

  describe('no socket held', () => {
    it('1,000 retried 503s with bodies reuse the pool: no more connections than concurrent calls', async () => {
      const calls = 25;
      const perCall = 40;
      let busy = 0;
      const server = await serve((_, res) => {
        busy++;
        const ok = busy > calls * perCall;
        res.writeHead(ok ? 200 : 503);
        res.end((ok ? 'ok' : 'busy ').repeat(200));
      });
      const fetchWithRetry = retryingFetch({ baseMs: 1, capMs: 1, jitter: 'none', maxAttempts: 2 * perCall });
      const results = await Promise.all(Array.from({ length: calls }, () => fetchWithRetry(server.url)));
      expect(results.every((r) => r.status === 200 || r.status === 503)).toBe(true);
      await Promise.all(results.map((r) => r.arrayBuffer()));
      expect(server.seen.length).toBeGreaterThanOrEqual(calls * perCall + calls);
      expect(server.connections().opened).toBeLessThanOrEqual(calls);
    }, 30_000);

    it('discarded large bodies are cancelled, so their sockets close instead of staying held', async () => {
      const server = await serve(inTurn(...Array(50).fill(reply(503, {}, 'x'.repeat(256 * 1024))), reply(200)));
      const res = await retryingFetch({ baseMs: 1, capMs: 1, jitter: 'none', maxAttempts: 51 })(server.url);
      expect(res.status).toBe(200);
      await vi.waitFor(() => expect(server.connections().open).toBeLessThanOrEqual(2));
      expect(server.connections().opened).toBeGreaterThan(25); // the cancelled ones could not be reused
    }, 30_000);
  });
});

describe('retryingFetch: options', () => {
  it.each([
    [{ fetch: 'fetch' }, "herdless: fetch must be a function, got 'fetch'"],
    [{ methods: 'GET' }, "herdless: methods must be an array of method names, got 'GET'"],
    [{ methods: ['GET', 'not a token'] }, 'herdless: methods must be an array of method names, got GET,not a token'],
    [{ statuses: [503, 99] }, 'herdless: statuses must be an array of integer statuses from 100 to 599, got 503,99'],
    [
      { idempotencyKey: 'bad header' },
      "herdless: idempotencyKey must be a boolean, a header name or a function, got 'bad header'",
    ],
    [{ idempotencyKey: 5 }, 'herdless: idempotencyKey must be a boolean, a header name or a function, got 5'],
    [{ idempotencyKey: '' }, "herdless: idempotencyKey must be a boolean, a header name or a function, got ''"],
    [{ shouldRetryResult: () => true }, 'herdless: shouldRetryResult must be left out of retryingFetch'],
    [{ maxAttemps: 3 }, "herdless: unknown retryingFetch option 'maxAttemps'; did you mean maxAttempts?"],
    // its own options are known and suggested too (review: the list named only retry()'s)
    [
      { method: ['GET'] },
      "herdless: unknown retryingFetch option 'method'; did you mean methods? (known: fetch, methods, statuses, idempotencyKey, attemptHeader, jitter,",
    ],
    [{ status: [503] }, "herdless: unknown retryingFetch option 'status'; did you mean statuses?"],
    // the known list names only what it takes: not shouldRetryResult, which it refuses (review)
    [
      { maxAttempt: 3 },
      "herdless: unknown retryingFetch option 'maxAttempt'; did you mean maxAttempts? (known: fetch, methods, statuses, idempotencyKey, attemptHeader, jitter, baseMs, capMs, factor, random, maxAttempts, timeoutMs, attemptTimeoutMs, signal, isTransient, maxRetryAfterMs, onRetry, onFailure, onSettle, retryAfter, unref, budget, breaker)",
    ],
    [
      { idempotencyKeys: true },
      "herdless: unknown retryingFetch option 'idempotencyKeys'; did you mean idempotencyKey?",
    ],
    [{ retries: 2 }, "herdless: unknown retryingFetch option 'retries'; did you mean maxAttempts (retries + 1)?"],
    [{ maxAttempts: 0 }, 'herdless: maxAttempts must be'],
  ])('%o throws: %s', (options, message) => {
    expect(() => retryingFetch(options as never)).toThrow(message);
  });

  it('a key function that returns no key rejects the call, naming it', async () => {
    const fetch = vi.fn(async () => new Response());
    const post = retryingFetch({ fetch, idempotencyKey: () => '' });
    await expect(post('http://x.test/', { method: 'POST' })).rejects.toThrow(
      "herdless: idempotencyKey() must be a non-empty string, got ''",
    );
    expect(fetch).not.toHaveBeenCalled();
  });

  it('without crypto.randomUUID, idempotencyKey: true rejects, asking for a function', async () => {
    vi.stubGlobal('crypto', {});
    try {
      const post = retryingFetch({ fetch: async () => new Response(), idempotencyKey: true });
      await expect(post('http://x.test/', { method: 'POST' })).rejects.toThrow(
        'herdless: idempotencyKey must be a function where crypto.randomUUID is missing',
      );
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('looks up globalThis.fetch at call time', async () => {
    const fetchWithRetry = retryingFetch();
    const stub = vi.fn(async () => new Response('stubbed'));
    vi.stubGlobal('fetch', stub);
    try {
      expect(await (await fetchWithRetry('http://x.test/')).text()).toBe('stubbed');
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('review findings', () => {
  it("the caller's abort still cancels the body after retryingFetch resolved, as with fetch", async () => {
    const server = await serve((_seen, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('part'); // and never ends
    });
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const res = await retryingFetch(quick)(server.url, { signal: controller.signal });
    const body = res.text();
    controller.abort(reason);
    await expect(body).rejects.toBe(reason); // before: pending forever, the socket held
  });

  it('so does the policy signal', async () => {
    const server = await serve((_seen, res) => {
      res.writeHead(200);
      res.write('part');
    });
    const controller = new AbortController();
    const res = await retryingFetch({ ...quick, signal: controller.signal })(server.url);
    const body = res.text();
    controller.abort('stop');
    await expect(body).rejects.toBe('stop');
  });
});
