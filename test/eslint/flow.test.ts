import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { calleeName, children, type Node, nameOf, refKey, type VisitorKeys } from '../../src/eslint/ast';
import { completions, after as following, sequence } from '../../src/eslint/flow';
import { statusPolarity } from '../../src/eslint/properties';

/** Parses `code` through ESLint (espree, or typescript-eslint for ts) and returns the program's statements. */
function parse(code: string, ts = false): { body: Node[]; keys: VisitorKeys } {
  let program: Node | undefined;
  let keys: VisitorKeys = {};
  const plugin = {
    rules: {
      grab: {
        create: (context: { sourceCode: { visitorKeys: VisitorKeys } }) => ({
          Program: (node: Node) => {
            program = node;
            keys = context.sourceCode.visitorKeys;
          },
        }),
      },
    },
  };
  const messages = new Linter({ configType: 'flat' }).verify(
    code,
    [
      {
        files: ['**/*.ts', '**/*.js'],
        plugins: { t: plugin as never },
        rules: { 't/grab': 'error' },
        languageOptions: { ...(ts ? { parser: tseslint.parser } : {}), sourceType: 'module' },
      },
    ],
    ts ? 'x.ts' : 'x.js',
  );
  expect(messages.filter((m) => m.fatal)).toEqual([]);
  return { body: (program as Node).body as Node[], keys };
}
const first = (code: string) => parse(code).body[0] as Node;
/** The first statement of `code`, written inside a loop inside a function (so return and continue parse). */
const stmt = (code: string) => {
  const fn = first(`function f() { for (;;) { ${code} } }`);
  const loop = ((fn.body as Node).body as Node[])[0] as Node;
  return ((loop.body as Node).body as Node[])[0] as Node;
};
const ends = (code: string, inLoop = true) => [...completions(stmt(code), inLoop)].sort();

describe('completions: how a statement can end, seen from a loop', () => {
  it('reads return, throw, break, continue, blocks and ifs', () => {
    expect(ends('if (a) return; else throw e;')).toEqual(['exit', 'throw']);
    expect(ends('{ a(); continue; b(); }')).toEqual(['continue']);
    expect(ends('if (a) break;')).toEqual(['exit', 'normal']);
    expect(ends('throwWithCause(err);')).toEqual(['throw']);
    expect(ends('log(err);')).toEqual(['normal']);
  });

  it('outside the loop itself, an unlabelled break or continue stays inside', () => {
    expect(ends('for (;;) { break; }')).toEqual(['normal']);
    expect(ends('while (a) { if (b) continue; return; }')).toEqual(['exit', 'normal']);
    expect(ends('x: for (;;) { break x; }')).toEqual(['exit', 'normal']);
  });

  it('reads switch (break leaves the switch; no default goes on) and labels', () => {
    expect(ends('switch (a) { case 1: return; default: break; }')).toEqual(['exit', 'normal']);
    expect(ends('switch (a) { case 1: throw e; }')).toEqual(['normal', 'throw']);
    expect(ends('switch (a) { default: return; }')).toEqual(['exit']);
    expect(ends('l: { return; }')).toEqual(['exit']);
  });

  it('reads try: a caught throw goes to the handler; a finally that leaves wins', () => {
    expect(ends('try { return f(); } catch (e) { log(e); }')).toEqual(['exit', 'normal']);
    expect(ends('try { f(); } finally { return; }')).toEqual(['exit']);
    expect(ends('try { throw e; } finally { g(); }')).toEqual(['throw']);
  });

  it('an empty or missing statement completes normally', () => {
    expect([...completions(undefined, true)]).toEqual(['normal']);
    expect([...sequence([], true)]).toEqual(['normal']);
  });

  it('after(): the statements that follow, in a block or a switch case; none elsewhere', () => {
    const loop = stmt('for (;;) { a(); b(); c(); }');
    const [a] = (loop.body as Node).body as Node[];
    expect(following(a as Node, loop.body as Node)).toHaveLength(2);
    const sw = stmt('switch (x) { case 1: a(); b(); }');
    const [c] = ((sw.cases as Node[])[0] as Node).consequent as Node[];
    expect(following(c as Node, sw)).toHaveLength(1);
    const single = stmt('if (x) a();');
    expect(following(single.consequent as Node, single)).toEqual([]);
  });
});

