import { getEventListeners } from 'node:events';
import { createServer } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as undici from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createCircuitBreaker,
  createPolicy,
  createRetryBudget,
  type FailureEvent,
  givenUp,
  RetryError,
  type RetryEvent,
  type RetryingFetchOptions,
  retryingFetch,
  type SettleEvent,
} from '../src/index';
import { inTurn, reply, reset, serve } from './http-server';

// Issue 20: retryingFetch with the fetch implementations and setups people really have. Real sockets need real
// time: every wait is kept tiny (baseMs 1) instead of faking the clock.
const quick = { baseMs: 1, capMs: 2 } as const;

/** A port on 127.0.0.1 that nothing listens on (a server opened on it, then closed). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** An undici dispatcher whose every connection fails in DNS with `code` (no network: the lookup is ours). */
const unresolved = (code: string) =>
  new undici.Agent({
    connect: {
      lookup: (host: string, _options: unknown, callback: (error: Error) => void) =>
        callback(Object.assign(new Error(`getaddrinfo ${code} ${host}`), { code, syscall: 'getaddrinfo' })),
    },
  } as undici.Agent.Options);

describe("a Request from another fetch implementation (undici's)", () => {
  it('a POST without a key is read as a POST: sent once', async () => {
    const server = await serve(reply(503, {}, 'busy'));
    const send = retryingFetch({ ...quick, fetch: undici.fetch as never });
    const res = await send(new undici.Request(server.url, { method: 'POST', body: 'order' }) as never);
    expect(res.status).toBe(503);
    expect(server.seen.map((s) => s.method)).toEqual(['POST']); // before: POST 3 times
  });

  it('a PUT with a body is cloned for each attempt: method and body every time', async () => {
    const server = await serve(inTurn(reply(503), reply(503), reply(200, {}, 'stored')));
    const send = retryingFetch({ ...quick, fetch: undici.fetch as never });
    const request = new undici.Request(server.url, { method: 'PUT', body: 'v=1', headers: { 'x-t': 'a' } });
    const res = await send(request as never);
    expect(await res.text()).toBe('stored'); // before: "Request object that has already been used" on attempt 2
    expect(server.seen.map((s) => [s.method, s.body.toString(), s.headers['x-t']])).toEqual([
      ['PUT', 'v=1', 'a'],
      ['PUT', 'v=1', 'a'],
      ['PUT', 'v=1', 'a'],
    ]);
    expect(request.bodyUsed).toBe(false);
  });

  it("its signal is the caller's abort", async () => {
    const server = await serve(reply(503));
    const controller = new AbortController();
    const send = retryingFetch({ baseMs: 10_000, capMs: 10_000, fetch: undici.fetch as never });
    const call = send(new undici.Request(server.url, { signal: controller.signal }) as never);
    await new Promise((resolve) => setTimeout(resolve, 30));
    controller.abort('stop');
    await expect(call).rejects.toBe('stop');
  });
});

