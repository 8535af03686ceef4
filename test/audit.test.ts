import { spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Linter } from 'eslint';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUDIT_USAGE,
  type AuditFs,
  type AuditReport,
  audit,
  listFiles,
  MAX_FILE_BYTES,
  mayRetry,
} from '../src/audit/audit';
import { main } from '../src/cli';
import herdless from '../src/eslint/index';
import { libraries } from './eslint/libraries';
import { samples } from './eslint/samples';

// A project inside the repository, so `eslint` and `typescript-eslint` resolve from it as from a user's project.
const project = join(import.meta.dirname, '.audit');
const seedLoop = samples[0]?.code as string;
const tsLoop = samples.find((s) => s.lang === 'ts' && s.finds.length === 1)?.code as string;
const tsxLoop = samples.find((s) => s.lang === 'tsx')?.code as string;
const cjsLoop = samples.find((s) => s.lang === 'cjs' && s.finds.length > 0)?.code as string;
// Each in a block of its own, so the samples' function names do not clash in one module.
const notRetries = samples
  .filter((s) => s.finds.length === 0 && s.lang === undefined && !s.code.includes('import '))
  .map((s) => `{${s.code}\n}`);

const files: Record<string, string> = {
  'src/seed.mjs': seedLoop,
  'src/call.ts': tsLoop,
  'src/user.tsx': tsxLoop,
  'lib/get.cjs': cjsLoop,
  'src/clean.js': notRetries.join('\n'),
  'src/types.d.ts': 'export declare function f(): void; // p.catch(f)',
  'src/notes.md': seedLoop,
  'node_modules/dep/index.js': seedLoop,
};

async function run(args: string[], cwd = project, fs?: AuditFs) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await audit(args, { out: (t) => out.push(t), err: (t) => err.push(t) }, cwd, fs);
  return { code, out: out.join(''), err: err.join('') };
}

/**
 * A folder of the project holding the seed loop and what `write` puts beside it, audited with --json: the audit
 * reports the seed loop's two findings (exit 1) and `check` reads the rest of the report. The folder is removed after.
 */
async function besideSeed(
  prefix: string,
  write: (dir: string) => void,
  check: (report: AuditReport, name: string) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(project, prefix));
  writeFileSync(join(dir, 'seed.js'), seedLoop);
  write(dir);
  const name = dir.slice(project.length + 1);
  try {
    const { code, out } = await run(['--json', name]);
    expect(code).toBe(1);
    const report = JSON.parse(out) as AuditReport;
    expect(report.findings.map((f) => f.file)).toEqual([`${name}/seed.js`, `${name}/seed.js`]);
    await check(report, name);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

beforeAll(() => {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(project, name)), { recursive: true });
    writeFileSync(join(project, name), text);
  }
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

