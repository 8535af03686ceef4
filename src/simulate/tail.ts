import { EventQueue } from './queue';
import { createRng, type Rng } from './rng';

/**
 * The tail-latency server of the hedge scenario ({@link simulateHedge}), its settings filled in: `workers` parallel
 * workers sharing one FIFO queue (an M/G/k server), each attempt's service time lognormal (`medianMs`, `sigma`) with
 * a slow mode `slowFactor` times longer for `slowShare` of the attempts (a GC pause, a slow disk: a property of the
 * attempt, not of the request, so a second attempt is likely fast), and for `slowdownMs` from `warmupMs` every worker
 * `slowdownFactor` times slower. Each hop takes `hopMs`. Calls arrive open-loop (Poisson, at `load` of the capacity)
 * over `runMs`, split at random over `instances` client processes.
 */
export interface TailSettings {
  readonly workers: number;
  readonly medianMs: number;
  readonly sigma: number;
  readonly slowShare: number;
  readonly slowFactor: number;
  readonly slowdownMs: number;
  readonly slowdownFactor: number;
  readonly warmupMs: number;
  readonly hopMs: number;
  readonly runMs: number;
  readonly load: number;
  readonly instances: number;
  readonly seed: number;
}

/** The events: a call begins, an attempt reaches the server, is served, its answer is back; a hedge's delay passed. */
export const CALL = 0;
const AT_SERVER = 1;
const SERVED = 2;
export const ANSWER = 3;
export const HEDGE = 4;

/** Requests a second the server serves on average, healthy (its slow mode included). */
export const tailCapacity = (s: Pick<TailSettings, 'workers' | 'medianMs' | 'sigma' | 'slowShare' | 'slowFactor'>) =>
  (s.workers / (s.medianMs * Math.exp((s.sigma * s.sigma) / 2) * (1 - s.slowShare + s.slowShare * s.slowFactor))) *
  1_000;

/**
 * The server and its calls, driven through its event queue `q`: a scenario handles `CALL` and `HEDGE` itself (sending
 * attempts with {@link TailServer.send}) and hands the other events to {@link TailServer.handle}. A call's attempts
 * past the first are its hedges: one still queued when its call is answered is cancelled, one being served runs to its
 * end (wasted work). At most `attemptsPerCall` attempts a call.
 */
export class TailServer {
  readonly rng: Rng;
  readonly q = new EventQueue();
  readonly calls: number;
  readonly callStart: Float64Array;
  readonly callDone: Uint8Array;
  readonly callInstance: Int32Array;
  readonly latency: Float64Array;
  /** Which call each attempt is of, and when it was sent. */
  readonly attemptCall: Int32Array;
  readonly attemptSent: Float64Array;
  /** Attempts sent so far; attempts served after their call was answered. */
  attempts = 0;
  wasted = 0;
  readonly #attemptState: Uint8Array; // 0 queued or in flight, 1 served, 2 cancelled while queued
  /** Each call's attempts, `per` slots a call (-1: none). */
  readonly #attemptsOf: Int32Array;
  readonly #per: number;
  readonly #waiting: number[] = [];
  #head = 0;
  #busy = 0;
  readonly #s: TailSettings;

  /** Draws the calls' arrivals and processes, and queues them as `CALL` events. */
  constructor(settings: TailSettings, attemptsPerCall = 2) {
    this.#s = settings;
    this.#per = attemptsPerCall;
    const rng = createRng(settings.seed);
    this.rng = rng;
    const calls = Math.round((settings.load * tailCapacity(settings) * settings.runMs) / 1_000);
    this.calls = calls;
    this.callStart = new Float64Array(calls);
    this.callDone = new Uint8Array(calls);
    this.callInstance = new Int32Array(calls);
    this.latency = new Float64Array(calls);
    this.attemptCall = new Int32Array(attemptsPerCall * calls);
    this.attemptSent = new Float64Array(attemptsPerCall * calls);
    this.#attemptState = new Uint8Array(attemptsPerCall * calls);
    this.#attemptsOf = new Int32Array(attemptsPerCall * calls).fill(-1);
    let t = 0;
    for (let c = 0; c < calls; c++) {
      t += -Math.log(1 - rng.next()) * (settings.runMs / calls);
      this.callStart[c] = t;
      this.callInstance[c] = Math.floor(rng.next() * settings.instances);
      this.q.push(t, c, CALL);
    }
  }

  /** Whether `time` falls in the slowdown. */
  slowing(time: number): boolean {
    const s = this.#s;
    return time >= s.warmupMs && time < s.warmupMs + s.slowdownMs;
  }

  #service(at: number): number {
    const { rng } = this;
    const s = this.#s;
    const u = 1 - rng.next(); // a standard normal, Box-Muller
    const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
    const base = s.medianMs * Math.exp(s.sigma * normal);
    const slow = rng.next() < s.slowShare ? s.slowFactor : 1;
    return base * slow * (this.slowing(at) ? s.slowdownFactor : 1);
  }

  /** Sends an attempt of call `c` at `at` (at most `attemptsPerCall` a call). */
  send(c: number, at: number): void {
    const a = this.attempts++;
    this.attemptCall[a] = c;
    this.attemptSent[a] = at;
    let k = c * this.#per;
    while (this.#attemptsOf[k] !== -1) k++;
    this.#attemptsOf[k] = a;
    this.q.push(at + this.#s.hopMs, a, AT_SERVER);
  }

  #startNext(at: number): void {
    while (this.#busy < this.#s.workers && this.#head < this.#waiting.length) {
      const a = this.#waiting[this.#head++] as number;
      if (this.#attemptState[a] === 2) continue; // cancelled while queued
      this.#busy++;
      this.q.push(at + this.#service(at), a, SERVED);
    }
  }

  /**
   * Handles an event of the server's own (`AT_SERVER`, `SERVED`, `ANSWER`); for an `ANSWER` that answers its call,
   * records the call's latency, cancels its other attempts still queued, and returns the call (else -1).
   */
  handle(time: number, attempt: number, kind: number): number {
    if (kind === AT_SERVER) {
      if (this.#attemptState[attempt] !== 2) {
        this.#waiting.push(attempt);
        this.#startNext(time);
      }
      return -1;
    }
    const c = this.attemptCall[attempt] as number;
    if (kind === SERVED) {
      this.#busy--;
      if (this.callDone[c]) this.wasted++;
      this.#attemptState[attempt] = 1;
      this.q.push(time + this.#s.hopMs, attempt, ANSWER);
      this.#startNext(time);
      return -1;
    }
    if (this.callDone[c]) return -1;
    this.callDone[c] = 1;
    this.latency[c] = time - (this.callStart[c] as number);
    for (let k = c * this.#per; k < (c + 1) * this.#per; k++) {
      const other = this.#attemptsOf[k] as number;
      if (other >= 0 && other !== attempt && this.#attemptState[other] === 0) this.#attemptState[other] = 2;
    }
    return c;
  }
}
