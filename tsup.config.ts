import { defineConfig } from 'tsup';

/**
 * The OpenTelemetry wing imports only the core's public entry (`../index`), and loads it as the built package's own
 * entry (`./index.js`, `./index.cjs`), not as shared chunks: the wing and the core are then one module instance
 * (one RetryError, one Policy class), and the core's chunks (so `{ retry }`'s bundle) are the same with or without it.
 */
const coreEntry = {
  name: 'otel-imports-the-core-entry',
  setup(build: { initialOptions: { outExtension?: Record<string, string> }; onResolve: (...args: any[]) => void }) {
    // tsup names the CJS build's files by outExtension (and may hand esbuild `esm` for it, converting afterwards).
    const file = build.initialOptions.outExtension?.['.js'] === '.cjs' ? './index.cjs' : './index.js';
    build.onResolve({ filter: /^\.\.\/index$/ }, (args: { importer: string }) =>
      /[\\/]src[\\/]otel[\\/]/.test(args.importer) ? { path: file, external: true } : undefined,
    );
  },
};

export default defineConfig({
  // The core entry, the simulator, ESLint, OpenTelemetry and testing subpaths (never part of the core bundle) and the
  // command line.
  entry: {
    index: 'src/index.ts',
    simulate: 'src/simulate/index.ts',
    eslint: 'src/eslint/index.ts',
    otel: 'src/otel/index.ts',
    testing: 'src/testing/index.ts',
    cli: 'src/cli.ts',
    'audit-worker': 'src/audit/worker.ts',
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
  esbuildPlugins: [coreEntry],
  target: 'es2022',
  dts: {
    entry: {
      index: 'src/index.ts',
      simulate: 'src/simulate/index.ts',
      eslint: 'src/eslint/index.ts',
      otel: 'src/otel/index.ts',
      testing: 'src/testing/index.ts',
    },
    compilerOptions: { ignoreDeprecations: '6.0' },
  },
  clean: true,
  treeshake: true,
});
