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

/** Levenshtein distance, one row at a time; the strings are option names, so it is small. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 0; i < a.length; i++) {
    const next = [i + 1];
    for (let j = 0; j < b.length; j++) {
      next[j + 1] = Math.min(
        (row[j + 1] as number) + 1,
        (next[j] as number) + 1,
        (row[j] as number) + +(a[i] !== b[j]),
      );
    }
    row = next;
  }
  return row[b.length] as number;
}
