import { defineConfig } from 'vitest/config';

// The tests Stryker runs against mutants of the core (src/*.ts minus the CLI): the unit, property and load tests (the
// load tests pin ErrorLog's bounds and RetryError's instanceof). The simulator, CLI, demo, package and type tests run
// against the simulator or the build, not the core's branches, and would only slow each mutant down. mutation/run.sh
// sets MUTATE to the file under test; a file listed below gets the tests that exercise it (the shared window through
// the budget and the breaker, fetch through a real server), every other file the default set.
const core = [
  'test/classify.test.ts',
  'test/decide.test.ts',
  'test/delay.test.ts',
  'test/retry-after.test.ts',
  'test/retry.test.ts',
  'test/load.test.ts',
];
const byFile: Record<string, string[]> = {
  // permanent() and its unwrapping (the wrapper from another copy, a look-alike) are tested with the hooks.
  'src/errors.ts': [...core, 'test/hooks.test.ts'],
  // The AWS SDK v3 and gRPC error shapes, and the real clients' errors, are classified in the clients tests.
  'src/classify.ts': [...core, 'test/clients.test.ts'],
  // Every header form past Retry-After (RateLimit, gRPC pushback, ...) is read in the headers and clients tests.
  'src/retry-after.ts': [...core, 'test/retry-after-headers.test.ts', 'test/clients.test.ts'],
  'src/window.ts': ['test/window.test.ts', 'test/budget.test.ts', 'test/breaker.test.ts'],
  // The budget and the breaker are driven through retry()'s Pass (a budget behind a breaker in breaker.test.ts; the
  // first attempt, a broken clock and callbacks at the deadline in retry-edges.test.ts), and through the simulator.
  'src/budget.ts': ['test/budget.test.ts', 'test/breaker.test.ts', 'test/retry-edges.test.ts', 'test/overload.test.ts'],
  'src/breaker.ts': [
    'test/breaker.test.ts',
    'test/breaker-edges.test.ts',
    'test/budget.test.ts',
    'test/retry-edges.test.ts',
    'test/overload.test.ts',
  ],
  // validate.ts's checks for the budget and breaker options (having(), the named unknown-option message) run there,
  // and so do policy.ts's calls of them.
  'src/validate.ts': [...core, 'test/budget.test.ts', 'test/breaker.test.ts'],
  // policy.ts's defaults and checks of the hooks' options (unref, retryAfter): hooks.test.ts.
  'src/policy.ts': [...core, 'test/hooks.test.ts', 'test/budget.test.ts', 'test/breaker.test.ts'],
  'src/http/fetch.ts': ['test/fetch.test.ts', 'test/fetch-stub.test.ts', 'test/fetch-shapes.test.ts'],
  // wait.ts's registry and guard: the abort orderings of the hooks tests (a synthetic event, an attempt's signal), and
  // guard()'s arming at once under a fake clock (fake-clocks.test.ts).
  'src/wait.ts': [...core, 'test/hooks.test.ts', 'test/retry-edges.test.ts', 'test/fake-clocks.test.ts'],
  'src/retry.ts': [
    ...core,
    'test/first-attempt.test.ts',
    'test/first-attempt-clock.test.ts',
    'test/hooks.test.ts',
    'test/retry-edges.test.ts',
    'test/budget.test.ts',
    'test/breaker.test.ts',
  ],
};

export default defineConfig({
  test: {
    include: byFile[(process.env.MUTATE ?? '').replace(/:.*/, '')] ?? core, // a line range (src/retry.ts:1-120) too
    // Left out: the budget's memory test measures a child process's heap (it runs none of the mutated code in this
    // process, and the instrumented code it loads there can pass its bound); fetch's 1,000-call pool test takes 3-4 s
    // and covers every mutant of fetch.ts, which the other fetch tests each pin on their own; the unref test runs its
    // retry() in a child process, not this one.
    testNamePattern: /^(?!.*(holds bounded memory|1,000 retried 503s|in a real process))/,
    typecheck: { enabled: false },
    allowOnly: false,
    testTimeout: 30_000, // instrumented code is several times slower
  },
});