describe('a policy from createPolicy(), and options set to undefined', () => {
  it('retryingFetch(createPolicy(...)) uses the policy', async () => {
    const server = await serve(reply(503));
    const res = await retryingFetch(createPolicy({ ...quick, maxAttempts: 2 }))(server.url); // before: threw
    expect(res.status).toBe(503);
    expect(server.seen).toHaveLength(2);
  });

  it('{ ...policy, idempotencyKey: true } retries a POST with one key', async () => {
    const server = await serve(inTurn(reply(503), reply(201)));
    const policy = createPolicy({ ...quick, maxAttempts: 3 });
    const res = await retryingFetch({ ...policy, idempotencyKey: true })(server.url, { method: 'POST' });
    expect(res.status).toBe(201);
    const keys = server.seen.map((s) => s.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });

  it('every own option set to undefined is left out; shouldRetryResult: undefined too; a function still throws', async () => {
    const server = await serve(inTurn(reply(503), reply(200)));
    const send = retryingFetch({
      ...quick,
      shouldRetryResult: undefined,
      fetch: undefined,
      methods: undefined,
      statuses: undefined,
      idempotencyKey: undefined,
      attemptHeader: undefined,
    } as never);
    expect((await send(server.url)).status).toBe(200);
    expect(() => retryingFetch({ shouldRetryResult: () => true } as never)).toThrow(
      'herdless: shouldRetryResult must be left out of retryingFetch',
    );
    expect(() => retryingFetch(createPolicy({ shouldRetryResult: () => true }) as never)).toThrow(
      'herdless: shouldRetryResult must be left out of retryingFetch',
    );
  });
});

describe('where AbortSignal.any is missing (Node 18 before 18.17, Node 20 before 20.3, Safari before 17.4)', () => {
  const any = AbortSignal.any;
  afterEach(() => {
    Object.defineProperty(AbortSignal, 'any', { value: any, configurable: true, writable: true });
  });
  const removeAny = () =>
    Object.defineProperty(AbortSignal, 'any', { value: undefined, configurable: true, writable: true });
  const endless = () =>
    serve((_seen, res) => {
      res.writeHead(200);
      res.write('part'); // and never ends
    });

  it("the caller's abort still cancels the body after the call resolved", async () => {
    removeAny();
    const server = await endless();
    const controller = new AbortController();
    const res = await retryingFetch(quick)(server.url, { signal: controller.signal });
    const body = res.text();
    controller.abort('caller gave up');
    await expect(body).rejects.toBe('caller gave up'); // before: the whole body downloaded (here: pending forever)
  });

  it('so does the policy signal, and a signal aborted before the link is made', async () => {
    removeAny();
    const server = await endless();
    const controller = new AbortController();
    const res = await retryingFetch({ ...quick, signal: controller.signal })(server.url);
    const body = res.text();
    controller.abort('stop');
    await expect(body).rejects.toBe('stop');
  });

  it('a retried status resolved at the end is linked too', async () => {
    removeAny();
    const server = await serve((_seen, res) => {
      res.writeHead(503);
      res.write('busy'); // and never ends
    });
    const controller = new AbortController();
    const res = await retryingFetch({ ...quick, maxAttempts: 2 })(server.url, { signal: controller.signal });
    expect(res.status).toBe(503);
    const body = res.text();
    controller.abort('enough');
    await expect(body).rejects.toBe('enough');
  });
});

describe('where AbortSignal.any is missing, nothing is held per call', () => {
  it("once the Response is collected, the caller's signal holds no listener of herdless's", async () => {
    const any = AbortSignal.any;
    Object.defineProperty(AbortSignal, 'any', { value: undefined, configurable: true, writable: true });
    try {
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as () => void;
      const server = await serve(reply(200, {}, 'items'));
      const controller = new AbortController();
      const send = retryingFetch(quick);
      for (let i = 0; i < 20; i++)
        expect(await (await send(server.url, { signal: controller.signal })).text()).toBe('items');
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1); // the registry's one, for every call
      for (let i = 0; i < 50 && getEventListeners(controller.signal, 'abort').length > 0; i++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    } finally {
      Object.defineProperty(AbortSignal, 'any', { value: any, configurable: true, writable: true });
    }
  });
});

describe('givenUp: whether herdless gave up, and why, for every outcome', () => {
  it('a retried status that outlasted the attempts: the Response, given up with attempts', async () => {
    const server = await serve(reply(503, {}, '<html>down</html>'));
    const res = await retryingFetch({ ...quick, maxAttempts: 2 })(server.url);
    expect(res.ok).toBe(false);
    expect(givenUp(res)).toBe('attempts');
    expect(await res.text()).toBe('<html>down</html>'); // the body is the caller's, unread
  });

  it('the deadline: timeout', async () => {
    const server = await serve(reply(503));
    const res = await retryingFetch({ baseMs: 5_000, capMs: 5_000, jitter: 'none', timeoutMs: 2_000 })(server.url);
    expect(server.seen).toHaveLength(1); // the sleep would pass the deadline: given up at once
    expect(givenUp(res)).toBe('timeout');
  });

  it('a Retry-After over maxRetryAfterMs: retry-after', async () => {
    const server = await serve(reply(429, { 'Retry-After': '120' }));
    const res = await retryingFetch(quick)(server.url);
    expect(res.status).toBe(429);
    expect(givenUp(res)).toBe('retry-after');
    expect(server.seen).toHaveLength(1);
  });

  it('the budget refusing: budget', async () => {
    const server = await serve(reply(503));
    const budget = createRetryBudget({ ratio: 0.001, minPerSecond: 0.001 });
    const res = await retryingFetch({ ...quick, budget })(server.url);
    expect(givenUp(res)).toBe('budget');
  });

  it('the breaker opening between attempts: circuit-open; then open before the first attempt', async () => {
    const server = await serve(reply(503));
    const breaker = createCircuitBreaker({ consecutiveFailures: 1, breakMs: 60_000 });
    const send = retryingFetch({ ...quick, breaker });
    const res = await send(server.url);
    expect(givenUp(res)).toBe('circuit-open');
    const error = await send(server.url).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'CircuitOpenError' });
    expect(givenUp(error)).toBe('circuit-open');
    expect(server.seen).toHaveLength(1);
  });

  it('network failures that outlasted the policy: the RetryError, with its reason', async () => {
    const port = await freePort();
    const error = await retryingFetch({ ...quick, maxAttempts: 2 })(`http://127.0.0.1:${port}/`).catch((e) => e);
    expect(error).toBeInstanceOf(RetryError);
    expect(givenUp(error)).toBe('attempts');
  });

  it('not given up: a success, a status not retried, a permanent error, an abort, anything else', async () => {
    const server = await serve(inTurn(reply(200), reply(404)));
    const send = retryingFetch(quick);
    expect(givenUp(await send(server.url))).toBeUndefined();
    expect(givenUp(await send(server.url))).toBeUndefined();
    expect(givenUp(await send('not a url').catch((e) => e))).toBeUndefined();
    const controller = new AbortController();
    controller.abort();
    expect(givenUp(await send(server.url, { signal: controller.signal }).catch((e) => e))).toBeUndefined();
    for (const value of [undefined, null, 0, 'attempts', {}, new Response('x', { status: 503 })]) {
      expect(givenUp(value)).toBeUndefined();
    }
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(givenUp(proxy)).toBeUndefined(); // never throws
  });

  it('a POST sent once by rule: given up after its one attempt, the reason onSettle is told (issue 30)', async () => {
    /** One POST through a fresh retryingFetch: what givenUp says of its outcome, and what onSettle was told. */
    const post = async (handler: Parameters<typeof serve>[0], options: RetryingFetchOptions = quick) => {
      const server = await serve(handler);
      const told: SettleEvent[] = [];
      const outcome = await retryingFetch({ ...options, onSettle: (e) => void told.push(e) })(server.url, {
        method: 'POST',
      }).catch((e: unknown) => e);
      expect(server.seen).toHaveLength(1);
      expect(told).toHaveLength(1);
      return [givenUp(outcome), told[0]?.reason, (outcome as Response).status];
    };
    // A 503 resolves (before: givenUp undefined while onSettle said 'attempts'); a reset rejects with a RetryError.
    expect(await post(reply(503))).toEqual(['attempts', 'attempts', 503]);
    expect(await post(reset)).toEqual(['attempts', 'attempts', undefined]);
    // Stopped first by the server's wait or the deadline: that reason, in both.
    expect(await post(reply(429, { 'Retry-After': '120' }))).toEqual(['retry-after', 'retry-after', 429]);
    const late = { baseMs: 5_000, capMs: 5_000, jitter: 'none', timeoutMs: 2_000 } as const;
    expect(await post(reply(503), late)).toEqual(['timeout', 'timeout', 503]);
    // Not given up: a status that is not retried, a success.
    expect(await post(reply(404))).toEqual([undefined, undefined, 404]);
    expect(await post(reply(201))).toEqual([undefined, undefined, 201]);
  });

  it('two 503s then a network failure: the RetryError holds only the failure, the hooks see Responses', async () => {
    let calls = 0;
    const fetch = async () => {
      calls++;
      if (calls < 3) return new Response('busy', { status: 503, headers: { 'retry-after-ms': '1' } });
      throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
    };
    const failures: FailureEvent[] = [];
    const retries: RetryEvent[] = [];
    const read: unknown[] = [];
    const classified: unknown[] = [];
    const error = await retryingFetch({
      ...quick,
      fetch,
      maxAttempts: 3,
      onFailure: (e) => void failures.push(e),
      onRetry: (e) => void retries.push(e),
      retryAfter: (source) => void read.push(source),
      isTransient: (e) => classified.push(e) > 0,
    })('http://127.0.0.1:1/').catch((e: unknown) => e);
    expect(givenUp(error)).toBe('attempts');
    expect((error as RetryError).errors).toHaveLength(1);
    expect((error as RetryError).cause).toBeInstanceOf(TypeError);
    expect(failures.map((e) => [e.error === undefined, e.value instanceof Response])).toEqual([
      [true, true],
      [true, true],
      [false, false],
    ]);
    expect(Object.isFrozen(failures[0])).toBe(true);
    expect(retries.map((e) => e.value instanceof Response)).toEqual([true, true]);
    expect(read.slice(0, 2).every((r) => r instanceof Response)).toBe(true);
    expect(classified).toHaveLength(1); // a status is never the classifier's to judge
  });
});

