/**
 * Reports an error that no caller can receive, as an EventTarget does a listener's: through `globalThis.reportError`
 * where the runtime has one (browsers, Deno, Bun), else rethrown from a `setTimeout(0)` (Node: an
 * `'uncaughtException'`, which ends the process unless it is listened to).
 */
export function reportLater(error: unknown): void {
  const { reportError } = globalThis as { reportError?: (error: unknown) => void };
  if (typeof reportError === 'function') reportError(error);
  else
    setTimeout(() => {
      throw error;
    }, 0);
}
