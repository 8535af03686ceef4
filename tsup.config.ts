import { defineConfig } from 'tsup';

export default defineConfig({
  // The core entry, the simulator, ESLint and testing subpaths (never part of the core bundle) and the command line.
  entry: {
    index: 'src/index.ts',
    simulate: 'src/simulate/index.ts',
    eslint: 'src/eslint/index.ts',
    testing: 'src/testing/index.ts',
    cli: 'src/cli.ts',
    'audit-worker': 'src/audit-worker.ts',
  },
  format: ['esm', 'cjs'],
  // The command line runs only through package.json's `bin`, an ESM file that shares its chunks with simulate.js,
  // and starts dist/audit-worker.js beside it for `herdless audit`: the CJS build leaves both out (a dist/cli.cjs
  // would ship unused).
  esbuildOptions(options, { format }) {
    if (format === 'cjs') {
      const { cli: _, 'audit-worker': __, ...library } = options.entryPoints as Record<string, string>;
      options.entryPoints = library;
    }
  },
  target: 'es2022',
  dts: {
    entry: {
      index: 'src/index.ts',
      simulate: 'src/simulate/index.ts',
      eslint: 'src/eslint/index.ts',
      testing: 'src/testing/index.ts',
    },
    compilerOptions: { ignoreDeprecations: '6.0' },
  },
  clean: true,
  treeshake: true,
});
