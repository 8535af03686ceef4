/**
 * A binary min-heap of events ordered by time, then by insertion order, so that ties break the same way every run.
 * (time, sequence) is a strict total order (times are never NaN: every scenario's are sums of finite hops, waits and
 * timeouts), so the order events come out in is that order, whatever the heap's inner arrangement: any change inside
 * this class that keeps it a correct priority queue leaves every simulated result as it was, byte for byte.
 *
 * Events are four numbers (time, sequence, client, kind) side by side in one Float64Array that doubles when full: no
 * object per event, and moving an event is four stores in one cache line. The heap is 1-based (the root at 1, the
 * children of i at 2i and 2i + 1), so two siblings (32 bytes each) share a 64-byte line; the outage bench keeps
 * 100,000 events pending, a heap deeper than the caches. A popped event's slot stays at the root until the next call:
 * a `push` that follows (the simulators' usual step: an event handled schedules the client's next) drops the new event
 * there and sifts it down once, instead of filling the hole with the last event, sifting that all the way down, and
 * then sifting the new one up.
 */
export class EventQueue {
  /** Event i (1-based) at 4i: time, sequence, client, kind; 0 to 3 unused. */
  #heap = new Float64Array(4 * 64);
  /** The events in the heap, at 1 to #n, counting the popped root while {@link #popped}. */
  #n = 0;
  #counter = 0;
  /** The root was popped and is still in the heap, for the next call to replace or remove. */
  #popped = false;

  get size(): number {
    return this.#popped ? this.#n - 1 : this.#n;
  }

  push(time: number, client: number, kind: number): void {
    const seq = this.#counter++;
    if (this.#popped) {
      this.#popped = false;
      this.#down(time, seq, client, kind);
      return;
    }
    let i = ++this.#n;
    if (4 * i + 4 > this.#heap.length) {
      const grown = new Float64Array(2 * this.#heap.length);
      grown.set(this.#heap);
      this.#heap = grown;
    }
    const h = this.#heap;
    while (i > 1) {
      const p = i >> 1;
      const tp = h[4 * p] as number;
      if (!(time < tp || (time === tp && seq < (h[4 * p + 1] as number)))) break;
      h[4 * i] = tp;
      h[4 * i + 1] = h[4 * p + 1] as number;
      h[4 * i + 2] = h[4 * p + 2] as number;
      h[4 * i + 3] = h[4 * p + 3] as number;
      i = p;
    }
    h[4 * i] = time;
    h[4 * i + 1] = seq;
    h[4 * i + 2] = client;
    h[4 * i + 3] = kind;
  }

  /** Removes the earliest event into `out` (time, client, kind); false when empty. */
  pop(out: { time: number; client: number; kind: number }): boolean {
    const h = this.#heap;
    if (this.#popped) {
      this.#popped = false;
      const last = this.#n--;
      if (last > 1) {
        this.#down(
          h[4 * last] as number,
          h[4 * last + 1] as number,
          h[4 * last + 2] as number,
          h[4 * last + 3] as number,
        );
      }
    }
    if (this.#n === 0) return false;
    out.time = h[4] as number;
    out.client = h[6] as number;
    out.kind = h[7] as number;
    this.#popped = true;
    return true;
  }

  /** Puts the event at the root (whose own event is gone) and sifts it down to its place among #n events. */
  #down(time: number, seq: number, client: number, kind: number): void {
    const h = this.#heap;
    const n = this.#n;
    let i = 1;
    for (let m = 2; m <= n; m = 2 * i) {
      let tm = h[4 * m] as number;
      if (m < n) {
        const tr = h[4 * m + 4] as number;
        if (tr < tm || (tr === tm && (h[4 * m + 5] as number) < (h[4 * m + 1] as number))) {
          m++;
          tm = tr;
        }
      }
      if (!(tm < time || (tm === time && (h[4 * m + 1] as number) < seq))) break;
      h[4 * i] = tm;
      h[4 * i + 1] = h[4 * m + 1] as number;
      h[4 * i + 2] = h[4 * m + 2] as number;
      h[4 * i + 3] = h[4 * m + 3] as number;
      i = m;
    }
    h[4 * i] = time;
    h[4 * i + 1] = seq;
    h[4 * i + 2] = client;
    h[4 * i + 3] = kind;
  }
}
