import type { FetchInput } from '../http/fetch';
import { nearest } from '../nearest';
import { fail, finite, onlyKnown, optionalFn, or } from '../validate';

/** How the dependency fails a request during the outage. */
export type OutageFailure = 'status' | 'reset' | 'hang';

/** What the dependency does with a request over its capacity. */
export type Overflow = 'shed' | 'queue';

/** A span of virtual time during which the dependency answers `factor` times slower. */
export interface Slowdown {
  /** When it begins, in ms from the start. */
  readonly fromMs: number;
  /** When it ends, in ms from the start. */
  readonly toMs: number;
  /** How many times slower: the latency of a request arriving in the span is multiplied by it (>= 1). */
  readonly factor: number;
}

/**
 * A long tail: a share of the dependency's answers take `factor` times longer (a GC pause, a slow disk: a property of
 * the request, so a second request is likely fast). What a hedge is for (herdless/hedge).
 */
export interface Tail {
  /** The share of answers in the slow mode, in [0, 1]. */
  readonly share: number;
  /** How many times longer they take (>= 1). */
  readonly factor: number;
}

/** What each caller's function gets: how to reach the simulated dependency. */
export interface HerdContext {
  /** The dependency's base URL, `http://dependency.herd.test/` by default: global fetch, axios and got reach it. */
  readonly url: string;
  /** A fetch that reaches the dependency directly, without interception (the fastest way in). */
  readonly fetch: (input: FetchInput, init?: RequestInit) => Promise<Response>;
  /** This caller's index, 0 to `clients - 1`. */
  readonly client: number;
}

/** The code under test: one call, with its retries, made by each caller once. */
export type HerdCall = (context: HerdContext) => unknown;

/** {@link herd}'s options; every field but the call is optional. */
export interface HerdOptions {
  /** A name for the code under test, the row's `strategy` in the report. Default: the function's name, else `'code'`. */
  readonly name?: string | undefined;
  /** Concurrent callers, each making one call of `call`. Default 200; at most 100,000 (a RangeError naming it past that). */
  readonly clients?: number | undefined;
  /** The callers' first calls are spread uniformly over this window, in ms. Default 0: all start together. */
  readonly startWindowMs?: number | undefined;
  /** The dependency fails every request arriving before this time, in ms. Default 1,000. */
  readonly outageMs?: number | undefined;
  /** How it fails them: `'status'` (a 503, default), `'reset'` (ECONNRESET) or `'hang'` (no answer; see `hangMs`). */
  readonly outageFailure?: OutageFailure | undefined;
  /** A request that hangs is reset after this long, in ms, unless its caller gave up first. Default 30,000. */
  readonly hangMs?: number | undefined;
  /** After the outage the dependency serves this many requests per `capacityWindowMs`. Default 20. */
  readonly capacity?: number | undefined;
  /** The window `capacity` counts in, in ms; also the width of a load bucket in the report. Default 100. */
  readonly capacityWindowMs?: number | undefined;
  /** Beyond capacity: `'shed'` answers 503 at once (default); `'queue'` serves it in the next window with room. */
  readonly overflow?: Overflow | undefined;
  /** After the outage, the share of served requests that fail with a 503 anyway, in [0, 1]. Default 0. */
  readonly failureRate?: number | undefined;
  /** A span with slower answers. Default: none. */
  readonly slowdown?: Slowdown | undefined;
  /** A long tail: `{ share: 0.01, factor: 25 }` makes 1% of answers 25 times slower. Default: none. */
  readonly tail?: Tail | undefined;
  /** The dependency answers |Normal(latencyMs, latencyMs / 5)| ms after a request arrives. Default 20. */
  readonly latencyMs?: number | undefined;
  /**
   * The wait the dependency names during the outage, in ms: it answers 429 with this `Retry-After` instead of 503.
   * Default 0: no Retry-After.
   */
  readonly retryAfterMs?: number | undefined;
  /** The run ends here, in virtual ms: callers still running are counted as given up (`'unfinished'`). Default 120,000. */
  readonly untilMs?: number | undefined;
  /**
   * Intercept global `fetch` and `node:http`/`https` (axios, got) for requests to `url` (needs the optional peer
   * `@mswjs/interceptors` 0.41). Default `true`; `false` when the code only uses the context's `fetch`.
   */
  readonly intercept?: boolean | undefined;
  /** Replace `Math.random` with the seeded generator during the run, so jittered code repeats. Default `true`. */
  readonly seedRandom?: boolean | undefined;
  /** The dependency's base URL. Default `'http://dependency.herd.test/'`. */
  readonly url?: string | undefined;
  /**
   * Whether a call's result counts as a success. Default: a `status`/`statusCode` in 200-399, else any value. One
   * that throws fails that call: a give-up, `'isSuccess threw <name>'` in `gaveUpWith`; one that returns a promise (an
   * async judge) fails it too, `'isSuccess returned a promise'`: it must answer at once.
   */
  readonly isSuccess?: ((value: unknown) => boolean) | undefined;
  /** The seed: the same seed gives the same report for the same code. Default 1. */
  readonly seed?: number | undefined;
}

