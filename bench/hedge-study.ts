/**
 * A first measurement for hedging (issue 32), before any hedge exists in `retry()`: what a hedge does to the tail and
 * to the load, and what bounds it. Run: npx tsx bench/hedge-study.ts (about 1 min). Printed figures go in
 * bench/README.md ("Hedging: a study before building it").
 *
 * The server (src/simulate/tail.ts, the one `herdless simulate --scenario hedge` runs): 50 parallel workers sharing one
 * FIFO queue (an M/G/k server), each attempt's service time
 * lognormal (median 20 ms, sigma 0.4) with a 1% slow mode 25 times longer (a GC pause, a slow disk: a property of the
 * attempt, not of the request, so a second attempt is likely fast). A hedge whose call is answered is cancelled if it
 * is still queued; one being served runs to its end (wasted work). Each hop is 1 ms. Calls arrive open-loop, split
 * evenly over `instances` client processes, each with its own hedging state. No attempt timeouts and no retries: the
 * study isolates the hedge.
 *
 * Strategies:
 * - `none`: no hedge.
 * - `fixed`: a hedge at a fixed delay (the healthy p95, measured from a run of `none`), for every call that has not
 *   answered by then: the unbounded hedge most libraries offer.
 * - `p95-capped`: a hedge at this process's own observed p95 (its last 100 answers; no hedge before 20), and at most
 *   5% extra: each first attempt earns 0.05 of a token, a hedge spends 1, and a process holds at most 1 (no reserve
 *   that grows with the fleet: 10,000 processes with a full bucket add 10,000 hedges at once at most).
 * - `fixed-capped`: the fixed delay, with the same 5% token cap (what a process with too few answers to estimate a
 *   percentile can still do).
 * - `overtaken`: the fixed delay, only when the process's last 3 answers were to attempts sent after this one.
 * - `coin`: the fixed delay, for 1 in 20 of the calls that cross it, drawn at random: a bound with no state.
 *
 * Troubles: `tail` (healthy, load 0.4: the tail alone) and `slowdown` (the workers slowed 3.3x for 10 s at load 0.5,
 * so the server is overloaded while it lasts: every call crosses the hedge delay).
 */

import { selectPercentile } from '../src/simulate/outage';
import { ANSWER, CALL, HEDGE, TailServer, tailCapacity } from '../src/simulate/tail';

const WORKERS = 50;

interface Run {
  readonly instances: number;
  readonly load: number;
  readonly slowdown: boolean;
  readonly strategy: 'none' | 'fixed' | 'p95-capped' | 'fixed-capped' | 'overtaken' | 'coin';
  readonly fixedMs: number;
  readonly seed: number;
}

const SLOW_SHARE = 0.01;
const SLOW_FACTOR = Number(process.argv[2] ?? 25); // npx tsx bench/hedge-study.ts 100: a longer slow mode
const SERVER = { workers: WORKERS, medianMs: 20, sigma: 0.4, slowShare: SLOW_SHARE, slowFactor: SLOW_FACTOR };
const CAPACITY = tailCapacity(SERVER); // requests a second

