import { describe, expect, it } from 'vitest';
import { createHedge, hedgedFetch, isHedgeable } from '../src/hedge/index';
import { retryingFetch } from '../src/index';
import { settle, stray, useFakeClock } from './helpers';

const fake = useFakeClock();

interface Sent {
  readonly url: string;
  readonly method: string;
  readonly body: string | undefined;
  readonly signal: AbortSignal;
  cancelled: boolean;
}

/**
 * A fetch whose requests each follow the next of `plans` ([ms, status]): a Response after `ms` (its body's
 * cancellation recorded), or an AbortError if the request's signal aborts first.
 */
function stub(plans: [number, number][]) {
  const sent: Sent[] = [];
  let i = 0;
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const [ms, status] = plans[i++] ?? [0, 200];
    const request = input instanceof Request ? input : undefined;
    const body = request ? await request.text() : (init?.body as string | undefined);
    const signal = init?.signal ?? (request?.signal as AbortSignal);
    const entry: Sent = {
      url: String(request?.url ?? input),
      method: init?.method ?? request?.method ?? 'GET',
      body,
      signal,
      cancelled: false,
    };
    sent.push(entry);
    return new Promise<Response>((resolve, reject) => {
      const timer = setTimeout(() => {
        const stream = new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode(`#${sent.indexOf(entry)}`));
            c.close();
          },
          cancel() {
            entry.cancelled = true;
          },
        });
        resolve(new Response(stream, { status }));
      }, ms);
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    });
  };
  return { fetch, sent };
}

