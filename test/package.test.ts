import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
/** The core: every file reachable from src/index.ts through relative imports. */
function core(): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(root, 'src', file), 'utf8');
    for (const m of text.matchAll(/^(?:import|export)\b[^;]*?from\s+'(\.\.?\/[^']+)'/gm)) {
      visit(`${posix.join(posix.dirname(file), m[1] as string)}.ts`);
    }
  };
  visit('index.ts');
  return [...seen].sort();
}
const sources = core();

describe('package contract', () => {
  it('has no runtime dependencies and declares no side effects', () => {
    expect(pkg.dependencies).toBeUndefined();
    // The ESLint wing's peers, the OpenTelemetry wing's and the testing wing's (fake-timers, interceptors), optional:
    // the core never needs them.
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual([
      '@mswjs/interceptors',
      '@opentelemetry/api',
      '@sinonjs/fake-timers',
      'eslint',
      'typescript-eslint',
    ]);
    for (const name of Object.keys(pkg.peerDependencies))
      expect(pkg.peerDependenciesMeta[name]).toEqual({ optional: true });
    expect(pkg.exports['./eslint'].import.types).toBe('./dist/eslint.d.ts');
    expect(pkg.exports['./eslint'].require.types).toBe('./dist/eslint.d.cts');
    expect(pkg.exports['./otel'].import.types).toBe('./dist/otel.d.ts');
    expect(pkg.exports['./otel'].require.types).toBe('./dist/otel.d.cts');
    expect(pkg.typesVersions['*'].otel).toEqual(['./dist/otel.d.cts']);
    expect(pkg.exports['./testing'].import.types).toBe('./dist/testing.d.ts');
    expect(pkg.exports['./testing'].require.types).toBe('./dist/testing.d.cts');
    expect(pkg.typesVersions['*'].testing).toEqual(['./dist/testing.d.cts']);
    expect(pkg.exports['./hedge'].import.types).toBe('./dist/hedge.d.ts');
    expect(pkg.exports['./hedge'].require.types).toBe('./dist/hedge.d.cts');
    expect(pkg.typesVersions['*'].hedge).toEqual(['./dist/hedge.d.cts']);
    // Pinned for the tests: 0.42+ needs Node 22.
    expect(pkg.devDependencies['@mswjs/interceptors']).toBe('0.41.9');
    expect(pkg.sideEffects).toBe(false);
    expect(pkg.exports['.'].import.types).toBe('./dist/index.d.ts');
    expect(pkg.exports['.'].require.types).toBe('./dist/index.d.cts');
  });

  it('runs no script when installed: npm 11 warns about any install-time script a package carries (issue 31)', () => {
    // `prepare` once linked the bin in a clone; npx finds a project's own bin (bin/herdless.js) without it.
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(pkg.scripts[hook], hook).toBeUndefined();
  });

  it('the core is what it should be: not the simulator, not the ESLint wing, not the command line', () => {
    expect(sources).toContain('retry.ts');
    expect(sources).toContain('delay.ts');
    expect(
      sources.some(
        (f) =>
          f.startsWith('simulate') ||
          f.startsWith('eslint') ||
          f.startsWith('otel') ||
          f.startsWith('testing') ||
          f === 'cli.ts',
      ),
    ).toBe(false);
    expect(readdirSync(join(root, 'src')).filter((f) => f.endsWith('.ts') && !sources.includes(f))).toEqual(['cli.ts']);
  });

  it('the core imports only its own files: no node: modules, no packages', () => {
    const specifiers = sources.flatMap((file) => {
      const text = readFileSync(join(root, 'src', file), 'utf8');
      return [...text.matchAll(/^(?:import|export)\b[^;]*?from\s+'([^']+)'/gm)].map((m) => `${file}: ${m[1]}`);
    });
    expect(specifiers.length).toBeGreaterThan(10); // the pattern does find the imports
    expect(specifiers.filter((s) => !/: \.\.?\//.test(s))).toEqual([]);
    expect(sources).toContain('http/fetch.ts'); // the walk follows the HTTP layer's '../' imports too
  });

  it.each(sources)('src/%s never uses AbortSignal.timeout, node timers or a captured clock', (file) => {
    const text = readFileSync(join(root, 'src', file), 'utf8');
    // A captured reference (`const t = setTimeout;`) would escape a fake clock installed later.
    expect(text).not.toMatch(
      /AbortSignal\.timeout|timers\/promises|=\s*(?:globalThis\.)?(?:setTimeout|clearTimeout|Date\.now|performance\.now)\s*[;,)]/,
    );
  });

  it('index.ts only re-exports', () => {
    const statements = readFileSync(join(root, 'src', 'index.ts'), 'utf8')
      // Its module comment (the API reference's page for `herdless`) first, and nothing else but re-exports.
      .replace(/^\/\*\*(?:(?!\*\/)[\s\S])*\*\/\n/, '')
      .split(';')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    expect(statements.length).toBeGreaterThan(5);
    for (const statement of statements) expect(statement).toMatch(/^export (?:type )?\{[^}]*\} from '\.\/[\w/-]+'$/);
  });
});

