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
} from './options';
export { formatHerd, type HerdFigures, type HerdReport, herdChart, herdSvg } from './report';
