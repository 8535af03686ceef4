/**
 * A seeded source of randomness for the simulator: sfc32, seeded through splitmix32, so the same seed gives the same
 * run, byte for byte, on every platform. Not for cryptography.
 */
export interface Rng {
  /** A number in [0, 1). */
  next(): number;
  /** |Normal(mean, sd)|: a network hop. */
  hop(mean: number, sd: number): number;
  /**
   * A copy at this point of the stream: it draws what this one draws next, and the two go on independently. What
   * lets a simulation draw what every strategy shares (the overload scenario's start times) once, and hand each
   * strategy's run the generator as it would have been after drawing them itself.
   */
  clone(): Rng;
}

export function createRng(seed: number): Rng {
  let s = seed >>> 0;
  const split = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  const rng = sfc32(split(), split(), split(), split(), Number.NaN);
  for (let i = 0; i < 12; i++) rng.next();
  return rng;
}

/**
 * sfc32 from its state (a, b, c, d), with the Box-Muller value kept for the next normal draw (NaN for none). The state
 * lives in typed arrays, not in `let`s the closures share: a closure's variable holding a number past 2^30 (most of
 * sfc32's words) is a heap object that each assignment allocates anew, four a draw. The words are kept as int32 (the
 * same bits: every step is modulo 2^32), and read as unsigned for the draw.
 */
function sfc32(a: number, b: number, c: number, d: number, spare: number): Rng {
  const w = Int32Array.of(a, b, c, d);
  const kept = Float64Array.of(spare);
  const next = () => {
    const wa = w[0] as number;
    const wb = w[1] as number;
    const wc = w[2] as number;
    const wd = w[3] as number;
    const t = (wa + wb + wd) | 0;
    w[3] = wd + 1;
    w[0] = wb ^ (wb >>> 9);
    w[1] = wc + (wc << 3);
    w[2] = ((wc << 21) | (wc >>> 11)) + t;
    return (t >>> 0) / 4294967296;
  };
  const normal = () => {
    // Box-Muller, keeping the second value of each pair.
    const v = kept[0] as number;
    if (!Number.isNaN(v)) {
      kept[0] = Number.NaN;
      return v;
    }
    const u = 1 - next();
    const r = Math.sqrt(-2 * Math.log(u));
    const theta = 2 * Math.PI * next();
    kept[0] = r * Math.sin(theta);
    return r * Math.cos(theta);
  };
  return {
    next,
    hop: (mean, sd) => Math.abs(mean + sd * normal()),
    clone: () => sfc32(w[0] as number, w[1] as number, w[2] as number, w[3] as number, kept[0] as number),
  };
}
