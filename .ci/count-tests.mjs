// Reads vitest's JSON report (`--reporter=json --outputFile.json=...`) and prints what the runner really did:
// `vitest: P passed, F failed, S skipped` (a file that failed to load counts as a failure). Exits 1 on a failure, or on
// a skipped or todo test that .ci/allowed-skips does not name (one full test name a line, `#` comments).
import { readFileSync } from 'node:fs';

const [report, allowedFile] = process.argv.slice(2);
const json = JSON.parse(readFileSync(report, 'utf8'));
const allowed = new Set(
  readFileSync(allowedFile, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#')),
);
let passed = 0;
let failed = 0;
const skipped = [];
for (const file of json.testResults) {
  if (file.status === 'failed' && file.assertionResults.every((t) => t.status !== 'failed')) failed++; // did not load
  for (const test of file.assertionResults) {
    if (test.status === 'passed') passed++;
    else if (test.status === 'failed') failed++;
    else skipped.push(test.fullName);
  }
}
const unlisted = skipped.filter((name) => !allowed.has(name));
console.log(`vitest: ${passed} passed, ${failed} failed, ${skipped.length} skipped`);
for (const name of unlisted) console.error(`vitest: skipped or todo, and not in .ci/allowed-skips: ${name}`);
process.exit(failed > 0 || unlisted.length > 0 ? 1 : 0);
