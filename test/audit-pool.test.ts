import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { build } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuditReport,
  type AuditThreads,
  audit,
  FILES_PER_WORKER,
  LARGE_FILE_CHARS,
  poolSize,
} from '../src/audit/audit';
import { samples } from './eslint/samples';

// Inside the repository, so `eslint` and `typescript-eslint` resolve from it as from a user's project.
const project = mkdtempSync(join(import.meta.dirname, '.audit-pool-'));
const EXT = { ts: '.ts', tsx: '.tsx', cjs: '.cjs', jsx: '.jsx' } as const;

/** Every rule sample in a file of its own, and the files that fail: a parse error and a stack overflow. */
function corpus(dir: string, copies = 1): void {
  mkdirSync(dir, { recursive: true });
  for (let c = 0; c < copies; c++) {
    samples.forEach((s, i) => {
      writeFileSync(join(dir, `${c}-${String(i).padStart(2, '0')}${s.lang ? EXT[s.lang] : '.mjs'}`), s.code);
    });
  }
  writeFileSync(join(dir, 'broken.js'), 'function ( { try {} catch (e) {}');
  writeFileSync(join(dir, 'chain.js'), `p${'.then(f)'.repeat(20_000)}.catch(g);\n`);
  writeFileSync(join(dir, 'plain.js'), 'for (;;) { step(); }');
}

