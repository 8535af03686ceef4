/**
 * `herdless audit [paths...]`: runs the four `herdless/eslint` rules over a tree and lists the hand-written retry
 * loops that lack a wait, jitter, a limit or a transient-error check. Node only, not part of the core entry.
 *
 * It runs through the ESLint and typescript-eslint installed in the project being audited (resolved from the working
 * directory, never from herdless's own dependencies); when they are missing it says how to install them, exit 2.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import plugin from './eslint/index';

export const AUDIT_USAGE = `Usage: herdless audit [paths...] [--json]

Finds hand-written retry loops that lack a wait, jitter, a limit or a transient-error check, with the four
herdless/eslint rules, run through the ESLint and typescript-eslint installed in your project.

Paths are files or directories (default: .). Reads .js .mjs .cjs .jsx .ts .mts .cts .tsx; skips node_modules unless a
path you name is inside one. Exits 1 when it finds something, 0 when not, 2 for a bad command line or missing ESLint.

Flags:
  --json       print the findings and the summary as JSON (for CI)
  -h, --help   show this help
`;

/** The one-line install command printed when ESLint or typescript-eslint is missing. */
export const INSTALL = 'npm install --save-dev eslint typescript-eslint';

/** Where the audit writes. */
export interface AuditIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** One report: a retry loop (or recursive function) and what it lacks. */
export interface Finding {
  /** The file, relative to the working directory. */
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** The rule id, e.g. `herdless/require-jitter`. */
  readonly rule: string;
  readonly message: string;
}

/** What `--json` prints. */
export interface AuditReport {
  readonly findings: readonly Finding[];
  readonly summary: {
    /** Files with a matching extension that were read. */
    readonly filesRead: number;
    /** Of those, files that could contain a retry (mention catch, then, .ok or status) and were parsed. */
    readonly filesLinted: number;
    /** Files the parser could not read (listed, never counted as clean). */
    readonly unparsed: readonly string[];
    /** Retry loops (or recursive functions) with at least one problem. */
    readonly loops: number;
    /** Reports per rule id. */
    readonly byRule: Readonly<Record<string, number>>;
    readonly ms: number;
  };
}

const EXTENSIONS = new Set(['.js', '.mjs', '.cjs', '.jsx', '.ts', '.mts', '.cts', '.tsx']);
const TS = new Set(['.ts', '.mts', '.cts', '.tsx']);
/** A retry needs a failure path: a catch, a `.then(ok, fail)`, or a look at `.ok` or a status. */
const MAY_RETRY = /catch|then|\.ok\b|status/;

interface LinterLike {
  verify(
    text: string,
    config: unknown,
    filename: string,
  ): { ruleId: string | null; fatal?: boolean; line: number; column: number; message: string }[];
}

/** ESLint's Linter and typescript-eslint's parser, from the project at `cwd`; or the names of those missing. */
function loadEslint(cwd: string): { linter: LinterLike; tsParser: unknown } | { missing: string[] } {
  const req = createRequire(join(cwd, 'noop.js'));
  const load = (name: string): Record<string, unknown> | undefined => {
    try {
      return req(name) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };
  const eslint = load('eslint');
  const tseslint = load('typescript-eslint');
  const missing = [eslint ? [] : ['eslint'], tseslint ? [] : ['typescript-eslint']].flat();
  if (!eslint || !tseslint) return { missing };
  const Linter = eslint.Linter as new (options: { configType: 'flat' }) => LinterLike;
  return { linter: new Linter({ configType: 'flat' }), tsParser: tseslint.parser };
}

/** The files to read under each path: matching extensions, node_modules skipped unless the path is inside one. */
export function listFiles(paths: readonly string[], cwd: string): string[] {
  const out: string[] = [];
  const visit = (path: string, keepModules: boolean) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) {
        if (entry.name === '.git' || (entry.name === 'node_modules' && !keepModules)) continue;
        visit(full, keepModules);
      } else if (entry.isFile() && EXTENSIONS.has(extname(entry.name)) && !/\.d\.[mc]?ts$/.test(entry.name)) {
        out.push(full);
      }
    }
  };
  for (const p of paths) {
    const full = resolve(cwd, p);
    const keepModules = full.split(sep).includes('node_modules');
    if (statSync(full).isDirectory()) visit(full, keepModules);
    else out.push(full);
  }
  return out;
}

