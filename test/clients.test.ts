import axios from 'axios';
import got from 'got';
import ky from 'ky';
import { describe, expect, it } from 'vitest';
import { getStatus, isTransient, type RetryEvent, readRetryAfter, retry } from '../src/index';
import { inTurn, reply, reset, serve } from './http-server';

// The real clients against a real server: what they throw, and what the default isTransient and readRetryAfter make
// of it. Each client's own retries are off, as they should be under herdless.

/** A server with a route per case: a 503 asking for 3 s, a 404, a reset, a slow answer. */
async function routes() {
  return serve((seen, res) => {
    if (seen.url === '/503') reply(503, { 'Retry-After': '3' }, 'busy')(seen, res);
    else if (seen.url === '/404') reply(404)(seen, res);
    else if (seen.url === '/reset') reset(seen, res, 0);
    else setTimeout(() => res.end('late'), 10_000).unref();
  });
}

/** What a failing call rejects with. */
const thrown = (call: () => Promise<unknown>) =>
  call().then(
    () => expect.fail('expected the call to fail'),
    (error: unknown) => error,
  );

/** A port nothing listens on (the server is closed at once). */
async function refusedUrl() {
  const server = await serve(reply(200));
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return { url: `http://127.0.0.1:${port}/`, server };
}

describe.each([
  {
    client: 'axios 1.21',
    get: (url: string, signal?: AbortSignal, timeout = 5_000) => axios.get(url, { timeout, signal }),
    statusOf: (e: any) => e.response.status,
  },
  {
    client: 'axios 1.21 (fetch adapter)',
    get: (url: string, signal?: AbortSignal, timeout = 5_000) => axios.get(url, { adapter: 'fetch', timeout, signal }),
    statusOf: (e: any) => e.response.status,
  },
  {
    client: 'got 14.6',
    get: (url: string, signal?: AbortSignal, timeout = 5_000) =>
      got(url, { retry: { limit: 0 }, timeout: { request: timeout }, signal }),
    statusOf: (e: any) => e.response.statusCode,
  },
  {
    client: 'ky 1.14',
    get: (url: string, signal?: AbortSignal, timeout = 5_000) => ky.get(url, { retry: 0, timeout, signal }),
    statusOf: (e: any) => e.response.status,
  },
])('$client against a real server', ({ get, statusOf }) => {
  it('a 503: transient, its Retry-After read; a 404: permanent', async () => {
    const server = await routes();
    const busy = await thrown(() => get(`${server.url}503`));
    expect(statusOf(busy)).toBe(503);
    expect(getStatus(busy)).toBe(503);
    expect(isTransient(busy)).toBe(true);
    expect(readRetryAfter(busy)).toBe(3_000);
    const missing = await thrown(() => get(`${server.url}404`));
    expect(getStatus(missing)).toBe(404);
    expect(isTransient(missing)).toBe(false);
    expect(readRetryAfter(missing)).toBeUndefined();
  });

  it('a connection reset, a refused connection and a timeout: transient', async () => {
    const server = await routes();
    expect(isTransient(await thrown(() => get(`${server.url}reset`)))).toBe(true);
    expect(isTransient(await thrown(() => get(`${server.url}slow`, undefined, 50)))).toBe(true);
    const refused = await refusedUrl();
    expect(isTransient(await thrown(() => get(refused.url)))).toBe(true);
  });

  it("the caller's abort: permanent", async () => {
    const server = await routes();
    const controller = new AbortController();
    const call = thrown(() => get(`${server.url}slow`, controller.signal));
    setTimeout(() => controller.abort(), 10);
    expect(isTransient(await call)).toBe(false);
  });

  it('under retry(): a 429 with retry-after-ms and a reset are retried, the wait honoured', async () => {
    const server = await serve(inTurn(reply(429, { 'retry-after-ms': '7' }), reset, reply(200, {}, 'ok')));
    const events: RetryEvent[] = [];
    await retry(async () => void (await get(server.url)), {
      jitter: 'none',
      baseMs: 1,
      onRetry: (e) => void events.push(e),
    });
    expect(events.map((e) => e.delayMs)).toEqual([7, 2]); // the server's 7 ms exactly ('none'), then the backoff
    expect(server.seen).toHaveLength(3);
  });
});

