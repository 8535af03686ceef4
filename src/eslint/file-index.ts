/**
 * What one file says about its own classes, read once per file: each class's methods, what each `this.x` of a class is
 * given, and where each class is constructed (`new Timer(cb, ms)`). The detector follows calls through it within the
 * file (`this.retryLater()`, `this.#open()`, `this.timer.schedule()` on a helper class of the file); what it cannot find
 * here (an import) is out of reach, and the detector says so where it falls back on a name.
 */
import { FUNCTIONS, isWithin, type Node, nameOf, type VisitorKeys, walk } from './ast';

interface ClassInfo {
  readonly node: Node;
  /** Methods, getters and function-valued fields, by name (`#open` for a private one). */
  readonly methods: Map<string, Node[]>;
  /** Every value assigned to `this.x` (`x` by name), in any method, and each field's initialiser. */
  readonly writes: Map<string, Node[]>;
  /** Fields stepped as counters: `this.x++`, `--this.#x`, `this.x += 1`, `this.x = this.x + 1`. */
  readonly counted: Set<string>;
  /** Of those, the fields only ever scaled (`this.delay = this.delay * 2`, `this.delay *= 2`): a delay that grows. */
  readonly scaled: Set<string>;
  /** Fields stepped by adding or subtracting at least once. */
  readonly added: Set<string>;
}

export interface FileIndex {
  /** The class holding a node, innermost, if any. */
  readonly classOf: (node: Node) => ClassInfo | undefined;
  /** Classes of the file by name. */
  readonly classes: ReadonlyMap<string, ClassInfo>;
  /** `new K(...)` expressions of the file, by K's name. */
  readonly constructions: ReadonlyMap<string, readonly Node[]>;
  /** Functions declared by name in the file (`function f() {}`, `const f = () => ...`), in any scope. */
  readonly functions: ReadonlyMap<string, readonly Node[]>;
}

const indexes = new WeakMap<Node, FileIndex>();

const programOf = (node: Node): Node => {
  let top = node;
  while (top.parent) top = top.parent;
  return top;
};

const push = <T>(map: Map<string, T[]>, key: string, value: T) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

/** The file's index, built on first use for the program that holds `node`. */
export function fileIndex(node: Node, keys: VisitorKeys): FileIndex {
  const program = programOf(node);
  const known = indexes.get(program);
  if (known) return known;
  const byNode = new Map<Node, ClassInfo>();
  const classes = new Map<string, ClassInfo>();
  const constructions = new Map<string, Node[]>();
  const functions = new Map<string, Node[]>();
  walk(program, keys, (n) => {
    if (n.type === 'FunctionDeclaration' && (n.id as Node | null)?.type === 'Identifier') {
      push(functions, (n.id as Node).name as string, n);
    }
    if (
      n.type === 'VariableDeclarator' &&
      (n.id as Node).type === 'Identifier' &&
      n.init &&
      FUNCTIONS.has((n.init as Node).type)
    ) {
      push(functions, (n.id as Node).name as string, n.init as Node);
    }
    if (n.type === 'ClassDeclaration' || n.type === 'ClassExpression') {
      const info: ClassInfo = {
        node: n,
        methods: new Map(),
        writes: new Map(),
        counted: new Set(),
        scaled: new Set(),
        added: new Set(),
      };
      byNode.set(n, info);
      const id = n.id as Node | null;
      const named = id ?? (n.parent?.type === 'VariableDeclarator' ? (n.parent.id as Node) : undefined);
      if (named?.type === 'Identifier') classes.set(named.name as string, info);
      for (const member of ((n.body as Node).body as Node[]) ?? []) {
        const key = member.key ? nameOf(member.key as Node) : undefined;
        if (key === undefined) continue;
        const value = member.value as Node | null;
        if (member.type === 'MethodDefinition' && value) push(info.methods, key, value);
        else if (member.type === 'PropertyDefinition' && value) {
          if (FUNCTIONS.has(value.type)) push(info.methods, key, value);
          push(info.writes, key, value);
        }
      }
    }
    if (n.type === 'NewExpression' && (n.callee as Node).type === 'Identifier') {
      push(constructions, (n.callee as Node).name as string, n);
    }
    if (n.type === 'AssignmentExpression' || n.type === 'UpdateExpression') {
      const left = (n.type === 'UpdateExpression' ? n.argument : n.left) as Node;
      if (left.type === 'MemberExpression' && (left.object as Node).type === 'ThisExpression' && !left.computed) {
        const cls = enclosingClass(n, byNode);
        const key = nameOf(left.property as Node);
        if (cls && key !== undefined) {
          const right = n.right as Node | undefined;
          if (n.type === 'AssignmentExpression') push(cls.writes, key, right as Node);
          const selfStep =
            right?.type === 'BinaryExpression' &&
            [right.left, right.right].some(
              (side) =>
                (side as Node).type === 'MemberExpression' &&
                ((side as Node).object as Node).type === 'ThisExpression' &&
                nameOf((side as Node).property as Node) === key,
            );
          if (n.type === 'UpdateExpression' || n.operator !== '=' || selfStep) {
            cls.counted.add(key);
            const op = n.type === 'UpdateExpression' ? '+' : String(n.operator === '=' ? right?.operator : n.operator);
            if (/^[*/]/.test(op)) cls.scaled.add(key);
            else cls.added.add(key);
          }
        }
      }
    }
    return true;
  });
  const index: FileIndex = { classOf: (n) => enclosingClass(n, byNode), classes, constructions, functions };
  indexes.set(program, index);
  return index;
}

function enclosingClass(node: Node, byNode: ReadonlyMap<Node, ClassInfo>): ClassInfo | undefined {
  for (let p = node.parent; p; p = p.parent) {
    const info = byNode.get(p);
    if (info) return info;
  }
  return undefined;
}

