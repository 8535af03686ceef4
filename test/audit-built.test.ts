import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditReport, type AuditThreads, poolSize } from '../src/audit/audit';
import { corpus, makeProject, report as reportIn, serial } from './audit-helpers';

/**
 * `herdless audit` as a user runs it: the package built by tsup, its command run as a process, its workers real
 * threads of dist/audit-worker.js. Slow by nature (a build, a 2 MB file, a large tree): `npm run test:slow`. The pool's
 * logic is tested in-process by test/audit-pool.test.ts.
 */
const project = makeProject();
const report = (args: string[], threads?: AuditThreads) => reportIn(project, args, threads);
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('the built command', { timeout: 180_000 }, () => {
  let dist: string;
  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), 'herdless-audit-dist-'));
    writeFileSync(join(dist, 'package.json'), JSON.stringify({ type: 'module', version: '0.0.0-test' }));
    await build({ outDir: join(dist, 'dist'), dts: false, silent: true });
    // Counts the workers the command starts: its `import { Worker }` reads the patched builtin.
    writeFileSync(
      join(dist, 'count-workers.mjs'),
      `import { createRequire, syncBuiltinESMExports } from 'node:module';
const threads = createRequire(import.meta.url)('node:worker_threads');
const Original = threads.Worker;
threads.Worker = class extends Original {
  constructor(...args) {
    super(...args);
    this.on('message', (m) => m === 'ready' && process.stderr.write('worker ready\\n'));
  }
};
syncBuiltinESMExports();
`,
    );
  }, 60_000);
  afterAll(() => rmSync(dist, { recursive: true, force: true }));

  it('a small audit lists a file that exhausts the heap as not checked and goes on (a 2 MB file, a 256 MB heap)', () => {
    const dir = join(project, 'heap');
    mkdirSync(dir, { recursive: true });
    let generated = '';
    for (let i = 0; generated.length < 2_000_000; i++) {
      generated += `async function f${i}(x) { for (;;) { try { return await x.get(${i}); } catch (e) { if (e.code === ${i}) continue; throw e } } }\n`;
    }
    writeFileSync(join(dir, 'generated.js'), generated);
    writeFileSync(
      join(dir, 'call.js'),
      'export async function call(f) {\n  for (;;) {\n    try { return await f(); } catch {}\n  }\n}\n',
    );
    try {
      const child = spawnSync(
        process.execPath,
        ['--max-old-space-size=256', join(dist, 'dist', 'cli.js'), 'audit', '--json', 'heap'],
        { cwd: project, encoding: 'utf8', timeout: 150_000 },
      );
      expect(child.signal).toBeNull();
      expect(child.stderr).not.toContain('heap out of memory\n');
      expect(child.status).toBe(1);
      const report = JSON.parse(child.stdout) as AuditReport;
      expect(report.findings.map((f) => `${f.file} ${f.rule}`)).toContain('heap/call.js herdless/require-retry-limit');
      expect(report.summary.filesParsed).toBe(1);
      expect(report.summary.unparsable).toEqual([
        { path: 'heap/generated.js', reason: expect.stringMatching(/stopped \(ERR_WORKER_OUT_OF_MEMORY/) },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lints a large tree in dist/audit-worker.js threads, reports as a serial audit, and exits by itself', async () => {
    const dir = join(project, 'large');
    corpus(dir, 2);
    try {
      const alone = await report(['large'], serial);
      const child = spawnSync(
        process.execPath,
        ['--import', join(dist, 'count-workers.mjs'), join(dist, 'dist', 'cli.js'), 'audit', '--json', 'large'],
        { cwd: project, encoding: 'utf8', timeout: 150_000 },
      );
      expect(child.signal, 'the command did not exit by itself').toBeNull();
      expect(child.status).toBe(1);
      const { ms: _, ...summary } = (JSON.parse(child.stdout) as AuditReport).summary;
      expect({ findings: JSON.parse(child.stdout).findings, summary }).toEqual({
        findings: alone.findings,
        summary: alone.summary,
      });
      const workers = poolSize(alone.summary.filesParsed + alone.summary.unparsable.length, availableParallelism());
      expect(child.stderr).toBe('worker ready\n'.repeat(workers));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
