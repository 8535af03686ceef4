/**
 * Recall and precision of `herdless audit` on real published code, against the hand labels of
 * bench/audit-corpus.json (written up in bench/audit-corpus.md). Run: npm run bench:audit-corpus [-- --cache dir]
 *
 * Each pinned package is fetched with `npm pack` (the registry must be reachable; --cache keeps the tarballs and the
 * extracted files between runs), the labelled files are copied flat into a temporary folder, and the built audit
 * (dist/cli.js) runs on them. A report counts as right when its line is one of a labelled loop's lines and its rule is
 * one that loop lacks; a report on no labelled loop is wrong (a non-retry or a loop not there); reports on lines
 * marked notVerified, and on files marked notLabelled, are left out. Recall: loops lacking something that got at
 * least one right report; per rule: (loop, rule) pairs reported. The fetching and scoring live in audit-labels.mjs,
 * shared with audit-unseen.mjs.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { auditFiles, fetchPackages, printLoops, printScore, score } from './audit-labels.mjs';

const { values } = parseArgs({ options: { cache: { type: 'string' }, loops: { type: 'boolean' } } });
const labels = JSON.parse(readFileSync(new URL('./audit-corpus.json', import.meta.url), 'utf8'));
const cache = values.cache ?? mkdtempSync(join(tmpdir(), 'herdless-corpus-'));

try {
  fetchPackages(
    labels.files.map((f) => f.pkg),
    cache,
  );
  const run = await auditFiles(labels.files, cache);
  printScore(score(labels.files, run.findings), run);
  // --loops: what was reported on each labelled loop (rules, lines), for the table of audit-corpus.md.
  if (values.loops) printLoops(labels.files, run.findings);
} finally {
  if (!values.cache) rmSync(cache, { recursive: true, force: true });
}
