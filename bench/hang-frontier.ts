/**
 * Why the budget keeps less than plain retries in a hang, and why no rule of the client's alone can keep it
 * (docs/guide/protecting.md, "the frontier"). Run: npx tsx bench/hang-frontier.ts [docs/explore.json] (about 1 min).
 *
 * In a hang the server answers nothing: every attempt runs to its timeout, and a retry costs the server nothing, so
 * plain retries, which ride the hang out, are often safe and keep more. The budget refuses a timeout that no fast
 * answer overtook. This takes every hang cell of the evaluation draw where the recommended setup is not beneficial
 * (keeps more than 10 points less than plain) and looks for its twin: the same cell (client, demand, fleet, users,
 * duration) where the server, instead of hanging, slows down with an unbounded queue, to the highest share of its
 * capacity (of 1, 2, 5, 10, 20 and 30%) at which the twin still looks like the hang from the client's side: without
 * retries, at most 1 call in 10 begun during the trouble gets an answer in time (every attempt times out but a few
 * first ones, served as the queue forms). The server still works through what it is sent, so every retry adds to a
 * backlog that outlasts the trouble. A rule that retried the hang's timeouts as plain does would do the same in the
 * twin; the figures say where that is unsafe.
 */

import { readFileSync } from 'node:fs';
import { type ExploreResult, exploreVerdicts, simulateOverload } from '../src/simulate/index';

const file = process.argv[2] ?? 'docs/explore.json';
const draw = JSON.parse(readFileSync(file, 'utf8')) as ExploreResult;
const lost = exploreVerdicts(draw).filter(
  (v) => v.strategy === 'recommended' && v.kind === 'hang' && v.beneficial === false,
);
const hangs = exploreVerdicts(draw).filter((v) => v.strategy === 'recommended' && v.kind === 'hang');
const recovery = (ms: number | null) => (ms === null ? Number.POSITIVE_INFINITY : ms);

let lookAlike = 0;
let plainUnsafe = 0;
let recommendedSafe = 0;
console.log('   seed  instances  no-retries/plain/recommended: goodput during, recovery s   twin looks alike, plain');
for (const v of lost) {
  const cell = draw.cells.find((c) => c.seed === v.seed);
  if (!cell) throw new Error(`no cell ${v.seed}`);
  const { hang: _hang, ...rest } = cell.settings;
  const run = (capacity: number) =>
    simulateOverload({
      ...(rest as Parameters<typeof simulateOverload>[0]),
      slowdownCapacity: capacity,
      strategies: ['no-retries', 'plain', 'recommended'],
    }).results;
  // The mildest slowdown that still looks like the hang (the deepest tried, if none does).
  let twin = run(0.01);
  let share = 0.01;
  for (const capacity of [0.02, 0.05, 0.1, 0.2, 0.3]) {
    const next = run(capacity);
    if ((next[0] as (typeof next)[0]).goodputDuring > 0.1) break;
    [twin, share] = [next, capacity];
  }
  const [none, plain, recommended] = twin as [(typeof twin)[0], (typeof twin)[0], (typeof twin)[0]];
  const safe = (r: typeof none) =>
    r.goodputDuring >= none.goodputDuring - 0.05 && recovery(r.recoveryMs) <= recovery(none.recoveryMs) + 3_000;
  // Looks alike: without retries, at most 1 call in 10 begun during the trouble gets an answer in time.
  const alike = none.goodputDuring <= 0.1;
  if (alike) lookAlike++;
  if (alike && !safe(plain)) plainUnsafe++;
  if (safe(recommended)) recommendedSafe++;
  const fig = (r: typeof none) =>
    `${(100 * r.goodputDuring).toFixed(0)}% ${r.recoveryMs === null ? 'never' : (r.recoveryMs / 1_000).toFixed(0)}`;
  console.log(
    `${String(v.seed).padStart(8)} ${String(v.instances).padStart(9)}  ${[none, plain, recommended].map(fig).join(' / ').padEnd(44)} ${alike ? `yes at ${(100 * share).toFixed(0)}%` : 'no       '}  ${safe(plain) ? 'safe' : 'UNSAFE'}`,
  );
}
console.log(
  `\n${file}: ${hangs.length} hang cells, ${lost.length} where the recommended setup keeps over 10 points less than plain.` +
    `\nTheir twins (a slowdown with an unbounded queue): ${lookAlike} look alike to the client (no retries` +
    ` keeps at most 10%), and plain retries are unsafe in ${plainUnsafe} of those; the recommended setup is safe in` +
    ` ${recommendedSafe} of ${lost.length}.`,
);
