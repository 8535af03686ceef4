/**
 * What {@link guard} resolves with when its time ran out. Like {@link ABORTED}, never seen outside herdless: no
 * description (18 B of `{ retry }` gzipped, for these two and errors.ts's NOT_PERMANENT, since gone).
 */
export const TIMED_OUT: unique symbol = /* @__PURE__ */ Symbol();
/** What {@link guard} resolves with when the caller's signal aborted. */
export const ABORTED: unique symbol = /* @__PURE__ */ Symbol();

/** The longest delay `setTimeout` takes (about 24.8 days); a longer one fires at once in Node, so it is chained. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The one registry of herdless's listeners on callers' signals: at most one `abort` listener on a signal, whatever
 * the number of calls sharing it, removed when the last of them lets go. Node's EventTarget pays for each add and
 * remove in proportion to the listeners already there, so 10,000 calls sharing a server's shutdown signal would
 * otherwise cost O(n) each, and warn past 10. Here a call costs a Set insertion and deletion: O(1). A signal's Fanout is
 * the Set of its subscribers, fired in the order they subscribed.
 */
const registry = /* @__PURE__ */ new WeakMap<AbortSignal, Fanout>();

/**
 * herdless's one `abort` listener on a caller's signal (an EventListener object, so no closure), and the calls it
 * fans out to: itself the Set of them (one Set, whether one call or many share the signal: 46 B less of { retry }
 * than a field for the first and a Set for the rest). Made, it is the signal's: registered and listening.
 */
class Fanout extends Set<{ fire(): void }> {
  declare readonly signal: AbortSignal;

  constructor(signal: AbortSignal) {
    super();
    this.signal = signal;
    registry.set(signal, this);
    signal.addEventListener('abort', this);
  }

  handleEvent(): void {
    if (!this.signal.aborted) return; // a synthetic 'abort' event dispatched on a live signal is not an abort
    this.release();
    for (const watch of this) watch.fire();
  }

  /** Stops listening, once: the signal aborted, or its last subscriber let go. */
  release(): void {
    if (registry.get(this.signal) !== this) return;
    registry.delete(this.signal);
    this.signal.removeEventListener('abort', this);
  }
}

/**
 * Calls `subscriber.fire()` once when `signal` aborts, through the registry (O(1) a subscriber, one listener on the
 * signal whatever their number), until the returned function is called. `fire` runs synchronously inside `abort()`.
 * The caller checks `signal.aborted` first: a signal already aborted never fires.
 */
export function subscribe(signal: AbortSignal, subscriber: { fire(): void }): () => void {
  const fanout = registry.get(signal) ?? new Fanout(signal);
  fanout.add(subscriber);
  return () => {
    fanout.delete(subscriber);
    if (!fanout.size) fanout.release();
  };
}

/**
 * One `retry()` call's link to its caller's signal, subscribed through the registry only once the call has to wait
 * (a pending attempt or callback, a sleep) or `fn` reads its attempt's `signal`, and then once whatever the number of
 * attempts and sleeps: a call whose attempts settle at once never touches the signal's listeners (Node's
 * `addEventListener` plus `removeEventListener` cost as much as the whole rest of such a call). On abort it stops the
 * `current` attempt with `stop` (synchronously, inside `abort()`, so the attempt's signal is aborted before any code
 * that called `abort()` goes on), then wakes the pending {@link guard}, in that order.
 */
export class Watch<C = unknown> {
  /** The attempt running now, or the last one. */
  declare current: C | undefined;
  /** Wakes the pending guard, if any, with {@link ABORTED}; set by {@link guard}. */
  declare wake: (() => void) | undefined;
  #unsubscribe: (() => void) | undefined;
  #released = false;

  declare readonly signal: AbortSignal;
  declare private readonly stop: (current: C, reason: unknown) => void;

  // Declared fields, assigned here: no class field declarations to ship (parameter properties emit both).
  constructor(signal: AbortSignal, stop: (current: C, reason: unknown) => void) {
    this.signal = signal;
    this.stop = stop;
  }

