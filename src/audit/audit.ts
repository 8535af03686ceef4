/**
 * `herdless audit [paths...]`: runs the four `herdless/eslint` rules over a tree and lists the hand-written retry
 * loops that lack a wait, jitter, a limit or a transient-error check. Node only, not part of the core entry.
 *
 * It runs through the ESLint and typescript-eslint installed in the project being audited (resolved from the working
 * directory, never from herdless's own dependencies); when they are missing it says how to install them, exit 2.
 */
import { type Dirent, lstatSync, readdirSync, readFileSync, realpathSync, type Stats, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, cpus } from 'node:os';
import { extname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import plugin from '../eslint/index';
import { nearest } from '../nearest';

export const AUDIT_USAGE = `Usage: herdless audit [paths...] [--json]

Finds hand-written retry loops that lack a wait, jitter, a limit or a transient-error check, with the four
herdless/eslint rules, run through the ESLint installed in your project (and typescript-eslint, for
TypeScript files).

Paths are files or directories (default: .). Reads .js .mjs .cjs .jsx .ts .mts .cts .tsx; skips node_modules unless a
path you name is inside one. Follows symbolic links (each file read once); never opens a FIFO, socket or device.

Files over 10 MB are not read (generated bundles, not hand-written loops). A file or directory that cannot be read,
parsed or checked is listed with the reason, and the audit goes on with the rest. Only files with a failure path
(a catch, .then(), .ok, status, a close/error/timeout handler or a callback's if (err)) are parsed; on two cores
or more, a hundred or more are linted in worker threads (one per core, at most one per 50 files), with the same
report.

Exit codes:
  0  nothing found
  1  retry loops with problems found
  2  a bad command line, missing ESLint, or nothing checked (no source file, or none that could hold a retry could
     be checked)
  3  an internal error in herdless audit (please report it)
  4  standard output could not be written (a full disk; a reader that stops early, as head does, is not an error)

Flags:
  --json       print the findings and the summary as JSON (for CI). Only a report is JSON: when the audit could
               not run or checked nothing (a bad command line, a missing path or ESLint, nothing checked: exit 2;
               an internal error, 3; stdout could not be written, 4), stdout is empty and the reason is on stderr,
               so no failure parses as a clean report
  -h, --help   show this help
`;

/** Where the audit writes. */
export interface AuditIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** How the audit reads the tree; tests hand in one that fails. */
export interface AuditFs {
  readonly readDir: (dir: string) => Dirent[];
  readonly readFile: (file: string) => string;
  /** The real path (links resolved), by which each file and directory is taken once. */
  readonly realPath: (path: string) => string;
}

const nodeFs: AuditFs = {
  readDir: (dir) => readdirSync(dir, { withFileTypes: true }),
  readFile: (file) => readFileSync(file, 'utf8'),
  realPath: (path) => realpathSync.native(path),
};

/** Files larger than this are not read: generated bundles, not hand-written retry loops. 10 MB. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** A path that was not checked, and why. */
export interface Unchecked {
  /** Relative to the working directory. */
  readonly path: string;
  readonly reason: string;
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
    /**
     * Of those, files that could contain a retry (a catch, .then(), .ok, status, a close/error/timeout handler, a
     * callback's if (err)), checked.
     */
    readonly filesParsed: number;
    /** Of those, files with none of these: no failure path; not parsed. */
    readonly filesWithoutFailurePath: number;
    /**
     * Files that could contain a retry but were not checked, with the reason: unreadable (EACCES), over
     * {@link MAX_FILE_BYTES} (not read), a parse error, too deeply nested for the parser's stack (a 10,000-link
     * chain, thousands of nested blocks), or the parser or a rule failed. Listed, never counted as clean.
     */
    readonly unparsable: readonly Unchecked[];
    /**
     * Paths never opened, with the reason: not a regular file (FIFO, socket, device), a broken link, or a directory
     * that cannot be listed.
     */
    readonly skipped: readonly Unchecked[];
    /** Retry loops (or recursive functions) with at least one problem. */
    readonly loops: number;
    /** Reports per rule id. */
    readonly byRule: Readonly<Record<string, number>>;
    readonly ms: number;
  };
}

