/**
 * The figures and chart of docs/testing-herd.md: six retry loops, each as a herd of 200 callers through global fetch
 * against herd()'s default dependency (down 1 s, then 20 per 100 ms). Run: npx tsx bench/herd-figures.ts; it prints
 * docs/testing-herd.txt and writes docs/testing-herd.svg. Seeded: the same output every run.
 */

import { writeFileSync } from 'node:fs';
import pRetry from 'p-retry';
import { retry, retryingFetch } from '../src/index';
import { formatHerd, herd, herdSvg } from '../src/testing/index';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const get = async (url: string) => {
  const r = await fetch(url);
  if (!r.ok) throw Object.assign(new Error(`status ${r.status}`), { status: r.status });
  return r;
};
const loop = (wait: (a: number) => number | null, max: number) => async (url: string) => {
  for (let a = 1; ; a++) {
    try {
      return await get(url);
    } catch (e) {
      if (a >= max) throw e;
      const w = wait(a);
      if (w) await sleep(w);
    }
  }
};
const cases: [string, (url: string) => Promise<unknown>][] = [
  ['incident', loop(() => 500, 3)],
  ['exponential', loop((a) => 100 * 2 ** (a - 1), 10)],
  ['p-retry', (url) => pRetry(() => get(url))],
  ['full jitter', loop((a) => Math.random() * Math.min(10_000, 100 * 2 ** (a - 1)), 10)],
  ['retry()', (url) => retry(() => get(url), { maxAttempts: 10 })],
  ['retryingFetch', (url) => retryingFetch({ maxAttempts: 10 })(url)],
];
const reports = [];
for (const [name, f] of cases) reports.push(await herd(({ url }) => f(url), { name }));
writeFileSync(new URL('../docs/testing-herd.txt', import.meta.url), `${formatHerd(reports)}\n`);
writeFileSync(new URL('../docs/testing-herd.svg', import.meta.url), herdSvg(reports));
