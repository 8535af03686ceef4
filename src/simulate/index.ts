/**
 * The herd on virtual time: the outage, overload and contention scenarios, and their charts.
 *
 * @module herdless/simulate
 */
export { type ChartOptions, formatMs, type LoadSeries, svgChart, terminalChart } from './chart';
export { type ContentionOptions, type ContentionPoint, type ContentionResult, simulateContention } from './contention';
export {
  type OutageCounts,
  type OutageFigures,
  type OutageOptions,
  type OutageResult,
  percentile,
  simulateOutage,
  summarize,
} from './outage';
export {
  OVERLOAD_STRATEGIES,
  type OverloadFigures,
  type OverloadOptions,
  type OverloadResult,
  simulateOverload,
} from './overload';
export { contentionTable, outageTable, overloadTable, table } from './report';
export type { RetryAfterRule } from './retries';
export { OutageServer } from './server';
export {
  type Protection,
  type ResolvedStrategy,
  resolveStrategy,
  STRATEGIES,
  type Strategy,
  type StrategyName,
} from './strategies';
