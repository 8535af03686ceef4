/**
 * An option given as `undefined` is the default, in the harness and the simulator as in the core: what
 * `{ name, seed }` with unset variables means, which `exactOptionalPropertyTypes` now lets through the types
 * (test/exact-options.test-d.ts; issue 30, item 9).
 */
import { describe, expect, it } from 'vitest';
import {
  type ChartOptions,
  type ContentionOptions,
  type ExploreOptions,
  type MatrixOptions,
  type OutageOptions,
  type OverloadOptions,
  type PartialOptions,
  resolveStrategy,
  simulateContention,
  simulateExplore,
  simulateMatrix,
  simulateOutage,
  simulateOverload,
  simulatePartial,
  svgChart,
  terminalChart,
} from '../src/simulate/index';
import { problemsOf } from '../src/testing/assert';
import { type HerdOptions, herd, type NoHerdOptions } from '../src/testing/index';
import { isSuccessful, resolveOptions } from '../src/testing/options';

/** Every optional key of `T`, each `undefined`: the compiler checks that none is missing. */
type Unset<T> = { readonly [K in keyof Required<T>]: undefined };

const herdUnset: Unset<HerdOptions> = {
  name: undefined,
  clients: undefined,
  startWindowMs: undefined,
  outageMs: undefined,
  outageFailure: undefined,
  hangMs: undefined,
  capacity: undefined,
  capacityWindowMs: undefined,
  tail: undefined,
  overflow: undefined,
  failureRate: undefined,
  slowdown: undefined,
  latencyMs: undefined,
  retryAfterMs: undefined,
  untilMs: undefined,
  intercept: undefined,
  seedRandom: undefined,
  url: undefined,
  isSuccess: undefined,
  seed: undefined,
};

const outageUnset: Unset<OutageOptions> = {
  clients: undefined,
  startWindowMs: undefined,
  outageMs: undefined,
  capacity: undefined,
  capacityWindowMs: undefined,
  hopMeanMs: undefined,
  hopSdMs: undefined,
  maxAttempts: undefined,
  timeoutMs: undefined,
  retryAfterMs: undefined,
  instances: undefined,
  strategies: undefined,
  seed: undefined,
  onProgress: undefined,
};

const overloadUnset: Unset<OverloadOptions> = {
  capacity: undefined,
  load: undefined,
  attemptTimeoutMs: undefined,
  maxAttempts: undefined,
  warmupMs: undefined,
  slowdownMs: undefined,
  slowdownCapacity: undefined,
  outage: undefined,
  failureRate: undefined,
  instances: undefined,
  afterMs: undefined,
  queueLimitMs: undefined,
  shedStatus: undefined,
  hang: undefined,
  addedLatencyMs: undefined,
  flapMs: undefined,
  demandSpike: undefined,
  concurrencyBaseMs: undefined,
  reissueMs: undefined,
  reissues: undefined,
  baseMs: undefined,
  timeoutMs: undefined,
  hopMeanMs: undefined,
  hopSdMs: undefined,
  windowMs: undefined,
  strategies: undefined,
  seed: undefined,
  onProgress: undefined,
};

const { slowdownMs: _s, slowdownCapacity: _c, outage: _o, ...overloadCommon } = overloadUnset;
const partialUnset: Unset<PartialOptions> = { ...overloadCommon, failureRate: undefined, durationMs: undefined };

const contentionUnset: Unset<ContentionOptions> = {
  clients: undefined,
  runs: undefined,
  baseMs: undefined,
  capMs: undefined,
  hopMeanMs: undefined,
  hopSdMs: undefined,
  strategies: undefined,
  seed: undefined,
  onProgress: undefined,
};

const exploreUnset: Unset<ExploreOptions> = {
  cells: undefined,
  range: undefined,
  from: undefined,
  strategies: undefined,
  kinds: undefined,
  onProgress: undefined,
};

