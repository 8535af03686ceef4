/**
 * What each import costs, minified and gzipped (level 9, as size-limit measures), bundled straight from the sources
 * with esbuild (what tsup builds on), so that two trees can be compared byte for byte: the sources as they are and a
 * variant (a copy of src/ with something taken out, say every budget and breaker line) whose cost is the difference.
 *
 * Run: node bench/hook-size.mjs [srcDir] [otherSrcDir]
 *   one tree: its sizes; two trees: both, and the first minus the second; --hooks: src/ against src/ without hooks.
 * Reported here, never asserted in tests (size-limit holds the limits, on the built package).
 *
 * What the budget's and breaker's hooks cost `{ retry }`: `node bench/hook-size.mjs --hooks` copies src/ to a
 * temporary folder, deletes every budget and breaker line from retry.ts, policy.ts and decide.ts there (the pass, its
 * four settle calls and their variables, the two options' validation, and decide()'s hold; see NO_HOOKS below, which
 * fails loudly when the sources no longer read as it expects), and compares the two trees. The `diff` of `{ retry }`
 * is the hooks' cost. Figures, esbuild from tsup 8.5.1: 304 B gzipped (834 B minified) at 15402a7, when the calls
 * lived in retry.ts and decide.ts; 147 B (304 B) after the Guard/Pass redesign (of which the two options' validation
 * is about 55 B); 127 B (329 B) once the signal, budget and breaker options shared one `having()` check; 141 B
 * (337 B) at c3ba41e. (Those were measured by hand-edited copies, as NO_HOOKS now does.) Then the budget's speed
 * rules (the time an attempt took and was allowed, a throttling answer read as queueing, issue 30) and its hold
 * (issue 28, decide.ts) brought them to 423 B, measured on 499fe6a by a copy edited as NO_HOOKS now reads; 313 B
 * (770 B) once the budget reads a throttling answer itself (isThrottled left `{ retry }`), of which decide()'s hold
 * is about 60 B and the two options' validation about 65 B. Budget and breaker alone differ by a few dozen bytes
 * between two trees where their code is the same: esbuild's short names depend on the whole bundle, and gzip on those
 * names.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const IMPORTS = {
  '{ retry }': 'export { retry }',
  '{ createRetryBudget }': 'export { createRetryBudget }',
  '{ createCircuitBreaker }': 'export { createCircuitBreaker }',
  '{ retry, createRetryBudget, createCircuitBreaker }': 'export { retry, createRetryBudget, createCircuitBreaker }',
  '* (whole core)': 'export *',
};

/** Minified and gzipped bytes of `statement from '<srcDir>/index.ts'`; null when the tree lacks an export. */
async function size(srcDir, statement) {
  try {
    const result = await build({
      stdin: { contents: `${statement} from ${JSON.stringify(resolve(srcDir, 'index.ts'))};`, resolveDir: srcDir },
      bundle: true,
      write: false,
      format: 'esm',
      target: 'es2022',
      minify: true,
      treeShaking: true,
      logLevel: 'silent',
    });
    const code = result.outputFiles[0].contents;
    return { min: code.length, gzip: gzipSync(code, { level: 9 }).length };
  } catch {
    return null;
  }
}

/**
 * What the hooks are: [file, text as it stands in src/, what it reads without the budget and the breaker]. Each text
 * must stand in its file exactly once. Runtime code only (esbuild strips the types unchecked): the pass, its four
 * settles and their variables, the two options' validation, and decide()'s hold (a budget's, the holdMs it returns).
 */