  /**
   * Subscribes, once, until {@link release}; and whenever the signal has aborted already, does now what the abort
   * does (it may have fired while no guard was waiting, between an attempt's start and its guard's first wait).
   */
  listen(): void {
    if (this.#released) return;
    if (this.signal.aborted) this.fire();
    else this.#unsubscribe ??= subscribe(this.signal, this);
  }

  /** Called by the registry when the signal aborts. */
  fire(): void {
    if (this.current !== undefined) this.stop(this.current, this.signal.reason);
    this.wake?.();
  }

  /** Lets go of the signal, for good (a context read after the call settled does not subscribe again): the last call
   * sharing it removes herdless's listener. */
  release(): void {
    this.#released = true;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }
}

/** The monotonic clock, looked up at call time so that a fake clock installed after import controls it. */
export const now = (): number => performance.now();

/** Whether `value` has a `then` method (a promise, or any thenable). Never throws for null or undefined. */
export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as PromiseLike<unknown> | null)?.then === 'function';

/** A settled promise whose reactions run a microtask later, after those of promises already settled. */
const SETTLED = /* @__PURE__ */ Promise.resolve();

/**
 * Runs `work(arg)` (or, with `work` undefined, nothing: a cancellable sleep) until `ms` after `from`, or until
 * `watch`'s signal aborts, whichever comes first; then clears its timer. `from` (a `performance.now()` reading taken
 * before `work` is called, so that its synchronous part counts; given with `work`) lets the caller reuse a reading
 * it has. Work that returns a value, or a promise that is already settled, is never waited for: the timer
 * is armed and the signal listened to only a microtask after `work` returned, if it is still pending then (under a
 * fake clock, at once: a test that ticks synchronously right after the call expects the timeout to fire). Resolves
 * with the work's value, {@link TIMED_OUT} or {@link ABORTED}; rejects only with the work's own error (a synchronous
 * throw included). Work that settles after the race is lost quietly (no unhandled rejection).
 *
 * With `ms` = Infinity no timer is set. Every wait goes through the global `setTimeout`/`clearTimeout`, and time
 * through `performance.now()`, looked up at call time, so a fake clock controls them. The check a microtask later
 * is a promise reaction, not `queueMicrotask` (Node's builds an AsyncResource for each: about 400 instructions, 8%
 * of a guarded call). With `unref`, the timer does not keep the process alive, where the runtime's timers have
 * `unref` (Node, Bun, Deno); elsewhere that is a no-op.
 */
export function guard<T, A>(
  ms: number,
  watch: Pick<Watch, 'signal' | 'wake' | 'listen'> | undefined,
  unref: boolean,
  work?: (arg: A) => T | PromiseLike<T>,
  arg?: A,
  from?: number,
): Promise<T | typeof TIMED_OUT | typeof ABORTED> {
  return new Promise((resolve, reject) => {
    if (watch?.signal.aborted) return resolve(ABORTED);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let done = false;
    const finish = (settle: (value: never) => void, value: unknown) => {
      if (done) return;
      done = true;
      if (timer !== undefined) clearTimeout(timer);
      if (watch) watch.wake = undefined;
      settle(value as never);
    };
    const arm = (left: number) => {
      timer = setTimeout(
        () => (left > MAX_TIMER_MS ? arm(left - MAX_TIMER_MS) : finish(resolve, TIMED_OUT)),
        Math.min(left, MAX_TIMER_MS),
      );
      if (unref) (timer as { unref?: () => unknown }).unref?.();
    };
    /** Starts waiting, with `left` ms to go. */
    const wait = (left: number) => {
      if (left < Infinity) arm(Math.max(0, left));
      if (watch) {
        watch.wake = () => finish(resolve, ABORTED);
        watch.listen();
      }
    };
    if (work === undefined) return wait(ms);
    let result: T | PromiseLike<T>;
    try {
      result = work(arg as A);
    } catch (error) {
      return finish(reject, error);
    }
    if (!isThenable(result)) return finish(resolve, result);
    Promise.resolve(result).then(
      (value) => finish(resolve, value),
      (error: unknown) => finish(reject, error),
    );
    const pending = () => wait(ms - (now() - (from as number)));
    // A fake clock (sinon's, so vitest's and Jest's: their setTimeout carries it) is armed at once, so that a
    // synchronous tick right after the call fires the timeout, whether or not it fakes queueMicrotask too. Else an
    // already settled promise has settled the race by the next microtask (its reaction ran first); a pending one waits.
    if ((setTimeout as { clock?: unknown }).clock !== undefined) pending();
    else SETTLED.then(() => done || pending());
  });
}
