import {
  type Attributes,
  type Counter,
  createNoopMeter,
  diag,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  type ObservableGauge,
  type ObservableResult,
} from '@opentelemetry/api';
import {
  ATTEMPTS,
  BREAKER_REJECTIONS,
  BREAKER_STATE,
  BREAKER_TRANSITIONS,
  BUDGET_AVAILABLE,
  BUDGET_REFUSALS,
  GIVE_UPS,
  HEDGES,
  METER,
  RETRIES,
  SLEEP,
  SLEEP_BUCKETS,
} from './names';

/** The instruments of one MeterProvider's `herdless` meter, created on first use. */
export interface Instruments {
  readonly retries: Counter;
  readonly sleep: Histogram;
  readonly giveUps: Counter;
  readonly budgetRefusals: Counter;
  readonly breakerTransitions: Counter;
  readonly breakerRejections: Counter;
  readonly hedges: Counter;
}

/**
 * Something observed by a gauge (a budget, a breaker), held weakly: a breaker created per tenant and dropped is
 * collected, and its gauge stops reporting it.
 */
export interface Observed {
  readonly ref: WeakRef<object>;
  /** The provider given to `observeBudget`/`observeBreaker`; undefined: the global one, whichever it is. */
  readonly provider: MeterProvider | undefined;
  /** Reports the object's current value(s) into the gauge. */
  readonly report: (target: object, result: ObservableResult) => void;
}

/** Every observed budget and breaker, by gauge: small (one entry per object observed, never per call). */
const observed: Record<'budget' | 'breaker', Set<Observed>> = { budget: new Set(), breaker: new Set() };

const byProvider = new WeakMap<MeterProvider, Instruments>();

/** The meter's version: the package's (test/otel.test.ts checks that they agree). */
const VERSION = '0.1.0';

/**
 * Runs a recording; what it throws (a broken meter or tracer: OpenTelemetry's SDKs should not throw, a custom one may)
 * goes to OpenTelemetry's own diagnostic logger, never into the call, whose outcome telemetry must not change.
 */
export function quietly(record: () => void): void {
  try {
    record();
  } catch (error) {
    diag.error('herdless/otel: a recording failed', error);
  }
}

/**
 * Its `herdless` meter's instruments, created (and the gauges registered) the first time a provider is seen. Never
 * throws: a meter that fails to make them (a broken custom one) is reported to OpenTelemetry's `diag` logger once and
 * replaced by a no-op meter, so that no constructor throws its error and no call sees it.
 */
export function instruments(provider: MeterProvider | undefined): Instruments {
  const p = provider ?? metrics.getMeterProvider();
  let found = byProvider.get(p);
  if (found === undefined) {
    try {
      found = create(p, p.getMeter(METER, VERSION));
    } catch (error) {
      diag.error('herdless/otel: the meter could not create its instruments (nothing is recorded for it)', error);
      found = create(p, createNoopMeter());
    }
    byProvider.set(p, found);
  }
  return found;
}