describe('axios and got: errors the server does not cause', () => {
  it("got's cancel() is a CancelError: permanent", async () => {
    const server = await routes();
    const request = got(`${server.url}slow`, { retry: { limit: 0 } });
    setTimeout(() => request.cancel(), 10);
    const error = await thrown(() => request);
    expect(error).toMatchObject({ name: 'CancelError' });
    expect(isTransient(error)).toBe(false);
  });

  it("axios's ERR_NETWORK (a browser's network error, lib/adapters/xhr.js): transient", () => {
    const error = new axios.AxiosError('Network Error', axios.AxiosError.ERR_NETWORK);
    expect(isTransient(error)).toBe(true);
  });
});

describe('AWS SDK v3 errors, shaped as @smithy/smithy-client (src/exceptions.ts) throws them', () => {
  /** smithy-client's ServiceException: name, $fault, $metadata, $retryable (undefined unless modeled), $response. */
  class ServiceException extends Error {
    readonly $fault: 'client' | 'server';
    $response?: unknown;
    $retryable?: { throttling?: boolean } | undefined;
    $metadata: Record<string, unknown>;
    constructor(options: {
      name: string;
      $fault: 'client' | 'server';
      $metadata: Record<string, unknown>;
      message?: string;
      $retryable?: { throttling?: boolean };
    }) {
      super(options.message);
      Object.setPrototypeOf(this, Object.getPrototypeOf(this).constructor.prototype);
      this.name = options.name;
      this.$fault = options.$fault;
      this.$metadata = options.$metadata;
      this.$retryable = options.$retryable;
    }
  }
  const metadata = (httpStatusCode: number) => ({ httpStatusCode, requestId: 'R1', attempts: 1, totalRetryDelay: 0 });
  const aws = (name: string, httpStatusCode: number, $retryable?: { throttling?: boolean }) => {
    const $fault = httpStatusCode >= 500 ? 'server' : 'client';
    const error = new ServiceException({
      name,
      $fault,
      $metadata: metadata(httpStatusCode),
      message: name,
      $retryable,
    });
    // @smithy/middleware-serde (deserializerMiddleware.ts) attaches the raw response, non-enumerable.
    return Object.defineProperty(error, '$response', {
      value: { statusCode: httpStatusCode, headers: { 'x-amzn-requestid': 'R1' } },
    });
  };

  it.each([
    // A throttling name decides whatever the status (DynamoDB throttles with a 400): THROTTLING_ERROR_CODES.
    [aws('ThrottlingException', 400), true],
    [aws('ProvisionedThroughputExceededException', 400), true],
    [aws('SlowDown', 503), true],
    [aws('TransactionInProgressException', 400), true],
    [aws('RequestTimeoutException', 408), true],
    // A modeled @retryable trait (STS's IDPCommunicationErrorException has `$retryable = {}`).
    [aws('IDPCommunicationErrorException', 400, {}), true],
    [aws('CodedThrottlingError', 400, { throttling: true }), true],
    // Otherwise the status decides.
    [aws('InternalServerError', 500), true],
    [aws('ServiceUnavailable', 503), true],
    [aws('TooManyRequests', 429), true],
    [aws('ValidationException', 400), false],
    [aws('ResourceNotFoundException', 400), false],
    [aws('AccessDeniedException', 403), false],
    [aws('ConditionalCheckFailedException', 400), false],
  ])('%s -> %s', (error, transient) => {
    expect(isTransient(error)).toBe(transient);
  });

  // @smithy/service-error-classification 4.x (src/constants.ts): THROTTLING_ERROR_CODES, then TRANSIENT_ERROR_CODES
  // but AbortError (the caller's abort, permanent here by rule 4). Each at a 400, where the status alone says
  // permanent: dropping a name from the classifier fails its row.
  it.each([
    'BandwidthLimitExceeded',
    'EC2ThrottledException',
    'LimitExceededException',
    'PriorRequestNotComplete',
    'ProvisionedThroughputExceededException',
    'RequestLimitExceeded',
    'RequestThrottled',
    'RequestThrottledException',
    'SlowDown',
    'ThrottledException',
    'Throttling',
    'ThrottlingException',
    'TooManyRequestsException',
    'TransactionInProgressException',
    'TimeoutError',
    'RequestTimeout',
    'RequestTimeoutException',
  ])('the SDK lists %s: transient even with a 400', (name) => {
    expect(isTransient(aws(name, 400))).toBe(true);
    expect(isTransient(aws(`${name}X`, 400))).toBe(false); // the name itself decides, not its prefix
  });

  it('a throttling name counts only beside $metadata: elsewhere the other rules decide', () => {
    const named = () => Object.assign(new RangeError('x'), { name: 'ThrottlingException' });
    expect(isTransient(named())).toBe(false); // a RangeError: a bug
    expect(isTransient(Object.assign(named(), { $metadata: metadata(400) }))).toBe(true);
  });
});

