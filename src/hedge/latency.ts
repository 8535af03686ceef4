/**
 * How fine the latency histogram is: each bucket's upper edge is {@link GROWTH} times its lower one, so an estimate is
 * at most 10% above the sample it stands for, and never below it.
 */
export const GROWTH = 1.1;
/** Buckets up to 2^31 ms (about 24.8 days, setTimeout's longest delay); a longer sample falls in the last one. */
const BUCKETS = Math.ceil(Math.log(2 ** 31) / Math.log(GROWTH)) + 1;
/** How many samples may be recorded before a cached estimate is computed again. */
const STALE_AFTER = 8;

/** The bucket of a latency: 0 for anything under 1 ms, then one per factor {@link GROWTH}. */
export const bucketOf = (ms: number): number =>
  ms < 1 ? 0 : Math.min(BUCKETS - 1, 1 + Math.floor(Math.log(ms) / Math.log(GROWTH)));

/** The latency a bucket stands for: its upper edge (1 ms for bucket 0), so an estimate never undershoots. */
export const edgeOf = (bucket: number): number => GROWTH ** bucket;

/**
 * This process's recent latencies, as a log-bucketed histogram over two rotating windows (the one filling, and the
 * one before it), read as a percentile: tower's rotating histogram, in fixed memory (two arrays of {@link BUCKETS}
 * counts, about 230 each, whatever the traffic). Recording is O(1); a percentile is a scan of the buckets, cached and
 * computed again only after {@link STALE_AFTER} samples or a rotation, so a call costs O(1) amortised.
 */
export class LatencyWindow {
  #current = new Uint32Array(BUCKETS);
  #previous = new Uint32Array(BUCKETS);
  #currentCount = 0;
  #previousCount = 0;
  /** When the current window began; -Infinity before the first sample. */
  #since = Number.NEGATIVE_INFINITY;
  #cached: number | undefined;
  #fresh = 0;
  readonly #windowMs: number;
  readonly #quantile: number;
  readonly #minSamples: number;

  constructor(windowMs: number, quantile: number, minSamples: number) {
    this.#windowMs = windowMs;
    this.#quantile = quantile;
    this.#minSamples = minSamples;
  }

  /** The samples the estimate reads now (the two windows'). */
  get count(): number {
    return this.#currentCount + this.#previousCount;
  }

  /**
   * Moves the windows to `nowMs`: a full window becomes the previous one; after two windows with nothing, both are
   * empty.
   */
  #rotate(nowMs: number): void {
    const gone = nowMs - this.#since;
    if (gone < this.#windowMs) return;
    if (gone >= 2 * this.#windowMs) {
      this.#previous.fill(0);
      this.#previousCount = 0;
      this.#since = nowMs;
    } else {
      [this.#previous, this.#current] = [this.#current, this.#previous];
      this.#previousCount = this.#currentCount;
      this.#since += this.#windowMs;
    }
    this.#current.fill(0);
    this.#currentCount = 0;
    this.#cached = undefined;
  }

  /** Counts one latency, in ms, observed at `nowMs`. */
  record(ms: number, nowMs: number): void {
    if (this.#since === Number.NEGATIVE_INFINITY) this.#since = nowMs;
    this.#rotate(nowMs);
    const bucket = bucketOf(ms);
    this.#current[bucket] = (this.#current[bucket] as number) + 1;
    this.#currentCount++;
    if (++this.#fresh >= STALE_AFTER) this.#cached = undefined;
  }

  /**
   * The latency under which the configured share of the windows' samples fell (the upper edge of its bucket), or
   * `undefined` while they hold fewer than `minSamples` (tower: no hedge until there is enough data).
   */
  percentile(nowMs: number): number | undefined {
    this.#rotate(nowMs);
    const count = this.count;
    if (count < this.#minSamples) return undefined;
    if (this.#cached !== undefined) return this.#cached;
    // The rank of the sample at the quantile: the smallest bucket holding at least ceil(q x n) samples at or under it.
    const rank = Math.max(1, Math.ceil(this.#quantile * count));
    let seen = 0;
    let bucket = 0;
    for (; bucket < BUCKETS - 1; bucket++) {
      seen += (this.#current[bucket] as number) + (this.#previous[bucket] as number);
      if (seen >= rank) break;
    }
    this.#fresh = 0;
    this.#cached = edgeOf(bucket);
    return this.#cached;
  }
}
