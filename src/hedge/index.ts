/**
 * Hedging for `retry()` and `retryingFetch`: a second attempt for a slow one, bounded by a cap on extra load and by the
 * retry budget. A subpath of its own, so that `{ retry }` carries none of it.
 *
 * @module herdless/hedge
 */
export { type HedgedFetchOptions, hedgedFetch, isHedgeable } from './fetch';
export { createHedge, type Hedge, type HedgeDecision } from './hedge';
export type { HedgeEvent, HedgeOptions, HedgeRefusal, HedgeSettings } from './options';
export { type HedgeContext, hedged } from './race';
