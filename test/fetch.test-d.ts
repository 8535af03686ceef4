import { describe, expectTypeOf, it } from 'vitest';
import {
  createPolicy,
  type Fetch,
  type FetchInput,
  givenUp,
  type RetryingFetchOptions,
  retryingFetch,
  type StopReason,
} from '../src/index';

describe('retryingFetch types', () => {
  it("returns a function with fetch's signature, usable where fetch is", () => {
    const fetchWithRetry = retryingFetch();
    expectTypeOf(fetchWithRetry).toEqualTypeOf<Fetch>();
    expectTypeOf(fetchWithRetry).parameters.toEqualTypeOf<[input: FetchInput, init?: RequestInit | undefined]>();
    expectTypeOf<FetchInput>().toEqualTypeOf<string | URL | Request>(); // no DOM RequestInfo: Node-only projects have none
    expectTypeOf(fetchWithRetry).returns.toEqualTypeOf<Promise<Response>>();
    const useFetch = (f: (input: string, init?: RequestInit) => Promise<Response>) => f;
    useFetch(fetchWithRetry);
    retryingFetch({ fetch: globalThis.fetch });
  });

  it('takes the retry options but shouldRetryResult, and its own four', () => {
    retryingFetch({ maxAttempts: 5, timeoutMs: 10_000, methods: ['GET', 'POST'], statuses: [503] });
    retryingFetch({ idempotencyKey: true });
    retryingFetch({ idempotencyKey: 'X-Request-Id' });
    retryingFetch({ idempotencyKey: (input) => String(input) });
    retryingFetch({ onRetry: (event) => void expectTypeOf(event.delayMs).toEqualTypeOf<number>() });
    // @ts-expect-error retryingFetch decides shouldRetryResult from `statuses`
    retryingFetch({ shouldRetryResult: () => true });
    // @ts-expect-error statuses are numbers
    retryingFetch({ statuses: ['503'] });
    expectTypeOf<RetryingFetchOptions['isTransient']>().toEqualTypeOf<
      ((error: unknown, attempt: number) => boolean | PromiseLike<boolean>) | undefined
    >();
  });

  it('accepts a policy from createPolicy(), and a spread of one with its own options', () => {
    const policy = createPolicy({ maxAttempts: 3 });
    retryingFetch(policy);
    retryingFetch({ ...policy, idempotencyKey: true, attemptHeader: 'X-Attempt' });
    // @ts-expect-error attemptHeader is a header name
    retryingFetch({ attemptHeader: true });
  });

  it('givenUp takes any outcome and names a StopReason or nothing', () => {
    expectTypeOf(givenUp).parameter(0).toEqualTypeOf<unknown>();
    expectTypeOf(givenUp).returns.toEqualTypeOf<StopReason | undefined>();
  });
});
