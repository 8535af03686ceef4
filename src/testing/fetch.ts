import type { FetchInput } from '../http/fetch';
import { type Exchange, resetError, toResponse } from './exchange';

/**
 * The fetch a caller gets in its context: it reaches the simulated dependency directly (no interception, no
 * sockets), with fetch's shapes: a Response for any status, a `TypeError('fetch failed')` with the reset as its
 * `cause`, the signal's reason when aborted. Requests to another origin are refused with a TypeError: in a herd, the
 * only dependency is the simulated one.
 */
export function directFetch(exchange: Exchange, origin: string) {
  return async (input: FetchInput, init?: RequestInit): Promise<Response> => {
    // No Request is built: undici's constructor would cost more than the rest of the trip.
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(origin) || new URL(url).origin !== origin)
      throw new TypeError(`herdless/testing: the herd's fetch reaches only ${origin}, not ${url}`);
    const answer = await exchange.send(
      init?.signal ?? (typeof input === 'object' && 'signal' in input ? input.signal : undefined),
    );
    if (answer.kind === 'reset') throw new TypeError('fetch failed', { cause: resetError() });
    return toResponse(answer);
  };
}
