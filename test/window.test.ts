import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlidingCounts } from '../src/window';

/**
 * The window as its doc states it, kept the slow way: every add is a record stamped with the bucket it fell in (the
 * latest bucket seen, so a clock that went back stays in it), and a record counts while the latest bucket is less
 * than `buckets` ahead of its own.
 */
function reference(bucketMs: number, buckets: number) {
  const records: { bucket: number; a: number; b: number }[] = [];
  let latest = Number.NEGATIVE_INFINITY;
  return {
    advance(nowMs: number) {
      latest = Math.max(latest, Math.floor(nowMs / bucketMs));
    },
    add(a: number, b: number) {
      records.push({ bucket: latest, a, b });
    },
    sums() {
      const live = records.filter((r) => latest - r.bucket < buckets);
      return { a: live.reduce((s, r) => s + r.a, 0), b: live.reduce((s, r) => s + r.b, 0) };
    },
  };
}

describe('SlidingCounts', () => {
  it('keeps the sums of the adds of the last `buckets` buckets, whatever the steps and a clock that goes back (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom(1, 7, 100, 250),
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.array(
          fc.record({
            // Mostly small steps inside the window, some across it, some back.
            dt: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.integer({ min: -40, max: 400 })),
            a: fc.integer({ min: 0, max: 3 }),
            b: fc.integer({ min: 0, max: 3 }),
          }),
          { maxLength: 60 },
        ),
        (buckets, bucketMs, start, steps) => {
          const counts = new SlidingCounts(buckets * bucketMs, buckets);
          const model = reference(bucketMs, buckets);
          let now = start;
          for (const { dt, a, b } of steps) {
            now += dt * (bucketMs / 4);
            counts.advance(now);
            model.advance(now);
            expect({ a: counts.a, b: counts.b }).toEqual(model.sums());
            counts.add(a, b);
            model.add(a, b);
            expect({ a: counts.a, b: counts.b }).toEqual(model.sums());
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a count leaves between windowMs - windowMs / buckets and windowMs after it was added', () => {
    const counts = new SlidingCounts(1_000, 10); // buckets of 100 ms
    counts.advance(5_050); // the middle of the bucket [5000, 5100)
    counts.add(1, 2);
    counts.advance(5_999);
    expect([counts.a, counts.b]).toEqual([1, 2]);
    counts.advance(6_000); // 950 ms after: its bucket left
    expect([counts.a, counts.b]).toEqual([0, 0]);
  });

  it('a clock that went back adds to the latest bucket, so the count leaves with it', () => {
    const counts = new SlidingCounts(1_000, 10);
    counts.advance(500);
    counts.add(1, 0);
    counts.advance(300); // back two buckets: stays in [500, 600)
    counts.add(1, 1);
    counts.advance(1_499); // [500, 600) is still in the window
    expect([counts.a, counts.b]).toEqual([2, 1]);
    counts.advance(1_500);
    expect([counts.a, counts.b]).toEqual([0, 0]);
  });

  // Found by mutation testing (issue 10): past 2^53 buckets `this.#index + k` rounded to an even neighbour, so a step
  // shorter than the window cleared the bucket it came from: the first count below was dropped 2 ms after it was added.
  it('past 2^53 buckets, a step shorter than the window keeps the counts still in it', () => {
    const counts = new SlidingCounts(10, 10); // buckets of 1 ms
    counts.advance(2 ** 53);
    counts.add(1, 1);
    counts.advance(2 ** 53 + 2); // 2 buckets on, 8 short of the window
    counts.add(1, 0);
    expect([counts.a, counts.b]).toEqual([2, 1]);
  });

  it('clear() empties both counters', () => {
    const counts = new SlidingCounts(1_000, 10);
    counts.advance(0);
    counts.add(3, 2);
    counts.advance(100);
    counts.add(1, 1);
    counts.clear();
    expect([counts.a, counts.b]).toEqual([0, 0]);
    counts.advance(150); // the cleared buckets do not come back as they leave
    counts.advance(1_050);
    expect([counts.a, counts.b]).toEqual([0, 0]);
  });
});

describe('SlidingCounts.remove', () => {
  it('takes b back out of its bucket, so the bucket leaving later takes away only what is left', () => {
    const counts = new SlidingCounts(1_000, 10);
    counts.advance(250);
    counts.add(0, 3);
    const { index } = counts;
    counts.advance(420); // two buckets on: still in the window
    counts.remove(index, 1);
    expect(counts.b).toBe(2);
    counts.advance(1_250); // the bucket of 250 left: its 2 with it
    expect(counts.b).toBe(0);
  });
});
