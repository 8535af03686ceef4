/**
 * The known name a misspelt one probably meant, for an unknown option's error: the first of `names` at most 2 edits
 * away (Levenshtein, ignoring case), the closest one winning; undefined when none is that close.
 */
export function nearest(key: string, names: Iterable<string>): string | undefined {
  let best = 3;
  let found: string | undefined;
  for (const name of names) {
    const d = distance(key.toLowerCase(), name.toLowerCase());
    if (d < best) {
      best = d;
      found = name;
    }
  }
  return found;
}

/**
 * Levenshtein distance between `a` and `b` when it is at most `max` (2: all {@link nearest} needs), else some number
 * above `max`. Equal first characters are matched at once (never worse than any edit); otherwise each of the three
 * edits is tried with one edit fewer to spare, so the work is bounded by 3 ** max, whatever the lengths.
 */
function distance(a: string, b: string, max = 2): number {
  const [a1, b1] = [a.slice(1), b.slice(1)];
  return !a || !b
    ? a.length + b.length
    : a[0] === b[0]
      ? distance(a1, b1, max)
      : 1 + (max && Math.min(distance(a1, b, max - 1), distance(a, b1, max - 1), distance(a1, b1, max - 1)));
}
