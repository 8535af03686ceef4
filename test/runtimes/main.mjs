// Entry for Node, Bun and Deno: `<runtime> test/runtimes/main.mjs <baseUrl> <closedPort>`. Runs the checks against
// the built package, prints one line per check, sets a failing exit code if any failed, and prints `#done <epoch ms>`
// last: it never exits by force, so a timer left behind keeps the process alive and run.mjs sees it.
import * as hedge from '../../dist/hedge.js';
import * as herdless from '../../dist/index.js';
import { runChecks, runtimeName } from './checks.mjs';

const { Deno } = globalThis;
const [baseUrl, closedPort] = Deno ? Deno.args : globalThis.process.argv.slice(2);
console.log(`#runtime ${runtimeName()}`);
const results = await runChecks({ ...herdless, hedge }, { baseUrl, closedPort: Number(closedPort) });
for (const { name, ok, detail, info } of results) {
  console.log(`${ok ? 'ok' : 'not ok'} - ${name}${detail ? `: ${detail}` : ''}`);
  if (info !== undefined) console.log(`#info ${JSON.stringify(info)}`);
}
if (results.some((r) => !r.ok)) {
  if (Deno) Deno.exitCode = 1;
  else globalThis.process.exitCode = 1;
}
console.log(`#done ${Date.now()}`);
