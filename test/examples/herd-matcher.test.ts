import { expect, it } from 'vitest';
import { retryingFetch } from '../../src/index';
import { herd, herdMatchers, type NoHerdOptions } from '../../src/testing/index';

expect.extend(herdMatchers);
declare module 'vitest' {
  interface Matchers<T = any> {
    toStayUnderCapacity(options?: NoHerdOptions): T;
  }
}

it('retryingFetch stays under capacity when 200 callers fail together', async () => {
  expect(await herd(({ url }) => retryingFetch({ maxAttempts: 10 })(url))).toStayUnderCapacity();
});
