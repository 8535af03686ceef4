/**
 * Beside the first stage (model.ts): a function the file imports from another file of its package (issue 29, a cycle
 * that crosses two files). `await getRetryConfig(err)` of `import { getRetryConfig } from './retry.js'`, or compiled
 * `(0, retry_js_1.getRetryConfig)(err)` of `const retry_js_1 = require("./retry.js")`: the other file is read from
 * disk next to this one, parsed with the parser ESLint uses here, and the function found there is handed back with a
 * reading context of its own (its names resolved in its file), for properties.ts to read the wait, jitter, limit and
 * check it keeps. Only relative specifiers are followed (a package's own files, not its dependencies); a file that
 * cannot be read or parsed is out of reach, as before.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { children, FUNCTIONS, type Node, nameOf, type VisitorKeys, walk } from './ast';
import type { Context } from './model';

/** What reading another file needs: this file's name and the parser ESLint uses for it. */
export interface Files {
  readonly name: string;
  readonly parse: (code: string) => Node | undefined;
}

/** `require('./x')`, `__importDefault(require('./x'))`: the module required, or undefined. */
export function required(n: Node | null | undefined): string | undefined {
  if (n?.type !== 'CallExpression') return undefined;
  const callee = n.callee as Node;
  const first = (n.arguments as Node[])[0];
  if (callee.type === 'Identifier' && callee.name === 'require') {
    return first?.type === 'Literal' && typeof first.value === 'string' ? first.value : undefined;
  }
  // `__importDefault(require('x'))`, `_interopRequireDefault(require('x'))`
  return (n.arguments as Node[]).length === 1 ? required(first) : undefined;
}

/**
 * The module and export a name is bound to at the top of the file: `import pRetry from 'p-retry'` (default),
 * `import { backOff } from 'exponential-backoff'`, `const pRetry = require('p-retry')` (default),
 * `const { backOff } = require(...)`, `const p_retry_1 = __importDefault(require('p-retry'))` and `import * as m`
 * (the module object).
 */
export function binding(name: string, program: Node): { module: string; exported: string } | undefined {
  for (const st of program.body as Node[]) {
    if (st.type === 'ImportDeclaration') {
      for (const s of st.specifiers as Node[]) {
        if ((s.local as Node).name !== name) continue;
        const module = String((st.source as Node).value);
        if (s.type === 'ImportDefaultSpecifier') return { module, exported: 'default' };
        if (s.type === 'ImportNamespaceSpecifier') return { module, exported: 'module' };
        return { module, exported: String(nameOf(s.imported as Node)) };
      }
    }
    if (st.type !== 'VariableDeclaration') continue;
    for (const d of st.declarations as Node[]) {
      const init = d.init as Node | null;
      const module = required(init);
      if (module === undefined) continue;
      const id = d.id as Node;
      if (id.type === 'Identifier' && id.name === name) {
        // `require('p-retry')` is the module's function (CommonJS); `__importDefault(require(...))` the module object.
        const plain =
          ((init as Node).callee as Node).type === 'Identifier' && ((init as Node).callee as Node).name === 'require';
        return { module, exported: plain ? 'default' : 'module' };
      }
      for (const p of id.type === 'ObjectPattern' ? (id.properties as Node[]) : []) {
        if (p.type === 'Property' && (p.value as Node).type === 'Identifier' && (p.value as Node).name === name) {
          return { module, exported: String(nameOf(p.key as Node)) };
        }
      }
    }
  }
  return undefined;
}

const programOf = (node: Node): Node => {
  let top = node;
  while (top.parent) top = top.parent;
  return top;
};

/** The module and the name a call's callee is imported by: `f(...)`, `m.f(...)`, `(0, m.f)(...)`. */
export function importOf(call: Node): { module: string; exported: string } | undefined {
  let callee = call.callee as Node;
  while (callee.type === 'SequenceExpression') callee = (callee.expressions as Node[]).at(-1) as Node;
  const program = programOf(call);
  if (callee.type === 'Identifier') return binding(callee.name as string, program);
  if (callee.type !== 'MemberExpression' || callee.computed || (callee.object as Node).type !== 'Identifier') return;
  const outer = binding((callee.object as Node).name as string, program);
  // `m.f` of `import * as m`, of `const m = __importStar(require(...))`, or of `const m = require(...)` (CommonJS
  // exports read as an object).
  return outer && (outer.exported === 'module' || outer.exported === 'default')
    ? { module: outer.module, exported: String(nameOf(callee.property as Node)) }
    : undefined;
}

/** The file a relative specifier names, as Node and bundlers find it (`./retry.js`, `./retry`, `./dir/index.js`). */
function fileFor(from: string, specifier: string): string | undefined {
  const base = join(dirname(from), specifier);
  const candidates = [base, `${base}.js`, `${base}.cjs`, `${base}.mjs`, `${base}.ts`, join(base, 'index.js')];
  // TypeScript's `./retry.js` for `./retry.ts`
  if (/\.js$/.test(base)) candidates.push(base.replace(/\.js$/, '.ts'));
  return candidates.find((c) => {
    try {
      return statSync(c).isFile();
    } catch {
      return false;
    }
  });
}

/** Names resolved in a file read here: declarations of the scopes around a node, as the rules' resolver does. */
function resolverFor(keys: VisitorKeys) {
  return (name: string, at: Node): readonly Node[] => {
    for (let p: Node | null | undefined = at; p; p = p.parent) {
      const found: Node[] = [];
      const body = p.type === 'Program' || p.type === 'BlockStatement' ? (p.body as Node[]) : [];
      for (const st of body) {
        walk(st, keys, (n) => {
          if (n.type === 'FunctionDeclaration' && (n.id as Node | null)?.name === name) found.push(n);
          const id = n.type === 'VariableDeclarator' ? (n.id as Node) : undefined;
          if (id?.type === 'Identifier' && id.name === name && n.init) found.push(n.init as Node);
          return !FUNCTIONS.has(n.type) && n.type !== 'BlockStatement';
        });
      }
      if (found.length > 0) return found;
      if (FUNCTIONS.has(p.type) && (p.params as Node[]).some((q) => q.type === 'Identifier' && q.name === name)) {
        return [];
      }
    }
    return [];
  };
}

const programs = new Map<string, Node | null>();

/** The program of another file, parsed once per run, with `parent` set on every node. */
function programAt(path: string, files: Files, keys: VisitorKeys): Node | undefined {
  const known = programs.get(path);
  if (known !== undefined) return known ?? undefined;
  let program: Node | undefined;
  try {
    program = files.parse(readFileSync(path, 'utf8'));
  } catch {
    program = undefined;
  }
  if (program) {
    walk(program, keys, (n) => {
      for (const child of children(n, keys)) (child as { parent?: Node }).parent = n;
      return true;
    });
  }
  programs.set(path, program ?? null);
  return program;
}

/**
 * The function of another file of the package that `call` calls, and how to read it there; undefined when the callee
 * is no import of a relative file, or the file or the function cannot be found.
 */
export function importedFunction(call: Node, ctx: Context): { fn: Node; ctx: Context } | undefined {
  const files = ctx.files;
  const target = files ? importOf(call) : undefined;
  if (!files || !target?.module.startsWith('.')) return undefined;
  const path = fileFor(files.name, target.module);
  const program = path ? programAt(path, files, ctx.keys) : undefined;
  if (!program || !path) return undefined;
  const resolve = resolverFor(ctx.keys);
  const fn = resolve(target.exported, program).find((f) => FUNCTIONS.has(f.type));
  return fn ? { fn, ctx: { keys: ctx.keys, resolve, files: { ...files, name: path } } } : undefined;
}