describe('a POST without a key is retried only when it provably never left', () => {
  it('a refused connection (ECONNREFUSED) with redirects off: retried, then the server that came up gets it once', async () => {
    const port = await freePort();
    const net = await import('node:http');
    const bodies: string[] = [];
    const server = net.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        bodies.push(body);
        res.end('created');
      });
    });
    try {
      const send = retryingFetch({
        ...quick,
        maxAttempts: 3,
        // The server comes up between attempt 1 (refused) and attempt 2.
        onRetry: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
      });
      const res = await send(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'order', redirect: 'error' });
      expect(await res.text()).toBe('created');
      expect(bodies).toEqual(['order']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("refused every time, redirect: 'manual': a RetryError after every attempt the policy allows", async () => {
    const port = await freePort();
    const failures: FailureEvent[] = [];
    const error = await retryingFetch({ ...quick, maxAttempts: 3, onFailure: (e) => void failures.push(e) })(
      `http://127.0.0.1:${port}/`,
      { method: 'POST', body: 'x', redirect: 'manual' },
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RetryError', reason: 'attempts', attempts: 3 });
    expect((error as Error).message).toContain('(ECONNREFUSED)');
    expect(failures.map((e) => e.attemptsLeft)).toEqual([2, 1, 0]);
  });

  it.each(['ENOTFOUND', 'EAI_AGAIN'])(
    "a host name that did not resolve (%s, through undici), redirect: 'error': retried",
    async (code) => {
      const dispatcher = unresolved(code);
      const error = await retryingFetch({ ...quick, maxAttempts: 3, fetch: undici.fetch as never })(
        'http://api.example.invalid/',
        { method: 'POST', body: 'x', redirect: 'error', dispatcher } as never,
      ).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'RetryError', reason: 'attempts', attempts: 3 });
      expect((error as RetryError).errors.map((e) => (e as { cause: { code: string } }).cause.code)).toEqual([
        code,
        code,
        code,
      ]);
      await dispatcher.close();
    },
  );

  it('a reset is not proof: sent once, the RetryError says why; attemptsLeft 0', async () => {
    const server = await serve(reset);
    const failures: FailureEvent[] = [];
    const error = await retryingFetch({ ...quick, onFailure: (e) => void failures.push(e) })(server.url, {
      method: 'POST',
      body: 'x',
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RetryError', reason: 'attempts', attempts: 1 });
    expect((error as Error).message).toContain('POST is sent once without an Idempotency-Key header');
    expect(server.seen).toHaveLength(1);
    expect(failures.map((e) => e.attemptsLeft)).toEqual([0]);
  });

  it('with maxAttempts 1, or a breaker refusing the retry that would not come anyway: still says why', async () => {
    const server = await serve(reset);
    const one = await retryingFetch({ ...quick, maxAttempts: 1 })(server.url, { method: 'POST' }).catch((e) => e);
    expect(one).toMatchObject({ name: 'RetryError', reason: 'attempts', attempts: 1 });
    expect((one as Error).message).toContain('POST is sent once');
    const breaker = createCircuitBreaker({ consecutiveFailures: 1, breakMs: 60_000 });
    const refused = await retryingFetch({ ...quick, breaker })(server.url, { method: 'POST' }).catch((e) => e);
    expect(refused).toMatchObject({ name: 'RetryError', reason: 'attempts', attempts: 1 });
    expect((refused as Error).message).toContain('POST is sent once');
    expect(server.seen).toHaveLength(2);
  });

  it('nor is a timeout: sent once', async () => {
    const server = await serve(() => {}); // never answers
    const error = await retryingFetch({ ...quick, attemptTimeoutMs: 300 })(server.url, { method: 'POST' }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'RetryError', reason: 'attempts', attempts: 1 });
    expect((error as Error).message).toContain('sent once');
    expect(server.seen.length).toBeLessThanOrEqual(1); // on a loaded machine it may still be on its way
  });

  it('refused, then reset: the reset ends it, with both failures', async () => {
    let calls = 0;
    const fetch = async () => {
      calls++;
      throw new TypeError('fetch failed', { cause: { code: calls === 1 ? 'ECONNREFUSED' : 'ECONNRESET' } });
    };
    const error = await retryingFetch({ ...quick, fetch })('http://127.0.0.1:1/', {
      method: 'POST',
      redirect: 'error',
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RetryError', reason: 'attempts', attempts: 2 });
    expect((error as RetryError).errors).toHaveLength(2);
    expect(calls).toBe(2);
  });

  it('a stream body is never retried, even when refused', async () => {
    const port = await freePort();
    const body = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('x'));
        c.close();
      },
    });
    const error = await retryingFetch(quick)(`http://127.0.0.1:${port}/`, {
      method: 'PUT',
      body,
      duplex: 'half',
    } as RequestInit).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RetryError', attempts: 1 });
    expect((error as Error).message).toContain('a stream body is sent once');
  });
});

