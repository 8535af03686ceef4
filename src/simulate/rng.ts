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

/** sfc32 from its state (a, b, c, d), with the Box-Muller value kept for the next normal draw (NaN for none). */
function sfc32(a: number, b: number, c: number, d: number, spare: number): Rng {
  const next = () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
  const normal = () => {
    // Box-Muller, keeping the second value of each pair.
    if (!Number.isNaN(spare)) {
      const v = spare;
      spare = Number.NaN;
      return v;
    }
    const u = 1 - next();
    const r = Math.sqrt(-2 * Math.log(u));
    const theta = 2 * Math.PI * next();
    spare = r * Math.sin(theta);
    return r * Math.cos(theta);
  };
  return { next, hop: (mean, sd) => Math.abs(mean + sd * normal()), clone: () => sfc32(a, b, c, d, spare) };
}
