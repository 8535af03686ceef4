/**
 * What one simulated run may hold in memory, so that every setting runs to an answer or a RangeError that says which
 * setting to change, never a stack overflow or a V8 fatal error (an array of hundreds of millions of windows, say).
 * The command checks the same limits first, to name its flags (src/cli.ts).
 */

/**
 * The most load windows (one counter each) a run may count: 10 million, 80 MB a strategy. A 7,200 s outage in windows
 * of 1 ms (7.2 million) runs; 4 s in windows of 0.0001 ms (40 million) is refused.
 */
export const MAX_WINDOWS = 10_000_000;

/**
 * The most logical requests the overload scenario may draw for a run (its expected number: `load x capacity x` the
 * run's length): 10 million, about 60 s and 800 MB a strategy on a laptop. The default run draws 55,200.
 */
export const MAX_CALLS = 10_000_000;

/**
 * The most work a run may ask for, counted in the units each scenario's cost grows with: attempts that could be made
 * (calls x `maxAttempts`: see {@link MAX_ATTEMPTS}, tighter) in the outage and overload scenarios, client pairs (the sum of clients squared, times runs
 * and strategies) in the contention one. 100 million: a few minutes at worst on a laptop. Past it a run could go on
 * for hours printing nothing (`--max-attempts 100000`, `--clients 100000`): it is refused, naming the settings.
 */
export const MAX_WORK = 100_000_000;

/**
 * The most attempts the outage and overload scenarios may ask for (calls x `maxAttempts`): 10 million, seconds to a
 * minute on a laptop. At {@link MAX_WORK} they ran for minutes printing nothing (100,000 clients x 1,000 immediate
 * attempts; the overload's 55,200 calls x 1,000 attempts, 2.5 min).
 */
export const MAX_ATTEMPTS = 10_000_000;

/** A simulator limit was reached: a RangeError whose message names the settings to change and the limit. */
export class SimulationLimitError extends RangeError {}

/** The number of windows of `windowMs` in `spanMs` (rounded up). */
export const windowsIn = (spanMs: number, windowMs: number): number => Math.ceil(spanMs / windowMs);

/** A fleet size the simulator runs: an integer >= 1, else a RangeError (one check for every scenario). */
export function checkInstances(instances: number): void {
  if (!(Number.isInteger(instances) && instances >= 1)) {
    throw new RangeError(`herdless: instances must be an integer >= 1, got ${String(instances)}`);
  }
}