function simulate(run: Run) {
  const server = new TailServer({
    ...SERVER,
    slowdownMs: run.slowdown ? 10_000 : 0,
    slowdownFactor: 3.3,
    warmupMs: 5_000,
    hopMs: 1,
    runMs: 30_000,
    load: run.load,
    instances: run.instances,
    seed: run.seed,
  });
  const { q, rng, calls, callDone, callInstance, attemptSent } = server;
  // Per instance: the last 100 answer times (a ring), and the hedge tokens.
  const ring = new Float64Array(run.instances * 100);
  const seen = new Int32Array(run.instances);
  const tokens = new Float64Array(run.instances);
  const capped = run.strategy === 'p95-capped' || run.strategy === 'fixed-capped';
  // Per instance: when the attempts of its last 3 answers were sent (a ring), for `overtaken`.
  const answeredSent = new Float64Array(run.instances * 3).fill(Number.NEGATIVE_INFINITY);
  const answers = new Int32Array(run.instances);
  const firstSent = new Float64Array(calls);

  const p95 = (i: number) => {
    const n = Math.min(seen[i] as number, 100);
    const xs = Array.from(ring.subarray(i * 100, i * 100 + n)).sort((x, y) => x - y);
    return xs[Math.floor(0.95 * (n - 1))] as number;
  };
  const ev = { time: 0, client: 0, kind: 0 };
  while (q.pop(ev)) {
    const { time, client, kind } = ev;
    if (kind === CALL) {
      const i = callInstance[client] as number;
      if (capped) tokens[i] = Math.min(1, (tokens[i] as number) + 0.05);
      server.send(client, time);
      let delay = Number.POSITIVE_INFINITY;
      firstSent[client] = time;
      if (run.strategy !== 'none' && run.strategy !== 'p95-capped') delay = run.fixedMs;
      else if (run.strategy === 'p95-capped' && (seen[i] as number) >= 20) delay = p95(i);
      if (delay < Number.POSITIVE_INFINITY) q.push(time + delay, client, HEDGE);
    } else if (kind === HEDGE) {
      if (callDone[client]) continue;
      const i = callInstance[client] as number;
      if (capped) {
        if ((tokens[i] as number) < 1) continue;
        tokens[i] = (tokens[i] as number) - 1;
      }
      if (run.strategy === 'coin' && !(rng.next() < 0.05)) continue; // stateless: 1 in 20 of the calls crossing
      if (run.strategy === 'overtaken') {
        // Only when the last 3 answers this process got were to attempts sent after this one: later attempts got
        // through while it waits, so it is not a queue's turn it is waiting for (a queue serves in turn).
        let overtaken = true;
        for (let k = 0; k < 3; k++)
          if (!((answeredSent[i * 3 + k] as number) > (firstSent[client] as number))) overtaken = false;
        if (!overtaken) continue;
      }
      server.send(client, time);
    } else {
      const c = server.handle(time, client, kind);
      if (kind !== ANSWER || c < 0) continue;
      const i = callInstance[c] as number;
      ring[i * 100 + ((seen[i] as number) % 100)] = time - (attemptSent[client] as number);
      answeredSent[i * 3 + ((answers[i] as number) % 3)] = attemptSent[client] as number;
      answers[i] = (answers[i] as number) + 1;
      seen[i] = (seen[i] as number) + 1;
    }
  }
  const at = (p: number) => selectPercentile(server.latency, p);
  const percentiles = { p50: at(0.5), p95: at(0.95), p99: at(0.99), p999: at(0.999) };
  return { ...percentiles, extra: server.attempts / calls - 1, wasted: server.wasted / calls };
}

// The healthy p95 of an attempt, from a run without hedges (one attempt a call): the fixed hedge delay.
const healthy = simulate({ instances: 1, load: 0.4, slowdown: false, strategy: 'none', fixedMs: 0, seed: 1 });
const fixedMs = Math.round(healthy.p95);
console.log(
  `server: ${WORKERS} workers, capacity ${CAPACITY.toFixed(0)}/s; healthy p50 ${healthy.p50.toFixed(0)} ms, p99 ${healthy.p99.toFixed(0)} ms; fixed hedge delay ${fixedMs} ms\n`,
);
console.log('trouble   instances  strategy       p50 ms  p99 ms  p99.9 ms  extra load  wasted   p99 cut  p99.9 cut');
for (const slowdown of [false, true]) {
  for (const instances of [1, 10, 100, 1_000, 10_000]) {
    const load = slowdown ? 0.5 : 0.4;
    const base = simulate({ instances, load, slowdown, strategy: 'none', fixedMs, seed: 7 });
    for (const strategy of ['none', 'fixed', 'p95-capped', 'fixed-capped', 'overtaken', 'coin'] as const) {
      const r = strategy === 'none' ? base : simulate({ instances, load, slowdown, strategy, fixedMs, seed: 7 });
      console.log(
        `${(slowdown ? 'slowdown' : 'tail').padEnd(9)} ${String(instances).padStart(9)}  ${strategy.padEnd(13)} ${r.p50.toFixed(0).padStart(6)} ${r.p99.toFixed(0).padStart(7)} ${r.p999.toFixed(0).padStart(9)} ${`${(100 * r.extra).toFixed(1)}%`.padStart(11)} ${`${(100 * r.wasted).toFixed(1)}%`.padStart(7)} ${`${(base.p99 / r.p99).toFixed(1)}x`.padStart(9)} ${`${(base.p999 / r.p999).toFixed(1)}x`.padStart(10)}`,
      );
    }
  }
}