/** The settings a run used, defaults filled in: `settings` in the report. */
export interface HerdSettings {
  readonly clients: number;
  readonly startWindowMs: number;
  readonly outageMs: number;
  readonly outageFailure: OutageFailure;
  readonly hangMs: number;
  readonly capacity: number;
  readonly capacityWindowMs: number;
  readonly overflow: Overflow;
  readonly failureRate: number;
  readonly slowdown: Slowdown | null;
  readonly tail: Tail | null;
  readonly latencyMs: number;
  readonly retryAfterMs: number;
  readonly untilMs: number;
  readonly intercept: boolean;
  readonly seedRandom: boolean;
  readonly url: string;
  readonly seed: number;
}

const KNOWN = new Set([
  'name',
  'clients',
  'startWindowMs',
  'outageMs',
  'outageFailure',
  'hangMs',
  'capacity',
  'capacityWindowMs',
  'overflow',
  'failureRate',
  'slowdown',
  'tail',
  'latencyMs',
  'retryAfterMs',
  'untilMs',
  'intercept',
  'seedRandom',
  'url',
  'isSuccess',
  'seed',
]);

function oneOf<T extends string>(name: string, value: T | undefined, allowed: readonly T[], fallback: T): T {
  const v = or(value, fallback);
  if (!allowed.includes(v)) fail(TypeError, name, `one of ${allowed.map((a) => `'${a}'`).join(', ')}`, v);
  return v;
}

function flag(name: string, value: boolean | undefined, fallback: boolean): boolean {
  const v = or(value, fallback);
  if (typeof v !== 'boolean') fail(TypeError, name, 'true or false', v);
  return v;
}

/**
 * The most callers a herd runs: each is a call of your code with its own promises and timers, so 100,000 take about
 * 10 s on one core with a plain fetch (more with retries); past it a run would seem to hang, or fail in an allocation.
 */
export const MAX_CLIENTS = 100_000;

function integer(name: string, value: number | undefined, fallback: number, min: number, max = Infinity): number {
  const rule = max === Infinity ? `an integer >= ${min}` : `an integer from ${min} to ${max.toLocaleString('en')}`;
  const v = finite(name, or(value, fallback), min, rule);
  if (!Number.isInteger(v) || v > max) fail(RangeError, name, rule, v);
  return v;
}

function slowdownOf(value: Slowdown | undefined): Slowdown | null {
  if (value === undefined) return null;
  if (typeof value !== 'object' || value === null) fail(TypeError, 'slowdown', '{ fromMs, toMs, factor }', value);
  onlyKnown(value, new Set(['fromMs', 'toMs', 'factor']), 'slowdown');
  const fromMs = finite('slowdown.fromMs', value.fromMs, 0);
  const toMs = finite('slowdown.toMs', value.toMs, fromMs, `a finite number >= slowdown.fromMs (${fromMs})`);
  const factor = finite('slowdown.factor', value.factor, 1);
  return { fromMs, toMs, factor };
}

