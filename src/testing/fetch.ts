import { type Exchange, resetError, toResponse } from './exchange';

/**
 * The fetch a caller gets in its context: it reaches the simulated dependency directly (no interception, no
 * sockets), with fetch's shapes: a Response for any status, a `TypeError('fetch failed')` with the reset as its
 * `cause`, the signal's reason when aborted. Requests to another origin are refused with a TypeError: in a herd, the
 * only dependency is the simulated one.
 */
export function directFetch(exchange: Exchange, origin: string) {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (new URL(request.url).origin !== origin)
      throw new TypeError(`herdless/testing: the herd's fetch reaches only ${origin}, not ${request.url}`);
    const answer = await exchange.send(init?.signal ?? (input instanceof Request ? input.signal : undefined));
    if (answer.kind === 'reset') throw new TypeError('fetch failed', { cause: resetError() });
    return toResponse(answer);
  };
}
