/**
 * The herd against a real server: a node:http server on 127.0.0.1 with an outage and then a capacity limit, and a few
 * hundred real clients using the built-in fetch, once per strategy. Every request's arrival is counted at the server.
 */
import { setMaxListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCircuitBreaker, createRetryBudget, type RetryOptions, retry } from '../src/index';
import { type OutageFigures, OutageServer, summarize } from '../src/simulate/index';

export interface DemoOptions {
  /** Real clients per strategy. Default 300. */
  readonly clients?: number;
  /** The first requests are spread over this window, in ms. Default 100. */
  readonly startWindowMs?: number;
  /** The server answers 503 to everything for this long, in ms. Default 3,000. */
  readonly outageMs?: number;
  /** Then it serves this many requests per window and answers 503 to the rest. Default 30. */
  readonly capacity?: number;
  readonly capacityWindowMs?: number;
  /** Each client's attempts. Default 10. */
  readonly maxAttempts?: number;
  /** The naive loop's fixed delay, and the cap of herdless's backoff, in ms. Defaults 500 and 2,000. */
  readonly fixedDelayMs?: number;
  readonly capMs?: number;
  /** Aborts the whole demo (Ctrl-C). */
  readonly signal?: AbortSignal;
  /** Called when a strategy's run ends. */
  readonly onStrategy?: (figures: DemoFigures) => void;
}

/** One strategy's figures, plus the two counts that must agree. */
export interface DemoFigures extends OutageFigures {
  /** Requests the clients sent (fetch calls). */
  readonly sent: number;
  /** Requests the server received. Equal to `sent` when nothing was lost. */
  readonly received: number;
  /** Clients that ended in an error other than giving up on 503s (counted, never dropped). */
  readonly errors: number;
  readonly wallMs: number;
}

type Client = (url: string, count: () => void, signal: AbortSignal) => Promise<void>;

/** One GET that counts itself, reads the body (so the connection is reused) and throws on a non-2xx status. */
async function get(url: string, count: () => void, signal: AbortSignal): Promise<void> {
  count();
  const res = await fetch(url, { signal });
  await res.arrayBuffer();
  if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status}`), { status: res.status });
}

/** The strategies the demo compares: the loop a user writes by hand, and herdless with two jitters. */
export function strategies(o: Required<Omit<DemoOptions, 'signal' | 'onStrategy'>>): [string, Client][] {
  const sleep = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const done = () => {
        signal.removeEventListener('abort', stop);
        resolve();
      };
      const timer = setTimeout(done, ms);
      const stop = () => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      signal.addEventListener('abort', stop, { once: true });
    });
  const naive: Client = async (url, count, signal) => {
    // What many codebases have: try, wait a fixed time, try again.
    for (let attempt = 1; ; attempt++) {
      try {
        return await get(url, count, signal);
      } catch (error) {
        if (attempt >= o.maxAttempts || signal.aborted) throw error;
        await sleep(o.fixedDelayMs, signal);
      }
    }
  };
  const herdless = (jitter: 'full' | 'decorrelated', shared: () => RetryOptions = () => ({})): Client => {
    let lane: RetryOptions | undefined; // one budget and breaker per lane, shared by its clients, made when it starts
    return (url, count, signal) => {
      lane ??= shared();
      return retry(() => get(url, count, signal), {
        jitter,
        maxAttempts: o.maxAttempts,
        capMs: o.capMs,
        signal,
        ...lane,
      });
    };
  };
  return [
    [`naive loop, fixed ${o.fixedDelayMs} ms`, naive],
    ['herdless, full jitter', herdless('full')],
    ['herdless, decorrelated', herdless('decorrelated')],
    ['herdless, full + budget', herdless('full', () => ({ budget: createRetryBudget() }))],
    [
      'herdless, full + budget + breaker',
      herdless('full', () => ({
        budget: createRetryBudget(),
        breaker: createCircuitBreaker({ breakMs: o.outageMs / 2, maxBreakMs: o.outageMs }),
      })),
    ],
  ];
}

/** An HTTP server that judges each request with a fresh {@link OutageServer} per strategy (see `reset`). */
function startServer(o: { outageMs: number; capacity: number; capacityWindowMs: number }) {
  const state = { start: 0, model: new OutageServer(o.outageMs, o.capacity, o.capacityWindowMs) };
  const server: Server = createServer((req, res) => {
    const ok = state.model.arrive(performance.now() - state.start);
    req.resume();
    res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok' : 'busy');
  });
  server.keepAliveTimeout = 60_000;
  const reset = () => {
    state.start = performance.now();
    state.model = new OutageServer(o.outageMs, o.capacity, o.capacityWindowMs);
  };
  return { server, state, reset };
}

/** Runs every strategy against a fresh count on one server; resolves with each strategy's figures. */
export async function runDemo(options: DemoOptions = {}): Promise<DemoFigures[]> {
  const o = {
    clients: options.clients ?? 300,
    startWindowMs: options.startWindowMs ?? 100,
    outageMs: options.outageMs ?? 3_000,
    capacity: options.capacity ?? 30,
    capacityWindowMs: options.capacityWindowMs ?? 100,
    maxAttempts: options.maxAttempts ?? 10,
    fixedDelayMs: options.fixedDelayMs ?? 500,
    capMs: options.capMs ?? 2_000,
  };
  const stop = new AbortController();
  // Every in-flight fetch and retry() listens to this one signal: hundreds at once is expected, not a leak.
  setMaxListeners(0, stop.signal);
  const onAbort = () => stop.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const { server, state, reset } = startServer(o);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const results: DemoFigures[] = [];
  try {
    // Open the connections first, so that the first strategy does not pay for connection set-up the others skip.
    await Promise.all(
      Array.from({ length: o.clients }, () => fetch(url, { signal: stop.signal }).then((r) => r.arrayBuffer())),
    );
    for (const [name, client] of strategies(o)) {
      stop.signal.throwIfAborted();
      reset();
      let sent = 0;
      let gaveUp = 0;
      let errors = 0;
      let lastFinishMs = 0;
      const latencies: number[] = [];
      const count = () => void sent++;
      await Promise.all(
        Array.from({ length: o.clients }, async () => {
          await new Promise((r) => setTimeout(r, Math.random() * o.startWindowMs));
          const begun = performance.now();
          try {
            await client(url, count, stop.signal);
            latencies.push(performance.now() - begun);
          } catch (error) {
            // Out of attempts on 503s, or refused by the budget or the open breaker, is giving up; anything else is an
            // error, counted all the same.
            const name = (error as { name?: string }).name;
            if (name === 'RetryError' || name === 'CircuitOpenError' || (error as { status?: number }).status === 503)
              gaveUp++;
            else errors++;
          }
          lastFinishMs = Math.max(lastFinishMs, performance.now() - state.start);
        }),
      );
      stop.signal.throwIfAborted();
      const figures = summarize(
        name,
        {
          requests: state.model.received,
          succeeded: latencies.length,
          gaveUp,
          lastFinishMs,
          latencies: Float64Array.from(latencies),
          load: [...state.model.load],
        },
        o,
      );
      const result = {
        ...figures,
        sent,
        received: state.model.received,
        errors,
        wallMs: performance.now() - state.start,
      };
      results.push(result);
      options.onStrategy?.(result);
    }
    return results;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