function tailOf(value: Tail | undefined): Tail | null {
  if (value === undefined) return null;
  if (typeof value !== 'object' || value === null) fail(TypeError, 'tail', '{ share, factor }', value);
  onlyKnown(value, new Set(['share', 'factor']), 'tail');
  const share = finite('tail.share', value.share, 0, 'a number in [0, 1]');
  if (share > 1) fail(RangeError, 'tail.share', 'a number in [0, 1]', share);
  return { share, factor: finite('tail.factor', value.factor, 1) };
}

function urlOf(value: string | undefined): string {
  const v = or(value, 'http://dependency.herd.test/');
  let parsed: URL | undefined;
  try {
    parsed = typeof v === 'string' ? new URL(v) : undefined;
  } catch {}
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    fail(TypeError, 'url', 'an absolute http: or https: URL', v);
  return parsed.href;
}

/** Checks {@link HerdOptions} into settings: a TypeError or RangeError naming the first bad option. */
export function resolveOptions(options: HerdOptions): {
  settings: HerdSettings;
  name: string | undefined;
  isSuccess: (value: unknown) => boolean;
} {
  if (typeof options !== 'object' || options === null) fail(TypeError, 'herd options', 'an object', options);
  onlyKnown(options, KNOWN, 'herd', (key) => nearest(key, KNOWN));
  const name = options.name;
  if (name !== undefined && (typeof name !== 'string' || name === ''))
    fail(TypeError, 'name', 'a non-empty string', name);
  const capacityWindowMs = finite('capacityWindowMs', or(options.capacityWindowMs, 100), 1);
  const outageMs = finite('outageMs', or(options.outageMs, 1_000), 0);
  const settings: HerdSettings = {
    clients: integer('clients', options.clients, 200, 1, MAX_CLIENTS),
    startWindowMs: finite('startWindowMs', or(options.startWindowMs, 0), 0),
    outageMs,
    outageFailure: oneOf('outageFailure', options.outageFailure, ['status', 'reset', 'hang'], 'status'),
    hangMs: finite('hangMs', or(options.hangMs, 30_000), 0),
    capacity: integer('capacity', options.capacity, 20, 1),
    capacityWindowMs,
    overflow: oneOf('overflow', options.overflow, ['shed', 'queue'], 'shed'),
    failureRate: finite('failureRate', or(options.failureRate, 0), 0, 'a number in [0, 1]'),
    slowdown: slowdownOf(options.slowdown),
    tail: tailOf(options.tail),
    latencyMs: finite('latencyMs', or(options.latencyMs, 20), 0),
    retryAfterMs: finite('retryAfterMs', or(options.retryAfterMs, 0), 0),
    untilMs: finite('untilMs', or(options.untilMs, 120_000), outageMs, `a finite number >= outageMs (${outageMs})`),
    intercept: flag('intercept', options.intercept, true),
    seedRandom: flag('seedRandom', options.seedRandom, true),
    url: urlOf(options.url),
    seed: integer('seed', options.seed, 1, 0),
  };
  if (settings.failureRate > 1) fail(RangeError, 'failureRate', 'a number in [0, 1]', settings.failureRate);
  return { settings, name, isSuccess: optionalFn('isSuccess', options.isSuccess) ?? isSuccessful };
}

/** The default judge of a call's result: a `status` or `statusCode` (fetch, axios, got) in 200-399, else any value. */
export function isSuccessful(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  const { status, statusCode } = value as { status?: unknown; statusCode?: unknown };
  const code = typeof status === 'number' ? status : typeof statusCode === 'number' ? statusCode : undefined;
  return code === undefined || (code >= 200 && code < 400);
}
