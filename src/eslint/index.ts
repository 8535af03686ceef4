/**
 * The ESLint plugin: four rules that find hand-written retry loops.
 *
 * @module herdless/eslint
 */
export { configs, type HerdlessPlugin, meta, plugin as default, type RuleName, rules } from './plugin';
