/**
 * Two counters over a sliding window, kept in a fixed ring of buckets: the shared state of a retry budget and of a
 * circuit breaker's failure ratio. Memory is `2 x buckets` numbers whatever the traffic, and each call is O(1) (a
 * step that crosses several buckets clears at most `buckets` of them). The window slides a bucket at a time, so a
 * count leaves it between `windowMs - windowMs / buckets` and `windowMs` after it was added.
 */
export class SlidingCounts {
  readonly #a: Float64Array;
  readonly #b: Float64Array;
  readonly #bucketMs: number;
  /** The bucket the last call fell in (in units of bucketMs since the clock's origin); -Infinity before any. */
  #index = Number.NEGATIVE_INFINITY;
  /** The sums of each counter over the window. */
  a = 0;
  b = 0;

  constructor(
    windowMs: number,
    readonly buckets = 10,
  ) {
    this.#a = new Float64Array(buckets);
    this.#b = new Float64Array(buckets);
    this.#bucketMs = windowMs / buckets;
  }

  /** Moves the window to `nowMs`, dropping the buckets that left it. A clock that went back stays in the last one. */
  advance(nowMs: number): void {
    const index = Math.floor(nowMs / this.#bucketMs);
    if (!(index > this.#index)) return;
    const n = this.buckets;
    if (index - this.#index >= n) {
      this.#a.fill(0);
      this.#b.fill(0);
      this.a = 0;
      this.b = 0;
    } else {
      for (let i = this.#index + 1; i <= index; i++) {
        const slot = ((i % n) + n) % n;
        this.a -= this.#a[slot] as number;
        this.b -= this.#b[slot] as number;
        this.#a[slot] = 0;
        this.#b[slot] = 0;
      }
    }
    this.#index = index;
  }

  /** Adds to the counters in the current bucket (call {@link advance} first). */
  add(a: number, b: number): void {
    const n = this.buckets;
    const slot = (((this.#index % n) + n) % n) | 0;
    this.#a[slot] = (this.#a[slot] as number) + a;
    this.#b[slot] = (this.#b[slot] as number) + b;
    this.a += a;
    this.b += b;
  }

  /** Empties the window. */
  clear(): void {
    this.#a.fill(0);
    this.#b.fill(0);
    this.a = 0;
    this.b = 0;
  }
}
