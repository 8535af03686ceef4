import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, expect, it } from 'vitest';
import herdless from '../../src/eslint/index';

// A retry whose wait, limit and check live in another file of its package (issue 29; gaxios's _request and its
// retry.js): the imported function is read in its own file (src/eslint/imports.ts).
const dir = mkdtempSync(join(tmpdir(), 'herdless-imports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function lint(name: string, code: string, sourceType: 'commonjs' | 'module'): string[] {
  writeFileSync(join(dir, name), code);
  return new Linter({ cwd: dir })
    .verify(
      code,
      [
        {
          files: ['**/*.js', '**/*.mjs', '**/*.ts'],
          plugins: { herdless },
          rules: herdless.configs.recommended.rules,
          languageOptions: {
            ecmaVersion: 'latest',
            sourceType,
            ...(name.endsWith('.ts') ? { parser: tseslint.parser } : {}),
          },
        },
      ],
      join(dir, name),
    )
    .map((m) => `${m.line} ${m.ruleId}`);
}

const retryJs = `
"use strict";
exports.getRetryConfig = getRetryConfig;
async function getRetryConfig(err) {
  const config = err.config.retryConfig || { currentRetryAttempt: 0, retry: 3 };
  const shouldRetryFn = config.shouldRetry || shouldRetryRequest;
  if (!shouldRetryFn(err)) return { shouldRetry: false };
  const delay = ((Math.pow(2, config.currentRetryAttempt) - 1) / 2) * 1000;
  config.currentRetryAttempt += 1;
  await new Promise((resolve) => setTimeout(resolve, delay));
  return { shouldRetry: true, config };
}
function shouldRetryRequest(err) {
  const config = err.config.retryConfig;
  if (err.response && err.response.status < 500) return false;
  if (config.currentRetryAttempt >= config.retry) return false;
  return true;
}
`;

const clientJs = (from: string) => `
"use strict";
const dynamic = require(process.env.PLUGIN);
const retry_js_1 = require("${from}");
class Client {
  async _request(opts) {
    try {
      return await this.adapter(opts);
    } catch (err) {
      const { shouldRetry } = await (0, retry_js_1.getRetryConfig)(err);
      if (shouldRetry) return this._request(opts);
      throw err;
    }
  }
}
module.exports = Client;
`;

describe('a retry whose wait, limit and check are in another file of the package', () => {
  it('reads the imported helper in its file: a fixed wait there, a limit and a check', () => {
    writeFileSync(join(dir, 'retry.js'), retryJs);
    expect(lint('client.js', clientJs('./retry.js'), 'commonjs')).toEqual(['6 herdless/require-jitter']);
    // the specifier without its extension, as Node resolves it
    expect(lint('client2.js', clientJs('./retry'), 'commonjs')).toEqual(['6 herdless/require-jitter']);
  });

  it('reads an ES import of a named function, whose wait is randomised there', () => {
    writeFileSync(
      join(dir, 'wait.mjs'),
      `export async function pause(err, n) {
  if (err.status < 500 || n > 5) throw err;
  await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** n * Math.random()));
}`,
    );
    const code = `import { pause } from './wait.mjs';
export async function send(body, n = 0) {
  try {
    return await post(body);
  } catch (err) {
    await pause(err, n);
    return send(body, n + 1);
  }
}`;
    expect(lint('send.mjs', code, 'module')).toEqual([]);
  });

  it('reads a TypeScript file with the TypeScript parser, and two helpers of the way back together', () => {
    writeFileSync(
      join(dir, 'limits.ts'),
      `export function exhausted(state: { n: number; max: number }): boolean {
  state.n += 1;
  return state.n > state.max;
}`,
    );
    writeFileSync(
      join(dir, 'waits.ts'),
      `export async function backoff(n: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 2 ** n * 100));
}`,
    );
    const code = `import { exhausted } from './limits.js';
import { backoff } from './waits';
export async function load(url: string, state: { n: number; max: number }): Promise<Response> {
  try {
    return await fetch(url);
  } catch (err) {
    if (exhausted(state)) throw err;
    await backoff(state.n);
    return load(url, state);
  }
}`;
    expect(lint('load.ts', code, 'module')).toEqual([
      '3 herdless/require-jitter',
      '3 herdless/require-transient-check',
    ]);
  });

  it('leaves out what it cannot find or parse: a missing file, a package, a function not there, a broken file', () => {
    writeFileSync(join(dir, 'broken.js'), 'exports.getRetryConfig = function (');
    for (const from of ['./missing.js', 'some-package', './broken.js']) {
      expect(lint(`c-${from.replace(/\W/g, '')}.js`, clientJs(from), 'commonjs')).toEqual([
        '6 herdless/no-immediate-retry',
        '6 herdless/require-retry-limit',
      ]);
    }
    // read once: the broken file again, from another importer
    expect(lint('c-broken2.js', clientJs('./broken.js'), 'commonjs')).toHaveLength(2);
    // code ESLint lints with no file name (an editor's buffer): nothing is read from disk
    const buffer = new Linter().verify(clientJs('./retry.js'), [
      { plugins: { herdless }, rules: herdless.configs.recommended.rules, languageOptions: { sourceType: 'commonjs' } },
    ]);
    expect(buffer.map((m) => m.ruleId)).toEqual(['herdless/no-immediate-retry', 'herdless/require-retry-limit']);
    writeFileSync(
      join(dir, 'other.js'),
      'const name = "x";\nconst dynamic = require(name);\nexports.somethingElse = function () {};',
    );
    expect(lint('c-other.js', clientJs('./other.js'), 'commonjs')).toEqual([
      '6 herdless/no-immediate-retry',
      '6 herdless/require-retry-limit',
    ]);
  });
});
