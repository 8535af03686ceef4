/**
 * Virtual time for the herd: a @sinonjs/fake-timers clock (the harness's own, or the one a test runner already
 * installed), driven one timer at a time, with the promises, `process.nextTick`s and `setImmediate`s between timers
 * run for real (they are how fetch, node:http and the interceptors move a request along; faking them would stall
 * every client).
 */

/** The part of a @sinonjs/fake-timers clock the harness drives (vitest's `vi.useFakeTimers()` installs one too). */
export interface VirtualClock {
  readonly now: number;
  next(): unknown;
  tick(ms: number): unknown;
  countTimers(): number;
  uninstall?(): unknown;
  /** The runtime's own functions, kept by fake-timers when it replaced them. */
  readonly _setImmediate?: (callback: () => void) => unknown;
  readonly _setTimeout?: (callback: () => void, ms: number) => unknown;
}

/** What fake-timers exports (the module or its default export). */
interface FakeTimersModule {
  withGlobal(global: object): {
    install(config: { now: number; toFake: string[]; shouldClearNativeTimers?: boolean }): VirtualClock;
  };
}

/** What the harness fakes: timers and clocks only; never setImmediate, nextTick or queueMicrotask (see above). */
export const FAKED = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'];

/** The clock a test runner installed, if any: fake-timers marks its `setTimeout` with it. */
export function installedClock(): VirtualClock | undefined {
  const clock = (globalThis.setTimeout as { clock?: VirtualClock }).clock;
  if (clock === undefined || typeof clock.next !== 'function' || typeof clock.countTimers !== 'function') return;
  // The harness and the code under test read Date.now() and performance.now(): a clock that fakes the timers but
  // not these would give a report on mixed times, silently wrong (review). Say so instead.
  const now = clock.now;
  const fakesDate = Date.now() === now;
  const fakesPerformance = typeof performance === 'undefined' || 'clock' in performance; // fake-timers marks its own
  if (!fakesDate || !fakesPerformance) {
    throw new Error(
      "herdless/testing: the fake clock installed fakes setTimeout but not Date and performance, which herd() and the code under test read; fake them too (vi.useFakeTimers() fakes them by default; with @sinonjs/fake-timers add 'Date' and 'performance' to toFake), or uninstall it and let herd() install its own",
    );
  }
  return clock;
}

/** Loads the optional peer @sinonjs/fake-timers and installs a clock at time 0, or explains how to get it. */
export async function installClock(
  load: () => Promise<unknown> = () => import('@sinonjs/fake-timers'),
): Promise<VirtualClock> {
  let mod: FakeTimersModule;
  try {
    const loaded = (await load()) as FakeTimersModule & { default?: FakeTimersModule };
    mod = typeof loaded.withGlobal === 'function' ? loaded : (loaded.default as FakeTimersModule);
  } catch (error) {
    throw new Error(
      "herdless/testing: herd() runs on virtual time and needs the optional peer dependency '@sinonjs/fake-timers' (npm i -D @sinonjs/fake-timers), or a fake clock already installed (vi.useFakeTimers())",
      { cause: error },
    );
  }
  return mod.withGlobal(globalThis).install({ now: 0, toFake: FAKED });
}

/** The runtime's own setImmediate (kept by the clock if it faked it), or a zero timeout where there is none. */
function realImmediate(clock: VirtualClock): (callback: () => void) => unknown {
  const own = clock._setImmediate ?? (globalThis as { setImmediate?: (cb: () => void) => unknown }).setImmediate;
  if (own !== undefined) return own;
  const timeout = clock._setTimeout ?? setTimeout;
  return (callback) => timeout(callback, 0);
}

/** How a run is going: a number that changes whenever anything happened (an arrival, an answer, a caller done). */
export type Progress = () => number;

/** Consecutive rounds of the event loop with no progress and no new timer after which the loop counts as settled. */
const QUIET_ROUNDS = 3;
/** A settle that never goes quiet (code spinning on setImmediate) stops after this many rounds. */
const MAX_ROUNDS = 10_000;
/** How long, in real ms, the harness waits for progress when nothing is left on the virtual clock. */
export const STALL_MS = 2_000;

/**
 * Drives `clock` until `done()`: lets the event loop settle (promises, nextTicks, immediates, for real), then fires
 * the next timer(s) on virtual time, and again. Resolves `'done'`, or `'until'` when virtual time reached `untilMs`
 * first, or `'stalled'` when callers wait on nothing the clock knows (no timer left) and nothing moves for `stallMs`
 * real ms (a promise nobody settles, a real socket, another host: what virtual time cannot reach), whether or not
 * anything ran before.
 */
export async function drive(
  clock: VirtualClock,
  done: () => boolean,
  progress: Progress,
  untilMs: number,
  stallMs = STALL_MS,
): Promise<'done' | 'until' | 'stalled'> {
  const immediate = realImmediate(clock);
  const round = () => new Promise<void>((resolve) => void immediate(resolve));
  const settle = async () => {
    let [moved, timers] = [progress(), clock.countTimers()];
    for (let quiet = 0, rounds = 0; quiet < QUIET_ROUNDS && rounds < MAX_ROUNDS && !done(); rounds++) {
      await round();
      const [m, t] = [progress(), clock.countTimers()];
      quiet = m === moved && t === timers ? quiet + 1 : 0;
      [moved, timers] = [m, t];
    }
  };
  // A timer at the horizon, so that the clock never jumps past it to a caller's far-off timer; not counted as work.
  let horizon = true;
  const sentinel = setTimeout(
    () => {
      horizon = false;
    },
    Math.max(0, untilMs - clock.now),
  );
  const timers = () => clock.countTimers() - (horizon ? 1 : 0);
  try {
    for (;;) {
      await settle();
      if (done()) return 'done';
      if (clock.now >= untilMs) return 'until';
      if (timers() === 0) {
        // Nothing on virtual time: something real is pending (a socket), or the callers wait on nothing at all.
        const before = progress();
        const timeout = clock._setTimeout ?? setTimeout;
        for (let waited = 0; waited < stallMs && progress() === before && timers() === 0 && !done(); ) {
          await new Promise<void>((resolve) => void timeout(resolve, 10));
          waited += 10;
        }
        // The callers still running wait on what never comes (a promise nobody settles, a real socket): they are
        // reported as unfinished rather than losing the whole report (review), whether or not any caller ran
        // before: one answer for one situation (issue 30; a run where nothing moved at all used to reject).
        if (progress() === before && timers() === 0 && !done()) return 'stalled';
        continue;
      }
      clock.next();
      clock.tick(0); // and every other timer due at the same virtual time
    }
  } finally {
    clearTimeout(sentinel);
  }
}
