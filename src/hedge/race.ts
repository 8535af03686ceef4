import type { RetryContext } from '../policy';
import { reportLater } from '../report';
import { fail } from '../validate';
import { isThenable, MAX_TIMER_MS, subscribe } from '../wait';
import type { Hedge } from './hedge';

/** What each attempt of a hedged call gets: `retry()`'s context, with its own signal and which attempt it is. */
export interface HedgeContext extends RetryContext {
  /** 0 for the first attempt of this round, 1 for the first hedge, and so on. */
  readonly hedge: number;
}

/** An attempt's {@link HedgeContext}: its own signal, or (with none) the round's, read only if `fn` reads it. */
class Attempt implements HedgeContext {
  declare readonly attempt: number;
  declare readonly elapsedMs: number;
  declare readonly hedge: number;
  readonly #context: RetryContext;
  readonly #signal: AbortSignal | undefined;

  constructor(context: RetryContext, hedge: number, signal?: AbortSignal) {
    this.attempt = context.attempt;
    this.elapsedMs = context.elapsedMs;
    this.hedge = hedge;
    this.#context = context;
    this.#signal = signal;
  }

  get signal(): AbortSignal {
    return this.#signal ?? this.#context.signal;
  }
}

/** The reason an attempt that lost its race is aborted with. */
export const lost = (): DOMException =>
  new DOMException('herdless: another attempt of this call answered first', 'AbortError');

/**
 * One round of a hedged call: the first attempt now, then up to `maxHedges` more, each after one more delay, while none
 * has answered and the hedge lets them. The first answer that is not a failure wins (`won` is told of it and of its
 * controller); the others are aborted (`lost`), and a late answer is `discard`ed. An attempt that rejects, or whose
 * value `failed` says is a failure, ends the round only when no other is in flight (with its outcome, an earlier
 * failed value `discard`ed), and stops further hedges: a failure is the retry's to answer, not the hedge's. `parent`
 * aborting ends the round at once with its reason, and aborts every attempt. Every timer is cleared and the listener
 * removed when the round settles.
 */
export function race<T>(
  hedge: Hedge,
  parentOf: () => AbortSignal | undefined,
  start: (signal: AbortSignal | undefined, index: number) => T | PromiseLike<T>,
  failed?: (value: T) => boolean,
  discard?: (value: T) => void,
  won?: (value: T, controller: AbortController) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let began = Number.NaN;
    let delayMs: number | undefined;
    try {
      began = hedge.now();
      delayMs = hedge.begin();
    } catch (error) {
      reportLater(error); // a broken clock, as in decide() and record(): reported, and the call runs with no hedge
    }
    // No hedge to send: the attempt runs on the caller's signal as it is, read only if it reads its own.
    const parent = delayMs === undefined ? undefined : parentOf();
    if (parent?.aborted) return reject(parent.reason);
    const controllers: AbortController[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    let unsubscribe: (() => void) | undefined;
    let done = false;
    let pending = 0;
    let sent = 0; // hedges sent
    let held: { value: unknown; threw: boolean } | undefined; // the last failure, while others are in flight
    // A value nobody will read: a hostile one (a body without `cancel`) must not throw from a promise callback.
    const drop = (value: unknown) => {
      try {
        discard?.(value as T);
      } catch {}
    };
    const finish = (ok: boolean, value: unknown, winner?: AbortController) => {
      done = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      unsubscribe?.();
      // A failure held while others were in flight, which the round does not answer with (it was aborted): dropped.
      if (held && !held.threw && held.value !== value) drop(held.value);
      // The reason is made only for a loser to abort: a DOMException costs more than the rest of a round.
      let reason: unknown;
      for (const c of controllers) {
        if (c === winner) continue;
        reason ??= !ok && parent?.aborted ? parent.reason : lost();
        c.abort(reason);
      }
      try {
        if (winner) won?.(value as T, winner);
      } catch (error) {
        ok = false; // a value `won` cannot follow (not a Response): the round's failure, not a throw from a callback
        value = error;
      }
      if (ok) resolve(value as T);
      else reject(value);
    };
    const lose = (value: unknown, threw: boolean, controller?: AbortController) => {
      if (held && !held.threw) drop(held.value);
      held = { value, threw };
      delayMs = undefined; // no more hedges: a failure is the retry's to answer
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      if (pending === 0) {
        if (threw) finish(false, value);
        // The failed value returned is the round's answer: its attempt is spared and followed as a winner is.
        else finish(true, value, controller);
      }
    };
    const launch = (index: number) => {
      let controller: AbortController | undefined;
      let signal: AbortSignal | undefined;
      if (delayMs !== undefined) {
        controller = new AbortController();
        controllers.push(controller);
        // Its own signal, aborted with the parent's reason through the one listener below (not AbortSignal.any: about
        // 30 us each on Node 20, a hundred times the rest of a round).
        signal = controller.signal;
      }
      pending++;
      let result: T | PromiseLike<T>;
      let thenable = true;
      try {
        result = start(signal, index);
        thenable = isThenable(result); // a `then` getter may throw: the attempt's failure, as start()'s throw is
      } catch (error) {
        result = Promise.reject(error);
      }
      const settled = (value: T) => {
        pending--;
        if (done) return drop(value);
        let failure: boolean | undefined;
        try {
          failure = failed?.(value);
        } catch (error) {
          return lose(error, true); // a value `failed` cannot read (not a Response): the attempt's failure
        }
        if (failure) return lose(value, false, controller);
        try {
          hedge.record(hedge.now() - began);
        } catch (error) {
          reportLater(error); // a broken clock: the answer stays the call's, and the error is not lost
        }
        finish(true, value, controller); // an earlier failure held is dropped there
      };
      const rejected = (error: unknown) => {
        pending--;
        if (!done) lose(error, true);
      };
      if (thenable) Promise.resolve(result).then(settled, rejected);
      else settled(result as T);
    };
    const arm = () => {
      // A percentile delay past what setTimeout takes (it would fire at once): no hedge.
      if (done || delayMs === undefined || delayMs > MAX_TIMER_MS || sent >= hedge.settings.maxHedges) return;
      // Not unref()ed, whatever retry()'s `unref`: the hedge may be what answers (a first attempt that holds no socket
      // or timer of its own would otherwise let the process exit mid-call), and it lasts at most its delay.
      timer = setTimeout(fire, delayMs);
    };
    const fire = () => {
      timer = undefined;
      if (done || delayMs === undefined) return;
      let send: boolean;
      try {
        send = hedge.decide(sent + 1, delayMs).send;
        // The round ended inside decide() (the caller aborted from onHedge): the hedge it paid for is given back.
        if (send && done) hedge.refund();
      } catch (error) {
        reportLater(error); // a broken clock (the hedge's, the budget's): no hedge, and the attempts go on
        return;
      }
      if (!send || done) return; // refused: no more hedges this round; or the round is over
      launch(++sent);
      arm();
    };
    launch(0);
    if (done || delayMs === undefined) return;
    if (parent?.aborted) return finish(false, parent.reason); // aborted by the first attempt's own synchronous part
    if (parent) {
      unsubscribe = subscribe(parent, {
        fire: () => {
          if (!done) finish(false, parent.reason);
        },
      });
    }
    arm();
  });
}

