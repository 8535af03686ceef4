/**
 * The simulators' event queue: events ordered by time, then by insertion order, so that ties break the same way every
 * run. (time, sequence) is a strict total order (times are never NaN: every scenario's are sums of finite hops, waits
 * and timeouts), so the order events come out in is that order, whatever the queue's inner arrangement: any change
 * inside this class that keeps it a correct priority queue leaves every simulated result as it was, byte for byte.
 *
 * A calendar queue (Brown, 1988), since a binary heap of tens of thousands of pending events cost a third of a fleet
 * run (`node --cpu-prof` on `herdless simulate --scenario explore`: each pop sifted an event down the heap's whole
 * depth, a cache miss a level). Time is cut into buckets of `bucketMs` (1 ms: a network hop is a few, so most events
 * land a few buckets ahead of the clock), and a ring of {@link RING} buckets covers the next 131 s:
 * - the events of the buckets up to the current one are a sorted batch, popped from the front; an event pushed into
 *   them (a wait under a bucket, a push earlier than the last pop) is put in its place by a binary search;
 * - each later bucket of the ring is an unsorted list (pushing is two stores), sorted when the clock reaches it;
 * - an event past the ring (a long hold, the metastable server's far completions) waits in a binary heap, and moves
 *   into the ring when the clock comes within 131 s of it; when the ring and the batch are empty, the clock jumps to
 *   the heap's earliest event.
 * So a push and a pop cost O(1) on average (a sort of the few events of a bucket), and at worst O(log n) (the heap).
 * Events are records of four numbers (time, sequence, client, kind) in one Float64Array, linked by an Int32Array,
 * recycled through a free list: no object per event.
 */
export class EventQueue {
  readonly #bucketMs: number;
  /** Record r at 4r: time, sequence, client, kind. */
  #rec = new Float64Array(4 * 256);
  /** The next record of r's bucket list, or of the free list; 0 ends a list (record 0 is never used). */
  #link = new Int32Array(256);
  #free = 0;
  /** Records ever used (the pool's high-water mark), counting the unused record 0. */
  #used = 1;
  /** The first record of each ring bucket's list (bucket b at b & MASK), 0 for none. */
  readonly #head = new Int32Array(RING);
  /** Events in the ring's lists. */
  #inRing = 0;
  /** The current bucket: the batch holds every event of the buckets up to it; the ring, those after it. */
  #current = Number.NEGATIVE_INFINITY;
  /** The sorted batch: records at #batch[#from] to #batch[#to - 1]. */
  #batch = new Int32Array(256);
  #from = 0;
  #to = 0;
  /** Events past the ring. */
  readonly #far = new FarHeap();
  #counter = 0;

  /** @param bucketMs - The width of a bucket, in the unit of the times pushed: a finite number > 0. Default 1. */
  constructor(bucketMs = 1) {
    this.#bucketMs = bucketMs;
  }

  get size(): number {
    return this.#to - this.#from + this.#inRing + this.#far.size;
  }