const matrixUnset: Unset<MatrixOptions> = {
  instances: undefined,
  troubles: undefined,
  strategies: undefined,
  afterMs: undefined,
  seed: undefined,
  shedStatus: undefined,
  onProgress: undefined,
};

describe('an option given as undefined is its default', () => {
  it("herd's options: the same settings, name and judge as none given", async () => {
    const given = resolveOptions(herdUnset);
    expect(given).toEqual(resolveOptions({}));
    expect(given.name).toBeUndefined();
    expect(given.isSuccess).toBe(isSuccessful);
    const report = await herd(
      async function probe({ url, fetch }) {
        return fetch(url);
      },
      { ...herdUnset, clients: 3, outageMs: 0, intercept: false },
    );
    expect(report.results[0]?.strategy).toBe('probe'); // name undefined: the function's name, as with none given
    expect(report.results[0]?.succeeded).toBe(3);
  });

  it("assertNoHerd's options", () => {
    const report = {
      settings: resolveOptions({ clients: 10 }).settings,
      results: [
        {
          strategy: 'x',
          peakAfterOutage: 100,
          peakOverCapacity: 5,
          requests: 50,
          amplification: 5,
          succeeded: 10,
          gaveUp: 0,
        },
      ],
    } as never;
    const unset: Unset<NoHerdOptions> = {
      maxPeakOverCapacity: undefined,
      maxAmplification: undefined,
      minSuccess: undefined,
    };
    expect(problemsOf(report, unset)).toEqual(problemsOf(report, {}));
    expect(problemsOf(report, unset).load).toHaveLength(1); // the default 3x, not "no limit"
  });

  it('the outage, overload and partial scenarios', () => {
    const outage = { clients: 50, strategies: ['full'] } as const;
    expect(simulateOutage({ ...outageUnset, ...outage })).toEqual(simulateOutage(outage));
    const overload = { capacity: 50, strategies: ['no-retries'] } as const;
    expect(simulateOverload({ ...overloadUnset, ...overload })).toEqual(simulateOverload(overload));
    expect(simulatePartial({ ...partialUnset, ...overload })).toEqual(simulatePartial(overload));
  });

  it('the contention, explore and matrix runs', () => {
    const contention = { clients: [5], runs: 2, strategies: ['full'] } as const;
    expect(simulateContention({ ...contentionUnset, ...contention })).toEqual(simulateContention(contention));
    const explore = { cells: 1, strategies: ['no-retries'] } as const;
    expect(simulateExplore({ ...exploreUnset, ...explore })).toEqual(simulateExplore(explore));
    const matrix = {
      instances: [1],
      troubles: [{ scenario: 'outage', load: 0.5, failureRate: 0, queueLimit: null }],
      strategies: ['no-retries'],
    } as const;
    expect(simulateMatrix({ ...matrixUnset, ...matrix })).toEqual(simulateMatrix(matrix));
  });

  it('the charts', () => {
    const series = [{ name: 'a', load: [1, 5, 2], note: undefined }];
    const given: ChartOptions = {
      windowMs: 100,
      capacity: 2,
      outageMs: undefined,
      outageFromMs: undefined,
      outageLabel: undefined,
      viewMs: undefined,
      title: undefined,
    };
    const plain = { windowMs: 100, capacity: 2 };
    expect(terminalChart(series, given)).toBe(terminalChart([{ name: 'a', load: [1, 5, 2] }], plain));
    expect(svgChart(series, given)).toBe(svgChart([{ name: 'a', load: [1, 5, 2] }], plain));
  });

  it('a strategy of your own: budget and breaker undefined are none, as left out', () => {
    const policy = { maxAttempts: 3 };
    const given = resolveStrategy({
      name: 'mine',
      policy,
      budget: undefined,
      breaker: undefined,
      retryAfter: undefined,
    });
    expect(given.budget).toBe(false);
    expect(given.breaker).toBe(false);
    expect(given).toMatchObject(resolveStrategy({ name: 'mine', policy }));
  });
});
