// Stryker on the core (src/*.ts minus the CLI and the re-exports), with the unit, property and load tests (see
// vitest.stryker.config.ts). mutation/run.sh runs it a file at a time with MUTATE=src/<file>.ts, so each file has its
// own incremental file (a full report) under mutation/ (src/http/fetch.ts: mutation/http-fetch.incremental.json).
const file = process.env.MUTATE;
// A line range (`MUTATE=src/retry.ts:1-120`) mutates part of a file, into its own incremental file
// (mutation/retry.1-120.incremental.json); mutation/table.mjs merges the parts of a file.
const name = file
  ? file
      .replace(/^src\//, '')
      .replace(/\.ts(?=$|:)/, '')
      .replaceAll('/', '-')
      .replace(':', '.')
  : 'core';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.ts' },
  mutate: file ? [file] : ['src/*.ts', '!src/cli.ts', '!src/index.ts'],
  coverageAnalysis: 'perTest',
  concurrency: 2,
  // Module-level constants (the status and error-name Sets, the date patterns) would each need the whole suite run;
  // the tests that read them kill their mutants in a normal run, and nothing in the core throws at module load.
  ignoreStatic: true,
  incremental: true,
  incrementalFile: `mutation/${name}.incremental.json`,
  // The incremental file is a full mutation-testing-elements report: mutation/table.mjs reads it, no other is written.
  reporters: ['clear-text', 'progress-append-only'],
  thresholds: { high: 95, low: 90, break: null },
  timeoutMS: 3000,
  ignorePatterns: ['coverage', 'reports', 'mutation', 'dist', 'docs', 'bench', 'demo', '.runtimes', 'test/.readme'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