describe('ast helpers', () => {
  it('calleeName reads identifiers, members, private names, optional and compiled calls', () => {
    const names = parse('a(); o.b(); o?.c(); (0, t.d)(); o[e](); (() => 1)();').body.map((s) => {
      const e = s.expression as Node;
      return calleeName(e.type === 'ChainExpression' ? (e.expression as Node) : e);
    });
    expect(names).toEqual(['a', 'b', 'c', 'd', undefined, undefined]);
    const ts = parse('sleep!(1);', true).body[0] as Node;
    expect(calleeName(ts.expression as Node)).toBe('sleep');
    const priv = parse('class K { #r() { this.#r(); } }').body[0] as Node;
    expect(nameOf({ type: 'PrivateIdentifier', name: 'r' })).toBe('#r');
    expect(priv.type).toBe('ClassDeclaration');
  });

  it('refKey names counters: identifiers, this and plain members; not computed ones', () => {
    const exprs = parse('i; this.n; s.a.b; s[k]; f().x;').body.map((s) => refKey(s.expression as Node));
    expect(exprs).toEqual(['i', 'this.n', 's.a.b', undefined, undefined]);
  });

  it('children walks every node-valued field when the visitor keys do not know a type', () => {
    const { body } = parse('a + b;');
    const sum = (body[0] as Node).expression as Node;
    expect(children(sum, {}).map((n) => n.type)).toEqual(['Identifier', 'Identifier']);
  });
});

describe('statusPolarity', () => {
  const polarity = (code: string) => statusPolarity((first(code) as Node).expression as Node);
  it('reads ok, status comparisons either way round, negation, && and ||', () => {
    expect(polarity('res.ok')).toBe('success');
    expect(polarity('!res.ok')).toBe('failure');
    expect(polarity('res.status >= 500')).toBe('failure');
    expect(polarity('500 <= res.status')).toBe('failure');
    expect(polarity('res.status < 400')).toBe('success');
    expect(polarity('status === 200')).toBe('success');
    expect(polarity('res.statusCode !== 200')).toBe('failure');
    expect(polarity('res.status != 503')).toBe('success');
    expect(polarity('res.status === 429 || res.status >= 500')).toBe('failure');
    expect(polarity('res.ok && done')).toBe('success');
    expect(polarity('done && res.ok')).toBe('success');
    expect(polarity('!!res.ok')).toBe('success');
    expect(polarity('200 === res.status')).toBe('success');
    expect(polarity('!(res.status >= 500)')).toBe('success');
  });
  it('reads them through optional chaining as without it (review: `res?.ok` loops were missed)', () => {
    expect(polarity('res?.ok')).toBe('success');
    expect(polarity('!res?.ok')).toBe('failure');
    expect(polarity('!resp?.data?.ok')).toBe('failure');
    expect(polarity('res?.status >= 500')).toBe('failure');
    expect(polarity('500 <= res?.statusCode')).toBe('failure');
    expect(polarity('res?.status === 429 || !res?.ok')).toBe('failure');
    expect(polarity('res?.status === 301')).toBeUndefined();
  });
  it('reads `.ok` compared with true or false as the `ok` or `!ok` twin (review-adv4 F6)', () => {
    expect(polarity('res.ok === false')).toBe('failure');
    expect(polarity('res.ok !== true')).toBe('failure');
    expect(polarity('false == res?.ok')).toBe('failure');
    expect(polarity('res.ok === true')).toBe('success');
    expect(polarity('true != res.ok')).toBe('failure');
    expect(polarity('res.ok !== false')).toBe('success');
    expect(polarity('res.ok === 1')).toBeUndefined();
    expect(polarity('res.done === false')).toBeUndefined();
  });
  it('says nothing of redirects, unknown values and mixed tests', () => {
    expect(polarity('res.status === 301')).toBeUndefined();
    expect(polarity('res.status < 600')).toBeUndefined();
    expect(polarity('res.status > 100')).toBeUndefined();
    expect(polarity('res.status === code')).toBeUndefined();
    expect(polarity('res.ok || res.status >= 500')).toBeUndefined();
    expect(polarity('!done')).toBeUndefined();
  });
});
