/**
 * What bench/audit-corpus.mjs and bench/audit-unseen.mjs share: fetching pinned packages with `npm pack` into a
 * cache, copying the labelled files into a temporary folder, running the built audit on it, and scoring its reports
 * against hand labels.
 *
 * A label file lists files ({ pkg, file, loops, lookalikes?, notLabelled?, notVerified? }). A loop is { id, lines,
 * lacks, unclear? }: `lines` holds line numbers or [first, last] ranges of the functions and statements of its cycle
 * (a report on any of them is on that loop); `lacks` the rules it should get (empty: complete). A loop that crosses
 * files of one package is listed in each with the same id and counted once. A report is right when it sits on a loop
 * that lacks its rule; it is left out when it sits on an unclear loop, a notVerified line or a notLabelled file; any
 * other report is wrong (on a complete loop, on a look-alike, or on no loop at all).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { main } from '../dist/cli.js';

export const rules = ['no-immediate-retry', 'require-jitter', 'require-retry-limit', 'require-transient-check'];
export const folder = (spec) => spec.replace(/^@/, '').replace('/', '-');
const onLines = (lines, line) => lines.some((l) => (Array.isArray(l) ? l[0] <= line && line <= l[1] : l === line));
const inFile = (report, f) => report.file.endsWith(join(folder(f.pkg), f.file));

/** Fetches each package once into `cache` (a folder per package@version) and returns nothing. */
export function fetchPackages(specs, cache) {
  for (const spec of new Set(specs)) {
    const dir = join(cache, folder(spec));
    if (existsSync(dir)) continue;
    const tarball = execFileSync('npm', ['pack', spec, '--silent', '--pack-destination', cache], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .at(-1);
    mkdirSync(dir, { recursive: true });
    execFileSync('tar', ['xzf', join(cache, tarball), '-C', dir, '--strip-components=1']);
  }
}

/** Copies the labelled files into a fresh folder, runs the built audit on it, and returns its findings and time. */
export async function auditFiles(files, cache) {
  const sel = mkdtempSync(join(tmpdir(), 'herdless-corpus-sel-'));
  try {
    for (const f of files) {
      const to = join(sel, folder(f.pkg), f.file);
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(join(cache, folder(f.pkg), f.file), to);
    }
    let json = '';
    const cpu = process.cpuUsage();
    const start = performance.now();
    await main(['audit', '--json', sel], { out: (t) => (json += t), err: (t) => process.stderr.write(t) });
    const used = process.cpuUsage(cpu);
    return {
      findings: JSON.parse(json).findings,
      seconds: (performance.now() - start) / 1000,
      cpuSeconds: (used.user + used.system) / 1e6,
    };
  } finally {
    rmSync(sel, { recursive: true, force: true });
  }
}

/** Scores findings against the labels of `files`: recall and precision, overall and per rule, and what was wrong. */
export function score(files, findings) {
  const per = Object.fromEntries(rules.map((r) => [r, { right: 0, wrong: 0, pairs: 0, found: 0 }]));
  const key = (f, l) => `${f.pkg} ${l.id}`;
  const loops = new Map();
  const lookalikes = new Set();
  for (const f of files) {
    for (const l of f.loops) if (!loops.has(key(f, l))) loops.set(key(f, l), { f, l });
    for (const l of f.lookalikes ?? []) lookalikes.add(`${f.pkg} ${f.file} ${l.id}`);
  }
  const all = [...loops.values()];
  const lacking = all.filter(({ l }) => l.lacks.length > 0 && !l.unclear);
  const hit = new Set();
  const wrong = [];
  let right = 0;
  let left = 0;
  for (const r of findings) {
    const rule = r.rule.replace('herdless/', '');
    const f = files.find((x) => inFile(r, x));
    if (!f || f.notLabelled || f.notVerified?.includes(r.line)) {
      left++;
      continue;
    }
    const on = f.loops.filter((l) => onLines(l.lines, r.line));
    const loop = on.find((l) => l.lacks.includes(rule)) ?? on[0];
    if (loop?.unclear) {
      left++;
      continue;
    }
    if (loop?.lacks.includes(rule)) {
      right++;
      per[rule].right++;
      hit.add(`${key(f, loop)} ${rule}`);
      hit.add(key(f, loop));
    } else {
      per[rule].wrong++;
      const like = (f.lookalikes ?? []).find((l) => onLines(l.lines, r.line));
      const where = loop ? '' : like ? ` (on the look-alike: ${like.id})` : ' (on no labelled loop)';
      wrong.push(`${f.pkg} ${f.file}:${r.line} ${rule}${where}`);
    }
  }
  for (const { f, l } of lacking) {
    for (const rule of l.lacks) {
      per[rule].pairs++;
      if (hit.has(`${key(f, l)} ${rule}`)) per[rule].found++;
    }
  }
  const found = lacking.filter(({ f, l }) => hit.has(key(f, l))).length;
  const missed = lacking.filter(({ f, l }) => !hit.has(key(f, l))).map(({ f, l }) => `${f.pkg} ${f.file} ${l.id}`);
  return {
    files: files.length,
    packages: new Set(files.map((f) => f.pkg)).size,
    loops: all.length,
    unclear: all.filter(({ l }) => l.unclear).length,
    lacking: lacking.length,
    lookalikes: lookalikes.size,
    found,
    right,
    reports: right + wrong.length,
    left,
    per,
    wrong,
    missed,
  };
}

export const pct = (a, b) => (b === 0 ? 'n/a' : `${Math.round((100 * a) / b)}%`);

/** Prints a score as bench/audit-corpus.mjs always has. */
export function printScore(s, timing) {
  console.log(
    `herdless audit on ${s.files} files of ${s.packages} packages: ${timing.seconds.toFixed(1)} s wall, ` +
      `${timing.cpuSeconds.toFixed(1)} s CPU`,
  );
  console.log(
    `loops lacking an element: ${s.found} of ${s.lacking} reported (recall ${pct(s.found, s.lacking)}); ` +
      `reports: ${s.right} right of ${s.reports} (precision ${pct(s.right, s.reports)}), ${s.left} on unlabelled lines left out`,
  );
  for (const rule of rules) {
    const p = s.per[rule];
    console.log(
      `  ${rule}: recall ${p.found}/${p.pairs} (${pct(p.found, p.pairs)}), precision ${p.right}/${p.right + p.wrong} ` +
        `(${pct(p.right, p.right + p.wrong)})`,
    );
  }
  for (const w of s.wrong) console.log(`  wrong: ${w}`);
  for (const m of s.missed) console.log(`  missed: ${m}`);
}

/** What was reported on each labelled loop (rules, lines). */
export function printLoops(files, findings) {
  for (const f of files) {
    for (const l of f.loops) {
      const on = findings.filter((r) => inFile(r, f) && onLines(l.lines, r.line));
      const rs = [...new Set(on.map((r) => r.rule.replace('herdless/require-', '').replace('herdless/', '')))];
      console.log(
        `  loop: ${f.pkg} ${f.file} ${l.id}: ${rs.join(', ') || '-'} (${[...new Set(on.map((r) => r.line))].join(', ')})`,
      );
    }
  }
}
