import { defineConfig } from 'tsup';

export default defineConfig({
  // The core entry, the simulator and ESLint subpaths (never part of the core bundle) and the command line.
  entry: { index: 'src/index.ts', simulate: 'src/simulate/index.ts', eslint: 'src/eslint/index.ts', cli: 'src/cli.ts' },
  format: ['esm', 'cjs'],
  target: 'es2022',
  dts: {
    entry: { index: 'src/index.ts', simulate: 'src/simulate/index.ts', eslint: 'src/eslint/index.ts' },
    compilerOptions: { ignoreDeprecations: '6.0' },
  },
  clean: true,
  treeshake: true,
});
