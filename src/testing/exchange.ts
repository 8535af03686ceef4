import type { Answer, Dependency } from './dependency';

/** The error a reset connection carries, as Node's own: `read ECONNRESET`, code `'ECONNRESET'`. */
export function resetError(): Error {
  return Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104, syscall: 'read' });
}

/**
 * One request's trip to the dependency on virtual time: it arrives now (counted), and its answer is delivered at the
 * time the dependency says, by the global `setTimeout` (the fake clock's, looked up at call time). A caller that
 * aborts first gets its signal's reason, and the timer is cleared. `origin` is the virtual time of the run's start.
 */
export class Exchange {
  /** Answers delivered (or requests aborted): part of the run's progress. */
  settled = 0;

  constructor(
    readonly dependency: Dependency,
    readonly origin: number,
  ) {}

  /** What undoes each request still in flight: clears its timer and takes its listener off the caller's signal. */
  readonly #pending = new Set<() => void>();

  /** Sends a request now; resolves with the dependency's answer when it is due, or rejects when `signal` aborts. */
  send(signal?: AbortSignal | null): Promise<Answer> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = Date.now() - this.origin;
    const answer = this.dependency.arrive(now);
    return new Promise<Answer>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#pending.delete(done);
        this.settled++;
      };
      const onAbort = () => {
        done();
        reject(signal?.reason);
      };
      const timer = setTimeout(
        () => {
          done();
          resolve(answer);
        },
        Math.max(0, answer.atMs - now),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.add(done);
    });
  }

  /**
   * The run is over: every request still in flight (a hang past `untilMs`, a call that never settles) lets go of its
   * timer and of the caller's signal, so no listener is left on a signal the caller keeps. Those requests never
   * settle: their callers were counted as unfinished, and the dependency is gone.
   */
  close(): void {
    for (const done of [...this.#pending]) done();
  }
}

/** A fetch Response for a response answer. */
export function toResponse(answer: Extract<Answer, { kind: 'response' }>): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}
