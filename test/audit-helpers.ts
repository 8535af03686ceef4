import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { type AuditReport, type AuditThreads, audit } from '../src/audit/audit';
import { samples } from './eslint/samples';

/** A scratch project inside the repository, so `eslint` and `typescript-eslint` resolve from it as from a user's. */
export const makeProject = (): string => mkdtempSync(join(import.meta.dirname, '.audit-pool-'));
const EXT = { ts: '.ts', tsx: '.tsx', cjs: '.cjs', jsx: '.jsx' } as const;

/** Every rule sample in a file of its own, and the files that fail: a parse error and a stack overflow. */
export function corpus(dir: string, copies = 1): void {
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

/** `herdless audit --json` in `project`, in-process, with `threads` for its pool. */
export async function report(project: string, args: string[], threads?: AuditThreads) {
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

/** A pool that must not start: the audit lints in the main thread. */
export const serial: AuditThreads = { count: () => 0, start: () => expect.unreachable('no worker for a serial audit') };
