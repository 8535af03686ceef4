/**
 * The AST helpers the detector walks with: any ESTree parser's nodes (espree, typescript-eslint), children
 * through the visitor keys ESLint provides. No runtime dependency.
 */

/** An AST node as any ESTree parser gives it; the fields read here are checked before use. */
export interface Node {
  readonly type: string;
  readonly parent?: Node | null;
  readonly loc?: { readonly start: { line: number; column: number } } | null;
  readonly [key: string]: unknown;
}

/** Which children to walk for each node type: ESLint's `sourceCode.visitorKeys`. */
export type VisitorKeys = Readonly<Record<string, readonly string[] | undefined>>;

/** The loop statements a retry can be written with (for-of and for-in walk a list: never a retry). */
export const LOOPS = new Set(['ForStatement', 'WhileStatement', 'DoWhileStatement']);
export const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

export const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';

/** The node's children, through the visitor keys (falling back to every node-valued field). */
export function children(node: Node, keys: VisitorKeys): Node[] {
  const out: Node[] = [];
  for (const key of keys[node.type] ?? Object.keys(node).filter((k) => k !== 'parent')) {
    const value = node[key];
    if (Array.isArray(value)) {
      for (const v of value) if (isNode(v)) out.push(v);
    } else if (isNode(value)) out.push(value);
  }
  return out;
}

/** Every node under `root` (itself included); `enter` returns false to skip a node's children. */
export function walk(root: Node, keys: VisitorKeys, enter: (node: Node) => boolean | undefined): void {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (enter(node) === false) continue;
    const kids = children(node, keys);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as Node);
  }
}

/** Nodes under `root` that belong to it: not inside a nested function declaration or (optionally) a nested loop. */
export function owned(root: Node, keys: VisitorKeys, options: { skipLoops: boolean; skipCallbacks?: boolean }): Node[] {
  const out: Node[] = [];
  walk(root, keys, (node) => {
    if (node !== root && (node.type === 'FunctionDeclaration' || node.type === 'ClassBody')) return false;
    if (node !== root && options.skipCallbacks && FUNCTIONS.has(node.type)) return false;
    if (node !== root && options.skipLoops && (LOOPS.has(node.type) || node.type.startsWith('ForO'))) return false;
    out.push(node);
    return true;
  });
  return out;
}

/** The name a call's callee goes by: `sleep` in `sleep()`, `wait` in `this.wait()`. */
export function calleeName(call: Node): string | undefined {
  let callee = call.callee as Node | undefined;
  // `sleep!()`, `a?.sleep()`, and compiled `(0, timers.setTimeout)(ms)`.
  while (callee && ['ChainExpression', 'TSNonNullExpression', 'SequenceExpression'].includes(callee.type)) {
    callee = (callee.type === 'SequenceExpression' ? (callee.expressions as Node[]).at(-1) : callee.expression) as Node;
  }
  if (!callee) return undefined;
  if (callee.type === 'Identifier') return callee.name as string;
  if (callee.type === 'MemberExpression' && !callee.computed) return nameOf(callee.property as Node);
  return undefined;
}

/** `calleeName`, or '' when the callee has no name (for tests against a pattern). */
export const callName = (call: Node): string => calleeName(call) ?? '';

/** The name an identifier or a private name (`#retry`) spells. */
export function nameOf(node: Node): string | undefined {
  if (node.type === 'Identifier') return node.name as string;
  if (node.type === 'PrivateIdentifier') return `#${node.name as string}`;
  return undefined;
}

/** The source-free key of a counter: `attempt`, `this.tries`, `state.retries`. */
export function refKey(node: Node): string | undefined {
  if (node.type === 'Identifier') return node.name as string;
  if (node.type === 'ThisExpression') return 'this';
  if (node.type === 'MemberExpression' && !node.computed) {
    const object = refKey(node.object as Node);
    return object === undefined ? undefined : `${object}.${(node.property as Node).name as string}`;
  }
  return undefined;
}

/** True when `node` mentions something matching `match`. */
export function mentions(node: Node | undefined | null, keys: VisitorKeys, match: (n: Node) => boolean): boolean {
  if (!node) return false;
  let found = false;
  walk(node, keys, (n) => {
    if (found) return false;
    if (match(n)) found = true;
    return !found;
  });
  return found;
}

/** The name a parameter binds: `x` of `x` and of `x = 1`; undefined for a pattern. */
export const paramName = (p: Node | undefined): string | undefined => {
  const target = p?.type === 'AssignmentPattern' ? (p.left as Node) : p;
  return target?.type === 'Identifier' ? (target.name as string) : undefined;
};

/** `node` is `ancestor` or sits below it. */
export const isWithin = (node: Node, ancestor: Node): boolean => {
  for (let p: Node | null | undefined = node; p; p = p.parent) if (p === ancestor) return true;
  return false;
};

/** What a declarator or an assignment binds, and to what: `[id, init]`, or `[]` for any other node. */
export const bindingOf = (n: Node): [Node, Node | null | undefined] | [] =>
  n.type === 'VariableDeclarator'
    ? [n.id as Node, n.init as Node | null]
    : n.type === 'AssignmentExpression'
      ? [n.left as Node, n.right as Node]
      : [];
