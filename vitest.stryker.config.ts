import { defineConfig } from 'vitest/config';

// The tests Stryker runs against mutants of the core (src/*.ts minus the CLI): the unit and property tests.
// The simulator, CLI, demo, package and type tests do not reach the core's branches, and the load tests (100,000 calls)
// cover every line of retry.ts, so with them each mutant would cost seconds: a full run would not fit in 20 minutes.
export default defineConfig({
  test: {
    include: [
      'test/classify.test.ts',
      'test/decide.test.ts',
      'test/delay.test.ts',
      'test/retry-after.test.ts',
      'test/retry.test.ts',
    ],
    typecheck: { enabled: false },
    allowOnly: false,
    testTimeout: 30_000, // instrumented code is several times slower
  },
});
