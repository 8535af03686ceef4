// Lints every corpus file the old prefilter passed and the new one drops: none may hold a finding.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { linterFor, mayRetry } from '../src/audit';

const EXT = new Set(['.js', '.mjs', '.cjs', '.jsx', '.ts', '.mts', '.cts', '.tsx']);
const OLD = /catch|then|\.ok\b|status|\bon(?:close|error|disconnect|end)\b|['"`](?:close|error|disconnect|end)['"`]/;
function sources(dir: string, out: string[]) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, e.name);
    if (e.isDirectory()) sources(full, out);
    else if (
      e.isFile() &&
      EXT.has(extname(e.name)) &&
      !/\.d\.[mc]?ts$/.test(e.name) &&
      statSync(full).size <= 10 * 1024 * 1024
    )
      out.push(full);
  }
  return out;
}
const files = sources(join(import.meta.dirname, '..', 'node_modules'), []);
const lint = linterFor(process.cwd());
if ('missing' in lint) throw new Error('no eslint');
let old = 0,
  kept = 0,
  dropped = 0,
  findings = 0,
  failed = 0;
const found: string[] = [];
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const o = OLD.test(text),
    n = mayRetry(text);
  if (n && !o) throw new Error(`new passes what old did not: ${file}`);
  if (o) old++;
  if (n) kept++;
  if (o && !n) {
    dropped++;
    const r = lint({ file, text });
    if (typeof r === 'string') failed++;
    else if (r.length > 0) {
      findings += r.length;
      found.push(file);
    }
  }
}
const out = {
  files: files.length,
  oldPass: old,
  newPass: kept,
  dropped,
  droppedWithFindings: findings,
  droppedUnparsable: failed,
  found,
};
console.log(out);
writeFileSync('/tmp/audit-speed/dropped.json', JSON.stringify(out, null, 1));
