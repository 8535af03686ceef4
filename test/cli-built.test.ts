import { spawn } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The command as a user runs it: the package built by tsup into a directory of its own, its bin and its dist/cli.js
 * run as processes. Slow by nature (a build, then processes): `npm run test:slow`. The command's own logic is tested
 * in-process by test/cli.test.ts.
 */

const noSpace = 'herdless: cannot write to standard output: ENOSPC: no space left on device, write\n';
describe('the built package, and its command as a process', () => {
  // The package built by tsup.config.ts into a directory of its own, below a package.json of its own.
  let dir = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'herdless-cli-'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', version: '7.8.9-test' }));
    await build({ outDir: join(dir, 'dist'), dts: false, silent: true });
  }, 30_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the command; `closeOut` closes its stdout at once, as `| head` does once it has read enough. */
  const spawnCli = (args: string[], closeOut = false) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(process.execPath, [join(dir, 'dist', 'cli.js'), ...args]);
      let out = '';
      let err = '';
      if (closeOut) child.stdout.destroy();
      else child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.on('close', (code) => resolve({ code, out, err }));
    });

  it('builds the command line as ESM only: package.json bin runs dist/cli.js, a CJS copy would ship unused', () => {
    const files = readdirSync(join(dir, 'dist'));
    expect(files).toContain('cli.js');
    expect(files).toContain('index.cjs');
    expect(files).toContain('simulate.cjs');
    expect(files.filter((f) => f.startsWith('cli.'))).toEqual(['cli.js']);
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(pkg.bin).toEqual({ herdless: './bin/herdless.js' });
    expect(pkg.files).toContain('bin');
  });

  /** Runs bin/herdless.js from a copy beside `root`'s dist/, as `npx herdless` does through node_modules/.bin. */
  const spawnBin = (root: string, args: string[]) => {
    mkdirSync(join(root, 'bin'), { recursive: true });
    copyFileSync(new URL('../bin/herdless.js', import.meta.url), join(root, 'bin', 'herdless.js'));
    return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(process.execPath, [join(root, 'bin', 'herdless.js'), ...args]);
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.on('close', (code) => resolve({ code, out, err }));
    });
  };

  it('the bin runs the built command once, and in a clone that is not built says to build first, on one line', async () => {
    expect(await spawnBin(dir, ['--version'])).toEqual({ code: 0, out: '7.8.9-test\n', err: '' });
    const unbuilt = mkdtempSync(join(tmpdir(), 'herdless-unbuilt-'));
    try {
      expect(await spawnBin(unbuilt, ['simulate'])).toEqual({
        code: 1,
        out: '',
        err: 'herdless: not built yet: run `npm run build` first (or, without building, `npm run simulate -- --help`)\n',
      });
    } finally {
      rmSync(unbuilt, { recursive: true, force: true });
    }
  });

  it('reads its version from the package.json above it', async () => {
    expect(await spawnCli(['--version'])).toEqual({ code: 0, out: '7.8.9-test\n', err: '' });
    expect(await spawnCli(['-v'])).toEqual({ code: 0, out: '7.8.9-test\n', err: '' });
  });

  it('stops quietly when its reader goes away (herdless simulate | head -3)', async () => {
    const { code, err } = await spawnCli(['simulate', '--clients', '50'], true);
    expect(err).toBe('');
    expect(code).toBe(0);
  });

  it.skipIf(!existsSync('/dev/full'))(
    'standard output on a full disk (> /dev/full) is one line and exit code 4, for simulate and audit',
    async () => {
      for (const args of [
        ['simulate', '--clients', '20'],
        ['audit', '--json', 'src/cli.ts'], // from the repository, where ESLint is installed
      ]) {
        const full = openSync('/dev/full', 'w');
        try {
          const child = spawn(process.execPath, [join(dir, 'dist', 'cli.js'), ...args], {
            cwd: join(import.meta.dirname, '..'),
            stdio: ['ignore', full, 'pipe'],
          });
          let err = '';
          child.stderr?.on('data', (d) => (err += d));
          const code = await new Promise((resolve) => child.on('close', resolve));
          expect({ code, err }, args.join(' ')).toEqual({ code: 4, err: noSpace });
        } finally {
          closeSync(full);
        }
      }
    },
  );

  it('an SVG it cannot write is one line and exit code 1', async () => {
    const { code, out, err } = await spawnCli(['simulate', '--clients', '20', '--svg', '/no/such/dir/x.svg']);
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toMatch(/^herdless: cannot write \/no\/such\/dir\/x\.svg: ENOENT[^\n]*\n$/);
  });
});