/** Workers run src/audit/worker.ts (or `script`) through tsx, as the built dist/audit-worker.js runs in Node. */
function tsxWorkers(size: number, script = join(import.meta.dirname, '..', 'src', 'audit', 'worker.ts')) {
  const started: Worker[] = [];
  const exited: number[] = [];
  const threads: AuditThreads = {
    count: () => size,
    start: (cwd) => {
      const code = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(pathToFileURL(script).href)}); });`;
      const worker = new Worker(code, { eval: true, workerData: { cwd } });
      started.push(worker);
      worker.on('exit', (exit) => exited.push(exit));
      return worker;
    },
  };
  return { threads, started, exited };
}

async function report(args: string[], threads?: AuditThreads) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await audit(
    ['--json', ...args],
    { out: (t) => out.push(t), err: (t) => err.push(t) },
    project,
    undefined,
    threads,
  );
  const parsed = JSON.parse(out.join('')) as AuditReport;
  const { ms, ...summary } = parsed.summary;
  expect(ms).toBeGreaterThanOrEqual(0);
  return { code, err: err.join(''), findings: parsed.findings, summary };
}

const serial: AuditThreads = { count: () => 0, start: () => expect.unreachable('no worker for a serial audit') };

beforeAll(() => corpus(join(project, 'many')));
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('poolSize', () => {
  it('one worker per FILES_PER_WORKER files to parse, at most one per core, none below two', () => {
    expect(poolSize(0, 8)).toBe(0);
    expect(poolSize(2 * FILES_PER_WORKER - 1, 8)).toBe(0); // one worker would only add its start-up
    expect(poolSize(2 * FILES_PER_WORKER, 8)).toBe(2);
    expect(poolSize(10_000, 2)).toBe(2);
    expect(poolSize(10_000, 1)).toBe(0);
    fc.assert(
      fc.property(fc.nat(100_000), fc.integer({ min: 1, max: 256 }), fc.nat(1_000), (files, cores, more) => {
        const size = poolSize(files, cores);
        expect(size === 0 || (size >= 2 && size <= cores && size * FILES_PER_WORKER <= files)).toBe(true);
        expect(poolSize(files + more, cores)).toBeGreaterThanOrEqual(size);
      }),
    );
  });
});

// Each worker loads tsx, ESLint and TypeScript: seconds on a busy machine.
describe('herdless audit in worker threads', { timeout: 120_000 }, () => {
  it('reports exactly what a serial audit reports: findings in file order, the same summary', async () => {
    const alone = await report(['many'], serial);
    const { threads, started, exited } = tsxWorkers(2);
    const parallel = await report(['many'], threads);
    expect(started).toHaveLength(2);
    expect(exited).toHaveLength(2); // no worker left running once the audit is done
    expect(parallel).toEqual(alone);
    // What makes the comparison worth something: findings, a parse error and a stack overflow, in many batches.
    expect(alone.code).toBe(1);
    expect(alone.findings.length).toBeGreaterThan(50);
    expect(alone.summary.filesParsed).toBeGreaterThan(60);
    expect(alone.summary.filesWithoutFailurePath).toBeGreaterThan(0);
    expect(alone.summary.unparsable.map((u) => u.path)).toEqual(['many/broken.js', 'many/chain.js']);
  });

  it('lists the file whose worker stopped (exit, or an error thrown out of it) and keeps every other result', async () => {
    const dir = join(project, 'crash');
    corpus(dir);
    writeFileSync(join(dir, 'exit.js'), samples[0]?.code as string);
    writeFileSync(join(dir, 'throw.js'), samples[0]?.code as string);
    try {
      const script = join(import.meta.dirname, 'fixtures', 'audit-crashing-worker.ts');
      const { threads, started, exited } = tsxWorkers(2, script);
      const crashed = await report(['crash'], threads);
      const alone = await report(['crash'], serial);
      expect(crashed.code).toBe(1);
      const stopped = crashed.summary.unparsable.filter(
        (u) => u.path.endsWith('exit.js') || u.path.endsWith('throw.js'),
      );
      expect(stopped).toEqual([
        { path: 'crash/exit.js', reason: 'the worker thread checking it stopped (exit code 7)' },
        { path: 'crash/throw.js', reason: 'the worker thread checking it stopped (worker broke)' },
      ]);
      // The rest is what a serial audit says: only the two files that stopped a worker are missing from it.
      const without = (findings: AuditReport['findings']) =>
        findings.filter((f) => !f.file.endsWith('exit.js') && !f.file.endsWith('throw.js'));
      expect(crashed.findings).toEqual(without(alone.findings));
      expect(crashed.summary.filesParsed).toBe(alone.summary.filesParsed - 2);
      // Two crashed, and their batches were checked again one file at a time in workers started in their place.
      expect(started.length).toBeGreaterThanOrEqual(4);
      expect(exited).toHaveLength(started.length);
      expect(exited.filter((code) => code === 7)).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lints in the main thread what no worker could check: workers that fail to start', async () => {
    const alone = await report(['many'], serial);
    const started: Worker[] = [];
    const broken: AuditThreads = {
      count: () => 2,
      start: (cwd) => {
        const worker = new Worker('throw new Error("cannot load ESLint")', { eval: true, workerData: { cwd } });
        started.push(worker);
        return worker;
      },
    };
    expect(await report(['many'], broken)).toEqual(alone);
    expect(started).toHaveLength(2); // not started again and again
  });

  it('a small audit lints a file of LARGE_FILE_CHARS or more alone in a worker, the rest in the main thread', async () => {
    const dir = join(project, 'large-file');
    mkdirSync(dir, { recursive: true });
    const loop = samples.find((s) => s.finds.length > 0 && !s.lang) as (typeof samples)[number];
    writeFileSync(join(dir, 'bundle.js'), `${loop.code}\n// ${'x'.repeat(LARGE_FILE_CHARS)}\n`);
    writeFileSync(join(dir, 'small.js'), loop.code);
    try {
      const { threads, started, exited } = tsxWorkers(0);
      const mixed = await report(['large-file'], threads);
      expect(started).toHaveLength(1);
      expect(exited).toHaveLength(1);
      expect(mixed.summary).toMatchObject({ filesParsed: 2, unparsable: [] });
      // The bundle's findings, linted in the worker, are the small file's, linted here.
      const rules = (file: string) => mixed.findings.filter((f) => f.file.endsWith(file)).map((f) => f.rule);
      expect(rules('bundle.js')).toEqual(rules('small.js'));
      expect(rules('small.js').length).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts no worker for a small audit: the pool size is asked for the files to parse only', async () => {
    const asked: number[] = [];
    const threads: AuditThreads = {
      count: (toParse) => {
        asked.push(toParse);
        return poolSize(toParse, 64);
      },
      start: () => expect.unreachable('a worker for a small audit'),
    };
    const small = await report(['many/0-00.mjs', 'many/0-02.mjs', 'many/plain.js'], threads);
    expect(asked).toEqual([2]); // plain.js has no failure path: not a file to parse
    expect(small.summary).toMatchObject({ filesScanned: 3, filesParsed: 2 });
  });
});

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
