import type { RetryBudget } from '../budget';
import { nearest } from '../nearest';
import { fail, finite, having, num, onlyKnown, optionalFn, or } from '../validate';
import { MAX_TIMER_MS } from '../wait';
import { WINDOW } from '../window';

/** What a hedge tells `onHedge`: one sent, or one refused and why (see {@link HedgeDecision}). */
export interface HedgeEvent {
  /** Whether the hedge was sent. */
  readonly sent: boolean;
  /** Why it was not: see {@link HedgeRefusal}; undefined when sent. */
  readonly reason: HedgeRefusal | undefined;
  /** Which extra attempt of its round it is (1 for the first hedge). */
  readonly hedge: number;
  /** The delay it waited, in ms. */
  readonly delayMs: number;
}

/**
 * Why a hedge was not sent when its delay passed:
 * - `'load'`: the cap on extra load (`maxExtraLoad`) has no hedge to spare now;
 * - `'budget'`: the retry budget says the dependency is queueing (a hedge would join the queue), or its
 *   volume cap (`ratio`) refused the withdrawal, as it would a retry's;
 * - `'slow'`: more than twice `maxExtraLoad` of this process's rounds over the last 3 s crossed their delay (with 20
 *   of them at least): the dependency is slow as a whole (a slowdown, an overload), not in its tail, and a hedge would
 *   add load rather than cut a tail.
 */
export type HedgeRefusal = 'load' | 'budget' | 'slow';

/** What {@link createHedge} accepts; every field is optional. */
export interface HedgeOptions {
  /**
   * A fixed delay, in ms: an attempt that has not answered by then gets a hedge. A number >= 0. Leave it out to
   * hedge at a `percentile` of this process's observed latencies instead (the default). Choose it when you know the
   * dependency's healthy latency and the process is too quiet to learn it. At most 2^31 - 1 (what `setTimeout` takes;
   * a RangeError otherwise); a percentile delay past that sends no hedge.
   */
  readonly delayMs?: number | undefined;
  /**
   * Without `delayMs`: the hedge delay is this percentile of the latencies this process observed over the last one to
   * two `windowMs` (no hedge at all until `minSamples` were seen, as tower does). A number in (0, 1). Default `0.95`,
   * Finagle's `1 - maxExtraLoad`: the 5% of calls that cross it are what the 5% cap pays for, with up to 10 hedges
   * saved for a burst of slow ones (with one saved, ordinary calls spent what the slow ones needed: bench/README.md).
   */
  readonly percentile?: number | undefined;
  /** The fewest latencies observed before a percentile delay is used: an integer >= 1. Default `100`. */
  readonly minSamples?: number | undefined;
  /**
   * The latency window, in ms: the percentile reads the last one to two of them. A finite number >= 1. Default
   * `30_000`.
   */
  readonly windowMs?: number | undefined;
  /**
   * The most extra attempts in flight for one call beside the first (each after one more delay): an integer >= 1.
   * Default `1`.
   */
  readonly maxHedges?: number | undefined;
  /**
   * The cap on extra load (Finagle's `maxExtraLoad`): each round (one of `retry()`'s attempts, so a call retried twice
   * earns three times) earns this share of a hedge and a hedge spends a whole one, so this process's hedges never
   * exceed this share of its rounds, at any moment (at most 10 are saved up while none is needed). It also sets the
   * slow gate: no hedge while more than twice this share of recent calls crossed their delay, so from 0.5 up that gate
   * never closes (a slowdown is then hedged). A number in [0, 1]; 0 turns hedging off. Default `0.05`.
   */
  readonly maxExtraLoad?: number | undefined;
  /**
   * The retry budget that guards the same dependency (pass the one your `retry()` policy has): a hedge is refused
   * (`'budget'`) while it says the dependency is queueing, and withdraws from its volume cap as a retry does. Its
   * `queueing`, if present, must be a function (a TypeError naming `budget.queueing` otherwise).
   * Default: none (only `maxExtraLoad` bounds hedges).
   */
  readonly budget?: RetryBudget | undefined;
  /**
   * Told of each hedge sent or refused (telemetry: `herdless/otel`'s `hedgeTelemetry`). What it throws is reported
   * (`reportError`, or thrown from a timer), never the call's outcome. A hedge told as sent whose call ends inside
   * `onHedge` (it aborts the caller's signal) never goes out: its share of the cap and the budget is given back.
   */
  readonly onHedge?: ((event: HedgeEvent) => void) | undefined;
  /** The clock, in ms. Default `performance.now()`, looked up at each call (so fake timers control it). */
  readonly now?: (() => number) | undefined;
}

/** {@link HedgeOptions}, checked once and frozen. */
export interface HedgeSettings {
  readonly delayMs: number | undefined;
  readonly percentile: number;
  readonly minSamples: number;
  readonly windowMs: number;
  readonly maxHedges: number;
  readonly maxExtraLoad: number;
  readonly budget: RetryBudget | undefined;
  readonly onHedge: ((event: HedgeEvent) => void) | undefined;
  readonly now: (() => number) | undefined;
}

const KNOWN: ReadonlySet<string> = /* @__PURE__ */ new Set([
  'delayMs',
  'percentile',
  'minSamples',
  'windowMs',
  'maxHedges',
  'maxExtraLoad',
  'budget',
  'onHedge',
  'now',
]);

/** A budget with `tryWithdraw`, and `queueing` a function or left out: what a hedge calls from its timer. */
const budget = (value: RetryBudget | undefined): RetryBudget | undefined => {
  optionalFn(
    'budget.queueing',
    having('budget', value, 'tryWithdraw', 'a retry budget from createRetryBudget()')?.queueing,
  );
  return value;
};

const integer = (name: string, value: unknown, fallback: number): number =>
  num(name, or(value, fallback), 'an integer >= 1', (n) => Number.isInteger(n) && n >= 1);

/**
 * Checks {@link HedgeOptions} once into frozen {@link HedgeSettings}; throws a TypeError or RangeError naming the
 * option.
 */
export function hedgeSettings(options: HedgeOptions): HedgeSettings {
  if (options === null || typeof options !== 'object') fail(TypeError, 'the hedge options', 'an object', options);
  onlyKnown(options, KNOWN, 'hedge', (key) => nearest(key, KNOWN));
  const { delayMs, percentile } = options;
  if (delayMs !== undefined && percentile !== undefined) {
    fail(
      TypeError,
      'percentile',
      'left out when delayMs is given (a fixed delay, or a percentile: one of them)',
      percentile,
    );
  }
  return Object.freeze({
    // setTimeout fires at once past 2^31 - 1 ms (about 24.8 days): a longer delay would hedge every call at once.
    delayMs:
      delayMs === undefined
        ? undefined
        : num('delayMs', delayMs, 'a number in [0, 2^31 - 1]', (n) => n >= 0 && n <= MAX_TIMER_MS),
    percentile: num('percentile', or(percentile, 0.95), 'a number in (0, 1)', (n) => n > 0 && n < 1),
    minSamples: integer('minSamples', options.minSamples, 100),
    windowMs: finite('windowMs', or(options.windowMs, 30_000), 1, WINDOW),
    maxHedges: integer('maxHedges', options.maxHedges, 1),
    maxExtraLoad: num('maxExtraLoad', or(options.maxExtraLoad, 0.05), 'a number in [0, 1]', (n) => n >= 0 && n <= 1),
    budget: budget(options.budget),
    onHedge: optionalFn('onHedge', options.onHedge),
    now: optionalFn('now', options.now),
  });
}
