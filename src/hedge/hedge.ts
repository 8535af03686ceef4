import type { RetryBudget, RetryPermit } from '../budget';
import { reportLater } from '../report';
import { unreadable } from '../validate';
import { SlidingCounts, type SteadyClock, steadyClock } from '../window';
import { LatencyWindow } from './latency';
import { type HedgeEvent, type HedgeOptions, type HedgeRefusal, type HedgeSettings, hedgeSettings } from './options';

/** The most hedges a quiet spell saves up (see `maxExtraLoad`): what a process can add at once when trouble starts. */
export const BURST = 10;
/**
 * The window, in ms, over which a process tells a tail from a slowdown: the share of its rounds (each of `retry()`'s
 * attempts) that crossed their hedge delay (as the budget's `failureWindowMs`).
 */
export const SPREAD_MS = 3_000;
/** The fewest rounds in that window for the share to be read: fewer say nothing (the cap still bounds them). */
export const SPREAD_CALLS = 20;

/** A token's float slack: twenty calls at 0.05 sum to 0.9999999999999999, which is one. */
const SLACK = 1e-9;

/** What a hedge's delay passing decides: send it, or not and why. */
export type HedgeDecision = { readonly send: true } | { readonly send: false; readonly reason: HedgeRefusal };

const SEND: HedgeDecision = Object.freeze({ send: true });
const LOAD: HedgeDecision = Object.freeze({ send: false, reason: 'load' });
const BUDGET: HedgeDecision = Object.freeze({ send: false, reason: 'budget' });
const SLOW: HedgeDecision = Object.freeze({ send: false, reason: 'slow' });

/** Whether `tokens` (a process's saved share of hedges, see `maxExtraLoad`) pay for one more hedge. */
export const canSpend = (tokens: number): boolean => tokens + SLACK >= 1;

/**
 * Whether `crossed` of `calls` crossing their hedge delay says the dependency is slow as a whole, not in its tail:
 * more than twice `maxExtraLoad` of them, with {@link SPREAD_CALLS} known. In a tail a few percent cross (those a
 * percentile delay is set for); in a slowdown nearly all do, and a hedge would add load rather than cut a tail.
 */
export const isSlowdown = (crossed: number, calls: number, maxExtraLoad: number): boolean =>
  calls >= SPREAD_CALLS && crossed > 2 * maxExtraLoad * calls;

/**
 * A hedge policy and its shared state: the latency window the percentile delay is read from, and the tokens of the
 * extra-load cap. One object for every call to a dependency (its memory is fixed: two histograms of about 230 counts,
 * whatever the traffic), used by {@link hedged} and `hedgedFetch`. Its methods are what those call; a simulator drives
 * them too.
 */
export class Hedge {
  /** The options, checked and frozen. */
  declare readonly settings: HedgeSettings;
  #tokens = 0;
  /** a: calls begun, b: the calls among them that crossed their delay, over {@link SPREAD_MS}. */
  readonly #spread = new SlidingCounts(SPREAD_MS);
  readonly #latency: LatencyWindow;
  readonly #now: SteadyClock;
  /** The budget's permit of the last hedge sent, until the next decision: what {@link refund} gives back. */
  #permit: RetryPermit | undefined;
  /** Whether the last decision sent a hedge not yet given back: {@link refund} gives back nothing else. */
  #spent = false;

  constructor(settings: HedgeSettings) {
    this.settings = settings;
    this.#latency = new LatencyWindow(settings.windowMs, settings.percentile, settings.minSamples);
    this.#now = steadyClock(settings.now);
  }

  /**
   * A round begins (one of `retry()`'s attempts, its first request): it earns `maxExtraLoad` of a hedge (up to
   * {@link BURST} saved), and gets the delay of its first hedge, in ms, or `undefined` for no hedge at all (the
   * percentile still lacks data, or `maxExtraLoad` is 0).
   */
  begin(): number | undefined {
    const { maxExtraLoad, delayMs } = this.settings;
    if (maxExtraLoad === 0) return undefined;
    this.#tokens = Math.min(BURST, this.#tokens + maxExtraLoad);
    const now = this.#now();
    this.#spread.advance(now);
    this.#spread.add(1, 0);
    return delayMs ?? this.#latency.percentile(now);
  }

