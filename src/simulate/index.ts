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
export { contentionTable, outageTable, table } from './report';
export type { RetryAfterRule } from './retries';
export { OutageServer } from './server';
export { resolveStrategy, STRATEGIES, type Strategy, type StrategyName } from './strategies';
