/**
 * A seeded source of randomness for the simulator: sfc32, seeded through splitmix32, so the same seed gives the same
 * run, byte for byte, on every platform. Not for cryptography.
 */
export interface Rng {
  /** A number in [0, 1). */
  next(): number;
  /** |Normal(mean, sd)|: a network hop. */
  hop(mean: number, sd: number): number;
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
  let a = split();
  let b = split();
  let c = split();
  let d = split();
  const next = () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  let spare = Number.NaN;
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
  return { next, hop: (mean, sd) => Math.abs(mean + sd * normal()) };
}
