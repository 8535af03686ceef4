/**
 * The server of the hedging benches (bench/hedge-study.ts, bench/hedge-fleet.ts), in one place: `WORKERS` parallel
 * workers sharing one FIFO queue (an M/G/k server), each attempt's service time lognormal (median 20 ms, sigma 0.4)
 * with a slow mode `slowFactor` times longer for `slowShare` of the attempts (a GC pause, a slow disk: a property of
 * the attempt, not of the request, so a second attempt is likely fast), and in a `slowdown` every worker 3.3x slower
 * for 10 s from 5 s. Each hop is 1 ms. Calls arrive open-loop over 30 s, split evenly over the client processes; a
 * call's attempts past the first are its hedges: one still queued when its call is answered is cancelled, one being
 * served runs to its end (wasted work). A bench drives it through its event queue: it handles `CALL` and `HEDGE`
 * itself (sending attempts with {@link HedgeServer.send}) and hands the other events to {@link HedgeServer.handle}.
 */
import { EventQueue } from '../src/simulate/queue';
import { createRng, type Rng } from '../src/simulate/rng';

export const WORKERS = 50;
const MEDIAN_MS = 20;
const SIGMA = 0.4;
const HOP_MS = 1;
export const RUN_MS = 30_000;
export const SLOW_FROM = 5_000;
const SLOW_MS = 10_000;
const SLOWDOWN = 3.3;

/** The events: a call begins, an attempt reaches the server, is served, its answer is back; a hedge's delay passed. */
export const CALL = 0;
const AT_SERVER = 1;
const SERVED = 2;
export const ANSWER = 3;
export const HEDGE = 4;

/** Requests a second the server serves on average with this slow mode. */
export const capacity = (slowShare: number, slowFactor: number): number =>
  (WORKERS / (MEDIAN_MS * Math.exp((SIGMA * SIGMA) / 2) * (1 - slowShare + slowShare * slowFactor))) * 1_000;

/** Whether `time` falls in the slowdown. */
export const slowing = (time: number): boolean => time >= SLOW_FROM && time < SLOW_FROM + SLOW_MS;

export interface Trouble {
  readonly slowShare: number;
  readonly slowFactor: number;
  readonly slowdown: boolean;
  readonly load: number;
  readonly instances: number;
  readonly seed: number;
}

export class HedgeServer {
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
  readonly #attemptsOf: Int32Array;
  readonly #waiting: number[] = [];
  #head = 0;
  #busy = 0;
  readonly #trouble: Trouble;

  /** Draws the calls' arrivals and processes, and queues them as `CALL` events. */
  constructor(trouble: Trouble) {
    this.#trouble = trouble;
    const rng = createRng(trouble.seed);
    this.rng = rng;
    const calls = Math.round((trouble.load * capacity(trouble.slowShare, trouble.slowFactor) * RUN_MS) / 1_000);
    this.calls = calls;
    this.callStart = new Float64Array(calls);
    this.callDone = new Uint8Array(calls);
    this.callInstance = new Int32Array(calls);
    this.latency = new Float64Array(calls);
    this.attemptCall = new Int32Array(2 * calls);
    this.attemptSent = new Float64Array(2 * calls);
    this.#attemptState = new Uint8Array(2 * calls);
    this.#attemptsOf = new Int32Array(2 * calls).fill(-1);
    let t = 0;
    for (let c = 0; c < calls; c++) {
      t += -Math.log(1 - rng.next()) * (RUN_MS / calls);
      this.callStart[c] = t;
      this.callInstance[c] = Math.floor(rng.next() * trouble.instances);
      this.q.push(t, c, CALL);
    }
  }

  #service(at: number): number {
    const { rng } = this;
    const u = 1 - rng.next(); // a standard normal, Box-Muller
    const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
    const base = MEDIAN_MS * Math.exp(SIGMA * normal);
    const slow = rng.next() < this.#trouble.slowShare ? this.#trouble.slowFactor : 1;
    return base * slow * (this.#trouble.slowdown && slowing(at) ? SLOWDOWN : 1);
  }

  /** Sends an attempt of call `c` at `at` (at most two a call). */
  send(c: number, at: number): void {
    const a = this.attempts++;
    this.attemptCall[a] = c;
    this.attemptSent[a] = at;
    this.#attemptsOf[2 * c + (this.#attemptsOf[2 * c] === -1 ? 0 : 1)] = a;
    this.q.push(at + HOP_MS, a, AT_SERVER);
  }

  #startNext(at: number): void {
    while (this.#busy < WORKERS && this.#head < this.#waiting.length) {
      const a = this.#waiting[this.#head++] as number;
      if (this.#attemptState[a] === 2) continue; // cancelled while queued
      this.#busy++;
      this.q.push(at + this.#service(at), a, SERVED);
    }
  }

  /**
   * Handles an event of the server's own (`AT_SERVER`, `SERVED`, `ANSWER`); for an `ANSWER` that answers its call,
   * records the call's latency, cancels its other attempt if still queued, and returns the call (else -1).
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
      this.q.push(time + HOP_MS, attempt, ANSWER);
      this.#startNext(time);
      return -1;
    }
    if (this.callDone[c]) return -1;
    this.callDone[c] = 1;
    this.latency[c] = time - (this.callStart[c] as number);
    for (const k of [0, 1]) {
      const other = this.#attemptsOf[2 * c + k] as number;
      if (other >= 0 && other !== attempt && this.#attemptState[other] === 0) this.#attemptState[other] = 2;
    }
    return c;
  }

  /** The calls' latency percentiles, in ms. */
  percentiles(): { p50: number; p95: number; p99: number; p999: number } {
    const sorted = Array.from(this.latency).sort((x, y) => x - y);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
    return { p50: at(0.5), p95: at(0.95), p99: at(0.99), p999: at(0.999) };
  }
}
