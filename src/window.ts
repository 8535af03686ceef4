import { num } from './validate';

/**
 * What a window's length must be: under 1 ms its tenths would not divide a clock's times into steps (with 1e-320 every
 * time is bucket Infinity, and the window never slides).
 */
export const WINDOW = 'a finite number of ms >= 1';

/**
 * Two counters over a sliding window, kept in a fixed ring of buckets: the shared state of a retry budget and of a
 * circuit breaker's failure ratio. Memory is `2 x buckets` numbers whatever the traffic, and each call is O(1) (a
 * step that crosses several buckets clears at most `buckets` of them). The window slides a bucket at a time, so a
 * count leaves it between `windowMs - windowMs / buckets` and `windowMs` after it was added.
 */
export class SlidingCounts {
  /**
   * Both counters' buckets, interleaved (slot k's a at 2k, its b at 2k + 1): one plain array of doubles, on the JS heap,
   * rather than two Float64Arrays, each with a backing store of its own outside it that costs an allocation and a
   * collector's sweep (a fleet simulation creates three windows a budget and a breaker, for each of 10,000 instances).
   */
  readonly #slots: number[];
  readonly #bucketMs: number;
  readonly #windowMs: number;
  /** The bucket the last call fell in (in units of bucketMs since the clock's origin); -Infinity before any. */
  #index = Number.NEGATIVE_INFINITY;
  /** The sums of each counter over the window. */
  a = 0;
  b = 0;

  constructor(
    windowMs: number,
    readonly buckets = 10,
  ) {
    const slots: number[] = [];
    for (let i = 0; i < 2 * buckets; i++) slots.push(0); // packed (no holes), unlike new Array(n).fill(0)
    this.#slots = slots;
    this.#bucketMs = windowMs / buckets;
    this.#windowMs = windowMs;
  }

  /** Moves the window to `nowMs`, dropping the buckets that left it. A clock that went back stays in the last one. */
  advance(nowMs: number): void {
    const index = Math.floor(nowMs / this.#bucketMs);
    if (!(index > this.#index)) return;
    const n = this.buckets;
    const steps = index - this.#index;
    const slots = this.#slots;
    if (steps >= n) {
      slots.fill(0);
      this.a = 0;
      this.b = 0;
    } else {
      // Counted in steps, not by index: past 2^53 buckets `i++` cannot move an index, and the loop would not end; and
      // from the current slot, not `index + k`, which rounds there (a short step would clear the slot it came from).
      const start = ((this.#index % n) + n) % n;
      for (let k = 1; k <= steps; k++) {
        const slot = 2 * ((start + k) % n);
        this.a -= slots[slot] as number;
        this.b -= slots[slot + 1] as number;
        slots[slot] = 0;
        slots[slot + 1] = 0;
      }
    }
    this.#index = index;
  }

  /** The bucket the window is at (in units of windowMs / buckets): what {@link remove} takes back from. */
  get index(): number {
    return this.#index;
  }

  /**
   * Takes `b` back out of the bucket at `index` (a past {@link index}), if that bucket is still in the window; else
   * does nothing (it left the window, and its counts with it). Reads no clock.
   */
  remove(index: number, b: number): void {
    if (!(index > this.#index - this.buckets)) return;
    const n = this.buckets;
    const slot = 2 * ((((index % n) + n) % n) | 0) + 1;
    this.#slots[slot] = (this.#slots[slot] as number) - b;
    this.b -= b;
  }

  /** Adds to the counters in the current bucket (call {@link advance} first). */
  add(a: number, b: number): void {
    const n = this.buckets;
    const slot = 2 * ((((this.#index % n) + n) % n) | 0);
    const slots = this.#slots;
    slots[slot] = (slots[slot] as number) + a;
    slots[slot + 1] = (slots[slot + 1] as number) + b;
    this.a += a;
    this.b += b;
  }

  /** Empties the window. */
  clear(): void {
    this.#slots.fill(0);
    this.a = 0;
    this.b = 0;
  }

  /**
   * A new, empty window of the same width and buckets, that has seen no clock yet: what a `reset()` swaps in, so that
   * what still points at this one (a budget's unreleased permit) changes only this one, which nothing reads any more.
   */
  fresh(): SlidingCounts {
    return new SlidingCounts(this.#windowMs, this.buckets);
  }
}

/**
 * The budget's and the breaker's clock: a steady reading of `now`, and {@link SteadyClock.reset} to forget the
 * readings so far (a `reset()` of the budget or the breaker calls it, so that a fresh fake clock that starts at 0 is
 * read as it is, not clamped to the last clock's time).
 */
export interface SteadyClock {
  (): number;
  /** Forgets the highest reading: the next one is taken as it is, even below the last. Reads no clock. */
  reset(): void;
}

/**
 * The budget's and the breaker's clock: `now` (default `performance.now()`, looked up at each call so fake timers
 * control it), checked and made steady. A reading that is not a finite number is a TypeError or RangeError naming
 * `now()`, since NaN or Infinity would silently corrupt the window; a reading below the last one is clamped to it (a
 * clock that went back, an NTP step say, reads as no time passed), so a window never slides backwards and a break
 * never lengthens.
 */
export function steadyClock(now: (() => number) | undefined): SteadyClock {
  let last = Number.NEGATIVE_INFINITY;
  const clock = (() => {
    const t = now === undefined ? performance.now() : now();
    if (!Number.isFinite(t)) num('now()', t, 'a finite number', () => false);
    if (t > last) last = t;
    return last;
  }) as SteadyClock;
  clock.reset = () => {
    last = Number.NEGATIVE_INFINITY;
  };
  return clock;
}