const EXTENSIONS = new Set(['.js', '.mjs', '.cjs', '.jsx', '.ts', '.mts', '.cts', '.tsx']);
const TS = new Set(['.ts', '.mts', '.cts', '.tsx']);
/** Between two tokens: white space and comments. */
/**
 * White space and comments, each read one way only (a block comment up to its first close, in the unrolled form), so
 * that the prefilter takes linear time: a lazy `[^]*?` could end a comment at any later close, and a file of
 * comments after a `then` took exponential time (24 of them hung the audit: review).
 */
const GAP = String.raw`(?:\s|\/\*[^*]*\*+(?:[^/*][^*]*\*+)*\/|\/\/[^\n]*\n)*`;
/**
 * A retry needs a failure path, as the rules read one (src/eslint/retry-loop.ts): a catch clause (`catch (e)`,
 * `catch {`), a `.catch(cb)` or `.then(ok, fail)` call, a test of `.ok`, `status` or `statusCode`, or a handler of a
 * failure event (`ws.onclose = ...`, `on('error', ...)`, phoenix's `receive('timeout', ...)`), or a node-style
 * callback's `if (err)`. At least as wide as the rules: a false "maybe" costs a parse, a false "no" loses a report
 * (review). Each written as code, so prose such as "and then" in a comment, `statusText` or `catchError` does not
 * make a file worth parsing; but loosely enough for what the rules read (`res. ok`, `this.#ok`, `(0, p.catch)(...)`:
 * review). A `catch` spelt with a unicode escape is not seen.
 */
const MAY_RETRY = new RegExp(
  String.raw`\b(?:catch|then)${GAP}(?:(?:\?\.|!)${GAP})?[(<{)]|\.\s*#?ok\b|\bstatus(?:Code)?\b|` +
    String.raw`\bon(?:close|error|disconnect|end)\b|['"\`](?:close|error|disconnect|end|timeout)['"\`]|` +
    // A retry library imported or required (src/eslint/libraries.ts reads how it is set up).
    String.raw`['"\`](?:p-retry|promise-retry|async-retry|exponential-backoff|axios-retry)['"\`]|` +
    // An observer's failure handler: `subscribe({ next, error: (e) => ... })` (apollo's RetryLink).
    String.raw`\berror${GAP}:${GAP}(?:\(|[\w$]+${GAP}=>|function\b)|` +
    // A node-style callback's `if (err)` (the rules' nodeStyleError names), read as a failure branch.
    String.raw`\bif${GAP}\(${GAP}(?:(?:e|err|error|ex|reason)\b|[\w$]*Err)[\w$]*${GAP}\)`,
);

interface LinterLike {
  verify(
    text: string,
    config: unknown,
    filename: string,
  ): { ruleId: string | null; fatal?: boolean; line: number; column: number; message: string }[];
}

const PEERS = ['eslint', 'typescript-eslint'] as const;
const requireFrom = (cwd: string) => createRequire(join(cwd, 'noop.js'));

/**
 * The names of ESLint and typescript-eslint when they cannot be found from the project at `cwd`; typescript-eslint
 * only with TypeScript files to read (ESLint parses JavaScript itself).
 */
function missingPeers(cwd: string, typescript: boolean): string[] {
  const req = requireFrom(cwd);
  return PEERS.filter((name) => (name === 'eslint' || typescript) && !resolves(req, name));
}

