export { type HerdlessPlugin, plugin as default, type RuleName, rules } from './plugin';
