/**
 * The demo's dependency: a real node:http server on 127.0.0.1 with a fixed capacity. It serves one request at a time,
 * first in first out, `capacity` a second (each takes `1000 / capacity` ms of its time), with an unbounded queue, as
 * many servers do; during the slowdown each request takes ten times as long (at `slowdownCapacity` 0.1), and during a
 * partial failure each request fails with probability `failureRate`: a 503 after its turn, as fast as a success (the
 * server has room; it is not slow, it is broken for some requests). It does not notice when a client gives up: a request whose client closed the connection while it waited is still worked on when
 * its turn comes (wasted work, counted), which is how a backlog outlives the blip that made it.
 *
 * The work itself is a timer (the server's time is modelled, not burned on the CPU the clients share), so the demo
 * measures the retry policies, not the machine.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRng, type Rng } from '../src/simulate/rng';

export interface CapacityServerOptions {
  /** Requests served per second at full speed. */
  readonly capacity: number;
  /** The trouble (the slowdown, or the partial failure), in ms from the server's start: `[troubleFromMs, troubleToMs)`. */
  readonly troubleFromMs: number;
  readonly troubleToMs: number;
  /** The capacity during the trouble, as a share of `capacity`: 1 for no slowdown. */
  readonly slowdownCapacity: number;
  /** The share of the requests whose turn begins during the trouble that fail with a 503: 0 for none. */
  readonly failureRate: number;
  /** The seed of which requests fail. */
  readonly seed: number;
  /** The width of a load window, in ms: `load` counts arrivals per window. */
  readonly windowMs: number;
}

/**
 * A request's turn at a server with options `o`, arriving at `nowMs` while the work queued before it ends at
 * `busyUntilMs` (ms from the start): first in first out, its work begins when that ends, and takes `1000 / capacity`
 * ms, or the slowdown's longer share if it begins during the trouble. Pure: a test replays a lane's server with it.
 */
export function turn(
  o: CapacityServerOptions,
  nowMs: number,
  busyUntilMs: number,
): { readonly end: number; readonly trouble: boolean } {
  const begin = Math.max(nowMs, busyUntilMs);
  const trouble = begin >= o.troubleFromMs && begin < o.troubleToMs;
  return { end: begin + 1_000 / (o.capacity * (trouble ? o.slowdownCapacity : 1)), trouble };
}

/** The request header that carries a request's id (see {@link CapacityServer.reads}). */
export const REQUEST_ID = 'x-demo-request';

export class CapacityServer {
  /** Requests that arrived in each window, from the start. */
  readonly load: number[] = [];
  /** Requests that arrived in all. */
  received = 0;
  /**
   * How many times each request id (the {@link REQUEST_ID} header, `''` when it has none) arrived: once each when
   * nothing is counted twice.
   */
  readonly reads = new Map<string, number>();
  /**
   * When (a `performance.now()`) a connection from each client port last closed at the server: it had read it to its
   * end (a client that closes a connection sends its end after its requests), so a request written on it before then
   * and not read never will be. A time, not a flag, as a port may be reused for a later connection to this server.
   */
  readonly closedAt = new Map<number, number>();
  /** Requests answered to a client that was still waiting (with a 200 or a 503). */
  served = 0;
  /** Requests answered with a 503 (the partial failure), among `served`. */
  failed = 0;
  /** Requests worked on after their client had given up (closed the connection): wasted work. */
  wasted = 0;
  readonly #o: CapacityServerOptions;
  readonly #server = createServer((req, res) => this.#arrive(req, res));
  /** The responses waiting for their turn: cleared when the server closes. */
  readonly #pending = new Set<ReturnType<typeof setTimeout>>();
  #start = 0;
  #busyUntil = 0;
  #rng: Rng;

  constructor(options: CapacityServerOptions) {
    this.#o = options;
    this.#rng = createRng(options.seed);
    this.#server.keepAliveTimeout = 60_000;
    this.#server.on('connection', (socket) => {
      const port = socket.remotePort;
      if (port !== undefined) socket.once('close', () => this.closedAt.set(port, performance.now()));
    });
  }

  /** Listens on a free port of 127.0.0.1 and resolves with the URL to call. Time 0 is set by `begin`. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/`;
  }

  /**
   * Sets time 0 (the start of the first load window and the reference of the slowdown) to `origin` (a
   * `performance.now()`), with an empty queue and every count at 0 (requests before it warmed the connections up).
   */
  begin(origin: number): void {
    this.#start = origin;
    this.#busyUntil = 0;
    this.load.length = 0;
    this.received = 0;
    this.reads.clear();
    this.closedAt.clear();
    this.served = 0;
    this.failed = 0;
    this.wasted = 0;
    this.#rng = createRng(this.#o.seed);
  }

  /** How far behind the server is at `timeMs` (ms from the start): the queued work it has not done yet. */
  backlogMs(timeMs: number): number {
    return Math.max(0, this.#busyUntil - timeMs);
  }

  /** Drops the work still queued (nobody will read it), closes every connection and the server. */
  async close(): Promise<void> {
    for (const timer of this.#pending) clearTimeout(timer);
    this.#pending.clear();
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  #arrive(req: IncomingMessage, res: ServerResponse): void {
    const o = this.#o;
    const now = performance.now() - this.#start;
    this.received++;
    const id = String(req.headers[REQUEST_ID] ?? '');
    this.reads.set(id, (this.reads.get(id) ?? 0) + 1);
    const w = Math.max(0, Math.floor(now / o.windowMs));
    while (this.load.length <= w) this.load.push(0);
    this.load[w] = (this.load[w] as number) + 1;
    req.resume();
    // First in first out: this request's work begins when the work queued before it ends.
    const { end, trouble } = turn(o, now, this.#busyUntil);
    this.#busyUntil = end;
    const fails = trouble && o.failureRate > 0 && this.#rng.next() < o.failureRate;
    const timer = setTimeout(() => {
      this.#pending.delete(timer);
      if (res.destroyed || res.socket === null) this.wasted++;
      else {
        this.served++;
        if (fails) this.failed++;
        res.writeHead(fails ? 503 : 200, { 'content-type': 'text/plain' }).end(fails ? 'unavailable' : 'ok');
      }
    }, this.#busyUntil - now);
    this.#pending.add(timer);
  }
}
