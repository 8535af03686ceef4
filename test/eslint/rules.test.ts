import { Linter, RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import herdless from '../../src/eslint/index';
import type { RuleName } from '../../src/eslint/plugin';
import { cycles } from './cycles';
import { libraries } from './libraries';
import { methods } from './methods';
import { retired } from './retired';
import { samples as own, type Sample } from './samples';
import { unseen } from './unseen';

// The look-alike and retry samples, the cross-function cycles of real SDKs and drivers (issue 22), and the cycles
// through prototype, object-literal and option-handler methods (issue 29), the shapes of the grown dev half and of the
// retired eval half.
const samples: readonly Sample[] = [...own, ...cycles, ...methods, ...unseen, ...retired, ...libraries];

// ESLint's own RuleTester, reporting through vitest.
RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const ruleTester = new RuleTester();

function options(sample: Sample) {
  const ts = sample.lang === 'ts' || sample.lang === 'tsx';
  return {
    filename: `sample.${sample.lang ?? 'mjs'}`,
    languageOptions: {
      ecmaVersion: 'latest' as const,
      sourceType: sample.lang === 'cjs' ? ('commonjs' as const) : ('module' as const),
      ...(ts ? { parser: tseslint.parser } : {}),
      parserOptions: { ecmaFeatures: { jsx: sample.lang === 'jsx' || sample.lang === 'tsx' } },
    },
  };
}

/** The lines of the `// <-` marks: where the reports on the sample go (one per marked retry). */
function markedLines(sample: Sample): number[] {
  const lines = sample.code.split('\n').flatMap((l, i) => (l.includes('// <-') ? [i + 1] : []));
  if (lines.length === 0)
    throw new Error(`sample '${sample.name}' finds ${sample.finds.join(', ')} but has no // <- mark`);
  return lines;
}

const names = Object.keys(herdless.rules) as RuleName[];

for (const rule of names) {
  ruleTester.run(rule, herdless.rules[rule], {
    valid: samples.filter((s) => !s.finds.includes(rule)).map((s) => ({ name: s.name, code: s.code, ...options(s) })),
    invalid: samples
      .filter((s) => s.finds.includes(rule))
      .map((s) => ({
        name: s.name,
        code: s.code,
        ...options(s),
        errors: markedLines(s).map((line) => ({ messageId: rule, line })),
      })),
  });
}

describe('the samples', () => {
  it('give every rule valid and invalid cases, in JS, TS, TSX, JSX and CJS', () => {
    for (const rule of names) {
      expect(samples.filter((s) => s.finds.includes(rule)).length).toBeGreaterThanOrEqual(3);
      expect(samples.filter((s) => !s.finds.includes(rule)).length).toBeGreaterThanOrEqual(3);
    }
    expect(new Set(samples.map((s) => s.lang ?? 'mjs'))).toEqual(new Set(['mjs', 'ts', 'tsx', 'jsx', 'cjs']));
  });

  it('mark a line exactly when some rule reports', () => {
    for (const s of samples) expect(s.code.includes('// <-'), s.name).toBe(s.finds.length > 0);
  });
});

describe('the plugin object', () => {
  it('has meta, exactly the four rules, and a recommended flat config that registers itself', () => {
    expect(herdless.meta.name).toBe('herdless/eslint');
    expect(names.sort()).toEqual([
      'no-immediate-retry',
      'require-jitter',
      'require-retry-limit',
      'require-transient-check',
    ]);
    const recommended = herdless.configs.recommended;
    expect(recommended.plugins?.herdless).toBe(herdless);
    expect(recommended.rules).toEqual(Object.fromEntries(names.map((n) => [`herdless/${n}`, 'error'])));
    for (const n of names) expect(herdless.rules[n].meta?.docs?.description).toMatch(/./);
  });
});

describe('what a report says it took by name', () => {
  const messagesOf = (code: string) => {
    const linter = new Linter();
    return linter
      .verify(code, [
        {
          plugins: { herdless },
          rules: herdless.configs.recommended.rules,
          languageOptions: { ecmaVersion: 'latest', sourceType: 'module' },
        },
      ])
      .map((m) => `${m.ruleId} ${m.message}`);
  };
  const suffix = ' (assumed, its code out of reach: ';

  it('names a limit and a wait accepted by name, and nothing when all is in reach', () => {
    const byName = messagesOf(`
async function call(f) {
  for (;;) {
    try {
      return await f();
    } catch (e) {
      if (pastDeadline()) throw e;
      await backoff(1000);
    }
  }
}`);
    expect(byName).toEqual([
      expect.stringMatching(
        /^herdless\/require-jitter .*\(assumed, its code out of reach: backoff\(\) a wait by its name; pastDeadline\(\) a limit by its name\)$/,
      ),
      expect.stringMatching(/^herdless\/require-transient-check .*pastDeadline\(\) a limit by its name\)$/),
    ]);
    const inReach = messagesOf(`
async function call(f) {
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      return await f();
    } catch (e) {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}`);
    expect(inReach).toHaveLength(2);
    for (const m of inReach) expect(m).not.toContain(suffix);
  });

  it('names a count handed to code out of reach taken as its limit', () => {
    const sample = cycles.find((c) => c.name.includes('handed to a retry policy out of reach')) as Sample;
    expect(messagesOf(sample.code)).toEqual([
      expect.stringMatching(
        /^herdless\/no-immediate-retry .* \(assumed, its code out of reach: this\.retryCount handed to code out of reach, taken as its limit\)$/,
      ),
    ]);
  });

  it('names an imported timer class taken as the wait of a reconnect', () => {
    const reports = messagesOf(`
import Timer from './timer';
export class Socket {
  constructor(opts) {
    this.reconnectTimer = new Timer(() => this.connect(), opts.reconnectAfterMs);
  }
  connect() {
    this.conn = new WebSocket(this.url);
  }
  onConnClose(event) {
    this.reconnectTimer.scheduleTimeout();
  }
}`);
    expect(reports.map((r) => r.split(' ')[0])).toEqual([
      'herdless/require-retry-limit',
      'herdless/require-transient-check',
    ]);
    for (const r of reports) expect(r).toContain(`${suffix}an imported timer class a wait by its name)`);
  });
});