/** The instruments of a meter, and its observable counter and gauges registered. */
function create(p: MeterProvider, meter: Meter): Instruments {
  const found: Instruments = {
    retries: meter.createCounter(RETRIES, {
      unit: '{retry}',
      description: 'Retries made (counted before each sleep).',
    }),
    sleep: meter.createHistogram(SLEEP, {
      unit: 's',
      description: 'The sleep before each retry.',
      advice: { explicitBucketBoundaries: [...SLEEP_BUCKETS] },
    }),
    giveUps: meter.createCounter(GIVE_UPS, { unit: '{call}', description: 'Calls that gave up, by reason.' }),
    budgetRefusals: meter.createCounter(BUDGET_REFUSALS, {
      unit: '{retry}',
      description: 'Retries a retry budget refused.',
    }),
    breakerTransitions: meter.createCounter(BREAKER_TRANSITIONS, {
      unit: '{transition}',
      description: "A circuit breaker's changes of state.",
    }),
    breakerRejections: meter.createCounter(BREAKER_REJECTIONS, {
      unit: '{call}',
      description: 'Calls an open circuit breaker refused before their first attempt.',
    }),
    hedges: meter.createCounter(HEDGES, {
      unit: '{hedge}',
      description: 'Hedges decided (herdless/hedge), by outcome and refusal.',
    }),
  };
  const attempts = meter.createObservableCounter(ATTEMPTS, {
    unit: '{attempt}',
    description: 'Attempts made, by outcome.',
  });
  attempts.addCallback((result) => {
    // Summed by attribute values: policies that share a name share their points (an observation per attribute set).
    const sums = new Map<string, { attributes: Attributes; n: number }>();
    for (const ref of tallies) {
      const tally = ref.deref();
      if (tally === undefined) tallies.delete(ref);
      else if ((tally.provider ?? metrics.getMeterProvider()) === p) {
        for (const [attributes, n] of tally.counts) {
          const key = JSON.stringify(Object.entries(attributes).sort());
          const sum = sums.get(key);
          if (sum === undefined) sums.set(key, { attributes, n });
          else sum.n += n;
        }
      }
    }
    for (const { attributes, n } of sums.values()) result.observe(n, attributes);
  });
  gauge(p, meter.createObservableGauge(BUDGET_AVAILABLE, { unit: '{retry}', description: BUDGET_HELP }), 'budget');
  gauge(p, meter.createObservableGauge(BREAKER_STATE, { unit: '1', description: BREAKER_HELP }), 'breaker');
  return found;
}

const BUDGET_HELP = 'The whole retries a retry budget holds now.';
const BREAKER_HELP = "A circuit breaker's state: 1 for the state it is in (herdless.breaker.state), 0 for the others.";

/** Registers the gauge's one callback: it reports every live object of its kind meant for this provider. */
function gauge(provider: MeterProvider, instrument: ObservableGauge, kind: 'budget' | 'breaker'): void {
  instrument.addCallback((result) => {
    for (const entry of observed[kind]) {
      const target = entry.ref.deref();
      if (target === undefined) observed[kind].delete(entry);
      else if ((entry.provider ?? metrics.getMeterProvider()) === provider) entry.report(target, result);
    }
  });
}

/** Adds an object to its kind's gauge, and makes sure its provider's instruments exist (so the gauge is there). */
export function observe(kind: 'budget' | 'breaker', entry: Observed): void {
  observed[kind].add(entry);
  instruments(entry.provider);
}

/**
 * A policy's attempts, counted in plain numbers and reported by the ObservableCounter `herdless.retry.attempts` at
 * each collection: a success costs an increment, not an SDK counter's add (which hashes the attributes and reads the
 * context and the clock: about 5 times a whole `retry()` call, bench/otel.mjs). Keyed by the frozen attribute objects
 * it is given (a handful per policy). Held weakly: a policy dropped takes its counts with it.
 */
export class Tally {
  readonly counts = new Map<Attributes, number>();
  constructor(readonly provider: MeterProvider | undefined) {
    tallies.add(new WeakRef(this));
    // Pruned here too, not only at collection: with no SDK nothing collects, and policies made per request would
    // leave a dead ref each (review: 300,000 of them kept 20 MB).
    if (tallies.size >= pruneAt) {
      for (const ref of tallies) if (ref.deref() === undefined) tallies.delete(ref);
      pruneAt = Math.max(1_024, 2 * tallies.size);
    }
    instruments(provider); // its provider's instruments exist, the observable counter with them
  }

  /** Counts an attempt; with the global provider, makes sure the one set now has the instruments (a lookup). */
  add(attributes: Attributes): void {
    if (this.provider === undefined) instruments(undefined);
    this.counts.set(attributes, (this.counts.get(attributes) ?? 0) + 1);
  }
}

const tallies = new Set<WeakRef<Tally>>();
/** The size at which the next Tally prunes the dead refs: twice what was alive at the last pruning (1,024 at least). */
let pruneAt = 1_024;

/** Attributes frozen once, so a hot path passes the same object every time. */
export const attrs = (values: Attributes): Attributes => Object.freeze(values);
