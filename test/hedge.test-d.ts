import { describe, expectTypeOf, it } from 'vitest';
import {
  createHedge,
  type Hedge,
  type HedgeContext,
  type HedgeDecision,
  type HedgeEvent,
  type HedgeOptions,
  type HedgeRefusal,
  hedged,
  hedgedFetch,
} from '../src/hedge/index';
import { createRetryBudget, type Fetch, type RetryContext, retry, retryingFetch } from '../src/index';
import { hedgeTelemetry } from '../src/otel/index';

describe('herdless/hedge types', () => {
  it('hedged() keeps the value type and fits retry() as its fn', () => {
    const hedge = createHedge({ budget: createRetryBudget() });
    expectTypeOf(hedge).toEqualTypeOf<Hedge>();
    const fn = hedged(async ({ signal, hedge: index }) => {
      expectTypeOf(signal).toEqualTypeOf<AbortSignal>();
      expectTypeOf(index).toEqualTypeOf<number>();
      return { id: 1 };
    }, hedge);
    expectTypeOf(fn).toEqualTypeOf<(context: RetryContext) => Promise<{ id: number }>>();
    expectTypeOf(retry(fn, { maxAttempts: 3 })).toEqualTypeOf<Promise<{ id: number }>>();
    expectTypeOf<HedgeContext>().toExtend<RetryContext>();
  });

  it('hedgedFetch is a Fetch for retryingFetch', () => {
    const fetch = hedgedFetch(createHedge(), { statuses: [503] });
    expectTypeOf(fetch).toEqualTypeOf<Fetch>();
    retryingFetch({ fetch });
  });

  it('the decision and the events are values with named reasons', () => {
    expectTypeOf<HedgeRefusal>().toEqualTypeOf<'load' | 'budget' | 'slow'>();
    expectTypeOf<HedgeDecision>().toEqualTypeOf<
      { readonly send: true } | { readonly send: false; readonly reason: HedgeRefusal }
    >();
    expectTypeOf<HedgeEvent['reason']>().toEqualTypeOf<HedgeRefusal | undefined>();
  });

  it('a wrong option is a type error; hedgeTelemetry keeps the options type', () => {
    // @ts-expect-error: a misspelt option
    createHedge({ delay: 5 });
    const options: HedgeOptions = { delayMs: 5 };
    expectTypeOf(hedgeTelemetry(options, { name: 'x' })).toEqualTypeOf<HedgeOptions>();
  });
});
