import axios from 'axios';
import got from 'got';
import ky from 'ky';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { isTransient, retry } from '../src/index';
import { type Handler, inTurn, reply, serve } from './http-server';

// Issue 20, item 3: a connection cut in the middle of the body, after a 200's headers arrived, read inside retry()
// as the README advises. The clients then throw an error carrying the 200 (got's ReadError/RequestError, axios's
// AxiosError "stream has been aborted"): a success status is no verdict on a failure, and the call is retried.

const BODY = JSON.stringify({ items: ['pen', 'ink'] });

/** Sends a 200's headers and half its body, then cuts the connection: RST (a reset) or FIN (an early close). */
const cut =
  (how: 'RST' | 'FIN'): Handler =>
  (_seen, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(BODY.length) });
    res.write(BODY.slice(0, 5));
    // A moment later, so the client has the headers (and its 200) before the cut.
    setTimeout(() => (how === 'RST' ? res.socket?.resetAndDestroy() : res.socket?.end()), 20);
  };

const clients: [string, (url: string, signal: AbortSignal) => Promise<unknown>][] = [
  ['got 14.6', (url, signal) => got(url, { retry: { limit: 0 }, signal }).json()],
  ['axios 1.21', async (url, signal) => (await axios.get(url, { signal })).data],
  ['axios 1.21 (fetch adapter)', async (url, signal) => (await axios.get(url, { adapter: 'fetch', signal })).data],
  ['ky 1.14', (url, signal) => ky.get(url, { retry: 0, signal }).json()],
  ['fetch (Node)', async (url, signal) => (await fetch(url, { signal })).json()],
  ['undici 7.30 fetch', async (url, signal) => (await undici.fetch(url, { signal })).json()],
];

describe.each(clients)('%s: a body cut after a 200 is retried', (_client, get) => {
  it.each(['RST', 'FIN'] as const)('cut with %s, then whole: resolves with the body on attempt 2', async (how) => {
    const server = await serve(inTurn(cut(how), reply(200, { 'content-type': 'application/json' }, BODY)));
    const failures: unknown[] = [];
    const items = await retry(({ signal }) => get(server.url, signal), {
      baseMs: 1,
      onFailure: ({ error }) => void failures.push(error),
    });
    expect(items).toEqual({ items: ['pen', 'ink'] });
    expect(server.seen).toHaveLength(2);
    expect(failures).toHaveLength(1);
    expect(isTransient(failures[0])).toBe(true);
  });
});

describe('the evidence: a status below 400 on an error gives way; 400 and up still decides', () => {
  it("got's error for a cut body carries the 200 and ECONNRESET; the code wins", async () => {
    const server = await serve(cut('RST'));
    const error = await got(server.url, { retry: { limit: 0 } })
      .json()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ECONNRESET', response: { statusCode: 200 } });
    expect(isTransient(error)).toBe(true);
  });

  it("axios's error for a body closed early carries the 200 and no network code; rule 5 retries it", async () => {
    const server = await serve(cut('FIN'));
    const error = await axios.get(server.url).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ERR_BAD_RESPONSE', message: 'stream has been aborted' });
    expect((error as { response: { status: number } }).response.status).toBe(200);
    expect(isTransient(error)).toBe(true);
  });

  it.each([
    [{ status: 200, code: 'ECONNRESET' }, true],
    [{ status: 204 }, true], // an error with a success status and nothing else: unknown, rule 5
    [{ status: 304, name: 'TypeError' }, false], // a bug still is one
    [{ status: 399, code: 'ECONNRESET' }, true],
    [{ status: 400, code: 'ECONNRESET' }, false], // a 4xx answer decides, whatever came after it
    [{ status: 404, code: 'ECONNRESET' }, false],
    [{ status: 503, code: 'ERR_BAD_RESPONSE' }, true],
  ])('%o -> %s', (error, transient) => {
    expect(isTransient(error)).toBe(transient);
  });
});