describe('the testing wing (herdless/testing)', () => {
  const dir = join(root, 'src', 'testing');
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));

  it('loads its peers only on use, by dynamic import: no static import of fake-timers or the interceptors', () => {
    expect(files.length).toBeGreaterThan(5);
    const dynamic: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text).not.toMatch(/^import(?! type)[^;]*from '@(sinonjs|mswjs)\//m);
      dynamic.push(...[...text.matchAll(/import\('(@[^']+)'\)/g)].map((m) => m[1] as string));
    }
    expect(dynamic.sort()).toEqual([
      '@mswjs/interceptors/ClientRequest',
      '@mswjs/interceptors/fetch',
      '@sinonjs/fake-timers',
    ]);
  });

  it('index.ts only re-exports', () => {
    const statements = readFileSync(join(dir, 'index.ts'), 'utf8')
      .replace(/\/\*\*[\s\S]*?\*\/\n/, '') // the module's TSDoc summary (typedoc's page for the subpath)
      .split(';')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    for (const statement of statements) expect(statement).toMatch(/^export (?:type )?\{[^}]*\} from '\.\/[\w/-]+'$/);
  });

  it('the hedging wing (herdless/hedge) imports only herdless files: no node: modules, no packages, no captured clock', () => {
    const dir = join(root, 'src', 'hedge');
    const files = readdirSync(dir);
    const specifiers = files.flatMap((file) =>
      [...readFileSync(join(dir, file), 'utf8').matchAll(/^(?:import|export)\b[^;]*?from\s+'([^']+)'/gm)].map(
        (m) => m[1] as string,
      ),
    );
    expect(specifiers.length).toBeGreaterThan(10);
    expect(specifiers.filter((s) => !/^\.\.?\//.test(s))).toEqual([]);
    for (const file of files) {
      expect(readFileSync(join(dir, file), 'utf8')).not.toMatch(
        /AbortSignal\.timeout|timers\/promises|=\s*(?:globalThis\.)?(?:setTimeout|clearTimeout|Date\.now|performance\.now)\s*[;,)]/,
      );
    }
  });

  it("the OpenTelemetry wing imports only the core's public entry and @opentelemetry/api", () => {
    const dir = join(root, 'src', 'otel');
    const specifiers = readdirSync(dir).flatMap((file) =>
      [...readFileSync(join(dir, file), 'utf8').matchAll(/^(?:import|export)\b[^;]*?from\s+'([^']+)'/gm)].map(
        (m) => m[1] as string,
      ),
    );
    expect(specifiers.length).toBeGreaterThan(10);
    expect(new Set(specifiers.filter((s) => !s.startsWith('./')))).toEqual(new Set(['../index', '@opentelemetry/api']));
  });
});
