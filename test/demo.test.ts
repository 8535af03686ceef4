import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrivals, matchRequests, recoveryWindow, requestId } from '../demo/lane';
import { runDemo } from '../demo/run-demo';
import { demoSettings, QUICK } from '../demo/settings';

// `npm run demo -- --quick` on real sockets and real time (about 10 s). Real time on a shared machine is noisy, so
// these tests check what holds whatever the noise: the counts, and orderings with wide margins (a naive loop that
// keeps a collapsed server collapsed against a breaker that lets it drain). The figures are the README's, from full
// runs.
describe('the real-server demo', () => {
  it('tells the overload story: naive retries keep the server overloaded, full protection brings it back', async () => {
    const { results, delayP99Ms, delayMaxMs } = await runDemo(QUICK);
    expect(delayP99Ms).toBeGreaterThan(0);
    expect(delayMaxMs).toBeGreaterThanOrEqual(delayP99Ms);
    const s = demoSettings(QUICK);
    const calls = arrivals(s).length;
    expect(results.map((r) => r.strategy)).toEqual([
      'naive loop, fixed 250 ms',
      'herdless, full jitter',
      'herdless, full + budget',
      'herdless, full + budget + breaker',
    ]);
    for (const r of results) {
      // Every request counted once, at the client and at the server (matched by id), but for those a client wrote
      // and then abandoned before the server read them; every call accounted for.
      expect(r.lost).toBe(0);
      expect(r.unexpected).toBe(0);
      expect(r.sent).toBe(r.received + r.abandonedInFlight);
      expect(r.load.reduce((a, b) => a + b, 0)).toBe(r.received);
      expect(r.calls).toBe(calls);
      expect(r.errors).toBe(0);
      expect(r.attempts).toBeGreaterThanOrEqual(r.sent); // a busy machine may abandon some before they leave
      expect(r.attempts).toBeLessThanOrEqual(calls * s.maxAttempts);
      expect(r.goodput).toBeGreaterThan(0); // the calls before the slowdown succeed
    }
    const [naive, full, budget, protectedLane] = results as [
      (typeof results)[0],
      (typeof results)[0],
      (typeof results)[0],
      (typeof results)[0],
    ];
    // Without a bound, retries multiply the load: after the slowdown every attempt times out in the backlog, so each
    // call makes all its attempts; jitter spreads them but does not shrink them. Counted per call and lane against
    // lane, not against the wall clock: a machine that stalls for seconds pushes requests past the end of the window
    // `amplification` counts (every lane's alike, since they share one thread), but it never saves an attempt.
    for (const r of [naive, full]) {
      expect(r.received).toBeGreaterThan(1.5 * calls); // about 2.8 a call in quick runs
      expect(r.amplification).toBeGreaterThan(2 * protectedLane.amplification); // about 4.5 times
      expect(r.recoveryMs).toBeNull();
      expect(r.behindMs).toBeGreaterThan(s.attemptTimeoutMs);
    }
    // The budget holds retries to a share of the calls; the breaker also stops first attempts while it is open.
    expect(budget.received).toBeLessThan(naive.received);
    expect(budget.budgetStops).toBeGreaterThan(0);
    expect(protectedLane.received).toBeLessThan(budget.received);
    expect(protectedLane.refused).toBeGreaterThan(0);
    expect(protectedLane.received).toBeLessThan(calls); // fewer requests than calls: first attempts refused too
    expect(protectedLane.amplification).toBeLessThan(budget.amplification);
    // And it is the one that comes back: more successes with fewer requests.
    expect(protectedLane.goodput).toBeGreaterThan(naive.goodput + 0.15);
    expect(protectedLane.goodput).toBeGreaterThan(full.goodput + 0.15);
    expect(protectedLane.wasted).toBeLessThan(naive.wasted);
    expect(protectedLane.behindMs).toBeLessThan(naive.behindMs / 4); // its server drained its queue
    // Not asserted: its recoveryMs. At the quick run's scale a recovery window holds about 8 calls, and one attempt
    // that a busy machine delays past its 500 ms timeout restarts the 5 windows (seen with other tests beside it).
  }, 60_000);

  it('stops early when its signal aborts, closing every server', async () => {
    const controller = new AbortController();
    const run = runDemo({ ...QUICK, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 1_500);
    await expect(run).rejects.toThrow('stop');
  }, 20_000);

  it('rejects at once when its signal has already aborted', async () => {
    await expect(runDemo({ signal: AbortSignal.abort(new Error('early')) })).rejects.toThrow('early');
  });
});

describe('the demo figures', () => {
  it('recovery is the first of 5 windows in a row with 95% of calls succeeding', () => {
    expect(recoveryWindow([0, 0, 10, 10, 10, 10, 10], [10, 10, 10, 10, 10, 10, 10])).toBe(2);
    expect(recoveryWindow([20, 20, 20, 20, 19], Array(5).fill(20))).toBe(0); // 95% is enough
    expect(recoveryWindow([10, 10, 10, 10, 9, 10, 10, 10, 10, 10], Array(10).fill(10))).toBe(5); // 90% is not
    expect(recoveryWindow([10, 10, 10, 10], [10, 10, 10, 10])).toBeNull(); // fewer than 5 windows
    expect(recoveryWindow([0, 0, 0, 0, 0], [0, 0, 0, 0, 0])).toBe(0); // no demand: nothing failed
  });

  it('the arrivals are the same for a seed, at about the demanded rate', () => {
    const s = demoSettings();
    const a = arrivals(s);
    expect(arrivals(s)).toEqual(a);
    expect(arrivals({ ...s, seed: 2 })).not.toEqual(a);
    const seconds = (s.warmupMs + s.slowdownMs + s.afterMs) / 1_000;
    expect(a.length / seconds).toBeGreaterThan(0.8 * s.load * s.capacity);
    expect(a.length / seconds).toBeLessThan(1.2 * s.load * s.capacity);
    expect(a.every((t, i) => i === 0 || t >= (a[i - 1] as number))).toBe(true);
  });

  it('reads a request id from the headers as undici writes them', () => {
    const head = (extra: string) => `GET / HTTP/1.1\r\nhost: 127.0.0.1:1234\r\nconnection: keep-alive\r\n${extra}`;
    expect(requestId(head('x-demo-request: 17\r\naccept: */*\r\n'))).toBe('17');
    expect(requestId(head('accept: */*\r\nX-Demo-Request: 4\r\n'))).toBe('4');
    expect(requestId(head('x-demo-request: 9'))).toBe('9');
    expect(requestId(head('x-demo-requests: 3\r\n'))).toBe('');
    expect(requestId(head('accept: */*\r\n'))).toBe('');
  });

  it('matches the requests written against those read: only an aborted one may go unread', () => {
    const reads = (...ids: string[]) => new Map(ids.map((id) => [id, 1]));
    expect(matchRequests(['1', '2'], new Set(), reads('1', '2'))).toEqual({
      abandonedInFlight: 0,
      lost: 0,
      unexpected: 0,
    });
    // 2 was aborted and never read: abandoned in flight; 3 was not aborted and never read: lost.
    expect(matchRequests(['1', '2', '3'], new Set(['1', '2']), reads('1'))).toEqual({
      abandonedInFlight: 1,
      lost: 1,
      unexpected: 0,
    });
    // Read but never written, or read twice: unexpected.
    expect(
      matchRequests(
        ['1'],
        new Set(),
        new Map([
          ['1', 2],
          ['5', 1],
        ]),
      ),
    ).toEqual({
      abandonedInFlight: 0,
      lost: 0,
      unexpected: 2,
    });
    // Written twice and read once, though aborted: lost (one id is one request). Without an id: no match either way.
    expect(matchRequests(['1', '1'], new Set(['1']), reads('1'))).toMatchObject({ abandonedInFlight: 0, lost: 1 });
    expect(matchRequests(['', '1'], new Set(['', '1']), reads('', '1'))).toEqual({
      abandonedInFlight: 0,
      lost: 1,
      unexpected: 1,
    });
  });

  it('every request written is read, abandoned, or lost; every read beyond a write is unexpected', () => {
    const ids = fc.uniqueArray(fc.integer({ min: 1, max: 50 }).map(String), { maxLength: 30 });
    fc.assert(
      fc.property(ids, ids, ids, (written, read, aborted) => {
        const reads = new Map(read.map((id) => [id, 1]));
        const m = matchRequests(written, new Set(aborted), reads);
        const unread = written.filter((id) => !reads.has(id));
        expect(m.abandonedInFlight).toBe(unread.filter((id) => aborted.includes(id)).length);
        expect(m.lost).toBe(unread.length - m.abandonedInFlight);
        expect(m.unexpected).toBe(read.filter((id) => !written.includes(id)).length);
        expect(written.length).toBe(read.length + m.abandonedInFlight + m.lost - m.unexpected);
      }),
    );
  });
});
