/**
 * `herdless/eslint`: the ESLint plugin (flat config, ESLint 9+) that finds hand-written retry loops lacking a wait,
 * jitter, a limit or a transient-error check. It uses the AST ESLint hands it, and reads a file of the package this
 * one imports a function from with ESLint's own parser: no runtime dependency.
 *
 * @example
 * ```js
 * // eslint.config.js
 * import herdless from 'herdless/eslint';
 * export default [herdless.configs.recommended];
 * ```
 */
import type { ESLint, Linter, Rule } from 'eslint';
import { noImmediateRetry } from './no-immediate-retry';
import { requireJitter } from './require-jitter';
import { requireRetryLimit } from './require-retry-limit';
import { requireTransientCheck } from './require-transient-check';

/** The four rules, by id (without the `herdless/` prefix). */
export const rules: Readonly<Record<RuleName, Rule.RuleModule>> = {
  'no-immediate-retry': noImmediateRetry,
  'require-jitter': requireJitter,
  'require-retry-limit': requireRetryLimit,
  'require-transient-check': requireTransientCheck,
};

/** The rule ids, without the `herdless/` prefix. */
export type RuleName = 'no-immediate-retry' | 'require-jitter' | 'require-retry-limit' | 'require-transient-check';

/** The plugin object: `{ meta, rules, configs: { recommended } }`. */
export interface HerdlessPlugin extends ESLint.Plugin {
  readonly meta: { readonly name: 'herdless/eslint'; readonly version: string };
  readonly rules: Readonly<Record<RuleName, Rule.RuleModule>>;
  /** `recommended`: the four rules as errors, with this plugin registered as `herdless`. */
  readonly configs: { readonly recommended: Linter.Config };
}

const recommended: Linter.Config = {
  name: 'herdless/recommended',
  plugins: {},
  rules: Object.fromEntries(Object.keys(rules).map((name) => [`herdless/${name}`, 'error'])),
};

/** The plugin's name and version (also exported on their own, as `rules` is). */
export const meta: HerdlessPlugin['meta'] = { name: 'herdless/eslint', version: '0.1.0' };

/**
 * The configs, `recommended` among them. Exported on their own too, so that CommonJS's
 * `require('herdless/eslint').configs.recommended` works as the default export's does.
 */
export const configs: HerdlessPlugin['configs'] = { recommended };

/** The plugin. Default export of `herdless/eslint`. */
export const plugin: HerdlessPlugin = { meta, rules, configs };
(recommended.plugins as Record<string, ESLint.Plugin>).herdless = plugin;
