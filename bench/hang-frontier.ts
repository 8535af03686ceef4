/**
 * Why the budget keeps less than plain retries in a hang and in late answers, and why no rule of the client's alone
 * can keep it (docs/guide/protecting.md, "the frontier"). Run: npx tsx bench/hang-frontier.ts [docs/explore.json]
 * [--kind hang|latency] (hang, the default: about 1 min; latency: about 5 min).
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
 *
 * Late answers (`--kind latency`): the server keeps its capacity and adds latency, so some attempts time out and a
 * retry costs it little. The twin is the same cell with a slowdown (an unbounded queue) instead, its capacity the
 * share (found by bisection, 8 steps) at which, without retries, as many calls begun during the trouble are answered in
 * time as in the late answers (within 5 points): a client that sees only whether its attempts time out, as a quiet
 * process does, sees the same share of timeouts in both.
 */

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type ExploreResult, exploreVerdicts, simulateOverload } from '../src/simulate/index';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { kind: { type: 'string', default: 'hang' } },
});
const kind = values.kind;
if (kind !== 'hang' && kind !== 'latency') throw new Error(`--kind must be hang or latency, got ${kind}`);
const file = positionals[0] ?? 'docs/explore.json';
const draw = JSON.parse(readFileSync(file, 'utf8')) as ExploreResult;
const mine = exploreVerdicts(draw).filter((v) => v.strategy === 'recommended' && v.kind === kind);
const lost = mine.filter((v) => v.beneficial === false);
const recovery = (ms: number | null) => (ms === null ? Number.POSITIVE_INFINITY : ms);
type Figures = ReturnType<typeof simulateOverload>['results'][number];

let lookAlike = 0;
let plainUnsafe = 0;
let recommendedSafe = 0;
console.log('   seed  instances  no-retries/plain/recommended: goodput during, recovery s   twin looks alike, plain');
for (const v of lost) {
  const cell = draw.cells.find((c) => c.seed === v.seed);
  if (!cell) throw new Error(`no cell ${v.seed}`);
  const { hang: _hang, addedLatencyMs: _added, ...rest } = cell.settings;
  const run = (capacity: number) =>
    simulateOverload({
      ...(rest as Parameters<typeof simulateOverload>[0]),
      slowdownCapacity: capacity,
      strategies: ['no-retries', 'plain', 'recommended'],
    }).results as [Figures, Figures, Figures];
  let twin: [Figures, Figures, Figures];
  let share: number;
  let alike: boolean;
  if (kind === 'hang') {
    // The mildest slowdown that still looks like the hang (the deepest tried, if none does).
    [twin, share] = [run(0.01), 0.01];
    for (const capacity of [0.02, 0.05, 0.1, 0.2, 0.3]) {
      const next = run(capacity);
      if (next[0].goodputDuring > 0.1) break;
      [twin, share] = [next, capacity];
    }
    // Looks alike: without retries, at most 1 call in 10 begun during the trouble gets an answer in time.
    alike = twin[0].goodputDuring <= 0.1;
  } else {
    // The slowdown at which no retries keeps what it keeps in the late answers: more capacity, more answered in time.
    const target = (cell.results.find((r) => r.strategy === 'no-retries') as Figures).goodputDuring;
    let [lo, hi] = [0.01, 1];
    [twin, share] = [run(0.01), 0.01];
    for (let step = 0; step < 8; step++) {
      const mid = (lo + hi) / 2;
      const next = run(mid);
      if (Math.abs(next[0].goodputDuring - target) < Math.abs(twin[0].goodputDuring - target))
        [twin, share] = [next, mid];
      if (next[0].goodputDuring < target) lo = mid;
      else hi = mid;
    }
    alike = Math.abs(twin[0].goodputDuring - target) <= 0.05;
  }
  const [none, plain, recommended] = twin;
  const safe = (r: Figures) =>
    r.goodputDuring >= none.goodputDuring - 0.05 && recovery(r.recoveryMs) <= recovery(none.recoveryMs) + 3_000;
  if (alike) lookAlike++;
  if (alike && !safe(plain)) plainUnsafe++;
  if (safe(recommended)) recommendedSafe++;
  const fig = (r: Figures) =>
    `${(100 * r.goodputDuring).toFixed(0)}% ${r.recoveryMs === null ? 'never' : (r.recoveryMs / 1_000).toFixed(0)}`;
  console.log(
    `${String(v.seed).padStart(8)} ${String(v.instances).padStart(9)}  ${[none, plain, recommended].map(fig).join(' / ').padEnd(44)} ${alike ? `yes at ${(100 * share).toFixed(0)}%` : 'no       '}  ${safe(plain) ? 'safe' : 'UNSAFE'}`,
  );
}
console.log(
  `\n${file}: ${mine.length} ${kind} cells, ${lost.length} where the recommended setup keeps over 10 points less than plain.` +
    `\nTheir twins (a slowdown with an unbounded queue): ${lookAlike} look alike to the client (${kind === 'hang' ? 'no retries keeps at most 10%' : 'no retries keeps the same share, within 5 points'}),` +
    ` and plain retries are unsafe in ${plainUnsafe} of those; the recommended setup is safe in` +
    ` ${recommendedSafe} of ${lost.length}.`,
);
