import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditReport, type AuditThreads, FILES_PER_WORKER, LARGE_FILE_CHARS, poolSize } from '../src/audit/audit';
import { corpus, makeProject, report as reportIn, serial } from './audit-helpers';
import { samples } from './eslint/samples';

const project = makeProject();

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

const report = (args: string[], threads?: AuditThreads) => reportIn(project, args, threads);

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