const NO_HOOKS = [
  ['retry.ts', "import { type Pass, Report, type Settle } from './guard';\n", ''],
  ['retry.ts', '      p.budget ||\n      p.breaker ||\n', ''],
  [
    'retry.ts',
    '  const pass: Pass | undefined = p.breaker ? p.breaker.open(p.budget) : p.budget?.open();\n  let end: Settle = Report.RELEASE;\n',
    '',
  ],
  ['retry.ts', '  let tookMs = 0;\n', ''],
  ['retry.ts', '  let judgedMs = Infinity;\n', ''],
  ['retry.ts', '      tookMs = 0;\n', ''],
  [
    'retry.ts',
    "        reason = startedMs >= timeoutMs ? 'timeout' : (pass?.settle(Report.START, last) as StopReason | undefined);\n        if (reason) break;\n",
    "        if (startedMs >= timeoutMs) {\n          reason = 'timeout';\n          break;\n        }\n",
  ],
  ['retry.ts', '        if (guarded && pass) fromMs = now() - start;\n', ''],
  ['retry.ts', '        judgedMs = attemptTimeoutMs < Infinity ? attemptTimeoutMs : allowedMs;\n', ''],
  ['retry.ts', '        if (pass) tookMs = now() - start - fromMs;\n', ''],
  [
    'retry.ts',
    "          end = Report.SUCCESS; // settled below with this attempt's tookMs and judgedMs: a slow success reads as queueing\n",
    '',
  ],
  [
    'retry.ts',
    `        let held = 0;
        if (timedOut || !byDeadline) {
          // Cut by the call's own deadline before its attempt timeout: it took what it took, no sign of a queue.
          const cut = timedOut && byDeadline && attemptTimeoutMs < Infinity;
          const verdict = pass?.settle(
            Report.FAILURE,
            outcome,
            timedOut && !cut ? Infinity : tookMs,
            judgedMs,
            retryAfterMs,
          );
          if (typeof verdict === 'number') held = verdict;
          else reason = verdict;
        }
`,
    '',
  ],
  [
    'retry.ts',
    'decide(p, attempt, elapsedMs, retryAfterMs, previousBackoffMs, held)',
    'decide(p, attempt, elapsedMs, retryAfterMs, previousBackoffMs)',
  ],
  [
    'retry.ts',
    "      if (reason) break; // the breaker's or the budget's refusal of this retry, before any sleep\n",
    '',
  ],
  ['retry.ts', '    pass?.settle(end, undefined, tookMs, judgedMs);\n', ''],
  [
    'policy.ts',
    `  p.budget = guardOption('budget', options.budget, 'a RetryBudget (createRetryBudget())');
  p.breaker = guardOption('breaker', options.breaker, 'a CircuitBreaker (createCircuitBreaker())', p.budget);\n`,
    '',
  ],
  [
    'decide.ts',
    `  const leftMs = policy.timeoutMs - elapsedMs;
  const heldMs = holdMs > 0 && holdMs <= leftMs ? Math.min(holdMs, leftMs / 4) : 0;
  if (heldMs > policy.maxRetryAfterMs || holdMs === Infinity) return { retry: false, reason: 'budget' };\n`,
    '',
  ],
  [
    'decide.ts',
    `  if (heldMs > 0) {
    const held = spreadAfter(heldMs, policy);
    if (held > delayMs) {
      delayMs = held;
      backoffMs = previousBackoffMs;
    }
  }\n`,
    '',
  ],
  ['decide.ts', '  holdMs = 0,\n', ''],
];

/** A copy of `srcDir` without the budget's and breaker's hooks (see NO_HOOKS), in a temporary folder. */
function withoutHooks(srcDir) {
  const dir = join(mkdtempSync(join(tmpdir(), 'herdless-no-hooks-')), 'src');
  cpSync(srcDir, dir, { recursive: true });
  for (const [file, text, replacement] of NO_HOOKS) {
    const path = join(dir, file);
    const source = readFileSync(path, 'utf8');
    if (source.split(text).length !== 2) {
      throw new Error(
        `bench/hook-size.mjs: src/${file} no longer holds, once, ${JSON.stringify(text)}: update NO_HOOKS`,
      );
    }
    writeFileSync(path, source.replace(text, replacement));
  }
  return dir;
}

process.stdout.on('error', () => {}); // a reader that closes early (| head)
const args = process.argv.slice(2);
const hooks = args.includes('--hooks');
const dirs = args.filter((a) => a !== '--hooks').map((d) => resolve(d));
if (dirs.length === 0) dirs.push(resolve('src'));
if (hooks) dirs.splice(1, dirs.length, withoutHooks(dirs[0]));
const show = (s) => (s === null ? '-' : `${s.gzip} B gzip (${s.min} B min)`);
for (const [name, statement] of Object.entries(IMPORTS)) {
  const sizes = await Promise.all(dirs.map((d) => size(d, statement)));
  let line = `${name.padEnd(52)} ${sizes.map(show).join('  |  ')}`;
  const [a, b] = sizes;
  if (a && b) line += `  |  diff ${a.gzip - b.gzip} B gzip (${a.min - b.min} B min)`;
  console.log(line);
}
if (hooks) rmSync(resolve(dirs[1], '..'), { recursive: true, force: true });
