import { type Exchange, resetError, toResponse } from './exchange';

/** The part of an @mswjs/interceptors interceptor the harness uses. */
interface Interceptor {
  apply(): void;
  dispose(): void;
  on(
    event: 'request',
    listener: (args: {
      request: Request;
      controller: { respondWith(response: Response): void; errorWith(reason?: unknown): void };
    }) => Promise<void>,
  ): unknown;
}
type InterceptorClass = new () => Interceptor;

/** Imports the optional peer's two Node interceptors: the node:http one, then the fetch one. */
const importPeer = () =>
  Promise.all([import('@mswjs/interceptors/ClientRequest'), import('@mswjs/interceptors/fetch')]);

/** Loads the optional peer's two Node interceptors, or explains how to get them. */
async function load(imports: () => Promise<unknown[]>): Promise<InterceptorClass[]> {
  try {
    const [http, fetch] = await imports();
    return [
      (http as unknown as { ClientRequestInterceptor: InterceptorClass }).ClientRequestInterceptor,
      (fetch as unknown as { FetchInterceptor: InterceptorClass }).FetchInterceptor,
    ];
  } catch (error) {
    throw new Error(
      "herdless/testing: herd() intercepts global fetch and node:http through the optional peer dependency '@mswjs/interceptors' (npm i -D @mswjs/interceptors@0.41.9); install it, or pass intercept: false and call the context's fetch",
      { cause: error },
    );
  }
}

/**
 * Routes every request to `origin` made through global `fetch` or `node:http`/`node:https` (so axios, got and SDKs
 * built on either) to the simulated dependency, until the returned function is called. Requests to any other origin
 * are left alone (they go to the network, on real time). Resolves once the interceptors are applied.
 */
export async function intercept(
  exchange: Exchange,
  origin: string,
  imports: () => Promise<unknown[]> = importPeer,
): Promise<() => void> {
  const interceptors = (await load(imports)).map((Kind) => new Kind());
  // The node:http interceptor comes first, then fetch's: a reset reaches each as the real one would.
  interceptors.forEach((interceptor, i) => {
    const reset = i === 0 ? resetError : () => new TypeError('fetch failed', { cause: resetError() });
    interceptor.on('request', async ({ request, controller }) => {
      if (new URL(request.url).origin !== origin) return;
      let answer: Awaited<ReturnType<Exchange['send']>>;
      try {
        answer = await exchange.send(request.signal);
      } catch {
        return; // the caller aborted: the interceptor ends the request with the signal's reason itself
      }
      if (answer.kind === 'reset') controller.errorWith(reset());
      else controller.respondWith(toResponse(answer));
    });
    interceptor.apply();
  });
  return () => {
    for (const interceptor of interceptors) interceptor.dispose();
  };
}
