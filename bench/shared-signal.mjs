/**
 * 10,000 concurrent calls, each failing 3 times then succeeding ({ maxAttempts: 5, baseMs: 10, capMs: 50,
 * timeoutMs: 5000 }): with a signal per call, and with one signal shared by all (a server's shutdown signal).
 * Reports wall time, how many succeeded, the worst event-loop stall, and the listeners on the shared signal at peak.
 * Each variant runs in its own node process, 5 times; medians. Run: npm run bench:signal (against dist/).
 */
import { execFileSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { fileURLToPath } from 'node:url';

const N = 10_000;
const RUNS = Number(process.env.BENCH_PROCESSES ?? 5);

async function child(variant) {
  const { retry } = await import('../dist/index.js');
  const shared = new AbortController().signal;
  let stall = 0;
  let last = performance.now();
  const probe = setInterval(() => {
    const t = performance.now();
    stall = Math.max(stall, t - last - 5);
    last = t;
  }, 5);
  let peak = 0;
  const start = performance.now();
  const results = await Promise.allSettled(
    Array.from({ length: N }, () => {
      const signal = variant === 'shared' ? shared : new AbortController().signal;
      let failures = 0;
      return retry(
        () => {
          if (variant === 'shared' && failures === 0) peak = Math.max(peak, getEventListeners(shared, 'abort').length);
          return failures++ < 3 ? Promise.reject(Object.assign(new Error('blip'), { status: 503 })) : 'ok';
        },
        { maxAttempts: 5, baseMs: 10, capMs: 50, timeoutMs: 5_000, signal },
      );
    }),
  );
  const ms = performance.now() - start;
  clearInterval(probe);
  const ok = results.filter((r) => r.status === 'fulfilled').length;
  process.stdout.write(JSON.stringify({ ms, ok, stall, peak }));
}

function parent() {
  const self = fileURLToPath(import.meta.url);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const out = { private: [], shared: [] };
  for (let r = 0; r < RUNS; r++)
    for (const v of Object.keys(out))
      out[v].push(JSON.parse(execFileSync(process.execPath, [self, v], { encoding: 'utf8' })));
  console.log(`node ${process.version}, ${N} concurrent calls, ${RUNS} processes a variant, medians\n`);
  console.log('signal    wall ms  succeeded  worst stall ms  listeners at peak');
  for (const [v, rs] of Object.entries(out)) {
    const m = (k) => median(rs.map((r) => r[k]));
    console.log(
      `${v.padEnd(8)} ${m('ms').toFixed(0).padStart(8)} ${String(m('ok')).padStart(10)} ${m('stall').toFixed(0).padStart(15)} ${String(v === 'shared' ? m('peak') : '-').padStart(18)}`,
    );
  }
  const ratio = median(out.shared.map((r) => r.ms)) / median(out.private.map((r) => r.ms));
  console.log(`\nshared / private wall time: ${ratio.toFixed(2)}x`);
}

if (process.argv[2]) await child(process.argv[2]);
else parent();
