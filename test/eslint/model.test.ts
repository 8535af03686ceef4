import type { Rule } from 'eslint';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import type { Node } from '../../src/eslint/ast';
import { fileModel, functionName } from '../../src/eslint/model';

/** The edges of `code`'s model, each as `from -kind-> to` (functions by name, else by kind and line). */
function edgesOf(code: string, ts = false): string[] {
  let out: string[] = [];
  const grab: Rule.RuleModule = {
    create: (context) => ({
      Program: (program) => {
        const resolve = (name: string, at: Node): Node[] => {
          let scope: ReturnType<typeof context.sourceCode.getScope> | null = context.sourceCode.getScope(at as never);
          while (scope) {
            const variable = scope.set.get(name);
            if (variable) {
              const found: Node[] = [];
              for (const def of variable.defs) {
                const node = def.node as unknown as Node;
                if (def.type === 'FunctionName') found.push(node);
                else if (def.type === 'Variable' && node.init) found.push(node.init as Node);
              }
              for (const ref of variable.references) {
                const write = ref.writeExpr as unknown as Node | null;
                if (write && !found.includes(write)) found.push(write);
              }
              return found;
            }
            scope = scope.upper;
          }
          return [];
        };
        const model = fileModel(program as unknown as Node, context.sourceCode.visitorKeys, resolve);
        const name = (f: Node) => functionName(f) ?? `${f.type}@${f.loc?.start.line}`;
        out = [program as unknown as Node, ...model.functions].flatMap((f) =>
          model.from(f).map((e) => `${f === (program as unknown) ? 'top' : name(e.from)} -${e.kind}-> ${name(e.to)}`),
        );
        for (const f of model.functions) {
          for (const e of model.into(f)) expect(e.to).toBe(f);
        }
      },
    }),
  };
  const messages = new Linter({ configType: 'flat' }).verify(
    code,
    [
      {
        files: ['**/*.ts', '**/*.js'],
        plugins: { t: { rules: { grab } } },
        rules: { 't/grab': 'error' },
        languageOptions: { ...(ts ? { parser: tseslint.parser } : {}), sourceType: 'module' },
      },
    ],
    ts ? 'x.ts' : 'x.js',
  );
  expect(messages.filter((m) => m.fatal)).toEqual([]);
  return out;
}

describe("the file's model", () => {
  it('tells how a function is entered: called, handed, later, again and again, on a promise, on an event', () => {
    const edges = edgesOf(`
export class Client {
  connect() {
    this.open();
    setTimeout(this.tick.bind(this), 10);
    setInterval(() => this.tick(), 1000);
    load().then(this.ready.bind(this), this.failed.bind(this)).catch((e) => this.failed(e)).finally(this.tick);
    this.ws.on('close', this.failed.bind(this));
    this.ws.on('message', this.ready.bind(this));
    this.ws.onerror = this.failed.bind(this);
    this.ws.onopen = this.ready.bind(this);
    this.ws.removeListener('close', this.failed);
    push.receive('ok', this.ready.bind(this)).receive('timeout', this.failed.bind(this));
    new Handler({ ...opts, onWebSocketClose: this.failed.bind(this), onSend: this.tick.bind(this), [key]: this.tick });
    this.tick.call(this);
    this.tick.apply(this, []);
    this['ready']();
  }
  open() {}
  tick() {}
  ready() {}
  failed() {}
}`);
    expect(edges).toEqual([
      'connect -call-> open',
      'connect -later-> tick',
      'connect -repeat-> ArrowFunctionExpression@6',
      // the chain's outer call first: finally, catch, then
      'connect -then-> tick',
      'connect -rejection-> ArrowFunctionExpression@7',
      'connect -then-> ready',
      'connect -rejection-> failed',
      'connect -failure-event-> failed',
      'connect -event-> ready',
      'connect -failure-event-> failed',
      'connect -event-> ready',
      // removeListener: none
      'connect -rejection-> failed',
      'connect -then-> ready',
      'connect -failure-event-> failed',
      'connect -handed-> tick',
      'connect -handed-> tick',
      'connect -call-> tick',
      'connect -call-> tick',
      'connect -call-> ready',
      'ArrowFunctionExpression@6 -call-> tick',
      'ArrowFunctionExpression@7 -call-> failed',
    ]);
  });

  it('finds methods on a prototype, on a plain object, through self = this, and static ones', () => {
    const edges = edgesOf(`
function Client() { this.connect(); }
Client.prototype.connect = function () {
  var self = this;
  this.ws.onclose = function () { self.retry(); };
};
Client.prototype.retry = function () { setTimeout(this.connect.bind(this), 1000); };
function Pool() {}
Pool.prototype = { open() { this.dial(); }, dial() {} };
const $ = {};
$.open = function () { $.close(); };
$.close = function () {};
const api = { get() { return this.send(); }, send() {}, [name]: function () {} };
exports.fetch = function () { exports.fetch(); };
const Api = class { static create() { return Api.make(); } static make() {} };
class Store { static load() { Store.save(); } static save() {} }
const top = this;
function Loose() { top.nothing(); }`);
    expect(edges).toEqual([
      'Client -call-> connect',
      'connect -failure-event-> onclose',
      'onclose -call-> retry',
      'retry -later-> connect',
      'open -call-> dial',
      'open -call-> close',
      'get -call-> send',
      'fetch -call-> fetch',
      'create -call-> make',
      'load -call-> save',
    ]);
  });

  it('reads TypeScript: non-null and optional calls, `as`', () => {
    const edges = edgesOf(
      `
export class Client {
  private connect(): void {
    this.retry!();
    this.retry?.();
    (this.retry as () => void)();
  }
  private retry(): void {}
}`,
      true,
    );
    expect(edges).toEqual(['connect -call-> retry', 'connect -call-> retry', 'connect -call-> retry']);
  });
});
