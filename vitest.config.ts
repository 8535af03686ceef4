import { readdirSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const all = { lines: 95, branches: 95, functions: 95, statements: 95 };
/**
 * Runs only inside `herdless audit`'s worker threads, where coverage cannot see: kept to a few lines, the linting it
 * calls is src/audit/audit.ts's own (covered in the main thread), and test/audit-pool.test.ts runs it in real workers.
 */
const workerOnly = 'src/audit/worker.ts';
/**
 * The core: every src/*.ts but the CLI and the re-exports. Each file gets its own threshold (a glob that matches one
 * file is checked on that file alone), so one core file cannot fall below while the others carry the total. A new
 * core file is picked up by being there.
 */
const core = readdirSync(new URL('./src', import.meta.url)).filter(
  (name) => name.endsWith('.ts') && name !== 'cli.ts' && name !== 'index.ts',
);

/**
 * The tests slow by nature, `npm run test:slow` (the `slow` project): a real server and real clients (the demo), the
 * package built by tsup and run as processes (the command, the audit's dist/audit-worker.js threads), a real npm, the
 * herd proof through real clients on real time, and the type tests (the TypeScript compiler over the project: 20 to
 * 60 s alone). `npm test` (the `fast` project) runs every other file, with the coverage thresholds below, which it
 * meets alone (the audit's worker pool stays in it: src/audit/audit.ts needs it); CI runs both (`.ci/run`).
 */
export const SLOW = [
  'test/demo.test.ts',
  'test/audit-built.test.ts',
  'test/cli-built.test.ts',
  'test/clone-bin.test.ts',
  'test/testing-proof.test.ts',
];

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: SLOW,
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: SLOW,
          // The type tests compile under `exactOptionalPropertyTypes` (tsconfig.typecheck.json), the strictest setting a
          // user may have: an option passed as `{ name }` with a `string | undefined` must compile there too.
          typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.typecheck.json' },
        },
      },
    ],
    // A focused test (`it.only`) fails the run, on a laptop as in CI; skips are counted by .ci/run.
    allowOnly: false,
    // Time is not what these tests check (bench/ measures speed): the 100,000-call and simulator tests take 1-4 s
    // alone and over 5 s on a loaded 2-core CI machine, where vitest's default 5 s timeout failed them.
    testTimeout: 30_000,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/**/index.ts', workerOnly],
      // The audit (a wing in its folder) keeps the per-file threshold it had at src/'s root.
      thresholds: {
        // Over all of src/ (the wings included); branches 95.3% with the audit's cycle cases (src/eslint/file-index.ts
        // 91.3%, retry-loop.ts 92.4%; 2026-12-01).
        ...all,
        ...Object.fromEntries(core.map((name) => [`src/${name}`, all])),
        'src/audit/audit.ts': all,
      },
    },
  },
});
