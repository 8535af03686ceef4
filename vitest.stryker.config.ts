import { defineConfig } from 'vitest/config';

// The tests Stryker runs against mutants of the core (src/*.ts minus the CLI): the unit, property and load tests (the
// load tests pin ErrorLog's bounds and RetryError's instanceof). The simulator, CLI, demo, package and type tests run
// against the simulator or the build, not the core's branches, and would only slow each mutant down.
export default defineConfig({
  test: {
    include: [
      'test/classify.test.ts',
      'test/decide.test.ts',
      'test/delay.test.ts',
      'test/retry-after.test.ts',
      'test/retry.test.ts',
      'test/load.test.ts',
    ],
    typecheck: { enabled: false },
    allowOnly: false,
    testTimeout: 30_000, // instrumented code is several times slower
  },
});
