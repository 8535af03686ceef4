/**
 * Every public option type under `exactOptionalPropertyTypes` (this file compiles with it on: tsconfig.typecheck.json,
 * vitest.config.ts): each optional field takes an explicit `undefined`, so `{ name }` with a `string | undefined`
 * compiles, as the core's options always did (issue 30, item 9). The runtime side, an explicit `undefined` read as the
 * default, is test/exact-options.test.ts.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type {
  BackoffOptions,
  CircuitBreakerOptions,
  RetryBudgetOptions,
  RetryingFetchOptions,
  RetryOptions,
} from '../src/index';
import type { TelemetryOptions } from '../src/otel/index';
import {
  type ChartOptions,
  type ContentionOptions,
  type ContentionResult,
  type ExploreOptions,
  type LoadSeries,
  type MatrixOptions,
  type OutageOptions,
  type OutageResult,
  type OverloadOptions,
  type OverloadResult,
  type PartialOptions,
  resolveStrategy,
  type Strategy,
  simulateOutage,
} from '../src/simulate/index';
import { assertNoHerd, type HerdOptions, type HerdReport, herd, type NoHerdOptions } from '../src/testing/index';

/** The keys of `T` that may be left out. */
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];
/** `T` with every optional field given, as `undefined`: what `{ name }` is when `name` is undefined. */
type AllUndefined<T> = { [K in keyof T]-?: K extends OptionalKeys<T> ? undefined : T[K] };
/** An object form of {@link Strategy}: your own policy under a name. */
type OwnStrategy = Extract<Strategy, { readonly name: string }>;

describe('exactOptionalPropertyTypes: every optional option takes an explicit undefined', () => {
  it('herd(call, { name }) with a string | undefined compiles (the reported case)', () => {
    const name: string | undefined = process.env.HERD_NAME;
    const seed: number | undefined = undefined;
    expectTypeOf(herd(async () => 1, { name, seed, clients: 10 })).toEqualTypeOf<Promise<HerdReport>>();
    const minSuccess: number | undefined = undefined;
    assertNoHerd({} as HerdReport, { minSuccess });
    const strategies: Strategy[] | undefined = undefined;
    simulateOutage({ clients: 10, strategies, onProgress: undefined });
  });

  it("the harness's and the simulator's options, like the core's", () => {
    expectTypeOf<AllUndefined<HerdOptions>>().toExtend<HerdOptions>();
    expectTypeOf<AllUndefined<NoHerdOptions>>().toExtend<NoHerdOptions>();
    expectTypeOf<AllUndefined<OutageOptions>>().toExtend<OutageOptions>();
    expectTypeOf<AllUndefined<OverloadOptions>>().toExtend<OverloadOptions>();
    expectTypeOf<AllUndefined<PartialOptions>>().toExtend<PartialOptions>();
    expectTypeOf<AllUndefined<ContentionOptions>>().toExtend<ContentionOptions>();
    expectTypeOf<AllUndefined<ExploreOptions>>().toExtend<ExploreOptions>();
    expectTypeOf<AllUndefined<MatrixOptions>>().toExtend<MatrixOptions>();
    expectTypeOf<AllUndefined<ChartOptions>>().toExtend<ChartOptions>();
    expectTypeOf<AllUndefined<LoadSeries>>().toExtend<LoadSeries>();
    expectTypeOf<AllUndefined<OwnStrategy>>().toExtend<Strategy>();
    resolveStrategy({ name: 'mine', policy: { maxAttempts: 3 }, budget: undefined, breaker: undefined });
    // The core's, which allowed it already: kept so.
    expectTypeOf<AllUndefined<RetryOptions>>().toExtend<RetryOptions>();
    expectTypeOf<AllUndefined<RetryingFetchOptions>>().toExtend<RetryingFetchOptions>();
    expectTypeOf<AllUndefined<BackoffOptions>>().toExtend<BackoffOptions>();
    expectTypeOf<AllUndefined<RetryBudgetOptions>>().toExtend<RetryBudgetOptions>();
    expectTypeOf<AllUndefined<CircuitBreakerOptions>>().toExtend<CircuitBreakerOptions>();
    expectTypeOf<AllUndefined<TelemetryOptions>>().toExtend<TelemetryOptions>();
  });

  it('the required fields stay required', () => {
    // @ts-expect-error a chart needs its window and capacity
    expectTypeOf<{ windowMs: undefined; capacity: undefined }>().toExtend<ChartOptions>();
    // @ts-expect-error a strategy of your own needs a name
    resolveStrategy({ name: undefined, policy: {} });
  });

  it("a result's settings have every default filled in: defined, even where the options allow undefined", () => {
    expectTypeOf<OutageResult['settings']['clients']>().toEqualTypeOf<number>();
    expectTypeOf<OverloadResult['settings']['capacity']>().toEqualTypeOf<number>();
    expectTypeOf<OverloadResult['settings']['shedStatus']>().toEqualTypeOf<503 | 429>();
    expectTypeOf<ContentionResult['settings']['clients']>().toEqualTypeOf<readonly number[]>();
    expectTypeOf(resolveStrategy('full').budget).toEqualTypeOf<boolean | Omit<RetryBudgetOptions, 'now'>>();
  });
});