// The first audit loads typescript-eslint (and TypeScript) from the project: seconds on a busy machine.
describe('herdless audit', { timeout: 60_000 }, () => {
  it('lists file:line:col  rule  message for each missing element, then a summary, and exits 1', async () => {
    const { code, out } = await run([]);
    expect(code).toBe(1);
    const lines = out.split('\n');
    expect(lines).toContain(
      `src/seed.mjs:3:3  herdless/require-jitter  ${'waits a delay with no randomness before retrying (a constant or a plain doubling), so clients that failed together retry together;'}` +
        " herdless retry(fn, { jitter: 'full' }) randomises every wait (the default)",
    );
    const reported = lines
      .filter((l) => /^\S+:\d+:\d+ {2}herdless\//.test(l))
      .map((l) => l.split('  ').slice(0, 2).join(' '));
    expect(reported).toEqual([
      'lib/get.cjs:5:3 herdless/require-jitter',
      'lib/get.cjs:5:3 herdless/require-transient-check',
      'src/call.ts:3:3 herdless/require-transient-check',
      'src/seed.mjs:3:3 herdless/require-jitter',
      'src/seed.mjs:3:3 herdless/require-transient-check',
      'src/user.tsx:6:7 herdless/require-jitter',
      'src/user.tsx:6:7 herdless/require-transient-check',
    ]);
    expect(out).toMatch(/\nherdless audit: 4 retry loops with problems in \d+\.\d s\n/);
    expect(out).toContain(
      '\n  5 files scanned: 5 parsed, 0 without a failure path (no retry possible), 0 not checked\n',
    );
    expect(out).toContain('  herdless/require-jitter: 3\n  herdless/require-transient-check: 4\n');
  });

  it('words a `res?.ok` loop as its `res.ok` twin, and says what the ok check does not tell (issue 31)', async () => {
    // A user's first loop: fetch, `if (res?.ok) return res`, try again at once or after a fixed 500 ms.
    const loops = `export async function now(url) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const res = await fetch(url).catch(() => undefined);
    if (res?.ok) return res;
  }
  throw new Error('gave up');
}

export async function fixed(url) {
  let attempt = 0;
  while (attempt++ < 5) {
    const res = await fetch(url).catch(() => undefined);
    if (res?.ok) return res;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('gave up');
}

export async function byStatus(url) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const res = await fetch(url).catch(() => undefined);
    if (res?.status === 200) return res;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('gave up');
}
`;
    mkdirSync(join(project, 'first-hour'), { recursive: true });
    writeFileSync(join(project, 'first-hour', 'chained.js'), loops);
    writeFileSync(join(project, 'first-hour', 'plain.js'), loops.replaceAll('res?.', 'res.'));
    try {
      const { code, out } = await run(['first-hour']);
      expect(code).toBe(1);
      const reports = (file: string) =>
        out
          .split('\n')
          .filter((l) => l.startsWith(`first-hour/${file}:`))
          .map((l) => l.slice(`first-hour/${file}`.length));
      expect(reports('chained.js')).toEqual(reports('plain.js'));
      const transient =
        'so permanent ones (400, 404, a bug) are retried too; herdless retry(fn, { isTransient }) retries only transient ones (network errors, 408/429/5xx by default)';
      // The loop does look at the response: "without looking at the status" was wrong (both forms). It reads only ok.
      const ok = `herdless/require-transient-check  retries every failure: .ok says whether a response failed, not whether the failure is transient, ${transient}`;
      const jitter =
        "herdless/require-jitter  waits a delay with no randomness before retrying (a constant or a plain doubling), so clients that failed together retry together; herdless retry(fn, { jitter: 'full' }) randomises every wait (the default)";
      expect(reports('chained.js')).toEqual([
        ':2:3  herdless/no-immediate-retry  retries at once, with no wait between attempts; herdless retry(fn) waits a jittered, capped backoff between attempts',
        `:2:3  ${ok}`,
        `:11:3  ${jitter}`,
        `:11:3  ${ok}`,
        // `res?.status === 200` names a status: a check, as `res.status === 200` is (only the fixed wait is reported).
        `:20:3  ${jitter}`,
      ]);
    } finally {
      rmSync(join(project, 'first-hour'), { recursive: true, force: true });
    }
  });

  it('exits 1 on a single finding, so a CI gate fails on one bad loop', async () => {
    const { code, out } = await run(['src/call.ts']);
    expect(out.split('\n').filter((l) => /^\S+:\d+:\d+ {2}herdless\//.test(l))).toHaveLength(1);
    expect(code).toBe(1);
  });

  it('--json gives the same findings and the summary for CI', async () => {
    const { code, out } = await run(['--json', 'src']);
    expect(code).toBe(1);
    const report = JSON.parse(out) as AuditReport;
    expect(report.findings.map((f) => f.file)).toEqual([
      'src/call.ts',
      'src/seed.mjs',
      'src/seed.mjs',
      'src/user.tsx',
      'src/user.tsx',
    ]);
    expect(report.findings[1]).toMatchObject({ line: 3, column: 3, rule: 'herdless/require-jitter' });
    expect(report.summary).toMatchObject({
      filesScanned: 4,
      filesParsed: 4,
      filesWithoutFailurePath: 0,
      loops: 3,
      unparsable: [],
      skipped: [],
      byRule: { 'herdless/require-transient-check': 3, 'herdless/require-jitter': 2 },
    });
  });

  it('skips node_modules unless a named path is inside one', async () => {
    expect((await run(['--json'])).out).not.toContain('node_modules');
    const named = JSON.parse((await run(['--json', 'node_modules/dep'])).out) as AuditReport;
    expect(named.findings.map((f) => f.file)).toEqual(['node_modules/dep/index.js', 'node_modules/dep/index.js']);
  });

  it('exits 0 with a summary when nothing is found; counts scanned, parsed and unparsable apart, and names the last', async () => {
    writeFileSync(join(project, 'src', 'broken.js'), 'function ( { try {} catch (e) {}');
    writeFileSync(join(project, 'src', 'plain.js'), 'for (;;) { step(); }');
    const { code, out } = await run(['src/clean.js', 'src/broken.js', 'src/plain.js', 'src/types.d.ts']);
    expect(code).toBe(0);
    expect(out).toMatch(/^herdless audit: 0 retry loops with problems in \d+\.\d s\n/);
    // types.d.ts named on its own is read like any file; plain.js has no failure path, so it is not parsed.
    expect(out).toContain('  4 files scanned: 2 parsed, 1 without a failure path (no retry possible), 1 not checked\n');
    expect(out).toMatch(/\ncould not check 1 file:\n {2}src\/broken\.js: parse error at 1:10: .+\n/);
    expect(out).not.toContain('nothing was checked');
    rmSync(join(project, 'src', 'broken.js'));
    rmSync(join(project, 'src', 'plain.js'));
  });

  it('does not parse files that cannot hold a retry (no catch, then, .ok or status)', async () => {
    writeFileSync(join(project, 'src', 'plain.js'), 'for (;;) { step(); }');
    const report = JSON.parse((await run(['--json', 'src/plain.js'])).out) as AuditReport;
    expect(report.summary).toMatchObject({ filesScanned: 1, filesParsed: 0, filesWithoutFailurePath: 1, loops: 0 });
    expect((await run(['src/plain.js'])).code).toBe(0);
    rmSync(join(project, 'src', 'plain.js'));
  });

  it('parses a file only for a failure path written as code: every rule sample that reports passes', () => {
    const reporting = [...samples, ...libraries].filter((s) => s.finds.length > 0);
    expect(reporting.length).toBeGreaterThan(30);
    expect(reporting.filter((s) => !mayRetry(s.code)).map((s) => s.name)).toEqual([]);
    for (const code of [
      'try { f() } catch (e) { g() }',
      'try { f() } catch { g() }',
      'try{f()}catch(e){g()}',
      'p.catch(retry)',
      'p?.catch(retry)',
      'p.catch!(retry)',
      'p.then(ok, retry)',
      'p.then<T>(ok, retry)',
      'p.then?.(ok, retry)',
      'p.then /* on failure */ (ok, retry)',
      'p.then // on failure\n(ok, retry)',
      'if (!res.ok) continue',
      'if (res?.ok) break',
      'if (status >= 500) continue',
      'if (res.statusCode === 503) continue',
      'ws.onclose = reconnect',
      "ws.on('error', reconnect)",
      'ws.addEventListener("close", reconnect)',
      'if (res. ok) return res', // what the rules read, written loosely (review)
      'if (res.\n  ok) return res',
      'while (!this.#ok) { await this.connect(); }',
      '(0, g().catch)((e) => f())',
      'p.then /* a * b */ (ok, retry)',
      'p.then /*** x ***/ (ok, retry)',
      'source.subscribe({ next: (v) => f(v), error: (e) => this.onError(e) })', // an observer's failure handler
      'subscribe({ error: e => retry(e) })',
      'subscribe({ error: function (e) { retry(e); } })',
      "import pRetry from 'p-retry'; pRetry(f)", // a retry library set up (src/eslint/libraries.ts)
      'const backoff = require("exponential-backoff")',
    ]) {
      expect(mayRetry(code), code).toBe(true);
    }
    // Prose and look-alikes are not a failure path: no catch clause or call, no `.ok`, no status.
    for (const code of [
      'for (;;) { step(); }',
      '// and then we catch up: see statusText',
      'const okay = x.okay; catchError(e); getStatus(); httpStatus; thenable(p)',
      "emit('closed'); onclosed = f",
      'const o = { error: err, kind: Error }; let e: { error: Error };',
    ]) {
      expect(mayRetry(code), code).toBe(false);
    }
  });

  it('reads comments in one pass: a file of comments after a then is not a hang (review)', () => {
    // The lazy comment pattern read each of these comments several ways: 24 of them hung the audit, 40 never end.
    const comments = Array.from({ length: 40 }, (_, i) => `/* field ${i} */`).join('\n');
    expect(mayRetry(`// Edit the schema, then\n${comments}\nexport const a = 1;`)).toBe(false);
    expect(mayRetry(`x.then${' '.repeat(20_000)}!`)).toBe(false);
    expect(mayRetry(`x.then${'// c\n'.repeat(2_000)}(ok, retry)`)).toBe(true);
  });

  it('reads a catch or then call through any white space and comments before its parenthesis', () => {
    const gap = fc
      .array(fc.constantFrom(' ', '\n', '\t', '/* x */', '/**/', '/* a*b/c */', '/** x **/', '// note\n'), {
        maxLength: 5,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.constantFrom('catch', 'then'), gap, gap, fc.constantFrom('(', '<', '{'), (word, a, b, open) => {
        expect(mayRetry(`p.${word}${a}${open}`)).toBe(true);
        expect(mayRetry(`p.${word}${a}?.${b}(`)).toBe(true);
        expect(mayRetry(`p.${word}${a}!${b}(`)).toBe(true);
      }),
    );
    // Words only, any of them a failure keyword: never code, never parsed.
    const words = fc.array(fc.constantFrom('and', 'then', 'we', 'catch', 'the', 'error', 'retry', 'okay', 'closed'));
    fc.assert(
      fc.property(words, (list) => {
        expect(mayRetry(list.join(' '))).toBe(false);
      }),
    );
  });

  it('checks a file whose only failure path is an onclose handler (no catch, then or status in it)', async () => {
    writeFileSync(
      join(project, 'src', 'ws.js'),
      'function connect() {\n  const ws = new WebSocket(url);\n  ws.onclose = () => setTimeout(connect, 1000);\n}\n',
    );
    try {
      const report = JSON.parse((await run(['--json', 'src/ws.js'])).out) as AuditReport;
      expect(report.summary).toMatchObject({ filesParsed: 1, filesWithoutFailurePath: 0, loops: 1 });
      expect(report.findings.map((f) => `${f.line} ${f.rule}`)).toEqual([
        '1 herdless/require-jitter',
        '1 herdless/require-retry-limit',
        '1 herdless/require-transient-check',
      ]);
    } finally {
      rmSync(join(project, 'src', 'ws.js'));
    }
  });

  it('parses what the rules flag: node-style callbacks and phoenix receive(timeout) agree with ESLint (review)', async () => {
    const dir = join(project, 'prefilter');
    const cases: Record<string, string> = {
      // A node error-first callback: `if (err)` is the failure branch.
      'u4.js':
        'function get(url, cb) {\n  request(url, (err, res, body) => {\n' +
        '    if (err) { setTimeout(() => get(url, cb), 1000); return; }\n    cb(null, body);\n  });\n}\n',
      'c11b.js':
        "function read(path, cb) {\n  fs.readFile(path, 'utf8', function (err, data) {\n" +
        '    if (err) { read(path, cb); return; }\n    cb(null, data);\n  });\n}\n',
      // phoenix's push.receive('timeout', cb)
      'u1.js':
        "class Chan {\n  join() {\n    this.push = this.socket.push('phx_join');\n" +
        "    this.push.receive('timeout', () => this.join());\n  }\n}\n",
    };
    mkdirSync(dir, { recursive: true });
    try {
      const linter = new Linter({ configType: 'flat' });
      for (const [name, code] of Object.entries(cases)) {
        writeFileSync(join(dir, name), code);
        expect(mayRetry(code), name).toBe(true);
        const eslint = linter
          .verify(code, [herdless.configs.recommended], name)
          .map((m) => `${m.line} ${m.ruleId}`)
          .sort();
        expect(eslint.length, name).toBeGreaterThan(0);
        const report = JSON.parse((await run(['--json', `prefilter/${name}`])).out) as AuditReport;
        expect(report.summary, name).toMatchObject({ filesParsed: 1, filesWithoutFailurePath: 0 });
        expect(report.findings.map((f) => `${f.line} ${f.rule}`).sort(), name).toEqual(eslint);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 2 and says nothing was checked when every file that could hold a retry is unparsable', async () => {
    mkdirSync(join(project, 'broken'), { recursive: true });
    writeFileSync(join(project, 'broken', 'a.js'), 'function ( { try {} catch (e) {}');
    writeFileSync(join(project, 'broken', 'b.ts'), 'try { x( } catch {}');
    try {
      const { code, out } = await run(['broken']);
      expect(code).toBe(2);
      expect(out).toContain(
        '  2 files scanned: 0 parsed, 0 without a failure path (no retry possible), 2 not checked\n',
      );
      expect(out).toMatch(
        /\ncould not check 2 files:\n {2}broken\/a\.js: parse error .+\n {2}broken\/b\.ts: parse error .+\n/,
      );
      expect(out).toContain('nothing was checked: no file that could hold a retry could be checked\n');
      // As --help says: a failed run (here, nothing checked) leaves stdout empty, so it never parses as clean (review).
      const json = await run(['--json', 'broken']);
      expect(json).toMatchObject({ code: 2, out: '' });
      expect(json.err).toMatch(/\ncould not check 2 files:\n {2}broken\/a\.js: parse error at 1:10: .+\n/);
      expect(json.err).toContain('nothing was checked: no file that could hold a retry could be checked\n');
    } finally {
      rmSync(join(project, 'broken'), { recursive: true, force: true });
    }
  });

  it('exits 2 when the paths hold no source file at all: an empty folder, only .d.ts (new-user review)', async () => {
    const dir = join(project, 'nothing');
    mkdirSync(join(dir, 'empty'), { recursive: true });
    mkdirSync(join(dir, 'types'), { recursive: true });
    writeFileSync(join(dir, 'types', 'a.d.ts'), 'export declare const a: number;\n');
    try {
      for (const path of ['nothing/empty', 'nothing/types']) {
        const { code, out } = await run([path]);
        expect(code).toBe(2);
        expect(out).toContain('  0 files scanned: 0 parsed');
        expect(out).toContain('nothing was checked: no source file (.js .mjs .cjs .ts .mts .cts .jsx .tsx) under');
        const json = await run(['--json', path]);
        expect(json).toMatchObject({ code: 2, out: '' });
        expect(json.err).toContain('nothing was checked: no source file');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an unknown flag is one line naming it, exit 2 (new-user review)', async () => {
    const { code, err } = await run(['--frob']);
    expect(code).toBe(2);
    expect(err).toBe('herdless audit: unknown flag --frob (see herdless audit --help)\n');
  });

  it('follows symbolic links to files and directories, reads each file once, and survives a link loop', async () => {
    const dir = join(project, 'linked');
    mkdirSync(join(dir, 'real'), { recursive: true });
    writeFileSync(join(dir, 'real', 'seed.js'), seedLoop);
    writeFileSync(join(project, 'outside.js'), seedLoop);
    symlinkSync(join(project, 'outside.js'), join(dir, 'via-link.js')); // a link to a file outside the tree
    symlinkSync(join(dir, 'real', 'seed.js'), join(dir, 'again.js')); // a second name for a file in the tree
    symlinkSync(dir, join(dir, 'real', 'loop')); // a directory link back up: a loop
    symlinkSync(join(dir, 'nowhere.js'), join(dir, 'broken.js')); // a broken link
    try {
      const report = JSON.parse((await run(['--json', 'linked'])).out) as AuditReport;
      const found = [...new Set(report.findings.map((f) => f.file))].sort();
      expect(found).toHaveLength(2);
      expect(found).toContain('linked/via-link.js');
      expect(found.filter((f) => f === 'linked/again.js' || f === 'linked/real/seed.js')).toHaveLength(1);
      expect(report.summary).toMatchObject({
        filesScanned: 2,
        filesParsed: 2,
        skipped: [{ path: 'linked/broken.js', reason: expect.stringMatching(/^broken link or no access \(ENOENT: /) }],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(join(project, 'outside.js'));
    }
  });

  it('never opens a FIFO named like a source file, found in a tree or named on the command line', async () => {
    const dir = mkdtempSync(join(project, 'fifo-'));
    writeFileSync(join(dir, 'seed.js'), seedLoop);
    expect(spawnSync('mkfifo', [join(dir, 'x.js')]).status).toBe(0);
    // In a child process: an audit that opened the FIFO would block forever, so the timeout turns a hang into a failure.
    const cli = join(import.meta.dirname, '..', 'src', 'cli.ts');
    const audited = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', cli, 'audit', '--json', ...args], {
        cwd: project,
        encoding: 'utf8',
        timeout: 30_000,
      });
    try {
      const name = dir.slice(project.length + 1);
      // The directory (the FIFO found by the walk) and the FIFO named: one child process, skipped once.
      const child = audited([name, `${name}/x.js`]);
      expect(child.signal, 'the audit hung on the FIFO').toBeNull();
      expect(child.status).toBe(1);
      const report = JSON.parse(child.stdout) as AuditReport;
      expect(report.summary).toMatchObject({
        filesScanned: 1,
        filesParsed: 1,
        skipped: [{ path: `${name}/x.js`, reason: 'not a regular file (FIFO, socket or device): never opened' }],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a path whose real path cannot be resolved (gone, no access on the way) is skipped with why', async () => {
    const dir = mkdtempSync(join(project, 'vanish-'));
    writeFileSync(join(dir, 'gone.js'), seedLoop);
    writeFileSync(join(dir, 'seed.js'), seedLoop);
    const fs: AuditFs = {
      readDir: (d) => readdirSync(d, { withFileTypes: true }),
      readFile: (f) => readFileSync(f, 'utf8'),
      realPath: (path) => {
        if (path.endsWith('gone.js')) throw Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
        return realpathSync.native(path);
      },
    };
    try {
      const name = dir.slice(project.length + 1);
      const { files, skipped } = listFiles([name], project, fs);
      expect(files.map((f) => f.path)).toEqual([join(project, name, 'seed.js')]);
      expect(skipped).toEqual([{ path: join(name, 'gone.js'), reason: expect.stringContaining('ENOENT') }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says why for any thrown value (null, a string, an Error without a code), and lists ten then how many more', async () => {
    const dir = mkdtempSync(join(project, 'odd-'));
    const name = dir.slice(project.length + 1);
    for (let i = 0; i < 12; i++) writeFileSync(join(dir, `f${String(i).padStart(2, '0')}.js`), seedLoop);
    const thrown: Record<string, unknown> = { 'f00.js': null, 'f01.js': 'went away', 'f02.js': new Error('odd\nmore') };
    const fs: AuditFs = {
      readDir: (d) => readdirSync(d, { withFileTypes: true }),
      readFile: () => {
        throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
      },
      realPath: (path) => {
        const file = path.slice(-6);
        if (file in thrown) throw thrown[file];
        return realpathSync.native(path);
      },
    };
    try {
      const { skipped } = listFiles([name], project, fs);
      expect(skipped.map((s) => s.reason)).toEqual(['null', 'went away', 'odd']);
      const { code, out } = await run([name], project, fs);
      expect(code).toBe(2); // nothing could be read: nothing was checked
      expect(out).toContain(`\ncould not check 9 files:\n  ${name}/f03.js: cannot read (EIO: i/o error, read)\n`);
      expect(out).not.toContain('more (--json lists them all)'); // nine fit
      const more = await run([name], project, { ...fs, realPath: (path) => realpathSync.native(path) });
      expect(more.out).toContain(
        `  ${name}/f09.js: cannot read (EIO: i/o error, read)\n  ... and 2 more (--json lists them all)\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an internal error that is not an Error still exits 3 with a line saying so', async () => {
    const err: string[] = [];
    const code = await audit(
      ['.'],
      {
        out: () => {
          throw 'stdout closed';
        },
        err: (t) => err.push(t),
      },
      project,
    );
    expect(code).toBe(3);
    expect(err.join('')).toBe('herdless audit: internal error, please report it: stdout closed\n');
  });

  it('in process too, a FIFO is listed as skipped and never opened', async () => {
    const dir = mkdtempSync(join(project, 'fifo-'));
    expect(spawnSync('mkfifo', [join(dir, 'pipe.js')]).status).toBe(0);
    try {
      const opened: string[] = [];
      const fs: AuditFs = {
        readDir: (d) => readdirSync(d, { withFileTypes: true }),
        readFile: (f) => {
          opened.push(f);
          return readFileSync(f, 'utf8');
        },
        realPath: (path) => realpathSync.native(path),
      };
      const pipe = join(dir.slice(project.length + 1), 'pipe.js');
      const { files, skipped } = listFiles([pipe], project, fs);
      expect(files).toEqual([]);
      expect(skipped).toEqual([{ path: pipe, reason: expect.stringMatching(/^not a regular file/) }]);
      expect(opened).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists a directory or a file it cannot read (EACCES) with the reason, and goes on with the rest', async () => {
    const dir = mkdtempSync(join(project, 'denied-'));
    mkdirSync(join(dir, 'locked'));
    writeFileSync(join(dir, 'locked', 'hidden.js'), seedLoop);
    writeFileSync(join(dir, 'secret.js'), seedLoop);
    writeFileSync(join(dir, 'seed.js'), seedLoop);
    // What chmod 000 does for a user that is not root (root reads anything, so the test cannot rely on chmod).
    const denied = (syscall: string, path: string) =>
      Object.assign(new Error(`EACCES: permission denied, ${syscall} '${path}'`), { code: 'EACCES' });
    const fs: AuditFs = {
      readDir: (d) => {
        if (d.endsWith('locked')) throw denied('scandir', d);
        return readdirSync(d, { withFileTypes: true });
      },
      readFile: (f) => {
        if (f.endsWith('secret.js')) throw denied('open', f);
        return readFileSync(f, 'utf8');
      },
      realPath: (path) => realpathSync.native(path),
    };
    const name = dir.slice(project.length + 1);
    try {
      const { code, out } = await run(['--json', name], project, fs);
      expect(code).toBe(1);
      const report = JSON.parse(out) as AuditReport;
      expect(report.findings.map((f) => f.file)).toEqual([`${name}/seed.js`, `${name}/seed.js`]);
      expect(report.summary).toMatchObject({
        filesScanned: 2,
        filesParsed: 1,
        unparsable: [{ path: `${name}/secret.js`, reason: 'cannot read (EACCES: permission denied)' }],
        skipped: [{ path: `${name}/locked`, reason: 'cannot list the directory (EACCES: permission denied)' }],
      });
      const text = await run([name], project, fs);
      expect(text.code).toBe(1);
      expect(text.out).toContain(
        `\ncould not check 1 file:\n  ${name}/secret.js: cannot read (EACCES: permission denied)\n` +
          `skipped 1 path:\n  ${name}/locked: cannot list the directory (EACCES: permission denied)\n`,
      );
      // Every file unreadable: nothing was checked.
      expect((await run([`${name}/secret.js`], project, fs)).code).toBe(2);
      const locked = await run([`${name}/locked`], project, fs);
      expect(locked.code).toBe(2);
      expect(locked.out).toContain('\nnothing was checked: no file that could hold a retry could be checked\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(`does not read a file over ${MAX_FILE_BYTES / 1024 / 1024} MB (a 600 MB .js): lists it, checks the rest`, async () => {
    await besideSeed(
      'big-',
      (dir) => {
        // Sparse files: no disk used. 600 MB is past the longest string V8 makes (ERR_STRING_TOO_LONG).
        writeFileSync(join(dir, 'huge.js'), '');
        truncateSync(join(dir, 'huge.js'), 600 * 1024 * 1024);
        writeFileSync(join(dir, 'over.js'), '');
        truncateSync(join(dir, 'over.js'), MAX_FILE_BYTES + 1);
      },
      async (report, name) => {
        expect(report.summary.unparsable).toEqual(
          expect.arrayContaining([
            { path: `${name}/huge.js`, reason: 'larger than 10 MB (600 MB), not read: a generated bundle?' },
            { path: `${name}/over.js`, reason: 'larger than 10 MB (10 MB), not read: a generated bundle?' },
          ]),
        );
        expect(report.summary).toMatchObject({ filesScanned: 3, filesParsed: 1 });
      },
    );
  });

  it('lists a generated file whose long method chain overflows the stack in the parser, and checks the rest', async () => {
    const DEEP_CHECK =
      'too deeply nested to check (the parser or a rule ran out of stack: Maximum call stack size exceeded)';
    await besideSeed(
      'chain-',
      (dir) => {
        writeFileSync(join(dir, 'then.js'), `p${'.then(f)'.repeat(20_000)}.catch(g);\n`);
        writeFileSync(join(dir, 'member.js'), `x${'.a'.repeat(20_000)}().catch(g);\n`);
      },
      async (report, name) => {
        expect(report.summary.unparsable).toEqual([
          { path: `${name}/member.js`, reason: DEEP_CHECK },
          { path: `${name}/then.js`, reason: DEEP_CHECK },
        ]);
      },
    );
  });

  it('says a file too deeply nested to parse is that, never the error of a re-parse as a script (review)', async () => {
    // 20,000 nested blocks overflow every parser's stack. The module parse of deep.js failed on the stack, and its
    // re-parse as a script then failed on the import: the file was listed as "'import' and 'export' may appear only
    // with 'sourceType: module'", which says nothing of what happened.
    const blocks = `${'{'.repeat(20_000)}try { f(); } catch (e) { g(); }${'}'.repeat(20_000)}\n`;
    await besideSeed(
      'deep-',
      (dir) => {
        writeFileSync(join(dir, 'deep.js'), `import f from './f.js';\n${blocks}`);
        writeFileSync(join(dir, 'deep.cjs'), blocks);
        writeFileSync(join(dir, 'deep.ts'), blocks);
      },
      async (report, name) => {
        const listed = report.summary.unparsable;
        expect(listed.map((u) => u.path)).toEqual([`${name}/deep.cjs`, `${name}/deep.js`, `${name}/deep.ts`]);
        for (const { reason } of listed)
          expect(reason).toMatch(/^too deeply nested to parse \(the parser ran out of stack/);
        expect(listed.map((u) => u.reason).join('\n')).not.toMatch(/sourceType|import/);
        const text = await run([name]);
        expect(text.out).toContain(`  ${name}/deep.js: too deeply nested to parse (the parser ran out of stack`);
      },
    );
  });

  it('exits 3 with the error on an internal failure (here the thread pool throws)', async () => {
    // Not an unwritable output: the herdless command makes that exit code 4 (test/cli.test.ts).
    const err: string[] = [];
    const code = await audit(['src/clean.js'], { out: () => {}, err: (t) => err.push(t) }, project, undefined, {
      count: () => {
        throw new Error('no threads today');
      },
      start: () => {
        throw new Error('unreachable');
      },
    });
    expect(code).toBe(3);
    expect(err.join('')).toMatch(/^herdless audit: internal error, please report it: Error: no threads today\n/);
  });

  it('without ESLint in the project, exits 2 with the one-line install command', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'herdless-audit-'));
    try {
      const { code, out, err } = await run([], bare);
      expect(code).toBe(2);
      expect(out).toBe('');
      // A JavaScript project needs ESLint alone: typescript-eslint is asked for only with TypeScript files (review).
      expect(err).toBe('herdless audit needs eslint in this project; install with: npm install --save-dev eslint\n');
      expect(err.trim().split('\n')).toHaveLength(1);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  it('with --json, an audit that could not run prints no JSON: empty stdout, the reason on stderr (documented)', async () => {
    // New-user review: `--json` without ESLint printed plain text. No report is printed rather than a JSON error, so
    // that no failure parses as a clean report (a reader of `findings` would see none); ESLint's --format json does so.
    const bare = mkdtempSync(join(tmpdir(), 'herdless-audit-'));
    try {
      expect(await run(['--json'], bare)).toEqual({
        code: 2,
        out: '',
        err: 'herdless audit needs eslint in this project; install with: npm install --save-dev eslint\n',
      });
      expect(await run(['--json', '--frob'])).toMatchObject({ code: 2, out: '' });
      expect(await run(['--json', 'nowhere'])).toMatchObject({ code: 2, out: '' });
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
    expect(AUDIT_USAGE).toMatch(
      /--json {7}print the findings and the summary as JSON \(for CI\)\. Only a report is JSON:/,
    );
    expect(AUDIT_USAGE).toMatch(/stdout is empty and the reason is on stderr/);
    const page = readFileSync(join(import.meta.dirname, '..', 'docs', 'guide', 'cli.md'), 'utf8');
    expect(page).toMatch(/With `--json`, standard output is the report whenever the audit ran and checked something/);
  });

  it('an ESLint that is found but fails to load (typescript missing, say) is missing too: exit 2, once files need it', async () => {
    const dirs: string[] = [];
    /** A project whose eslint and typescript-eslint resolve, with these module bodies (a fresh path: no require cache). */
    const projectWith = (eslint: string, tseslint: string) => {
      const dir = mkdtempSync(join(tmpdir(), 'herdless-audit-broken-'));
      dirs.push(dir);
      for (const [name, body] of [
        ['eslint', eslint],
        ['typescript-eslint', tseslint],
      ] as const) {
        mkdirSync(join(dir, 'node_modules', name), { recursive: true });
        writeFileSync(join(dir, 'node_modules', name, 'package.json'), JSON.stringify({ name, main: 'index.js' }));
        writeFileSync(join(dir, 'node_modules', name, 'index.js'), body);
      }
      writeFileSync(join(dir, 'plain.js'), 'for (;;) { step(); }');
      return dir;
    };
    const needs = (name: string) =>
      `herdless audit needs ${name} in this project; install with: npm install --save-dev ${name}\n`;
    try {
      const noTypescript = projectWith('throw new Error("Cannot find module typescript");', 'module.exports = {};');
      // Nothing to parse: ESLint is never loaded, and the audit is done.
      expect((await run([], noTypescript)).code).toBe(0);
      writeFileSync(join(noTypescript, 'retry.js'), seedLoop);
      expect(await run([], noTypescript)).toEqual({ code: 2, out: '', err: needs('eslint') });
      const brokenParser = projectWith('module.exports = { Linter: class {} };', 'throw new Error("broken");');
      writeFileSync(join(brokenParser, 'retry.js'), seedLoop);
      expect(await run([], brokenParser)).toEqual({ code: 2, out: '', err: needs('typescript-eslint') });
    } finally {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a JavaScript project needs ESLint alone; TypeScript files ask for typescript-eslint (new-user review)', async () => {
    // `npx herdless audit naive.js` in a project with ESLint but no typescript-eslint exited 2 asking for both.
    const dir = mkdtempSync(join(tmpdir(), 'herdless-audit-js-'));
    try {
      mkdirSync(join(dir, 'node_modules'));
      symlinkSync(join(import.meta.dirname, '..', 'node_modules', 'eslint'), join(dir, 'node_modules', 'eslint'));
      writeFileSync(join(dir, 'retry.js'), seedLoop);
      const js = await run([], dir);
      expect(js.code).toBe(1);
      expect(js.out).toMatch(/retry\.js:\d+:\d+ +herdless\/require-jitter/);
      writeFileSync(join(dir, 'retry.ts'), seedLoop);
      expect(await run([], dir)).toEqual({
        code: 2,
        out: '',
        err: 'herdless audit needs typescript-eslint in this project; install with: npm install --save-dev typescript-eslint\n',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--help prints the usage; a bad flag or a missing path exits 2 with one line', async () => {
    expect(await run(['--help'])).toEqual({ code: 0, out: AUDIT_USAGE, err: '' });
    const bad = await run(['--fast']);
    expect(bad.code).toBe(2);
    expect(bad.err).toBe('herdless audit: unknown flag --fast (see herdless audit --help)\n');
    expect(await run(['nowhere'])).toEqual({
      code: 2,
      out: '',
      err: 'herdless audit: no such file or directory: nowhere\n',
    });
    // An empty path (an unset variable) is not the working directory (review).
    for (const args of [[''], ['src', ''], ['--json', '']]) {
      expect(await run(args)).toEqual({
        code: 2,
        out: '',
        err: 'herdless audit: an empty path (see herdless audit --help)\n',
      });
    }
  });

  it('is reached from the herdless command', async () => {
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: () => {}, errIsTTY: false, writeFile: () => {} };
    expect(await main(['audit', '--help'], io)).toBe(0);
    expect(out).toEqual([AUDIT_USAGE]);
  });

  it('loads ESLint from the project, never from herdless itself', async () => {
    const text = readFileSync(join(import.meta.dirname, '..', 'src', 'audit', 'audit.ts'), 'utf8');
    expect(text).toMatch(/createRequire\(join\(cwd, 'noop\.js'\)\)/);
    expect(text).not.toMatch(/from 'eslint'|from 'typescript-eslint'/);
  });
});
