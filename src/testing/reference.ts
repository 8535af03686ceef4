import { createPolicy } from '../policy';
import { EventQueue } from '../simulate/queue';
import { ClientRetries } from '../simulate/retries';
import { createRng } from '../simulate/rng';
import { Dependency } from './dependency';
import type { HerdSettings } from './options';

/**
 * The plain retries a herd's goodput is compared with: herdless's full jitter with `retry()`'s backoff defaults
 * (100 ms base, doubling, 10 s cap), 10 attempts, no deadline, no attempt timeout, no budget, no breaker. Ten
 * attempts, as the simulator's `full` strategy and the docs' `retryingFetch({ maxAttempts: 10 })`: they span about
 * 25 s of waits, enough to ride out the outages a herd test stages (the library's default of 3 attempts spans
 * 300 ms and saves no call from the default 1 s outage, so it would make no reference).
 */
export const PLAIN_RETRIES = { jitter: 'full', maxAttempts: 10 } as const;

const SEND = 0;
const SUCCEEDED = 1;
const FAILED = 2;

/** Each report's reference, computed once: reports are plain data, their settings never change. */
const computed = new WeakMap<HerdSettings, number>();

/**
 * How many of the herd's callers {@link PLAIN_RETRIES} bring to a success in the same herd: the same dependency
 * (herdless/testing's, on the same settings and seed: outage, capacity, overflow, failure rate, slowdown, latency,
 * Retry-After, hang), the same start times, the run ending at `untilMs`. On an event queue, not on a clock: each
 * wait is decided by herdless's own `decide()` (the simulator's `ClientRetries`), so it takes milliseconds, not a
 * herd's run. The jitter draws from the seeded generator `herd()` puts in place of `Math.random`.
 */
export function plainSucceeded(s: HerdSettings): number {
  const known = computed.get(s);
  if (known !== undefined) return known;
  const dependency = new Dependency(s, createRng(s.seed));
  const retries = new ClientRetries(
    s.clients,
    createPolicy({ ...PLAIN_RETRIES, random: createRng(s.seed ^ 0x5eed).next }),
  );
  const starts = createRng(s.seed + 1);
  const queue = new EventQueue();
  const firstSend = new Float64Array(s.clients);
  const sentAt = new Float64Array(s.clients);
  /** The Retry-After of each client's last failure, in ms; NaN for none. */
  const hint = new Float64Array(s.clients);
  for (let c = 0; c < s.clients; c++) {
    const at = s.startWindowMs > 0 ? starts.next() * s.startWindowMs : 0;
    firstSend[c] = at;
    queue.push(at, c, SEND);
  }
  const event = { time: 0, client: 0, kind: 0 };
  let succeeded = 0;
  while (queue.pop(event) && event.time <= s.untilMs) {
    const { time, client } = event;
    if (event.kind === SEND) {
      sentAt[client] = time;
      const answer = dependency.arrive(time);
      const ok = answer.kind === 'response' && answer.status < 400;
      const after = answer.kind === 'response' ? answer.headers['retry-after'] : undefined;
      hint[client] = after === undefined ? Number.NaN : Number(after) * 1_000;
      queue.push(answer.atMs, client, ok ? SUCCEEDED : FAILED);
    } else if (event.kind === SUCCEEDED) {
      succeeded++;
    } else {
      const wait = hint[client] as number;
      const d = retries.failed(
        client,
        time - (firstSend[client] as number),
        Number.isNaN(wait) ? undefined : wait,
        time - (sentAt[client] as number),
      );
      if (d.retry) queue.push(time + d.delayMs, client, SEND);
    }
  }
  computed.set(s, succeeded);
  return succeeded;
}
