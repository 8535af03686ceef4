// Stryker on the core (src/*.ts minus the CLI and the re-exports), with the unit and property tests (see
// vitest.stryker.config.ts). mutation/run.sh runs it a file at a time with MUTATE=src/<file>.ts, so each file has its
// own incremental file and report under mutation/.
const file = process.env.MUTATE;
const name = file ? file.replace(/^src\//, '').replace(/\.ts$/, '') : 'core';

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
  reporters: ['clear-text', 'json'],
  jsonReporter: { fileName: `mutation/${name}.report.json` },
  thresholds: { high: 95, low: 90, break: null },
  timeoutMS: 3000,
  ignorePatterns: ['coverage', 'reports', 'mutation', 'dist', 'docs', 'bench', 'demo', '.runtimes', 'test/.readme'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