/** Whether `name` is installed where `req` looks (found, whether or not it loads). */
function resolves(req: NodeJS.Require, name: string): boolean {
  try {
    req.resolve(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * ESLint's Linter and typescript-eslint's parser (undefined when it is not installed: JavaScript alone is then read),
 * from the project at `cwd`; or `['eslint']` when ESLint is missing.
 */
function loadEslint(cwd: string): { linter: LinterLike; tsParser: unknown } | { missing: string[] } {
  const req = requireFrom(cwd);
  const load = (name: string): Record<string, unknown> | undefined => {
    try {
      return req(name) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };
  const eslint = load('eslint');
  const tseslint = load('typescript-eslint');
  if (!eslint) return { missing: ['eslint'] };
  // Not installed: JavaScript alone is read. Installed but failing to load (its typescript missing): broken, said so.
  if (!tseslint && resolves(req, 'typescript-eslint')) return { missing: ['typescript-eslint'] };
  const Linter = eslint.Linter as new (options: { configType: 'flat' }) => LinterLike;
  return { linter: new Linter({ configType: 'flat' }), tsParser: tseslint?.parser };
}

const needs = (missing: readonly string[]) =>
  `herdless audit needs ${missing.join(' and ')} in this project; install with: npm install --save-dev ${missing.join(' ')}\n`;

const isSource = (name: string) => EXTENSIONS.has(extname(name)) && !/\.d\.[mc]?ts$/.test(name);

/** `EACCES: permission denied` from a Node error: the first line, without the path (listed beside it). */
function why(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const line = (typeof message === 'string' ? message : String(error)).split('\n')[0] as string;
  const text = line.replace(/, \w+ '.*'$/, '');
  return typeof code === 'string' && !text.startsWith(code) ? `${code}: ${text}` : text;
}

/** What a path is, following a symbolic link (or not); the error when it cannot be (a broken link, no permission). */
function statOf(path: string, follow = true): Stats | { error: unknown } {
  try {
    return follow ? statSync(path) : lstatSync(path);
  } catch (error) {
    return { error };
  }
}

const isStats = (s: Stats | { error: unknown } | undefined): s is Stats => s !== undefined && !('error' in s);

/** A regular file to read, with its size from stat (a file over the limit is never opened). */
export interface SourceFile {
  readonly path: string;
  readonly size: number;
}

/**
 * The files to read under each path: regular files with a matching extension, node_modules skipped unless the path is
 * inside one. Symbolic links are followed; each file and directory is taken once by its real path (no duplicates, no
 * loops). Only `stat` is asked about anything else: a FIFO, socket or device is listed in `skipped`, never opened.
 */
export function listFiles(
  paths: readonly string[],
  cwd: string,
  fs: AuditFs = nodeFs,
): { files: SourceFile[]; skipped: Unchecked[] } {
  const files: SourceFile[] = [];
  const skipped: Unchecked[] = [];
  const seen = new Set<string>();
  const skip = (path: string, reason: string) => {
    if (!skipped.some((s) => s.path === path)) skipped.push({ path, reason });
  };
  /** True the first time a real path is met; false again, or when it cannot be resolved (then it is skipped). */
  const once = (path: string) => {
    let real: string;
    try {
      real = fs.realPath(path);
    } catch (error) {
      skip(path, why(error));
      return false;
    }
    if (seen.has(real)) return false;
    seen.add(real);
    return true;
  };
  const take = (path: string, stats: Stats | { error: unknown }) => {
    if (!isStats(stats)) skip(path, `broken link or no access (${why(stats.error)})`);
    else if (stats.isFile()) {
      if (once(path)) files.push({ path, size: stats.size });
    } else if (!stats.isDirectory()) skip(path, 'not a regular file (FIFO, socket or device): never opened');
  };
  const visit = (dir: string, keepModules: boolean) => {
    if (!once(dir)) return;
    let entries: Dirent[];
    try {
      entries = fs.readDir(dir);
    } catch (error) {
      skip(dir, `cannot list the directory (${why(error)})`);
      return;
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      // readdir says what an entry is without opening it; a link is looked through with stat.
      const link = entry.isSymbolicLink() ? statOf(full) : undefined;
      if (isStats(link) ? link.isDirectory() : entry.isDirectory()) {
        if (entry.name === '.git' || (entry.name === 'node_modules' && !keepModules)) continue;
        visit(full, keepModules);
      } else if (isSource(entry.name)) {
        take(full, link ?? statOf(full, false));
      }
    }
  };
  for (const p of paths) {
    const full = resolve(cwd, p);
    const stats = statOf(full);
    if (isStats(stats) && stats.isDirectory()) visit(full, full.split(sep).includes('node_modules'));
    else take(full, stats);
  }
  return { files, skipped: skipped.map((s) => ({ path: relative(cwd, s.path), reason: s.reason })) };
}

/** One file to lint, as handed to a worker: read in the main thread, so an injected {@link AuditFs} serves both. */
export interface LintJob {
  /** The file's path: its extension picks the parser's dialect. */
  readonly file: string;
  readonly text: string;
}

/** One report of a herdless rule in a file. */
export type Report = Omit<Finding, 'file'>;

/** A file's reports, or why it could not be checked. */
export type LintResult = readonly Report[] | string;

/** How the files to parse are spread over worker threads; tests hand in their own. */
export interface AuditThreads {
  /** How many workers for this many files to parse; under 2, they are linted in this thread (no start-up cost). */
  readonly count: (toParse: number) => number;
  /** Starts one worker for the project at `cwd`, speaking src/audit/worker.ts's protocol. */
  readonly start: (cwd: string) => Worker;
}

/**
 * Files to parse per worker thread: a worker is started only when it gets about this many, since each one loads
 * ESLint and TypeScript first (about a second of CPU, the parsing of some 40 files).
 */
export const FILES_PER_WORKER = 50;

/**
 * Worker threads for `toParse` files on `cores` cores: one per {@link FILES_PER_WORKER} files, at most one per core;
 * 0 (lint in the main thread) when that makes fewer than two.
 */
export function poolSize(toParse: number, cores: number): number {
  const size = Math.min(cores, Math.floor(toParse / FILES_PER_WORKER));
  return size >= 2 ? size : 0;
}

/* c8 ignore start -- Node before 18.14 has no availableParallelism; the built worker sits beside dist/cli.js, while
   under vitest src/audit/audit.ts has no .js worker beside it (the tests start src/audit/worker.ts through tsx) */
const cores = () => availableParallelism?.() ?? cpus().length;
const threads: AuditThreads = {
  count: (toParse) => poolSize(toParse, cores()),
  start: (cwd) =>
    new Worker(new URL('./audit-worker.js', import.meta.url), {
      workerData: { cwd },
      // About the main thread's stack (V8's 984 KB; a worker's default is 4 MB), so that a file nested deep enough to
      // overflow it is not checked in a worker either: on Node 20 a 1.17 MB worker recurses 13,681 frames deep, the
      // main thread 13,919 (review: a parallel run linted what a serial one listed as not checked).
      resourceLimits: { stackSizeMb: 1.17 },
    }),
};
/* c8 ignore stop */

/**
 * Runs the audit; resolves to the exit code: 0 nothing found, 1 found, 2 bad command line, missing ESLint, or nothing
 * checked (files that could hold a retry were found, none could be checked), 3 an internal error (a bug here: an
 * unreadable or unparsable file is never one, it is listed and the audit goes on). Files are linted in worker threads
 * when there are enough of them ({@link poolSize}); the report is the same either way. No worker is left running
 * once it resolves.
 */
export async function audit(
  args: readonly string[],
  io: AuditIo,
  cwd: string = process.cwd(),
  fs: AuditFs = nodeFs,
  pool: AuditThreads = threads,
): Promise<number> {
  try {
    return await auditOrThrow(args, io, cwd, fs, pool);
  } catch (error) {
    io.err(`herdless audit: internal error, please report it: ${(error as Error)?.stack ?? String(error)}\n`);
    return 3;
  }
}

/** `herdless audit`'s flags, as parseArgs reads them. */
const FLAGS = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

async function auditOrThrow(
  args: readonly string[],
  io: AuditIo,
  cwd: string,
  fs: AuditFs,
  pool: AuditThreads,
): Promise<number> {
  let values: { json?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: [...args], allowPositionals: true, strict: true, options: FLAGS }));
  } catch (error) {
    io.err(`herdless audit: ${usageMessage(error as Error, Object.keys(FLAGS))} (see herdless audit --help)\n`);
    return 2;
  }
  if (values.help) {
    io.out(AUDIT_USAGE);
    return 0;
  }
  // `herdless audit ""` (an unset variable, say) would resolve to the working directory: say so rather (review).
  if (positionals.includes('')) {
    io.err('herdless audit: an empty path (see herdless audit --help)\n');
    return 2;
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
  const { files, skipped } = listFiles(paths, cwd, fs);
  // Only found here: the threads that lint load ESLint (the main thread too, when it lints). typescript-eslint only
  // for TypeScript files: a JavaScript project needs ESLint alone (new-user review).
  const missing = missingPeers(
    cwd,
    files.some((f) => TS.has(extname(f.path))),
  );
  if (missing.length > 0) {
    io.err(needs(missing));
    return 2;
  }
  const report = await run(files, skipped, cwd, fs.readFile, pool);
  if ('missing' in report) {
    io.err(needs(report.missing));
    return 2;
  }
  const unchecked = nothingChecked(report.summary);
  // Nothing checked is a failure: with --json, no report that parses as clean; the summary says why, on stderr.
  if (values.json && unchecked) io.err(format(report));
  else if (values.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
  else io.out(format(report));
  return unchecked ? 2 : report.findings.length > 0 ? 1 : 0;
}

/**
 * The audit checked nothing: files that could hold a retry were found and none could be checked, or all it met was
 * skipped (a directory it may not list).
 */
/** No file was parsed, and none was cleared by its text alone: no source file found, or none readable. */
const nothingChecked = (summary: AuditReport['summary']): boolean =>
  summary.filesParsed === 0 && (summary.unparsable.length > 0 || summary.filesWithoutFailurePath === 0);

/**
 * One line for a bad command line (the CLI's and the audit's): Node's parseArgs advice about positionals after '--'
 * does not apply here. An unknown flag names the known one it probably meant (`--cels`: did you mean --cells?), as an
 * unknown command and a misspelt library option do; `flags` are the command's flag names, without the dashes.
 */
export function usageMessage(error: Error, flags: Iterable<string> = []): string {
  const unknown = /^Unknown option '([^']+)'/.exec(error.message);
  if (!unknown) return error.message.split('\n')[0] as string;
  const flag = unknown[1] as string;
  const name = flag.slice(2);
  // Within 2 edits, or the same word in the singular (--strategy for --strategies is 3 edits away).
  const guess = flag.startsWith('--')
    ? (nearest(name, flags) ?? [...flags].find((known) => singular(known) === singular(name)))
    : undefined;
  return `unknown flag ${flag}${guess ? ` (did you mean --${guess}?)` : ''}`;
}

/** A flag's name in the singular, as far as a flag's plural goes: strategies, cells, seeds. */
const singular = (name: string) => name.toLowerCase().replace(/(ies|y|s)$/, '');

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

/**
 * Lints one file at a time with the ESLint of the project at `cwd`, loaded once: what the main thread and each
 * worker thread run. The names of the packages missing when they cannot be loaded.
 */
export function linterFor(cwd: string): ((job: LintJob) => LintResult) | { missing: string[] } {
  const loaded = loadEslint(cwd);
  if ('missing' in loaded) return loaded;
  const config = configs(loaded.tsParser);
  return (job) => lint(job, loaded.linter, config);
}

/** The herdless reports for one file, or why it could not be checked: the parser or a rule failing is not fatal. */
function lint(
  { file, text }: LintJob,
  linter: LinterLike,
  config: (ext: string, sourceType: SourceType) => unknown,
): LintResult {
  const ext = extname(file);
  // The name only picks the parser's dialect (and keeps ESLint's own ignores, such as node_modules, out of it); the
  // file's own path goes in the settings, where the rules find the files next to it (src/eslint/imports.ts).
  const name = `audited${ext}`;
  const at = (sourceType: SourceType) =>
    (config(ext, sourceType) as object[]).map((c) => ({ ...c, settings: { herdless: { filename: resolve(file) } } }));
  try {
    let messages = linter.verify(text, at(ext === '.cjs' ? 'commonjs' : 'module'), name);
    const first = messages.find((m) => m.fatal);
    // A module that does not parse may be a script (`with`, a top-level return); one too deep for the parser's stack
    // is too deep as a script too, and the script's error would be another (review: an import, "may appear only with
    // 'sourceType: module'").
    if (first && !TS.has(ext) && !OUT_OF_STACK.test(first.message))
      messages = linter.verify(text, at('commonjs'), name);
    const fatal = messages.find((m) => m.fatal);
    if (fatal) {
      const at = fatal.line === undefined ? '' : ` at ${fatal.line}:${fatal.column}`;
      if (OUT_OF_STACK.test(fatal.message)) return `too deeply nested to parse (the parser ran out of stack${at})`;
      return `parse error${at}: ${fatal.message}`;
    }
    return messages.flatMap(({ ruleId, line, column, message }) =>
      ruleId?.startsWith('herdless/') ? [{ line, column, rule: ruleId, message }] : [],
    );
  } catch (error) {
    // A 10,000-link generated chain overflows the stack in scope analysis; other files still get checked.
    const reason = why(error);
    if (OUT_OF_STACK.test(reason))
      return `too deeply nested to check (the parser or a rule ran out of stack: ${reason})`;
    return `the parser or a rule failed: ${reason}`;
  }
}

/**
 * A parser or a rule that ran out of stack: V8's RangeError, or what a parser makes of it (espree's "Not enough stack
 * space to parse input", typescript-eslint's "Maximum call stack size exceeded" as a parse error).
 */
const OUT_OF_STACK = /Maximum call stack size exceeded|Not enough stack space/;

/**
 * From this many characters a file is linted in a worker thread even when the audit is small enough to lint in the main
 * thread: a 2 MB generated file can exhaust a 256 MB heap, which would end the whole process there.
 */
export const LARGE_FILE_CHARS = 1_000_000;

/** Files handed to a worker at a time: few, so the last ones spread over every worker. */
const BATCH = 8;

/**
 * Lints the jobs in `size` worker threads, a batch at a time. A worker that stops while checking a batch (it crashed,
 * ran out of memory) is replaced and its files are checked again one by one, so the file that stops a worker is
 * listed with why and the others are kept. Resolves once every worker has exited, with undefined for the files no
 * worker could check (none could start): the main thread lints those.
 */
function lintInWorkers(
  jobs: readonly LintJob[],
  size: number,
  cwd: string,
  start: AuditThreads['start'],
): Promise<(LintResult | undefined)[]> {
  const results: (LintResult | undefined)[] = jobs.map(() => undefined);
  const pending: number[][] = [];
  for (let i = 0; i < jobs.length; i += BATCH) pending.push(jobs.slice(i, i + BATCH).map((_, k) => i + k));
  return new Promise((done) => {
    let running = 0;
    const launch = () => {
      const worker = start(cwd);
      running++;
      let ready = false;
      let batch: number[] | undefined;
      let failure = '';
      const next = () => {
        batch = pending.shift();
        if (batch) worker.postMessage(batch.map((i) => jobs[i]));
        else void worker.terminate();
      };
      // 'ready' once ESLint is loaded, then the results of each batch, in the batch's order.
      worker.on('message', (message: 'ready' | LintResult[]) => {
        const checked = batch as number[];
        if (message !== 'ready') {
          message.forEach((result, k) => {
            results[checked[k] as number] = result;
          });
        }
        ready = true;
        next();
      });
      worker.on('error', (error) => {
        failure = why(error);
      });
      worker.on('exit', (code) => {
        running--;
        if (batch?.length === 1) {
          results[batch[0] as number] = `the worker thread checking it stopped (${failure || `exit code ${code}`})`;
        } else if (batch) pending.unshift(...batch.map((i) => [i]));
        // A worker that had started is replaced; one that could not start is not (the main thread takes its share).
        if (ready && pending.length > 0) launch();
        if (running === 0) done(results);
      });
    };
    for (let i = 0; i < size; i++) launch();
  });
}

/** Each job's result: in worker threads when `pool` asks for two or more, else (and for what they left) here. */
async function lintAll(
  jobs: readonly LintJob[],
  cwd: string,
  pool: AuditThreads,
): Promise<LintResult[] | { missing: string[] }> {
  const size = pool.count(jobs.length);
  let results: (LintResult | undefined)[];
  if (size >= 2) results = await lintInWorkers(jobs, size, cwd, pool.start);
  else {
    // Few files: linted here, but a large one (a generated bundle) in a worker of its own, so that a file that
    // exhausts the heap stops that worker (listed as not checked) and not the audit.
    results = jobs.map(() => undefined);
    const large = jobs.flatMap((job, i) => (job.text.length >= LARGE_FILE_CHARS ? [i] : []));
    if (large.length > 0) {
      const done = await lintInWorkers(
        large.map((i) => jobs[i] as LintJob),
        1,
        cwd,
        pool.start,
      );
      large.forEach((i, k) => {
        results[i] = done[k];
      });
    }
  }
  const left = jobs.filter((_, i) => results[i] === undefined);
  if (left.length === 0) return results as LintResult[];
  const lintHere = linterFor(cwd);
  if ('missing' in lintHere) return lintHere;
  return jobs.map((job, i) => results[i] ?? lintHere(job));
}

/** The text of a file, or why it was not read: too large (never opened), or unreadable. */
function source(file: SourceFile, readFile: AuditFs['readFile']): string | { reason: string } {
  if (file.size > MAX_FILE_BYTES) {
    const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;
    return { reason: `larger than ${mb(MAX_FILE_BYTES)} (${mb(file.size)}), not read: a generated bundle?` };
  }
  try {
    return readFile(file.path);
  } catch (error) {
    return { reason: `cannot read (${why(error)})` };
  }
}

/** A file could hold a retry: it has a failure path (see {@link MAY_RETRY}). Others are not parsed. */
export const mayRetry = (text: string): boolean => MAY_RETRY.test(text);

/** What became of a file read: its job's index, no failure path (not parsed), or why it was not read. */
type Outcome = number | 'no failure path' | { reason: string };

async function run(
  files: readonly SourceFile[],
  skipped: readonly Unchecked[],
  cwd: string,
  readFile: AuditFs['readFile'],
  pool: AuditThreads,
): Promise<AuditReport | { missing: string[] }> {
  const started = performance.now();
  // Read here, in order; what could hold a retry becomes a job (its index), the rest is settled by its text.
  const outcomes: Outcome[] = [];
  const jobs: LintJob[] = [];
  for (const file of files) {
    const text = source(file, readFile);
    if (typeof text !== 'string') outcomes.push(text);
    else if (!mayRetry(text)) outcomes.push('no failure path');
    else outcomes.push(jobs.push({ file: file.path, text }) - 1);
  }
  const results = await lintAll(jobs, cwd, pool);
  if ('missing' in results) return results;
  // Merged in the files' order, whichever thread checked each: a parallel audit reports as a serial one.
  const findings: Finding[] = [];
  const unparsable: Unchecked[] = [];
  let parsed = 0;
  let withoutFailurePath = 0;
  files.forEach((file, i) => {
    const path = relative(cwd, file.path);
    const outcome = outcomes[i] as Outcome;
    if (outcome === 'no failure path') {
      withoutFailurePath++;
      return;
    }
    const result = typeof outcome === 'number' ? (results[outcome] as LintResult) : outcome.reason;
    if (typeof result === 'string') unparsable.push({ path, reason: result });
    else {
      parsed++;
      for (const report of result) findings.push({ file: path, ...report });
    }
  });
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
      skipped,
      loops,
      byRule,
      ms: Math.round(performance.now() - started),
    },
  };
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** One indented line per path with its reason; the first ten, then how many more (--json lists all). */
const listed = (paths: readonly Unchecked[]) => [
  ...paths.slice(0, 10).map((p) => `  ${p.path}: ${p.reason}`),
  ...(paths.length > 10 ? [`  ... and ${paths.length - 10} more (--json lists them all)`] : []),
];

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
      ` ${summary.filesWithoutFailurePath} without a failure path (no retry possible),` +
      ` ${summary.unparsable.length} not checked`,
    ...by,
  );
  if (summary.unparsable.length > 0) {
    lines.push(`could not check ${plural(summary.unparsable.length, 'file')}:`, ...listed(summary.unparsable));
  }
  if (summary.skipped.length > 0) {
    lines.push(`skipped ${plural(summary.skipped.length, 'path')}:`, ...listed(summary.skipped));
  }
  if (nothingChecked(summary)) {
    lines.push(
      summary.filesScanned === 0 && summary.skipped.length === 0
        ? 'nothing was checked: no source file (.js .mjs .cjs .ts .mts .cts .jsx .tsx) under the paths given'
        : 'nothing was checked: no file that could hold a retry could be checked',
    );
  }
  return `${lines.join('\n')}\n`;
}
