/**
 * `herdless audit` on packages it was never tuned on (issue 29): bench/audit-unseen.json holds 45 pinned packages,
 * none among the 21 of audit-corpus.json, split at random into `eval` and `dev` with a fixed seed before any was
 * labelled; the eval half was labelled first and committed before the audit ever ran on it (written up in
 * bench/audit-unseen.md); `extraDev` grows the dev half with packages labelled later, also before the audit ran on
 * them. `--half fresh` scores bench/audit-fresh.json, a later held-out set in no other corpus, labelled before the audit
 * ran on it and never tuned on (not part of `all`).
 * Run: npm run bench:audit-unseen [-- --cache dir] [--half dev|dev-original|dev-extra|eval|fresh|all] [--loops]
 *
 * Each half is audited on its own (its labelled files copied into a temporary folder), so its CPU time is its own and
 * tuning on dev can run without printing eval. Scoring (audit-labels.mjs): recall is the clear loops lacking an
 * element that got at least one report naming a rule they lack; precision is the reports that sit on a labelled loop
 * and name a rule that loop lacks, over all reports in the labelled files, leaving out those on unclear loops.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { auditFiles, fetchPackages, printLoops, printScore, score } from './audit-labels.mjs';

const { values } = parseArgs({
  options: { cache: { type: 'string' }, half: { type: 'string', default: 'all' }, loops: { type: 'boolean' } },
});
const labels = JSON.parse(readFileSync(new URL('./audit-unseen.json', import.meta.url), 'utf8'));

/** The split as drawn: packages sorted, Fisher-Yates with mulberry32(seed), the first floor(n/2) are eval. */
function drawSplit(packages, seed) {
  let a = seed;
  const random = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const s = [...packages].sort();
  for (let i = s.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [s[i], s[j]] = [s[j], s[i]];
  }
  const half = Math.floor(s.length / 2);
  return { eval: s.slice(0, half).sort(), dev: s.slice(half).sort() };
}

const { split } = labels;
const drawn = drawSplit(split.packages, split.seed);
if (
  JSON.stringify(drawn.eval) !== JSON.stringify(split.eval) ||
  JSON.stringify(drawn.dev) !== JSON.stringify(split.dev)
) {
  throw new Error('audit-unseen.json: the eval/dev split is not the one its seed draws');
}
// The dev half grown after the split (extraDev): packages in neither half nor in audit-corpus.json, labelled before
// the audit ran on them. `--half dev` scores the original dev packages and these together; `dev-original` and
// `dev-extra` score each part alone.
const extra = labels.extraDev?.packages ?? [];
const corpusNames = JSON.parse(readFileSync(new URL('./audit-corpus.json', import.meta.url), 'utf8')).files.map(
  (f) => f.pkg,
);
const bare = (spec) => spec.replace(/@[^@]*$/, '');
const taken = new Set([...split.packages, ...corpusNames].map(bare));
const clash = extra.filter((p) => taken.has(bare(p)));
if (clash.length > 0) throw new Error(`audit-unseen.json: extraDev holds packages already in a corpus: ${clash}`);
// The fresh held-out set (audit-fresh.json): packages in no other corpus (this file's split and extraDev,
// audit-corpus.json, the helpers' packages of audit-independent), labelled before the audit ran on them.
const fresh = JSON.parse(readFileSync(new URL('./audit-fresh.json', import.meta.url), 'utf8'));
const independent = ['gaxios', '@redis/client', 'rascal', 'nodemailer', 'hot-shots', '@elastic/transport'];
const elsewhere = new Set([...taken, ...extra.map(bare), ...independent]);
const freshClash = fresh.packages.filter((p) => elsewhere.has(bare(p)));
if (freshClash.length > 0) throw new Error(`audit-fresh.json: packages already in another corpus: ${freshClash}`);
const freshStray = fresh.files.filter((f) => !fresh.packages.includes(f.pkg)).map((f) => f.pkg);
if (freshStray.length > 0) throw new Error(`audit-fresh.json: files of packages not in its list: ${freshStray}`);
const groups = {
  eval: split.eval,
  dev: [...split.dev, ...extra],
  'dev-original': split.dev,
  'dev-extra': extra,
  fresh: fresh.packages,
};
const halves = values.half === 'all' ? ['dev', 'eval'] : [values.half];
if (!halves.every((h) => h in groups))
  throw new Error('--half must be dev, dev-original, dev-extra, eval, fresh or all');
const cache = values.cache ?? mkdtempSync(join(tmpdir(), 'herdless-unseen-'));

try {
  for (const half of halves) {
    const files = (half === 'fresh' ? fresh : labels).files.filter((f) => groups[half].includes(f.pkg));
    fetchPackages(
      files.map((f) => f.pkg),
      cache,
    );
    const run = await auditFiles(files, cache);
    const s = score(files, run.findings);
    console.log(
      `\n${half}: ${s.loops} labelled loops (${s.unclear} unclear, ${s.lacking} clear ones lacking an element), ` +
        `${s.lookalikes} look-alikes`,
    );
    printScore(s, run);
    if (values.loops) printLoops(files, run.findings);
  }
} finally {
  if (!values.cache) rmSync(cache, { recursive: true, force: true });
}