describe('a refusal is proof only of the first hop: not while fetch follows redirects (issue 30)', () => {
  /** A node:http server that answers every request with `status` and a Location. */
  const redirecting = (status: number, location: string) => serve(reply(status, { location }));
  const posts = (server: { seen: { method: string }[] }) => server.seen.filter((s) => s.method === 'POST').length;

  it('a POST answered 303 to a closed port is sent once, with global fetch (undici): the server processed it', async () => {
    const closed = await freePort();
    const server = await redirecting(303, `http://127.0.0.1:${closed}/done`);
    const failures: FailureEvent[] = [];
    const error = await retryingFetch({ ...quick, maxAttempts: 3, onFailure: (e) => void failures.push(e) })(
      server.url,
      { method: 'POST', body: 'order' },
    ).catch((e: unknown) => e);
    expect(posts(server)).toBe(1); // before: 3, the order placed three times
    expect(error).toMatchObject({ name: 'RetryError', reason: 'attempts', attempts: 1 });
    expect((error as RetryError).cause).toMatchObject({ cause: { code: 'ECONNREFUSED', port: closed } });
    expect((error as Error).message).toContain('POST is sent once without an Idempotency-Key header');
    expect((error as Error).message).toContain(
      "a refusal proves nothing while fetch follows redirects (redirect: 'error'",
    );
    expect(failures.map((e) => e.attemptsLeft)).toEqual([0]);
  });

  it('nor a 307, whose target gets the POST again, nor a host that does not resolve after the redirect', async () => {
    const closed = await freePort();
    const server = await redirecting(307, `http://127.0.0.1:${closed}/done`);
    const refused = await retryingFetch({ ...quick, fetch: undici.fetch as never })(server.url, {
      method: 'POST',
      body: 'order',
    }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: 'RetryError', attempts: 1 });
    // Its lookup fails every host name; an IP literal (the first hop, 127.0.0.1) is connected to without one.
    const dispatcher = unresolved('EAI_AGAIN');
    const unresolvedHost = await redirecting(303, 'http://api.example.invalid/done');
    const lost = await retryingFetch({ ...quick, fetch: undici.fetch as never })(unresolvedHost.url, {
      method: 'POST',
      dispatcher,
    } as never).catch((e: unknown) => e);
    expect(lost).toMatchObject({ name: 'RetryError', attempts: 1 });
    expect((lost as RetryError).cause).toMatchObject({ cause: { code: 'EAI_AGAIN' } });
    expect(posts(server) + posts(unresolvedHost)).toBe(2); // before: 3 + 3
    await dispatcher.close();
  });

  it('nor a redirect to the same origin (Post/Redirect/Get) whose server went down after answering', async () => {
    // The error names the first hop's address and port: only the absence of redirects proves it was the first hop.
    const { createServer: createHttp } = await import('node:http');
    let posted = 0;
    const server = createHttp((req, res) => {
      req.resume();
      req.on('end', () => {
        posted++;
        server.close(); // stops listening: the redirect's new connection is refused
        res.writeHead(303, { location: '/orders/1', connection: 'close' });
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const error = await retryingFetch(quick)(`http://127.0.0.1:${port}/orders`, { method: 'POST' }).catch(
        (e: unknown) => e,
      );
      expect((error as RetryError).cause).toMatchObject({
        cause: { code: 'ECONNREFUSED', address: '127.0.0.1', port },
      });
      expect(error).toMatchObject({ name: 'RetryError', attempts: 1 });
      expect(posted).toBe(1);
    } finally {
      server.closeAllConnections();
    }
  });

  it("redirect: 'error' or 'manual', on init or on the Request, makes a refusal proof; init's wins", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const send = retryingFetch({ ...quick, maxAttempts: 2 });
    const attempts = async (input: string | Request, init?: RequestInit) =>
      ((await send(input, init).catch((e: unknown) => e)) as RetryError).attempts;
    expect(await attempts(url, { method: 'POST', redirect: 'error' })).toBe(2);
    expect(await attempts(new Request(url, { method: 'POST', redirect: 'manual' }))).toBe(2);
    expect(await attempts(new Request(url, { method: 'POST', redirect: 'manual' }), { redirect: 'follow' })).toBe(1);
    expect(await attempts(url, { method: 'POST' })).toBe(1); // the default follows redirects: sent once
    expect(await attempts(url, { method: 'POST', redirect: 'follow' })).toBe(1);
    expect(await attempts(url)).toBe(2); // a GET is retried whatever the redirects
  });

  it("with redirect: 'error' a redirect is no refusal: the processed POST is sent once", async () => {
    const closed = await freePort();
    const server = await redirecting(303, `http://127.0.0.1:${closed}/done`);
    const error = await retryingFetch(quick)(server.url, { method: 'POST', redirect: 'error' }).catch((e) => e);
    expect(error).toMatchObject({ name: 'RetryError', attempts: 1 });
    expect((error as Error).message).not.toContain('a refusal proves nothing');
    expect(posts(server)).toBe(1);
  });

  it("with redirect: 'manual' the 303 is the answer, sent once and not retried", async () => {
    const server = await redirecting(303, 'http://127.0.0.1:1/done');
    const res = await retryingFetch(quick)(server.url, { method: 'POST', redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(posts(server)).toBe(1);
  });
});

describe('attemptHeader: the server is told which attempt this is', () => {
  it('1, 2, 3 on each attempt, beside the idempotency key and the caller headers', async () => {
    const server = await serve(inTurn(reply(503), reply(503), reply(200)));
    const send = retryingFetch({ ...quick, attemptHeader: 'X-Attempt', idempotencyKey: true });
    await send(server.url, { method: 'POST', headers: { 'x-mine': 'kept' } });
    expect(server.seen.map((s) => s.headers['x-attempt'])).toEqual(['1', '2', '3']);
    expect(server.seen.every((s) => s.headers['x-mine'] === 'kept')).toBe(true);
    // One key on every attempt, and a key indeed: a set of undefined (the key dropped) has size one too.
    const keys = server.seen.map((s) => s.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('with a Request input, its headers kept; off by default', async () => {
    const server = await serve(inTurn(reply(503), reply(200)));
    await retryingFetch({ ...quick, attemptHeader: 'x-envoy-attempt-count' })(
      new Request(server.url, { headers: { 'x-mine': 'kept' } }),
    );
    expect(server.seen.map((s) => [s.headers['x-envoy-attempt-count'], s.headers['x-mine']])).toEqual([
      ['1', 'kept'],
      ['2', 'kept'],
    ]);
    const plain = await serve(reply(200));
    await retryingFetch(quick)(plain.url);
    expect(Object.keys(plain.seen[0]?.headers ?? {}).some((h) => h.includes('attempt'))).toBe(false);
  });

  it.each([[''], ['bad name'], [true], [3]])('%o is refused, naming the option', (value) => {
    expect(() => retryingFetch({ attemptHeader: value as never })).toThrow(
      'herdless: attemptHeader must be a header name',
    );
  });
});
