import { defineConfig, type Options } from 'tsup';

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

const core: Options = {
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
      hedge: 'src/hedge/index.ts', // its types here (its JavaScript is built below): this build's clean removes every .d.ts
    },
    compilerOptions: { ignoreDeprecations: '6.0' },
  },
  // Everything but herdless/hedge's files, which its own build below writes at the same time.
  clean: ['**/*', '!hedge.*'],
  treeshake: true,
};

/**
 * herdless/hedge, built on its own without code splitting: it carries its own copy of the few core helpers it uses
 * (option checks, the signal registry, the clock), so that adding it leaves the core's chunks, and `{ retry }`'s
 * bundle, byte for byte as they were (as a shared chunk, the whole core's bundle grew 12 B and `{ retry }`'s moved).
 */
const hedge: Options = {
  entry: { hedge: 'src/hedge/index.ts' },
  format: ['esm', 'cjs'],
  target: 'es2022',
  splitting: false,
  clean: false,
  treeshake: true,
};

export default defineConfig([core, hedge]);