describe('hedgedFetch', () => {
  it('hedges a slow GET: the hedge wins, the first request is aborted', async () => {
    const { fetch, sent } = stub([
      [1_000, 200],
      [10, 200],
    ]);
    const get = hedgedFetch(createHedge({ delayMs: 50, maxExtraLoad: 1 }), { fetch });
    const call = settle(get('https://api.test/items'));
    await fake.clock.tickAsync(60);
    expect(call.result.status).toBe('fulfilled');
    expect(await (call.result.value as Response).text()).toBe('#1');
    expect(sent.map((s) => s.signal.aborted)).toEqual([true, false]);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it('through retryingFetch: a late loser has its body cancelled', async () => {
    // The first request ignores its signal (a fetch that answers anyway): its late Response is discarded.
    const sent: Sent[] = [];
    const { fetch: inner } = stub([
      [10, 200],
      [10, 200],
    ]);
    let n = 0;
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      if (n++ > 0) return inner(input, init);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const entry: Sent = {
        url: String(input),
        method: 'GET',
        body: undefined,
        signal: init?.signal as AbortSignal,
        cancelled: false,
      };
      sent.push(entry);
      const stream = new ReadableStream({
        cancel() {
          entry.cancelled = true;
        },
      });
      return new Response(stream, { status: 200 });
    };
    const get = retryingFetch({ fetch: hedgedFetch(createHedge({ delayMs: 50, maxExtraLoad: 1 }), { fetch }) });
    const errors = await stray(async () => {
      const call = settle(get('https://api.test/items'));
      await fake.clock.tickAsync(300);
      expect((call.result.value as Response).status).toBe(200);
    });
    expect(errors).toEqual([]);
    expect(sent[0]?.cancelled).toBe(true);
  });

  it('a 503 from one request does not win while another is in flight; its body is cancelled', async () => {
    const { fetch, sent } = stub([
      [100, 200],
      [10, 503],
    ]);
    const get = hedgedFetch(createHedge({ delayMs: 50, maxExtraLoad: 1 }), { fetch });
    const call = settle(get('https://api.test/items'));
    await fake.clock.tickAsync(100);
    expect((call.result.value as Response).status).toBe(200);
    expect(sent[1]?.cancelled).toBe(true);
  });

  it('every request failing: the last Response is returned for retryingFetch to retry, the others cancelled', async () => {
    const { fetch, sent } = stub([
      [70, 503],
      [30, 502],
      [5, 200],
    ]);
    const get = retryingFetch({
      baseMs: 0,
      fetch: hedgedFetch(createHedge({ delayMs: 50, maxExtraLoad: 1 }), { fetch }),
    });
    const call = settle(get('https://api.test/items'));
    await fake.clock.tickAsync(100);
    expect((call.result.value as Response).status).toBe(200);
    expect(sent.map((s) => s.cancelled)).toEqual([true, true, false]);
  });

  it('never hedges a POST without an Idempotency-Key', async () => {
    const { fetch, sent } = stub([[1_000, 200]]);
    const post = hedgedFetch(createHedge({ delayMs: 50, maxExtraLoad: 1 }), { fetch });
    const call = settle(post('https://api.test/orders', { method: 'POST', body: 'x' }));
    await fake.clock.tickAsync(1_000);
    expect((call.result.value as Response).status).toBe(200);
    expect(sent).toHaveLength(1);
  });

  it('hedges a POST that carries an Idempotency-Key (retryingFetch adds one with idempotencyKey)', async () => {
    const { fetch, sent } = stub([
      [1_000, 200],
      [10, 200],
    ]);
    const post = retryingFetch({
      idempotencyKey: () => 'k-1',
      fetch: hedgedFetch(createHedge({ delayMs: 50, maxExtraLoad: 1 }), { fetch }),
    });
    const call = settle(post('https://api.test/orders', { method: 'POST', body: 'order' }));
    await fake.clock.tickAsync(60);
    expect((call.result.value as Response).status).toBe(200);
    expect(sent.map((s) => [s.method, s.body])).toEqual([
      ['POST', 'order'],
      ['POST', 'order'],
    ]);
  });

  it('sends a clone of a Request on each attempt, its body intact for the hedge', async () => {
    const { fetch, sent } = stub([
      [1_000, 200],
      [10, 200],
    ]);
    const put = hedgedFetch(createHedge({ delayMs: 50, maxExtraLoad: 1 }), { fetch });
    const call = settle(put(new Request('https://api.test/items/1', { method: 'PUT', body: 'v2' })));
    await fake.clock.tickAsync(60);
    expect((call.result.value as Response).status).toBe(200);
    expect(sent.map((s) => s.body)).toEqual(['v2', 'v2']);
  });

  it('an abort of the caller signal mid-hedge rejects with its reason and aborts both requests', async () => {
    const { fetch, sent } = stub([
      [1_000, 200],
      [1_000, 200],
    ]);
    const controller = new AbortController();
    const reason = new Error('gone');
    const get = hedgedFetch(createHedge({ delayMs: 50, maxExtraLoad: 1 }), { fetch });
    const call = settle(get('https://api.test/items', { signal: controller.signal }));
    await fake.clock.tickAsync(60);
    controller.abort(reason);
    await fake.clock.tickAsync(0);
    expect(call.result.reason).toBe(reason);
    expect(sent.map((s) => s.signal.reason)).toEqual([reason, reason]);
    expect(fake.clock.countTimers()).toBe(0);
  });

  it("the winner's signal follows the caller's after the call resolved: a later abort still cancels its body", async () => {
    const { fetch, sent } = stub([
      [1_000, 200],
      [10, 200],
    ]);
    const controller = new AbortController();
    const get = hedgedFetch(createHedge({ delayMs: 50, maxExtraLoad: 1 }), { fetch });
    const call = settle(get('https://api.test/items', { signal: controller.signal }));
    await fake.clock.tickAsync(60);
    expect((call.result.value as Response).status).toBe(200);
    expect(sent[1]?.signal.aborted).toBe(false);
    const reason = new Error('the caller left');
    controller.abort(reason);
    expect(sent[1]?.signal.reason).toBe(reason);
  });

  it('a signal already aborted rejects at once', async () => {
    const { fetch, sent } = stub([]);
    const get = hedgedFetch(createHedge({ delayMs: 50 }), { fetch });
    await expect(get('https://api.test/', { signal: AbortSignal.abort('no') })).rejects.toBe('no');
    expect(sent).toHaveLength(0);
  });

  it('uses globalThis.fetch by default, looked up at each call', async () => {
    const saved = globalThis.fetch;
    globalThis.fetch = async () => new Response('global');
    try {
      const get = hedgedFetch(createHedge({ delayMs: 50 }));
      expect(await (await get('https://api.test/')).text()).toBe('global');
    } finally {
      globalThis.fetch = saved;
    }
  });

  it('isHedgeable: idempotent methods, or a key; never a stream body', () => {
    const none = new Headers();
    const keyed = new Headers({ 'Idempotency-Key': 'k' });
    expect(isHedgeable('get', none, undefined)).toBe(true);
    expect(isHedgeable('PUT', none, 'x')).toBe(true);
    expect(isHedgeable('POST', none, 'x')).toBe(false);
    expect(isHedgeable('PATCH', none, 'x')).toBe(false);
    expect(isHedgeable('POST', keyed, 'x')).toBe(true);
    expect(isHedgeable('PUT', none, new ReadableStream())).toBe(false);
  });

  it.each([
    [{ statuses: [99] }, /statuses must be an array of HTTP statuses/],
    [{ statuses: '503' }, /statuses must be an array of HTTP statuses/],
    [{ fetch: 1 }, /fetch must be a function, got 1/],
    [{ fetches: 1 }, /unknown hedgedFetch option 'fetches'/],
    [null, /the hedgedFetch options must be an object, got null/],
  ])('hedgedFetch(hedge, %o) throws a TypeError', (options, message) => {
    expect(() => hedgedFetch(createHedge(), options as never)).toThrow(TypeError);
    expect(() => hedgedFetch(createHedge(), options as never)).toThrow(message);
  });

  it('hedgedFetch checks its hedge', () => {
    expect(() => hedgedFetch(undefined as never)).toThrow(/hedge must be a hedge from createHedge\(\)/);
  });
});
