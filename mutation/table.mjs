// Prints the per-file mutation table (markdown) from mutation/<file>.incremental.json (Stryker's incremental files are full reports), and lists the survivors with where
// they are and what they change: `node mutation/table.mjs [--survivors]`.
import { readdirSync, readFileSync } from 'node:fs';

const dir = new URL('.', import.meta.url);
const rows = [];
const survivors = [];
const total = { killed: 0, timeout: 0, survived: 0, noCoverage: 0 };
for (const name of readdirSync(dir)
  .filter((f) => f.endsWith('.incremental.json'))
  .sort()) {
  const report = JSON.parse(readFileSync(new URL(name, dir), 'utf8'));
  for (const [file, { mutants, source }] of Object.entries(report.files)) {
    const lines = source.split('\n');
    const count = { killed: 0, timeout: 0, survived: 0, noCoverage: 0 };
    for (const m of mutants) {
      if (m.status === 'Killed') count.killed++;
      else if (m.status === 'Timeout') count.timeout++;
      else if (m.status === 'Survived') count.survived++;
      else if (m.status === 'NoCoverage') count.noCoverage++;
      if (m.status === 'Survived' || m.status === 'NoCoverage') {
        const { line, column } = m.location.start;
        const code = (lines[line - 1] ?? '').trim();
        survivors.push(`${file}:${line}:${column} ${m.mutatorName} -> ${JSON.stringify(m.replacement)} in \`${code}\``);
      }
    }
    const detected = count.killed + count.timeout;
    const valid = detected + count.survived + count.noCoverage;
    rows.push([file, (100 * detected) / valid, count]);
    for (const k of Object.keys(total)) total[k] += count[k];
  }
}
const line = (file, score, c) =>
  `| ${file} | ${score.toFixed(2)}% | ${c.killed} | ${c.timeout} | ${c.survived} | ${c.noCoverage} |`;
console.log('| file | score | killed | timeout | survived | no coverage |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const [file, score, c] of rows) console.log(line(file, score, c));
const detected = total.killed + total.timeout;
console.log(line('**all**', (100 * detected) / (detected + total.survived + total.noCoverage), total));
if (process.argv.includes('--survivors')) for (const s of survivors) console.log(s);
