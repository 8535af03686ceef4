import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach } from 'vitest';

/** One request as the server saw it, body included. */
export interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

/** Answers the n-th request (0-based), after its body has been read. */
export type Handler = (seen: Seen, res: ServerResponse, n: number) => void;

export interface TestServer {
  readonly url: string;
  /** Every request, in arrival order. */
  readonly seen: Seen[];
  /** Connections opened so far, and those still open. */
  connections(): { readonly opened: number; readonly open: number };
}

const servers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((close) => close()));
});

/** A real node:http server on 127.0.0.1, an ephemeral port; closed after the test, every socket with it. */
export async function serve(handler: Handler): Promise<TestServer> {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  let opened = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const one = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      seen.push(one);
      handler(one, res, seen.length - 1);
    });
  });
  server.on('connection', (socket) => {
    opened++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  servers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${port}/`, seen, connections: () => ({ opened, open: sockets.size }) };
}

/** Answers with a status, headers and a body. */
export const reply =
  (status: number, headers: Record<string, string> = {}, body = '') =>
  (_: Seen, res: ServerResponse) => {
    res.writeHead(status, headers);
    res.end(body);
  };

/** Answers the requests in turn with these handlers; the last one answers every request after. */
export const inTurn =
  (...handlers: Handler[]): Handler =>
  (seen, res, n) =>
    (handlers[Math.min(n, handlers.length - 1)] as Handler)(seen, res, n);

/** Cuts the connection in the middle of the status line: the client sees a reset before any response. */
export const reset: Handler = (_, res) => {
  res.socket?.write('HTTP/1.1 200 OK\r\nContent-Le');
  res.socket?.destroy();
};
