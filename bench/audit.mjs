/**
 * How long `herdless audit` takes over 10,000 real source files, on the built package. Run: npm run bench:audit
 * [-- --max-kb 100] [-- --from dir ...] [-- --save findings.json]. Reported here, never asserted in tests. The CPU
 * time counts every thread (the worker threads too). --save writes the findings and the summary without the time,
 * paths relative to the corpus, so two runs (two versions of the audit) can be compared exactly.
 *
 * The corpus is real code nobody here wrote: the .js/.mjs/.cjs/.ts/.mts/.cts/.jsx/.tsx files (not .d.ts) of this
 * checkout's node_modules (and of any --from directory), in sorted order, hard-linked flat into a temporary directory
 * (so none sits under a node_modules folder the audit would skip) and taken again from the start when there are fewer
 * than 10,000. --max-kb leaves out files larger than that (generated bundles), to see a project's own sources.
 */
import { linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { main } from '../dist/cli.js';

const { values } = parseArgs({
  options: {
    'max-kb': { type: 'string' },
    from: { type: 'string', multiple: true },
    files: { type: 'string' },
    save: { type: 'string' },
  },
});
const wanted = Number(values.files ?? 10_000);
const maxBytes = values['max-kb'] ? Number(values['max-kb']) * 1024 : Number.POSITIVE_INFINITY;
const EXTENSIONS = new Set(['.js', '.mjs', '.cjs', '.jsx', '.ts', '.mts', '.cts', '.tsx']);

function sources(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) sources(full, out);
    else if (entry.isFile() && EXTENSIONS.has(extname(entry.name)) && !/\.d\.[mc]?ts$/.test(entry.name)) {
      if (statSync(full).size <= maxBytes) out.push(full);
    }
  }
  return out;
}

const found = [join(import.meta.dirname, '..', 'node_modules'), ...(values.from ?? [])].flatMap((d) => sources(d, []));
const corpus = mkdtempSync(join(tmpdir(), 'herdless-audit-bench-'));
let bytes = 0;
try {
  for (let i = 0; i < wanted; i++) {
    const from = found[i % found.length];
    const dir = join(corpus, String(Math.floor(i / 1000)));
    mkdirSync(dir, { recursive: true });
    linkSync(from, join(dir, `${i}-${basename(from)}`));
    bytes += statSync(from).size;
  }
  let json = '';
  const cpu = process.cpuUsage();
  const start = performance.now();
  const code = await main(['audit', '--json', corpus], {
    out: (t) => (json += t),
    err: (t) => process.stderr.write(t),
  });
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  const report = JSON.parse(json);
  const { summary } = report;
  // --save file: the findings and the summary (paths relative to the corpus, no ms), to compare two runs exactly.
  if (values.save) {
    const inCorpus = (path) => path.slice(path.indexOf(basename(corpus)) + basename(corpus).length + 1);
    const { ms: _ms, ...rest } = summary;
    const listed = (list) => list.map((u) => ({ ...u, path: inCorpus(u.path) }));
    const saved = {
      findings: report.findings.map((f) => ({ ...f, file: inCorpus(f.file) })),
      summary: { ...rest, unparsable: listed(rest.unparsable), skipped: listed(rest.skipped) },
    };
    writeFileSync(values.save, `${JSON.stringify(saved, null, 1)}\n`);
  }
  console.log(
    `herdless audit over ${wanted.toLocaleString('en')} real files (${found.length.toLocaleString('en')} distinct, ` +
      `${(bytes / 1e6).toFixed(1)} MB${Number.isFinite(maxBytes) ? `, each <= ${values['max-kb']} kB` : ''}): ` +
      `${seconds.toFixed(1)} s wall, ${((used.user + used.system) / 1e6).toFixed(1)} s CPU; ` +
      `${summary.filesParsed.toLocaleString('en')} parsed, ${summary.filesWithoutFailurePath.toLocaleString('en')} ` +
      `without a failure path, ${summary.unparsable.length} unparsable, ${summary.loops} loops reported (exit ${code})`,
  );
} finally {
  rmSync(corpus, { recursive: true, force: true });
}