describe('gRPC errors, shaped as @grpc/grpc-js callErrorFromStatus (src/call.ts) throws them', () => {
  /** @grpc/grpc-js Metadata (src/metadata.ts): keys lower-cased, get() returns every value as an array. */
  class Metadata {
    readonly #map = new Map<string, string[]>();
    add(key: string, value: string) {
      const k = key.toLowerCase();
      this.#map.set(k, [...(this.#map.get(k) ?? []), value]);
    }
    get(key: string): string[] {
      return this.#map.get(key.toLowerCase()) ?? [];
    }
  }
  const STATUS = [
    'OK',
    'CANCELLED',
    'UNKNOWN',
    'INVALID_ARGUMENT',
    'DEADLINE_EXCEEDED',
    'NOT_FOUND',
    'ALREADY_EXISTS',
    'PERMISSION_DENIED',
    'RESOURCE_EXHAUSTED',
    'FAILED_PRECONDITION',
    'ABORTED',
    'OUT_OF_RANGE',
    'UNIMPLEMENTED',
    'INTERNAL',
    'UNAVAILABLE',
    'DATA_LOSS',
    'UNAUTHENTICATED',
  ];
  const callErrorFromStatus = (status: { code: number; details: string; metadata: Metadata }) => {
    const message = `${status.code} ${STATUS[status.code]}: ${status.details}`;
    const error = new Error(message);
    const stack = `${error.stack}\nfor call at\n(caller stack)`;
    return Object.assign(new Error(message), status, { stack });
  };

  it('UNAVAILABLE, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED and ABORTED are transient; every other code permanent', () => {
    const transient = STATUS.filter((_, code) =>
      isTransient(callErrorFromStatus({ code, details: 'x', metadata: new Metadata() })),
    );
    expect(transient).toEqual(['DEADLINE_EXCEEDED', 'RESOURCE_EXHAUSTED', 'ABORTED', 'UNAVAILABLE']);
  });

  it('reads grpc-retry-pushback-ms from its metadata; a negative one is "do not retry"', () => {
    const metadata = new Metadata();
    metadata.add('grpc-retry-pushback-ms', '250');
    expect(readRetryAfter(callErrorFromStatus({ code: 8, details: 'quota', metadata }))).toBe(250);
    const stop = new Metadata();
    stop.add('grpc-retry-pushback-ms', '-1');
    expect(readRetryAfter(callErrorFromStatus({ code: 14, details: 'down', metadata: stop }))).toBe(Infinity);
  });

  it('a numeric code without metadata is not read as gRPC (MongoDB code 6 is HostUnreachable)', () => {
    expect(isTransient(Object.assign(new Error('host unreachable'), { code: 6 }))).toBe(true);
    expect(isTransient(Object.assign(new Error('x'), { code: 99, metadata: new Metadata() }))).toBe(true);
    expect(isTransient(Object.assign(new Error('x'), { code: -1, metadata: new Metadata() }))).toBe(true); // below 0
    expect(isTransient(Object.assign(new Error('x'), { code: 3, metadata: null }))).toBe(true); // null is no metadata
  });
});
