/**
 * `herdless audit [paths...]`: runs the four `herdless/eslint` rules over a tree and lists the hand-written retry
 * loops that lack a wait, jitter, a limit or a transient-error check. Node only, not part of the core entry.
 *
 * It runs through the ESLint and typescript-eslint installed in the project being audited (resolved from the working
 * directory, never from herdless's own dependencies); when they are missing it says how to install them, exit 2.
 */
import { lstatSync, readdirSync, readFileSync, realpathSync, type Stats, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import plugin from './eslint/index';

export const AUDIT_USAGE = `Usage: herdless audit [paths...] [--json]

Finds hand-written retry loops that lack a wait, jitter, a limit or a transient-error check, with the four
herdless/eslint rules, run through the ESLint and typescript-eslint installed in your project.

Paths are files or directories (default: .). Reads .js .mjs .cjs .jsx .ts .mts .cts .tsx; skips node_modules unless a
path you name is inside one. Follows symbolic links (each file read once); never opens a FIFO, socket or device.

Exits 1 when it finds something, 0 when not, 2 for a bad command line, missing ESLint, or when files that could hold a
retry were found but none of them could be parsed (nothing was checked).

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
    /** Regular files with a matching extension that were read (a file reached through several links counts once). */
    readonly filesScanned: number;
    /** Of those, files that could contain a retry (mention catch, then, .ok or status), parsed and checked. */
    readonly filesParsed: number;
    /** Of those, files with no catch, then, .ok or status: no failure path, so no retry; not parsed. */
    readonly filesWithoutFailurePath: number;
    /** Files that could contain a retry but that the parser could not read: listed, never counted as clean. */
    readonly unparsable: readonly string[];
    /** Paths with a matching name that are not regular files (FIFO, socket, device, broken link): never opened. */
    readonly skipped: readonly string[];
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

const isSource = (name: string) => EXTENSIONS.has(extname(name)) && !/\.d\.[mc]?ts$/.test(name);

/** What a path is, following a symbolic link; undefined when it cannot be read (a broken link, no permission). */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The files to read under each path: regular files with a matching extension, node_modules skipped unless the path is
 * inside one. Symbolic links are followed; each file and directory is taken once by its real path (no duplicates, no
 * loops). Only `stat` is asked about anything else: a FIFO, socket or device is listed in `skipped`, never opened.
 */
export function listFiles(paths: readonly string[], cwd: string): { files: string[]; skipped: string[] } {
  const files: string[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  const once = (path: string) => {
    const real = realpathSync.native(path);
    if (seen.has(real)) return false;
    seen.add(real);
    return true;
  };
  const take = (path: string, stats: Stats | undefined) => {
    if (stats?.isFile()) {
      if (once(path)) files.push(path);
    } else if (!stats?.isDirectory() && !skipped.includes(path)) skipped.push(path);
  };
  const visit = (dir: string, keepModules: boolean) => {
    if (!once(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      // readdir says what an entry is without opening it; a link is looked through with stat.
      const link = entry.isSymbolicLink() ? statOf(full) : undefined;
      if (link ? link.isDirectory() : entry.isDirectory()) {
        if (entry.name === '.git' || (entry.name === 'node_modules' && !keepModules)) continue;
        visit(full, keepModules);
      } else if (isSource(entry.name)) {
        take(full, entry.isSymbolicLink() ? link : lstatSync(full));
      }
    }
  };
  for (const p of paths) {
    const full = resolve(cwd, p);
    const stats = statOf(full);
    if (stats?.isDirectory()) visit(full, full.split(sep).includes('node_modules'));
    else take(full, stats);
  }
  return { files, skipped };
}

/**
 * Runs the audit; returns the exit code: 0 nothing found, 1 found, 2 bad command line, missing ESLint, or nothing
 * checked (files that could hold a retry were found, none could be parsed).
 */
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
  const { files, skipped } = listFiles(paths, cwd);
  const report = run(files, skipped, cwd, loaded.linter, loaded.tsParser);
  if (values.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
  else io.out(format(report));
  return nothingChecked(report.summary) ? 2 : report.findings.length > 0 ? 1 : 0;
}

/** Files that could hold a retry were found, and none of them could be parsed: the audit checked nothing. */
const nothingChecked = (summary: AuditReport['summary']): boolean =>
  summary.filesParsed === 0 && summary.unparsable.length > 0;

type SourceType = 'module' | 'commonjs';

/** The flat config for each dialect, built once: ESLint normalises a config on every call it is handed new. */
function configs(tsParser: unknown): (ext: string, sourceType: SourceType) => unknown {
  const rules = plugin.configs.recommended.rules;
  const plugins = { herdless: plugin };
  const made = new Map<string, unknown>();
  return (ext, sourceType) => {
    const key = `${ext} ${sourceType}`;
    let config = made.get(key);
    if (!config) {
      config = [
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
      made.set(key, config);
    }
    return config;
  };
}

function run(
  files: readonly string[],
  skipped: readonly string[],
  cwd: string,
  linter: LinterLike,
  tsParser: unknown,
): AuditReport {
  const started = performance.now();
  const config = configs(tsParser);
  const findings: Finding[] = [];
  const unparsable: string[] = [];
  let parsed = 0;
  let withoutFailurePath = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    if (!MAY_RETRY.test(text)) {
      withoutFailurePath++;
      continue;
    }
    const ext = extname(file);
    // The name only picks the parser's dialect (and keeps ESLint's own ignores, such as node_modules, out of it).
    const name = `audited${ext}`;
    let messages = linter.verify(text, config(ext, ext === '.cjs' ? 'commonjs' : 'module'), name);
    if (messages.some((m) => m.fatal) && !TS.has(ext)) messages = linter.verify(text, config(ext, 'commonjs'), name);
    if (messages.some((m) => m.fatal)) {
      unparsable.push(relative(cwd, file));
      continue;
    }
    parsed++;
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
      filesScanned: files.length,
      filesParsed: parsed,
      filesWithoutFailurePath: withoutFailurePath,
      unparsable,
      skipped: skipped.map((f) => relative(cwd, f)),
      loops,
      byRule,
      ms: Math.round(performance.now() - started),
    },
  };
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

const listed = (files: readonly string[]) => `${files.slice(0, 5).join(', ')}${files.length > 5 ? ', ...' : ''}`;

function format(report: AuditReport): string {
  const { summary } = report;
  const lines = report.findings.map((f) => `${f.file}:${f.line}:${f.column}  ${f.rule}  ${f.message}`);
  if (lines.length > 0) lines.push('');
  const by = Object.entries(summary.byRule)
    .map(([rule, n]) => `  ${rule}: ${n}`)
    .sort();
  lines.push(
    `herdless audit: ${plural(summary.loops, 'retry loop')} with problems in ${(summary.ms / 1000).toFixed(1)} s`,
    `  ${plural(summary.filesScanned, 'file')} scanned: ${summary.filesParsed} parsed,` +
      ` ${summary.filesWithoutFailurePath} without catch, then or status (no retry possible),` +
      ` ${summary.unparsable.length} unparsable`,
    ...by,
  );
  if (summary.unparsable.length > 0) {
    lines.push(`could not parse ${plural(summary.unparsable.length, 'file')}: ${listed(summary.unparsable)}`);
  }
  if (summary.skipped.length > 0) {
    lines.push(
      `skipped ${plural(summary.skipped.length, 'path')} that ${summary.skipped.length === 1 ? 'is' : 'are'} not a regular file (FIFO, socket, device, broken link): ${listed(summary.skipped)}`,
    );
  }
  if (nothingChecked(summary)) lines.push('nothing was checked: no file that could hold a retry could be parsed');
  return `${lines.join('\n')}\n`;
}
