/**
 * A binary min-heap of events ordered by time, then by insertion order, so that ties break the same way every run.
 * Events are three numbers (time, client, kind) kept in parallel arrays: no object per event.
 */
export class EventQueue {
  #time: number[] = [];
  #seq: number[] = [];
  #client: number[] = [];
  #kind: number[] = [];
  #counter = 0;

  get size(): number {
    return this.#time.length;
  }

  push(time: number, client: number, kind: number): void {
    let i = this.#time.length;
    this.#time.push(time);
    this.#seq.push(this.#counter++);
    this.#client.push(client);
    this.#kind.push(kind);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(i, parent)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  /** Removes the earliest event into `out` (time, client, kind); false when empty. */
  pop(out: { time: number; client: number; kind: number }): boolean {
    const n = this.#time.length;
    if (n === 0) return false;
    out.time = this.#time[0] as number;
    out.client = this.#client[0] as number;
    out.kind = this.#kind[0] as number;
    this.#swap(0, n - 1);
    this.#time.pop();
    this.#seq.pop();
    this.#client.pop();
    this.#kind.pop();
    const size = n - 1;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < size && this.#less(l, m)) m = l;
      if (r < size && this.#less(r, m)) m = r;
      if (m === i) break;
      this.#swap(i, m);
      i = m;
    }
    return true;
  }

  #less(i: number, j: number): boolean {
    const ti = this.#time[i] as number;
    const tj = this.#time[j] as number;
    return ti < tj || (ti === tj && (this.#seq[i] as number) < (this.#seq[j] as number));
  }

  #swap(i: number, j: number): void {
    swap(this.#time, i, j);
    swap(this.#seq, i, j);
    swap(this.#client, i, j);
    swap(this.#kind, i, j);
  }
}

function swap(a: number[], i: number, j: number): void {
  const t = a[i] as number;
  a[i] = a[j] as number;
  a[j] = t;
}
