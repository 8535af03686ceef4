// The dual-package hazard, on the real builds: an app whose code imports herdless (ESM) while a dependency
// requires it (CJS) loads two copies. A RetryError or a permanent() wrapper from one must be recognised by the other.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Herdless = typeof import('../src/index');

describe('ESM and CJS builds loaded side by side', () => {
  let dir = '';
  let esm: Herdless;
  let cjs: Herdless;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'herdless-dual-'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    const entry = { index: join(import.meta.dirname, '..', 'src', 'index.ts') };
    await build({ entry, format: ['esm', 'cjs'], outDir: join(dir, 'dist'), dts: false, silent: true, config: false });
    esm = (await import(pathToFileURL(join(dir, 'dist', 'index.js')).href)) as Herdless;
    cjs = createRequire(import.meta.url)(join(dir, 'dist', 'index.cjs')) as Herdless;
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are two copies', () => {
    expect(esm.RetryError).not.toBe(cjs.RetryError);
  });

  it('instanceof RetryError holds across them, both ways, for a real give-up', async () => {
    const fromCjs = await cjs.retry(() => Promise.reject(new Error('x')), { maxAttempts: 1 }).catch((e: unknown) => e);
    const fromEsm = await esm.retry(() => Promise.reject(new Error('x')), { maxAttempts: 1 }).catch((e: unknown) => e);
    expect(fromCjs).toBeInstanceOf(esm.RetryError);
    expect(fromEsm).toBeInstanceOf(cjs.RetryError);
    expect(new Error('x') instanceof esm.RetryError).toBe(false);
  });

  it('prints as RetryError in both builds (not a bundler-renamed _RetryError)', async () => {
    const { inspect } = await import('node:util');
    for (const lib of [esm, cjs]) {
      const error = new lib.RetryError({ reason: 'attempts', errors: [new Error('x')], attempts: 1, elapsedMs: 0 });
      expect(inspect(error)).toMatch(/^RetryError: gave up after 1 attempt/);
    }
  });

  it('a RetryError from one copy is permanent for the other default classifier', () => {
    const error = new cjs.RetryError({ reason: 'attempts', errors: [new Error('x')], attempts: 1, elapsedMs: 0 });
    expect(esm.isTransient(error)).toBe(false);
  });

  it('permanent() from one copy stops the other retry with the error itself', async () => {
    const err = Object.assign(new Error('gone'), { status: 503 });
    let calls = 0;
    const outcome = await esm
      .retry(() => {
        calls++;
        throw cjs.permanent(err);
      })
      .catch((e: unknown) => e);
    expect(outcome).toBe(err);
    expect(calls).toBe(1);
  });

  it('instanceof CircuitOpenError holds across them, both ways, for an open breaker and a rejected call', async () => {
    expect(esm.CircuitOpenError).not.toBe(cjs.CircuitOpenError);
    for (const [from, to] of [
      [cjs, esm],
      [esm, cjs],
    ] as const) {
      const breaker = from.createCircuitBreaker();
      expect(breaker.admit()).not.toBeInstanceOf(to.CircuitOpenError); // a permit is not one
      breaker.isolate();
      expect(breaker.admit()).toBeInstanceOf(to.CircuitOpenError);
      const rejected = await from.retry(() => 'never', { breaker }).catch((e: unknown) => e);
      expect(rejected).toBeInstanceOf(to.CircuitOpenError);
      expect(to.isTransient(rejected)).toBe(false);
    }
    expect(new Error('x') instanceof esm.CircuitOpenError).toBe(false);
    expect({ name: 'CircuitOpenError' } instanceof cjs.CircuitOpenError).toBe(false);
  });

  it("the documented by-hand guard, with the other build's class, fails fast instead of running the work", async () => {
    const breaker = cjs.createCircuitBreaker(); // made by a dependency that requires herdless
    breaker.isolate();
    const { CircuitOpenError } = esm; // the app's import
    let ran = 0;
    const guarded = async () => {
      const permit = breaker.admit();
      if (permit instanceof CircuitOpenError) throw permit;
      try {
        const value = await Promise.resolve(++ran);
        permit.recordSuccess(); // before: not a function (nor recordFailure, below), after running the work
        return value;
      } catch (error) {
        permit.recordFailure();
        throw error;
      }
    };
    await expect(guarded()).rejects.toMatchObject({ name: 'CircuitOpenError', remainingMs: Number.POSITIVE_INFINITY });
    expect(ran).toBe(0);
  });

  it('CircuitOpenError: subclasses check as usual; prints as CircuitOpenError in both builds', async () => {
    const { inspect } = await import('node:util');
    for (const lib of [esm, cjs]) {
      class Mine extends lib.CircuitOpenError {}
      expect(new Mine(1)).toBeInstanceOf(Mine);
      expect(new Mine(1)).toBeInstanceOf(esm.CircuitOpenError);
      expect(new lib.CircuitOpenError(1) instanceof Mine).toBe(false);
      expect(inspect(new lib.CircuitOpenError(1))).toMatch(/^CircuitOpenError: herdless: circuit open/);
      expect(Object.keys(new lib.CircuitOpenError(1))).toEqual(['name', 'remainingMs']); // the brand is not own
    }
  });

  it("a breaker passed as the other build's budget, or a budget as its breaker, is a TypeError naming the option", async () => {
    for (const [from, to] of [
      [cjs, esm],
      [esm, cjs],
    ] as const) {
      await expect(to.retry(() => 1, { budget: from.createCircuitBreaker() as never })).rejects.toThrow(
        /^herdless: budget must be a RetryBudget \(createRetryBudget\(\)\), not the breaker/,
      );
      await expect(to.retry(() => 1, { breaker: from.createRetryBudget() as never })).rejects.toThrow(
        /^herdless: breaker must be a CircuitBreaker \(createCircuitBreaker\(\)\), not the budget/,
      );
      const policy = { budget: from.createRetryBudget(), breaker: from.createCircuitBreaker() };
      await expect(to.retry(() => 1, policy)).resolves.toBe(1); // each in its place: accepted
      expect(Object.keys(policy.budget)).toEqual([]); // the brand is not own
    }
  });
});

describe('herdless/eslint from CommonJS', () => {
  // New-user review: `require('herdless/eslint').configs.recommended` threw "Cannot read properties of undefined
  // (reading 'recommended')": the CJS build holds the plugin under `.default` only.
  it('require() gives the configs, rules and meta of the default export', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herdless-eslint-cjs-'));
    try {
      const entry = { eslint: join(import.meta.dirname, '..', 'src', 'eslint', 'index.ts') };
      await build({ entry, format: ['cjs'], outDir: dir, dts: false, silent: true, config: false });
      const cjs = createRequire(import.meta.url)(join(dir, 'eslint.cjs'));
      expect(cjs.configs.recommended).toBe(cjs.default.configs.recommended);
      expect(cjs.configs.recommended.plugins.herdless).toBe(cjs.default);
      expect(cjs.rules).toBe(cjs.default.rules);
      expect(cjs.meta).toEqual({ name: 'herdless/eslint', version: '0.1.0' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