  /**
   * The delay of hedge number `hedge` (1-based) has passed with no answer: decides whether it is sent, spending what
   * it costs if so (a token, and the budget's withdrawal), and tells `onHedge`.
   */
  decide(hedge: number, delayMs: number): HedgeDecision {
    const { budget, onHedge, maxExtraLoad } = this.settings;
    const spread = this.#spread;
    if (hedge === 1) {
      spread.advance(this.#now());
      spread.add(0, 1);
    }
    let decision = SEND;
    this.#permit = undefined;
    this.#spent = false;
    if (isSlowdown(spread.b, spread.a, maxExtraLoad)) decision = SLOW;
    else if (!canSpend(this.#tokens)) decision = LOAD;
    else if (budget && (budget.queueing?.() || !this.#withdraw(budget))) decision = BUDGET;
    else {
      this.#tokens -= 1;
      this.#spent = true;
    }
    if (onHedge) {
      const event: HedgeEvent = Object.freeze({
        sent: decision.send,
        reason: decision.send ? undefined : decision.reason,
        hedge,
        delayMs,
      });
      try {
        onHedge(event);
      } catch (error) {
        reportLater(error); // reported, as a breaker's onStateChange error is: never the call's outcome
      }
    }
    return decision;
  }

  /** Withdraws a hedge from the budget's volume cap, keeping its permit for {@link refund}: false when refused. */
  #withdraw(budget: RetryBudget): boolean {
    this.#permit = budget.tryWithdraw() || undefined;
    return this.#permit !== undefined;
  }

  /**
   * Gives back the hedge the last {@link decide} sent, when it could not go out after all (the call ended inside
   * `decide()`, from `onHedge`): its token, and the budget's withdrawal. Call it at once, before another decision.
   */
  refund(): void {
    if (!this.#spent) return; // nothing sent to give back: a refund never makes a hedge from nothing
    this.#spent = false;
    this.#tokens = Math.min(BURST, this.#tokens + 1);
    this.#permit?.release();
    this.#permit = undefined;
  }

  /** This hedge's clock, in ms (the `now` option, or `performance.now()`): what a round's latency is measured on. */
  now(): number {
    return this.#now();
  }

  /** A call was answered `ms` after its first attempt began: what the percentile delay is learnt from. */
  record(ms: number): void {
    // A round whose start the clock could not read (it threw then): no latency to learn, not a sample in no bucket.
    if (Number.isNaN(ms)) return;
    this.#latency.record(ms, this.#now());
  }

  /** The hedges saved up now (see `maxExtraLoad`): for tests and telemetry. */
  get tokens(): number {
    return this.#tokens;
  }

  /** The delay a call beginning now would get, without counting it: `undefined` while there is none. */
  peek(): number | undefined {
    return this.settings.delayMs ?? this.#latency.percentile(this.#now());
  }
}

/**
 * A hedge for slow attempts: shared by every call to one dependency, given to {@link hedged} (any `retry()` fn) or to
 * `hedgedFetch` (`retryingFetch`'s `fetch`). When an attempt has not answered after the delay (a percentile of this
 * process's observed latencies, default p95 once 100 were seen; or a fixed `delayMs`), a second attempt is sent and
 * the first answer wins; the others are aborted.
 *
 * Bounded by construction: each round (one of `retry()`'s attempts: a call retried twice is three) earns `maxExtraLoad`
 * (default 5%) of a hedge and a hedge spends a whole one, so this process's hedges never exceed 5% of its rounds, in a
 * slowdown as in a calm (where an unbounded hedge doubles the load: every round crosses the delay); no hedge while more
 * than twice that share of the last 3 s of rounds crossed their delay (`'slow'`: the dependency is slow as a whole, not
 * in its tail); and with a `budget`, none while it says the dependency is queueing. The cap starts empty: a process
 * hedges from about its 20th round on (a fleet restarting at once sends none). In `herdless simulate --scenario hedge`:
 * the p99.9 of a 1% slow mode cut 10x for 4% more requests from a busy process, and at most 0.8% more in a slowdown
 * at every fleet size (2.3% with a fixed `delayMs`; the unbounded hedge: 70%). A quiet process (a few calls a minute,
 * one of 1,000 in a fleet) earns too little to hedge and too few samples to learn a percentile: hedging then stays
 * off, safe and of no use (see the hedging guide). Not for a dependency at the edge of its capacity: the hedges saved
 * in a calm go out as an overload begins.
 *
 * Choose it for idempotent reads with a long tail (a p99.9 many times the median: a GC pause, a slow disk) from a busy
 * process; not for writes, nor for a dependency that is slow because it is saturated (hedging adds load).
 *
 * @param options - See {@link HedgeOptions}. Default: p95 of the last 30-60 s after 100 samples, 1 hedge, a 5% cap.
 * @throws TypeError or RangeError naming the option, for a bad option.
 *
 * @example
 * ```ts
 * import { createRetryBudget, retry } from 'herdless';
 * import { createHedge, hedged } from 'herdless/hedge';
 * const budget = createRetryBudget();
 * const hedge = createHedge({ budget }); // p95 delay, at most 5% extra load, none while the budget sees a queue
 * const getUser = hedged(({ signal }) => api.getUser(id, { signal }), hedge);
 * const user = await retry(getUser, { budget, attemptTimeoutMs: 1_000 });
 * ```
 */
export function createHedge(options: HedgeOptions = {}): Hedge {
  try {
    return new Hedge(hedgeSettings(options));
  } catch (error) {
    return unreadable('hedge', options, error);
  }
}