/**
 * Hedges `fn` for `retry()`: the function it returns makes each of `retry()`'s attempts a round of up to
 * `1 + maxHedges` attempts of `fn` (see {@link createHedge}): the first now, a hedge when the delay passes with no
 * answer, the first success winning and the others aborted through their signals.
 *
 * What is shared and what is not: `retry()` sees one attempt per round. Its `maxAttempts`, backoff, `onFailure`,
 * `isTransient` and `onSettle` count rounds; its deadline, `attemptTimeoutMs` and your `signal` abort every attempt of
 * the round (each attempt's `signal` follows the round's); a budget and a breaker judge the round's outcome and time.
 * The hedges are counted by the hedge itself (`onHedge`, `herdless/otel`), and bounded by its `maxExtraLoad` and the
 * budget it was given, not by `maxAttempts`. A failure does not end the round while another attempt is in flight: the
 * round fails (with the last failure) when all have, and no hedge is sent after a failure. Each attempt gets a
 * {@link HedgeContext}: `retry()`'s `attempt` and `elapsedMs`, its own `signal`, and `hedge` (0 for the first).
 *
 * The cost with no hedge to send (the percentile still learning, `maxExtraLoad` 0) is one call of `fn` plus a clock
 * reading; otherwise an AbortController and a timer per round, and a signal link per attempt.
 *
 * Choose it for idempotent work only: every attempt of a round may reach the dependency.
 *
 * @param fn - The work, as for `retry()`; it gets a {@link HedgeContext}.
 * @param hedge - From {@link createHedge}, shared by the calls to one dependency.
 * @throws TypeError when `fn` is not a function or `hedge` is not from `createHedge`.
 *
 * @example
 * ```ts
 * import { retry } from 'herdless';
 * import { createHedge, hedged } from 'herdless/hedge';
 * const hedge = createHedge({ delayMs: 50 }); // a fixed delay: the dependency's healthy p95
 * const item = await retry(hedged(({ signal }) => cache.get(key, { signal }), hedge), { maxAttempts: 3 });
 * ```
 */
export function hedged<T>(
  fn: (context: HedgeContext) => T | PromiseLike<T>,
  hedge: Hedge,
): (context: RetryContext) => Promise<T> {
  if (typeof fn !== 'function') fail(TypeError, 'fn', 'a function', fn);
  isHedge(hedge);
  return (context) =>
    race(
      hedge,
      () => context.signal,
      (signal, index) => fn(signal ? new Attempt(context, index, signal) : new Attempt(context, 0)),
    );
}

/** Checks that `hedge` came from `createHedge` (its class): a TypeError naming it otherwise. */
export function isHedge(hedge: unknown): asserts hedge is Hedge {
  if (
    typeof hedge !== 'object' ||
    hedge === null ||
    typeof (hedge as Hedge).begin !== 'function' ||
    typeof (hedge as Hedge).decide !== 'function'
  ) {
    fail(TypeError, 'hedge', 'a hedge from createHedge()', hedge);
  }
}