  push(time: number, client: number, kind: number): void {
    const seq = this.#counter++;
    const bucket = Math.floor(time / this.#bucketMs);
    if (bucket - this.#current >= RING || !(bucket < MAX_BUCKET)) {
      this.#far.push(time, seq, client, kind);
      return;
    }
    const r = this.#record(time, seq, client, kind);
    if (bucket > this.#current) {
      const slot = bucket & MASK;
      (this.#link as Int32Array)[r] = this.#head[slot] as number;
      this.#head[slot] = r;
      this.#inRing++;
    } else this.#insert(r, time, seq);
  }

  /** Removes the earliest event into `out` (time, client, kind); false when empty. */
  pop(out: { time: number; client: number; kind: number }): boolean {
    if (this.#from === this.#to && !this.#advance(out)) return false;
    if (this.#from === this.#to) return true; // #advance popped it from the far heap
    const r = this.#batch[this.#from++] as number;
    const rec = this.#rec;
    out.time = rec[4 * r] as number;
    out.client = rec[4 * r + 2] as number;
    out.kind = rec[4 * r + 3] as number;
    this.#link[r] = this.#free;
    this.#free = r;
    return true;
  }

  /** A record holding the event, from the free list or the pool. */
  #record(time: number, seq: number, client: number, kind: number): number {
    let r = this.#free;
    if (r > 0) this.#free = this.#link[r] as number;
    else {
      r = this.#used++;
      if (r === this.#link.length) {
        const link = new Int32Array(2 * r);
        link.set(this.#link);
        this.#link = link;
        const rec = new Float64Array(8 * r);
        rec.set(this.#rec);
        this.#rec = rec;
      }
    }
    const rec = this.#rec;
    rec[4 * r] = time;
    rec[4 * r + 1] = seq;
    rec[4 * r + 2] = client;
    rec[4 * r + 3] = kind;
    return r;
  }

  /** Puts record r, of a bucket up to the current one, in its place in the batch. */
  #insert(r: number, time: number, seq: number): void {
    const rec = this.#rec;
    if (this.#from > 0 && this.#from === this.#to) this.#from = this.#to = 0;
    if (this.#to === this.#batch.length) this.#compact();
    const batch = this.#batch;
    let lo = this.#from;
    let hi = this.#to;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = batch[mid] as number;
      const tm = rec[4 * m] as number;
      if (tm < time || (tm === time && (rec[4 * m + 1] as number) < seq)) lo = mid + 1;
      else hi = mid;
    }
    batch.copyWithin(lo + 1, lo, this.#to);
    batch[lo] = r;
    this.#to++;
  }

  /** Room for one more record at the batch's end: its live part moved to the front, or into an array twice as long. */
  #compact(): void {
    const live = this.#to - this.#from;
    if (live === this.#batch.length) {
      const grown = new Int32Array(2 * live);
      grown.set(this.#batch.subarray(this.#from, this.#to));
      this.#batch = grown;
    } else this.#batch.copyWithin(0, this.#from, this.#to);
    this.#from = 0;
    this.#to = live;
  }

  /**
   * The batch is empty: moves the clock to the next bucket that holds an event and sorts that bucket into the batch.
   * False when the queue is empty; true with the batch still empty when the event was popped from the far heap into
   * `out` (one too far in time to count buckets to).
   */
  #advance(out: { time: number; client: number; kind: number }): boolean {
    const far = this.#far;
    this.#from = this.#to = 0;
    for (;;) {
      if (this.#inRing === 0) {
        if (far.size === 0) return false;
        const next = Math.floor(far.time / this.#bucketMs);
        if (!(next < MAX_BUCKET)) {
          far.pop(out);
          return true;
        }
        this.#current = next - 1; // nothing in the ring: skip the empty buckets before the far heap's first event
      }
      const current = ++this.#current;
      // The far events now within the ring's reach join it (those of the current bucket, its list to sort).
      while (far.size > 0 && Math.floor(far.time / this.#bucketMs) - current < RING) {
        const r = this.#record(far.time, far.seq, far.client, far.kind);
        const slot = Math.floor(far.time / this.#bucketMs) & MASK;
        this.#link[r] = this.#head[slot] as number;
        this.#head[slot] = r;
        this.#inRing++;
        far.remove();
      }
      const slot = current & MASK;
      let r = this.#head[slot] as number;
      if (r === 0) continue;
      this.#head[slot] = 0;
      const link = this.#link;
      let n = 0;
      for (let i = r; i > 0; i = link[i] as number) n++;
      this.#inRing -= n;
      if (n > this.#batch.length) this.#batch = new Int32Array(Math.max(n, 2 * this.#batch.length));
      const batch = this.#batch;
      const rec = this.#rec;
      // The list runs from the latest push to the earliest: an insertion sort from the back meets few inversions.
      for (let k = 0; r > 0; k++, r = link[r] as number) {
        const time = rec[4 * r] as number;
        const seq = rec[4 * r + 1] as number;
        let i = k;
        for (; i > 0; i--) {
          const m = batch[i - 1] as number;
          const tm = rec[4 * m] as number;
          if (tm < time || (tm === time && (rec[4 * m + 1] as number) < seq)) break;
          batch[i] = m;
        }
        batch[i] = r;
        if (k >= SORT_BY_INSERTION) {
          this.#to = k + 1;
          this.#sortRest(r, link);
          return true;
        }
      }
      this.#to = n;
      return true;
    }
  }

  /**
   * A large bucket (100,000 clients starting together in the outage scenario): the records from `r`'s successor on
   * join the batch's first part, sorted by a sort of the whole batch (insertion sort is quadratic).
   */
  #sortRest(r: number, link: Int32Array): void {
    const all: number[] = Array.from(this.#batch.subarray(0, this.#to));
    for (let i = link[r] as number; i > 0; i = link[i] as number) all.push(i);
    const rec = this.#rec;
    all.sort(
      (x, y) =>
        (rec[4 * x] as number) - (rec[4 * y] as number) || (rec[4 * x + 1] as number) - (rec[4 * y + 1] as number),
    );
    this.#batch.set(all);
    this.#to = all.length;
  }
}

/**
 * The ring's buckets: 131,072, of 1 ms 131 s ahead (the metastable server's completions go a minute or two ahead). A
 * power of two.
 */
const RING = 1 << 17;
const MASK = RING - 1;
/** Buckets past this are too far to step through: such an event is popped from the far heap directly. */
const MAX_BUCKET = 2 ** 50;
/** A bucket of more events than this is sorted by `Array.prototype.sort` instead of an insertion sort. */
const SORT_BY_INSERTION = 32;

/**
 * A binary min-heap of events by (time, sequence): the events past the calendar's ring. Event i (1-based) at 4i in one
 * Float64Array (time, sequence, client, kind) that doubles when full; the root's fields are read through getters.
 */
class FarHeap {
  #heap = new Float64Array(4 * 16);
  size = 0;

  get time(): number {
    return this.#heap[4] as number;
  }
  get seq(): number {
    return this.#heap[5] as number;
  }
  get client(): number {
    return this.#heap[6] as number;
  }
  get kind(): number {
    return this.#heap[7] as number;
  }

  push(time: number, seq: number, client: number, kind: number): void {
    let i = ++this.size;
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

  /** Removes the earliest event into `out`. */
  pop(out: { time: number; client: number; kind: number }): void {
    out.time = this.time;
    out.client = this.client;
    out.kind = this.kind;
    this.remove();
  }

  /** Removes the earliest event (the root): the last one takes its place and sifts down. */
  remove(): void {
    const h = this.#heap;
    const last = this.size--;
    const n = this.size;
    if (n === 0) return;
    const time = h[4 * last] as number;
    const seq = h[4 * last + 1] as number;
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
    h[4 * i + 2] = h[4 * last + 2] as number;
    h[4 * i + 3] = h[4 * last + 3] as number;
  }
}
