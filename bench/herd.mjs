/**
 * How long herd() takes: 200 callers x 10 attempts (an immediate-retry loop against a dependency down for 60 s, so
 * every caller spends all ten: 2,000 requests on virtual time), through the context's fetch, through global fetch
 * (intercepted) and through axios over node:http (intercepted), then herdless's retry() through global fetch.
 * On the built package. Run: npm run bench:herd. Reported here, never asserted in tests. Prints wall time and this
 * process's CPU time (user + system): on a shared machine the wall time also counts the other processes' turns.
 */
import axios from 'axios';
import { retry } from '../dist/index.js';
import { herd } from '../dist/testing.js';

const immediate = (get) => async (url) => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await get(url);
    } catch (error) {
      if (attempt >= 10) throw error;
    }
  }
};
const viaFetch = (f) => async (url) => {
  const response = await f(url);
  if (!response.ok) throw Object.assign(new Error(`status ${response.status}`), { status: response.status });
  return response;
};

const cases = [
  ['context fetch', ({ url, fetch }) => immediate(viaFetch(fetch))(url), { intercept: false }],
  ['global fetch ', ({ url }) => immediate(viaFetch(fetch))(url), {}],
  ['axios        ', ({ url }) => immediate((u) => axios.get(u))(url), {}],
  ['retry() fetch', ({ url }) => retry(() => viaFetch(fetch)(url), { maxAttempts: 10, baseMs: 1 }), {}],
];
for (const [name, call, options] of cases) {
  const times = [];
  let requests = 0;
  for (let run = 0; run < 3; run++) {
    const [start, cpu] = [performance.now(), process.cpuUsage()];
    const report = await herd(call, { outageMs: 60_000, ...options });
    const used = process.cpuUsage(cpu);
    times.push(
      `${(performance.now() - start).toFixed(0)} ms (cpu ${((used.user + used.system) / 1_000).toFixed(0)} ms)`,
    );
    requests = report.results[0].requests;
  }
  console.log(
    `${name}: 200 callers, ${requests.toLocaleString('en')} requests: first run ${times[0]}, then ${times.slice(1).join(', ')}`,
  );
}
