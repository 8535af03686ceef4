/**
 * Recall and precision of `herdless audit` on real published code, against the hand labels of
 * bench/audit-corpus.json (written up in bench/audit-corpus.md). Run: npm run bench:audit-corpus [-- --cache dir]
 *
 * Each pinned package is fetched with `npm pack` (the registry must be reachable; --cache keeps the tarballs and the
 * extracted files between runs), the labelled files are copied flat into a temporary folder, and the built audit
 * (dist/cli.js) runs on them. A report counts as right when its line is one of a labelled loop's lines and its rule is
 * one that loop lacks; a report on no labelled loop is wrong (a non-retry or a loop not there); reports on lines
 * marked notVerified, and on files marked notLabelled, are left out. Recall: loops lacking something that got at
 * least one right report; per rule: (loop, rule) pairs reported.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { main } from '../dist/cli.js';

const { values } = parseArgs({ options: { cache: { type: 'string' }, loops: { type: 'boolean' } } });
const labels = JSON.parse(readFileSync(new URL('./audit-corpus.json', import.meta.url), 'utf8'));
const cache = values.cache ?? mkdtempSync(join(tmpdir(), 'herdless-corpus-'));
const sel = mkdtempSync(join(tmpdir(), 'herdless-corpus-sel-'));
const folder = (spec) => spec.replace(/^@/, '').replace('/', '-');

try {
  for (const spec of new Set(labels.files.map((f) => f.pkg))) {
    const dir = join(cache, folder(spec));
    if (!existsSync(dir)) {
      const tarball = execFileSync('npm', ['pack', spec, '--silent', '--pack-destination', cache], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .at(-1);
      mkdirSync(dir, { recursive: true });
      execFileSync('tar', ['xzf', join(cache, tarball), '-C', dir, '--strip-components=1']);
    }
  }
  for (const f of labels.files) {
    const to = join(sel, folder(f.pkg), f.file);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(cache, folder(f.pkg), f.file), to);
  }
  let json = '';
  const cpu = process.cpuUsage();
  const start = performance.now();
  await main(['audit', '--json', sel], { out: (t) => (json += t), err: (t) => process.stderr.write(t) });
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  const { findings } = JSON.parse(json);

  const rules = ['no-immediate-retry', 'require-jitter', 'require-retry-limit', 'require-transient-check'];
  const per = Object.fromEntries(rules.map((r) => [r, { right: 0, wrong: 0, pairs: 0, found: 0 }]));
  const lacking = labels.files.flatMap((f) => f.loops.filter((l) => l.lacks.length > 0).map((l) => ({ f, l })));
  const hit = new Set();
  const wrong = [];
  let right = 0;
  let left = 0;
  for (const r of findings) {
    const rule = r.rule.replace('herdless/', '');
    const f = labels.files.find((x) => r.file.endsWith(join(folder(x.pkg), x.file)));
    if (!f || f.notLabelled || f.notVerified?.includes(r.line)) {
      left++;
      continue;
    }
    const loop = f.loops.find((l) => l.lines.includes(r.line));
    if (loop?.lacks.includes(rule)) {
      right++;
      per[rule].right++;
      hit.add(`${f.pkg} ${f.file} ${loop.id} ${rule}`);
      hit.add(`${f.pkg} ${f.file} ${loop.id}`);
    } else {
      per[rule].wrong++;
      wrong.push(`${f.pkg} ${f.file}:${r.line} ${rule}${loop ? '' : ' (on no labelled loop)'}`);
    }
  }
  for (const { f, l } of lacking) {
    for (const rule of l.lacks) {
      per[rule].pairs++;
      if (hit.has(`${f.pkg} ${f.file} ${l.id} ${rule}`)) per[rule].found++;
    }
  }
  const found = lacking.filter(({ f, l }) => hit.has(`${f.pkg} ${f.file} ${l.id}`)).length;
  const pct = (a, b) => (b === 0 ? 'n/a' : `${Math.round((100 * a) / b)}%`);
  const packages = new Set(labels.files.map((f) => f.pkg)).size;
  console.log(
    `herdless audit on ${labels.files.length} files of ${packages} packages: ${seconds.toFixed(1)} s wall, ` +
      `${((used.user + used.system) / 1e6).toFixed(1)} s CPU`,
  );
  console.log(
    `loops lacking an element: ${found} of ${lacking.length} reported (recall ${pct(found, lacking.length)}); ` +
      `reports: ${right} right of ${right + wrong.length} (precision ${pct(right, right + wrong.length)}), ${left} on unlabelled lines left out`,
  );
  for (const rule of rules) {
    const p = per[rule];
    console.log(
      `  ${rule}: recall ${p.found}/${p.pairs} (${pct(p.found, p.pairs)}), precision ${p.right}/${p.right + p.wrong} ` +
        `(${pct(p.right, p.right + p.wrong)})`,
    );
  }
  for (const w of wrong) console.log(`  wrong: ${w}`);
  for (const { f, l } of lacking) {
    if (!hit.has(`${f.pkg} ${f.file} ${l.id}`)) console.log(`  missed: ${f.pkg} ${f.file} ${l.id}`);
  }
  // --loops: what was reported on each labelled loop (rules, lines), for the table of audit-corpus.md.
  if (values.loops) {
    for (const f of labels.files) {
      for (const l of f.loops) {
        const on = findings.filter((r) => r.file.endsWith(join(folder(f.pkg), f.file)) && l.lines.includes(r.line));
        const rules = [...new Set(on.map((r) => r.rule.replace('herdless/require-', '').replace('herdless/', '')))];
        console.log(
          `  loop: ${f.pkg} ${f.file} ${l.id}: ${rules.join(', ') || '-'} (${[...new Set(on.map((r) => r.line))].join(', ')})`,
        );
      }
    }
  }
} finally {
  rmSync(sel, { recursive: true, force: true });
  if (!values.cache) rmSync(cache, { recursive: true, force: true });
}
