import { defineConfig } from 'tsup';

const shared = { target: 'es2022', treeshake: true } as const;

export default defineConfig([
  {
    ...shared,
    // The core entry and the simulator subpath (never part of the core bundle), for ESM and CJS consumers.
    entry: { index: 'src/index.ts', simulate: 'src/simulate/index.ts' },
    format: ['esm', 'cjs'],
    dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
    // The two builds run at once: this one cleans dist/ but for the command line, which the other one writes.
    clean: ['!cli.js'],
  },
  {
    ...shared,
    // The command line, run only through package.json's `bin` (an ESM file): no CJS copy, no types.
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    clean: false,
  },
]);