/** Whether `this.x` (or `this.helper.x` on a class of the file) is stepped as a counter somewhere in its class. */
export function isCounted(member: Node, index: FileIndex): boolean {
  if (member.type !== 'MemberExpression' || member.computed) return false;
  const object = member.object as Node;
  const key = nameOf(member.property as Node);
  const cls = object.type === 'ThisExpression' ? index.classOf(member) : instanceClass(object, index);
  return key !== undefined && cls?.counted.has(key) === true;
}

/** `this.delay`, stepped only by scaling it (`this.delay = this.delay * 2`): it grows, it does not count attempts. */
export function isScaledOnly(member: Node, index: FileIndex): boolean {
  if (member.type !== 'MemberExpression' || member.computed || (member.object as Node).type !== 'ThisExpression') {
    return false;
  }
  const key = nameOf(member.property as Node);
  const cls = index.classOf(member);
  return key !== undefined && cls?.scaled.has(key) === true && !cls.added.has(key);
}

/** The class a `this.x` holds when the file assigns it `new K(...)` of a class K of the file. */
export function instanceClass(member: Node, index: FileIndex): ClassInfo | undefined {
  if (member.type !== 'MemberExpression' || (member.object as Node).type !== 'ThisExpression') return undefined;
  const key = nameOf(member.property as Node);
  const values = key === undefined ? [] : (index.classOf(member)?.writes.get(key) ?? []);
  for (const v of values) {
    if (v.type === 'NewExpression' && (v.callee as Node).type === 'Identifier') {
      const cls = index.classes.get((v.callee as Node).name as string);
      if (cls) return cls;
    }
  }
  return undefined;
}

/** What `new K(a, b)` gave K's constructor parameter `name`: the argument at its place, at each construction. */
export function constructorArguments(cls: ClassInfo, name: string, index: FileIndex): Node[] {
  const ctor = cls.methods.get('constructor')?.[0];
  if (!ctor) return [];
  const at = (ctor.params as Node[]).findIndex((p) => {
    // `constructor(callback = noop, ms)`: the parameter with a default is named by its left side.
    const param = p.type === 'AssignmentPattern' ? (p.left as Node) : p;
    return param.type === 'Identifier' && nameOf(param) === name;
  });
  if (at < 0) return [];
  const id = cls.node.id as Node | null;
  const named = id ?? (cls.node.parent?.type === 'VariableDeclarator' ? (cls.node.parent.id as Node) : undefined);
  const sites = named?.type === 'Identifier' ? (index.constructions.get(named.name as string) ?? []) : [];
  return sites.flatMap((s) => {
    const arg = (s.arguments as Node[])[at];
    return arg ? [arg] : [];
  });
}

/**
 * What `this.x` stands for, as the file says: the values assigned to it in its class (a constructor parameter followed
 * to the arguments of `new K(...)`), or the method `x`. Empty when out of reach.
 */
export function memberTargets(member: Node, index: FileIndex): Node[] {
  if (member.type !== 'MemberExpression' || member.computed) return [];
  const object = member.object as Node;
  const key = nameOf(member.property as Node);
  if (key === undefined) return [];
  let cls: ClassInfo | undefined;
  if (object.type === 'ThisExpression' || isThisAlias(object)) cls = index.classOf(member);
  else cls = instanceClass(object, index);
  if (!cls) return [];
  const out: Node[] = [...(cls.methods.get(key) ?? [])];
  for (const v of cls.writes.get(key) ?? []) {
    // `this.callback = callback` in the constructor: what `new K(...)` handed it.
    const ctor = cls.methods.get('constructor')?.[0];
    if (v.type === 'Identifier' && ctor && isWithin(v, ctor)) {
      const args = constructorArguments(cls, v.name as string, index);
      if (args.length > 0) {
        out.push(...args);
        continue;
      }
    }
    out.push(v);
  }
  return out;
}

/**
 * The block a `const self = this` (`_this` in compiled TypeScript) for `self` at `node` is declared in, around
 * `node`; undefined when there is none.
 */
export function thisAliasBlock(node: Node): Node | undefined {
  if (node.type !== 'Identifier') return undefined;
  for (let p = node.parent; p; p = p.parent) {
    if (p.type !== 'BlockStatement') continue;
    for (const st of p.body as Node[]) {
      if (st.type !== 'VariableDeclaration') continue;
      for (const d of st.declarations as Node[]) {
        const id = d.id as Node;
        if (id.type === 'Identifier' && id.name === node.name && (d.init as Node | null)?.type === 'ThisExpression') {
          return p;
        }
      }
    }
  }
  return undefined;
}

/** `self` in `const self = this` (`_this` in compiled TypeScript), declared in a function around `node`. */
export const isThisAlias = (node: Node): boolean => thisAliasBlock(node) !== undefined;

/** `new K(...)` given to `this.x` where K is no class of this file (imported): its code is out of reach. */
export function foreignConstructions(member: Node, index: FileIndex): Node[] {
  if (member.type !== 'MemberExpression' || (member.object as Node).type !== 'ThisExpression') return [];
  const key = nameOf(member.property as Node);
  const values = key === undefined ? [] : (index.classOf(member)?.writes.get(key) ?? []);
  return values.filter(
    (v) =>
      v.type === 'NewExpression' &&
      (v.callee as Node).type === 'Identifier' &&
      !index.classes.has((v.callee as Node).name as string),
  );
}

/** `this`, or a variable standing for it (`self`, `_this`). */
export const isThis = (node: Node): boolean => node.type === 'ThisExpression' || isThisAlias(node);