/** Runs the audit; returns the exit code: 0 nothing found, 1 found, 2 bad command line or missing ESLint. */
export function audit(args: readonly string[], io: AuditIo, cwd: string = process.cwd()): number {
  let values: { json?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    io.err(`herdless audit: ${(error as Error).message.split('\n')[0]} (see herdless audit --help)\n`);
    return 2;
  }
  if (values.help) {
    io.out(AUDIT_USAGE);
    return 0;
  }
  const paths = positionals.length > 0 ? positionals : ['.'];
  for (const p of paths) {
    try {
      statSync(resolve(cwd, p));
    } catch {
      io.err(`herdless audit: no such file or directory: ${p}\n`);
      return 2;
    }
  }
  const loaded = loadEslint(cwd);
  if ('missing' in loaded) {
    io.err(`herdless audit needs ${loaded.missing.join(' and ')} in this project; install with: ${INSTALL}\n`);
    return 2;
  }
  const report = run(listFiles(paths, cwd), cwd, loaded.linter, loaded.tsParser);
  if (values.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
  else io.out(format(report));
  return report.findings.length > 0 ? 1 : 0;
}

function run(files: readonly string[], cwd: string, linter: LinterLike, tsParser: unknown): AuditReport {
  const started = performance.now();
  const rules = plugin.configs.recommended.rules;
  const plugins = { herdless: plugin };
  const config = (ext: string, sourceType: 'module' | 'commonjs') => [
    {
      files: [`**/*${ext}`],
      plugins,
      rules,
      // An inventory: the project's own inline ESLint comments (other rules, eslint-env) are not read.
      linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' },
      languageOptions: {
        ecmaVersion: 'latest',
        sourceType,
        ...(TS.has(ext) ? { parser: tsParser } : {}),
        parserOptions: { ecmaFeatures: { jsx: ext !== '.ts' && ext !== '.mts' && ext !== '.cts' } },
      },
    },
  ];
  const findings: Finding[] = [];
  const unparsed: string[] = [];
  let linted = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    if (!MAY_RETRY.test(text)) continue;
    linted++;
    const ext = extname(file);
    // The name only picks the parser's dialect (and keeps ESLint's own ignores, such as node_modules, out of it).
    const name = `audited${ext}`;
    let messages = linter.verify(text, config(ext, ext === '.cjs' ? 'commonjs' : 'module'), name);
    if (messages.some((m) => m.fatal) && !TS.has(ext)) messages = linter.verify(text, config(ext, 'commonjs'), name);
    if (messages.some((m) => m.fatal)) {
      unparsed.push(relative(cwd, file));
      continue;
    }
    for (const m of messages) {
      if (m.ruleId?.startsWith('herdless/')) {
        findings.push({
          file: relative(cwd, file),
          line: m.line,
          column: m.column,
          rule: m.ruleId,
          message: m.message,
        });
      }
    }
  }
  const byRule: Record<string, number> = {};
  for (const f of findings) byRule[f.rule] = (byRule[f.rule] ?? 0) + 1;
  const loops = new Set(findings.map((f) => `${f.file}:${f.line}:${f.column}`)).size;
  return {
    findings,
    summary: {
      filesRead: files.length,
      filesLinted: linted,
      unparsed,
      loops,
      byRule,
      ms: Math.round(performance.now() - started),
    },
  };
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

function format(report: AuditReport): string {
  const { summary } = report;
  const lines = report.findings.map((f) => `${f.file}:${f.line}:${f.column}  ${f.rule}  ${f.message}`);
  if (lines.length > 0) lines.push('');
  const by = Object.entries(summary.byRule)
    .map(([rule, n]) => `  ${rule}: ${n}`)
    .sort();
  lines.push(
    `herdless audit: ${plural(summary.loops, 'retry loop')} with problems in ${plural(summary.filesRead, 'file')}` +
      ` (${summary.filesLinted} parsed) in ${(summary.ms / 1000).toFixed(1)} s`,
    ...by,
  );
  if (summary.unparsed.length > 0) {
    const shown = summary.unparsed.slice(0, 5).join(', ');
    lines.push(
      `could not parse ${plural(summary.unparsed.length, 'file')}: ${shown}${summary.unparsed.length > 5 ? ', ...' : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
