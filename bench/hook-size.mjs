/**
 * What each import costs, minified and gzipped (level 9, as size-limit measures), bundled straight from the sources
 * with esbuild (what tsup builds on), so that two trees can be compared byte for byte: the sources as they are and a
 * variant (a copy of src/ with something taken out, say every budget and breaker line) whose cost is the difference.
 *
 * Run: node bench/hook-size.mjs [srcDir] [otherSrcDir]
 *   one tree: its sizes; two trees: both, and the first minus the second.
 * Reported here, never asserted in tests (size-limit holds the limits, on the built package).
 *
 * What the budget's and breaker's hooks cost `{ retry }`, measured so (2026-11-30, esbuild from tsup 8.5.1): copy
 * src/ of main at 15402a7 to /tmp/no-hooks/src and delete every budget and breaker line from retry.ts, decide.ts and
 * policy.ts (the admit/deposit/recordSuccess/recordFailure/release calls and their variables, decide()'s two checks
 * and `spent`, the options' validation, their defaults and their two names in the known options), then run
 * `node bench/hook-size.mjs src /tmp/no-hooks/src`. The `diff` of `{ retry }` is the hooks' cost: 304 B gzipped
 * (834 B minified) at 15402a7, 147 B (304 B) after the Guard/Pass redesign (of which the two options' validation is
 * about 55 B), 127 B (329 B) once the signal, budget and breaker options share one `having()` check (the no-hooks
 * tree keeping its inline signal check, and both trees the same wait.ts). Budget and breaker alone differ by a few dozen bytes between two trees where their code is the same:
 * esbuild's short names depend on the whole bundle, and gzip on those names.
 */
import { resolve } from 'node:path';
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

process.stdout.on('error', () => {}); // a reader that closes early (| head)
const dirs = process.argv.slice(2).map((d) => resolve(d));
if (dirs.length === 0) dirs.push(resolve('src'));
const show = (s) => (s === null ? '-' : `${s.gzip} B gzip (${s.min} B min)`);
for (const [name, statement] of Object.entries(IMPORTS)) {
  const sizes = await Promise.all(dirs.map((d) => size(d, statement)));
  let line = `${name.padEnd(52)} ${sizes.map(show).join('  |  ')}`;
  const [a, b] = sizes;
  if (a && b) line += `  |  diff ${a.gzip - b.gzip} B gzip (${a.min - b.min} B min)`;
  console.log(line);
}
