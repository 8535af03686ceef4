// Prints the per-file mutation table (markdown) from mutation/<file>.incremental.json (Stryker's incremental files are
// full reports): `node mutation/table.mjs [--survivors]`. The score counts timeouts as detected, as Stryker does; the
// last column leaves out the survivors that stryker-equivalent.md lists as equivalent. With --survivors it lists every
// survivor, marking those the file does not list: each of those is a missing test. A file whose source changed since
// its run is marked `(changed since)`: its figures are those of the older source.
import { readdirSync, readFileSync } from 'node:fs';

const dir = new URL('.', import.meta.url);
const listed = new Map(); // file -> Set of 'line:col'
let section;
for (const line of readFileSync(new URL('../stryker-equivalent.md', dir), 'utf8').split('\n')) {
  const heading = /^## (\S+\.ts)$/.exec(line);
  if (heading) {
    section = `src/${heading[1]}`;
    listed.set(section, new Set());
  }
  const row = /^\| ([\d:, ]+?) +\|/.exec(line);
  if (row && section) for (const at of row[1].split(',')) listed.get(section).add(at.trim());
}

const rows = new Map(); // file -> count
const stale = new Set(); // files whose source changed since the run that measured them
const seen = new Set(); // a mutant found in two reports (two runs over parts of a file) counts once
const survivors = [];
const total = { killed: 0, timeout: 0, survived: 0, noCoverage: 0, equivalent: 0 };
for (const name of readdirSync(dir)
  .filter((f) => f.endsWith('.incremental.json'))
  .sort()) {
  const report = JSON.parse(readFileSync(new URL(name, dir), 'utf8'));
  for (const [file, { mutants, source }] of Object.entries(report.files)) {
    const lines = source.split('\n');
    if (readFileSync(new URL(`../${file}`, dir), 'utf8') !== source) stale.add(file);
    if (!rows.has(file)) rows.set(file, { killed: 0, timeout: 0, survived: 0, noCoverage: 0, equivalent: 0 });
    const count = rows.get(file);
    for (const m of mutants) {
      const { line, column } = m.location.start;
      const key = `${file}:${line}:${column}:${JSON.stringify(m.location.end)}:${m.mutatorName}:${m.replacement}`;
      if (seen.has(key)) continue;
      seen.add(key);
      let status;
      if (m.status === 'Killed') status = 'killed';
      else if (m.status === 'Timeout') status = 'timeout';
      else if (m.status === 'Survived') status = 'survived';
      else if (m.status === 'NoCoverage') status = 'noCoverage';
      if (status === undefined) continue;
      count[status]++;
      total[status]++;
      if (status === 'survived' || status === 'noCoverage') {
        const known = listed.get(file)?.has(`${line}:${column}`);
        if (known) {
          count.equivalent++;
          total.equivalent++;
        }
        const code = (lines[line - 1] ?? '').trim();
        survivors.push(
          `${known ? 'equivalent' : 'NOT LISTED'} ${file}:${line}:${column} ${m.mutatorName} -> ${JSON.stringify(m.replacement)} in \`${code}\``,
        );
      }
    }
  }
}
const pct = (n, d) => `${((100 * n) / d).toFixed(2)}%`;
const line = (file, c) => {
  const detected = c.killed + c.timeout;
  const valid = detected + c.survived + c.noCoverage;
  return `| ${file} | ${pct(detected, valid)} | ${c.killed} | ${c.timeout} | ${c.survived} | ${c.noCoverage} | ${c.equivalent} | ${pct(detected, valid - c.equivalent)} |`;
};
console.log('| file | score | killed | timeout | survived | no coverage | equivalent | score without them |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const [file, c] of [...rows].sort(([a], [b]) => a.localeCompare(b))) {
  console.log(line(stale.has(file) ? `${file} (changed since)` : file, c));
}
console.log(line('**all measured**', total));
if (process.argv.includes('--survivors')) for (const s of survivors) console.log(s);
