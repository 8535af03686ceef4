/**
 * The herd harness: runs your own retrying code (a hand-written loop, p-retry, axios or got, a vendor SDK, herdless)
 * as a fleet of callers against a dependency that fails them together, on virtual time, and reports the load it
 * sends. `@sinonjs/fake-timers` and `@mswjs/interceptors` are optional peers that only `herd()` loads.
 *
 * @module herdless/testing
 */
export { assertNoHerd, HerdAssertionError, herdProblems, type NoHerdOptions } from './assert';
export { herd } from './herd';
export { herdMatchers } from './matchers';
export type {
  HerdCall,
  HerdContext,
  HerdOptions,
  HerdSettings,
  OutageFailure,
  Overflow,
  Slowdown,
  Tail,
} from './options';
export { formatHerd, type HerdFigures, type HerdReport, herdChart, herdSvg } from './report';
