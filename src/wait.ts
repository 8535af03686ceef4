/** What {@link guard} resolves with when its time ran out. */
export const TIMED_OUT: unique symbol = /* @__PURE__ */ Symbol('herdless.timedOut');
/** What {@link guard} resolves with when the signal aborted. */
export const ABORTED: unique symbol = /* @__PURE__ */ Symbol('herdless.aborted');
/** Passed as `work` for a plain sleep. */
export const NO_WORK: unique symbol = /* @__PURE__ */ Symbol('herdless.noWork');

/** The longest delay `setTimeout` takes (about 24.8 days); a longer one fires at once in Node, so it is chained. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Waits for `work` for at most `ms`, or until `signal` aborts, whichever comes first; then clears its timer and
 * removes its listener. Resolves with the work's value, {@link TIMED_OUT} or {@link ABORTED}; rejects only with the
 * work's own error. Work that settles after the race is lost quietly (no unhandled rejection).
 *
 * With `work` = {@link NO_WORK} it is a cancellable sleep. With `ms` = Infinity no timer is set. Every wait goes
 * through the global `setTimeout`/`clearTimeout`, looked up at call time, so a fake clock controls it.
 */
export function guard<T>(
  ms: number,
  signal: AbortSignal | undefined,
  work: T | PromiseLike<T> | typeof NO_WORK,
): Promise<T | typeof TIMED_OUT | typeof ABORTED> {
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (settle: (value: never) => void, value: unknown) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      settle(value as never);
    };
    const onAbort = () => finish(resolve, ABORTED);
    const arm = (left: number) => {
      timer = setTimeout(
        () => (left > MAX_TIMER_MS ? arm(left - MAX_TIMER_MS) : finish(resolve, TIMED_OUT)),
        Math.min(left, MAX_TIMER_MS),
      );
    };
    if (ms < Infinity) arm(ms);
    if (signal) {
      signal.addEventListener('abort', onAbort);
      if (signal.aborted) onAbort();
    }
    if (work !== NO_WORK) {
      Promise.resolve(work).then(
        (value) => finish(resolve, value),
        (error: unknown) => finish(reject, error),
      );
    }
  });
}
