/**
 * The herd on virtual time: the outage, overload, contention, explore and hedge scenarios, and their charts.
 *
 * @module herdless/simulate
 */
export { type ChartOptions, formatMs, type LoadSeries, svgChart, terminalChart } from './chart';
export { type ContentionOptions, type ContentionPoint, type ContentionResult, simulateContention } from './contention';
export {
  drawCell,
  EXPLORE_RANGES,
  EXPLORE_STRATEGIES,
  type ExploreCell,
  type ExploreOptions,
  type ExploreResult,
  type ExploreVerdict,
  exploreSummary,
  exploreVerdicts,
  simulateExplore,
  TROUBLE_KINDS,
  type TroubleKind,
} from './explore';
export {
  HEDGE_STRATEGIES,
  type HedgeFigures,
  type HedgeResult,
  type HedgeScenarioOptions,
  type HedgeStrategy,
  simulateHedge,
} from './hedge';
export {
  MATRIX_STRATEGIES,
  MATRIX_TROUBLES,
  type MatrixCell,
  type MatrixFigures,
  type MatrixOptions,
  type MatrixResult,
  type MatrixTrouble,
  type MatrixVerdict,
  matrixSvg,
  matrixTable,
  matrixVerdicts,
  simulateMatrix,
  troubleName,
} from './matrix';
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
  PARTIAL_STRATEGIES,
  type PartialOptions,
  simulateOverload,
  simulatePartial,
} from './overload';
export { contentionTable, outageTable, overloadTable, table } from './report';
export type { RetryAfterRule } from './retries';
export { OutageServer } from './server';
export {
  PRESETS,
  type PresetName,
  type Protection,
  type ResolvedStrategy,
  resolveStrategy,
  type SimulatedHedge,
  STRATEGIES,
  type Strategy,
  type StrategyName,
} from './strategies';
