/**
 * The first stage of reading a file for retries (design.md, "An analysis shows its steps"): a model of the file's
 * functions and of what runs what between them, built once per file.
 *
 * Each function of the file (a declaration, a method, a callback written inline) is a node. An edge says that one
 * function enters another, and how: it calls it (`this.connect()`, `self.m()`, `$.open()`, `f.call(this)`), hands it to
 * a call that may run it (a callback, a handler in an options object), has a timer run it later or an interval run it
 * again and again, has a promise run it when it settles (`then`) or fails (`catch`), or has an event run it (a failure
 * event: `error`, `close`, `disconnect`, `end`; or another one). A name a call uses is resolved as the file says:
 * a class's methods and what its fields are given (file-index.ts), functions assigned to `X.prototype.m` or to
 * `X.m`, an object literal's properties, `self`/`_this` standing for `this`. What it cannot find here (an import, a
 * property of an object out of reach) is out of reach: no edge.
 *
 * The next stage (cycles.ts) finds in it the cycles that leave a call through a failure and come back to it; the last
 * (properties.ts) reads the wait, jitter, limit and check along each.
 */
import { callName, FUNCTIONS, type Node, nameOf, owned, paramName, refKey, type VisitorKeys, walk } from './ast';
import { fileIndex, foreignConstructions, memberTargets, thisAliasBlock } from './file-index';
import type { Files } from './imports';

/** What a name refers to at a node: a function, or every value assigned to the variable; empty when unseen. */
export type Resolve = (name: string, at: Node) => readonly Node[];

/** How the function at an edge's end is entered from the one at its start. */
export type EdgeKind =
  /** Called: `f()`, `this.m()`, `f.call(this)`. */
  | 'call'
  /** Handed to a call or a constructor that may run it: a callback, an options object's handler. */
  | 'handed'

  /** Run once later by a timer: `setTimeout(f, ms)`, `setImmediate`, `nextTick`, `queueMicrotask`. */
  | 'later'
  /** Run again and again by `setInterval(f, ms)`. */
  | 'repeat'
  /** Run when a promise settles: `.then(f)`, `.finally(f)`, phoenix's `receive('ok', f)`. */
  | 'then'
  /** Run when the call's promise fails: `.catch(f)`, `.then(ok, f)`, `receive('error', f)`. */
  | 'rejection'
  /** Run on a failure event: `on('close', f)`, `ws.onerror = f`, `{ onWebSocketClose: f }` handed on. */
  | 'failure-event'
  /** Run on another event: `on('open', f)`, `ws.onmessage = f`. */
  | 'event';

export interface Edge {
  /** The function the site is written in (the program for code at the top). */
  readonly from: Node;
  readonly to: Node;
  /** The call, or the function or reference handed on, that makes the edge. */
  readonly site: Node;
  readonly kind: EdgeKind;
}

export interface FileModel {
  /** Every function of the file, in source order. */
  readonly functions: readonly Node[];
  /** The edges that start in `fn` (or in the program), in source order. */
  readonly from: (fn: Node) => readonly Edge[];
  /** The edges that end in `fn`. */
  readonly into: (fn: Node) => readonly Edge[];
  /** The functions of the file a value stands for: a function, a name, `this.m`, `$.open`, `f.bind(this)`. */
  readonly valueTargets: (value: Node) => Node[];
}

/**
 * The event a listener call names: `'close'`, or the member of an events object out of reach whose name is one of the
 * failure events (`WebsocketEvent.close`, `Events.ERROR`): its name, lower-cased (websocket-ts).
 */
export function eventName(arg: Node | undefined): string | undefined {
  if (arg?.type === 'Literal') return String(arg.value);
  if (arg?.type === 'MemberExpression' && !arg.computed) {
    const name = nameOf(arg.property as Node)?.toLowerCase();
    if (name !== undefined && FAILURE_EVENTS.has(name)) return name;
  }
  return undefined;
}

/** The events whose listeners run on a failure. */
export const FAILURE_EVENTS = new Set(['error', 'close', 'disconnect', 'end']);
/** Whether a listener call's first argument names a failure event (see {@link eventName}). */
export const isFailureEvent = (arg: Node | undefined): boolean => FAILURE_EVENTS.has(eventName(arg) ?? '');
/** Calls that add a listener: `on(event, f)`. */
export const LISTENS = /^(on|once|addListener|addEventListener|prependListener)$/;
/** Calls that take a listener away. */
const UNLISTENS = /^(off|removeListener|removeEventListener|removeAllListeners)$/;
/** Timers that run a function once, later. */
const TIMERS = /^(setTimeout|setImmediate|nextTick|queueMicrotask|requestAnimationFrame)$/;
/**
 * A handler in an options object run on a failure: `onclose`, `onError`, `onWebSocketClose` (`onSend` is not), and an
 * observer's `error` (`subscribe({ next, error, complete })`).
 */
const FAILURE_HANDLER = /^(?:on(?:(?:[A-Z]\w*)?(?:Close|Error|Disconnect|End)|close|error|disconnect|end)|error)$/;

/** The name a function is called by: its own, or the variable or property it is assigned to. */
export function functionName(fn: Node): string | undefined {
  const id = fn.id as Node | null | undefined;
  if (id?.type === 'Identifier') return id.name as string;
  const parent = fn.parent;
  if (parent?.type === 'VariableDeclarator' && (parent.id as Node).type === 'Identifier')
    return (parent.id as Node).name as string;
  if (parent?.type === 'MethodDefinition' || parent?.type === 'Property' || parent?.type === 'PropertyDefinition') {
    return nameOf(parent.key as Node);
  }
  if (parent?.type === 'AssignmentExpression' && (parent.left as Node).type === 'MemberExpression') {
    return nameOf((parent.left as Node).property as Node);
  }
  return undefined;
}

/** The innermost function around `node` (not `node` itself), or undefined at the top. */
export const enclosingFunction = (node: Node): Node | undefined => {
  for (let p = node.parent; p; p = p.parent) if (FUNCTIONS.has(p.type)) return p;
  return undefined;
};

export const bodyOf = (fn: Node): Node => (fn.body as Node | undefined) ?? fn;

const programOf = (node: Node): Node => {
  let top = node;
  while (top.parent) top = top.parent;
  return top;
};

/** The property name of `x.m`, `x['m']`, `x.#m`; undefined for a computed key. */
function memberName(member: Node): string | undefined {
  if (member.type !== 'MemberExpression') return undefined;
  const property = member.property as Node;
  if (!member.computed) return nameOf(property);
  return property.type === 'Literal' && typeof property.value === 'string' ? property.value : undefined;
}

/**
 * Who `this` is in a function, as a key of the methods it can call: a class (whose methods file-index.ts knows), the
 * prototype of a constructor (`proto:K`), an object literal, an object named by a variable out of reach (`id:X`).
 */
type Holder = Node | string;

const models = new WeakMap<Node, FileModel>();

const push = <K, T>(map: Map<K, T[]>, key: K, value: T) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

/** The file's model, built on first use for the program that holds `node`. */
export function fileModel(node: Node, keys: VisitorKeys, resolve: Resolve): FileModel {
  const program = programOf(node);
  const known = models.get(program);
  if (known) return known;
  const model = build(program, keys, resolve);
  models.set(program, model);
  return model;
}

function build(program: Node, keys: VisitorKeys, resolve: Resolve): FileModel {
  const index = fileIndex(program, keys);
  const functions: Node[] = [];
  const members = new Map<Holder, Map<string, Node[]>>();
  const addMember = (holder: Holder | undefined, name: string | undefined, fn: Node) => {
    if (holder === undefined || name === undefined) return;
    let byName = members.get(holder);
    if (!byName) {
      byName = new Map();
      members.set(holder, byName);
    }
    push(byName, name, fn);
  };
  const lookup = (holder: Holder | undefined, name: string): Node[] =>
    holder === undefined ? [] : (members.get(holder)?.get(name) ?? []);

  /** The holder an object literal's methods are found under: `proto:K` for `K.prototype = {...}`, else itself. */
  const objectHolder = (object: Node): Holder => {
    const p = object.parent;
    if (p?.type === 'AssignmentExpression' && p.right === object) {
      const left = p.left as Node;
      if (left.type === 'MemberExpression' && memberName(left) === 'prototype') {
        return `proto:${refKey(left.object as Node) ?? ''}`;
      }
    }
    return object;
  };

  /** The function a `const self = this` is declared in, for `self` at `node`. */
  const aliasHome = (node: Node): Node | undefined => {
    const block = thisAliasBlock(node);
    return block?.parent && FUNCTIONS.has(block.parent.type) ? block.parent : undefined;
  };

  /** Who `this` is inside `fn` (an arrow's is its enclosing function's). */
  const thisHolder = (fn: Node | undefined): Holder | undefined => {
    let f = fn;
    // An arrow's `this` is its enclosing function's, and so is a function's bound to it: `function () {}.bind(this)`.
    while (f?.type === 'ArrowFunctionExpression' || (f && boundToThis(f))) f = enclosingFunction(f);
    if (!f) return undefined;
    const p = f.parent;
    if (p?.type === 'MethodDefinition' || p?.type === 'PropertyDefinition') return p.parent?.parent ?? undefined;
    if (p?.type === 'Property' && p.parent?.type === 'ObjectExpression') return objectHolder(p.parent);
    if (p?.type === 'AssignmentExpression' && p.right === f && (p.left as Node).type === 'MemberExpression') {
      return holderOf((p.left as Node).object as Node, p);
    }
    // `function Client() { this.connect(); }` with `Client.prototype.connect = ...`, or `function Vhost() { this.init =
    // function () {...} }`: the constructor's `this`, whose methods are its prototype's and those it assigns itself.
    const name = functionName(f);
    const constructs = members.has(`proto:${name}`) || (f.type === 'FunctionDeclaration' && assignsMethods(f));
    return name !== undefined && constructs ? `proto:${name}` : undefined;
  };

  /** `this.init = function () {...}` in the function's own code: a constructor that gives its instance methods. */
  const assignsMethods = (f: Node): boolean =>
    owned(bodyOf(f), keys, { skipLoops: false, skipCallbacks: true }).some(
      (n) =>
        n.type === 'AssignmentExpression' &&
        (n.left as Node).type === 'MemberExpression' &&
        ((n.left as Node).object as Node).type === 'ThisExpression' &&
        FUNCTIONS.has((n.right as Node).type),
    );

  /** Whose methods `object.m` looks among: `this`, `self`, `$` (an object literal), `K.prototype`, `exports`. */
  function holderOf(object: Node, at: Node): Holder | undefined {
    if (object.type === 'ThisExpression') return thisHolder(enclosingFunction(at));
    if (object.type === 'Identifier') {
      const home = aliasHome(object);
      if (home) return thisHolder(home);
      const literal = resolve(object.name as string, object).find((v) => v.type === 'ObjectExpression');
      return literal ? objectHolder(literal) : `id:${object.name as string}`;
    }
    if (object.type === 'MemberExpression' && memberName(object) === 'prototype') {
      const key = refKey(object.object as Node);
      return key === undefined ? undefined : `proto:${key}`;
    }
    const key = refKey(object);
    return key === undefined ? undefined : `id:${key}`;
  }

  // Functions and where each method is kept.
  walk(program, keys, (n) => {
    if (FUNCTIONS.has(n.type)) functions.push(n);
    // A class's methods are file-index.ts's; kept here too for `this['connect']()`.
    if ((n.type === 'MethodDefinition' || n.type === 'PropertyDefinition') && !n.static && !n.computed) {
      const value = n.value as Node | null;
      if (value && FUNCTIONS.has(value.type)) addMember(n.parent?.parent ?? undefined, nameOf(n.key as Node), value);
    }
    // `static create() {}` of `class Api`: called as `Api.create()`.
    if (n.type === 'MethodDefinition' && n.static && n.value) {
      const cls = n.parent?.parent;
      const id =
        (cls?.id as Node | null | undefined) ??
        (cls?.parent?.type === 'VariableDeclarator' ? (cls.parent.id as Node) : undefined);
      if (id?.type === 'Identifier') addMember(`id:${id.name as string}`, nameOf(n.key as Node), n.value as Node);
    }
    if (n.type === 'Property' && n.parent?.type === 'ObjectExpression' && FUNCTIONS.has((n.value as Node).type)) {
      addMember(objectHolder(n.parent), n.computed ? undefined : nameOf(n.key as Node), n.value as Node);
    }
    return true;
  });
  // Assignments of functions to members come second: `X.m = f` looks up the literal X names, `this.m = f` the holder
  // of the function it is written in (which may be a prototype's, known once the first pass is done).
  const assignments: Node[] = [];
  walk(program, keys, (n) => {
    if (n.type === 'AssignmentExpression' && n.operator === '=' && (n.left as Node).type === 'MemberExpression') {
      assignments.push(n);
    }
    return true;
  });
  for (const n of assignments.filter((a) => memberName((a.left as Node).object as Node) === 'prototype')) {
    for (const fn of functionsOf(n.right as Node))
      addMember(holderOf((n.left as Node).object as Node, n), memberName(n.left as Node), fn);
  }
  for (const n of assignments.filter((a) => memberName((a.left as Node).object as Node) !== 'prototype')) {
    for (const fn of functionsOf(n.right as Node))
      addMember(holderOf((n.left as Node).object as Node, n), memberName(n.left as Node), fn);
  }

  /** Functions a value written at an assignment is: inline, or a function of the file named. */
  function functionsOf(value: Node): Node[] {
    if (FUNCTIONS.has(value.type)) return [value];
    // `this.delayStrategy = isFunction(options.delayStrategy) ? options.delayStrategy : function () {...}`: the
    // function of the file, the default of an option (requestretry).
    if (value.type === 'ConditionalExpression' || value.type === 'LogicalExpression') {
      const own = byDefault(value);
      return own[0] === value ? [] : own;
    }
    if (value.type === 'Identifier') return resolve(value.name as string, value).filter((t) => FUNCTIONS.has(t.type));
    return [];
  }

  /** What a value stands for among the file's functions. */
  function valueTargets(value: Node): Node[] {
    let v = value;
    while (v.type === 'ChainExpression' || v.type === 'TSNonNullExpression' || v.type === 'TSAsExpression') {
      v = v.expression as Node;
    }
    if (FUNCTIONS.has(v.type)) return [v];
    // `this.onClose.bind(this)`: the function bound.
    if (v.type === 'CallExpression' && callName(v) === 'bind' && (v.callee as Node).type === 'MemberExpression') {
      return valueTargets((v.callee as Node).object as Node);
    }
    if (v.type === 'Identifier') {
      return resolve(v.name as string, v).flatMap((t) =>
        FUNCTIONS.has(t.type) ? [t] : t.type === 'CallExpression' ? wrapped(t) : [],
      );
    }
    if (v.type !== 'MemberExpression') return [];
    // `this.#strategy = this.#createStrategy(options)`: the functions that method returns (@redis/client).
    const viaClass = memberTargets(v, index).flatMap((t) =>
      FUNCTIONS.has(t.type) ? [t] : t.type === 'CallExpression' ? returnedFunctions(t) : [],
    );
    if (viaClass.length > 0) return viaClass;
    const name = memberName(v);
    return name === undefined ? [] : lookup(holderOf(v.object as Node, v), name);
  }

  /**
   * `const failOnce = once(failed)` with `function once(cb) { return (...a) => { if (!called) cb(...a); }; }`: the
   * function a wrapper of the file is handed, which the function it returns calls (launchdarkly-eventsource).
   */
  function wrapped(call: Node): Node[] {
    if (returning.has(call)) return [];
    returning.add(call);
    try {
      return calleeTargets(call).flatMap((f) => {
        const params = (f.params as Node[]).map((p) => paramName(p));
        return owned(bodyOf(f), keys, { skipLoops: false, skipCallbacks: true }).flatMap((n) => {
          const value = n.type === 'ReturnStatement' ? (n.argument as Node | null) : undefined;
          if (!value || !FUNCTIONS.has(value.type)) return [];
          return owned(bodyOf(value), keys, { skipLoops: false, skipCallbacks: true }).flatMap((m) => {
            const callee = m.type === 'CallExpression' ? (m.callee as Node) : undefined;
            const at = callee?.type === 'Identifier' ? params.indexOf(callee.name as string) : -1;
            const arg = at >= 0 ? (call.arguments as Node[])[at] : undefined;
            return arg && arg.type !== 'SpreadElement' ? valueTargets(arg) : [];
          });
        });
      });
    } finally {
      returning.delete(call);
    }
  }

  /** The functions of the file that the functions `call` enters return: `return (n, err) => ...`. */
  const returning = new Set<Node>();
  function returnedFunctions(call: Node): Node[] {
    if (returning.has(call)) return [];
    returning.add(call);
    try {
      return calleeTargets(call).flatMap((f) =>
        owned(bodyOf(f), keys, { skipLoops: false, skipCallbacks: true }).flatMap((n) => {
          const value = n.type === 'ReturnStatement' ? (n.argument as Node | null) : undefined;
          return value && FUNCTIONS.has(value.type) ? [value] : [];
        }),
      );
    } finally {
      returning.delete(call);
    }
  }

  /** The functions a call enters by calling them: its callee (past `.call`/`.apply`), or a helper's callbacks. */
  function calleeTargets(call: Node): Node[] {
    let callee = call.callee as Node;
    while (callee.type === 'ChainExpression' || callee.type === 'TSNonNullExpression')
      callee = callee.expression as Node;
    if (callee.type === 'MemberExpression' && ['call', 'apply'].includes(memberName(callee) ?? '')) {
      return valueTargets(callee.object as Node);
    }
    if (callee.type === 'MemberExpression' && memberName(callee) === 'bind') return [];
    const found = valueTargets(callee);
    if (found.length > 0 || callee.type !== 'MemberExpression') return found;
    // `this.timer.schedule()` on an imported Timer: the callbacks it was constructed with (file-index.ts).
    return foreignConstructions(callee.object as Node, index).flatMap((c) =>
      (c.arguments as Node[]).filter((a) => FUNCTIONS.has(a.type)),
    );
  }

  // The edges, function by function: what each one's own code (not its nested functions') enters.
  const from = new Map<Node, Edge[]>();
  const into = new Map<Node, Edge[]>();
  const add = (owner: Node, site: Node, kind: EdgeKind, targets: readonly Node[]) => {
    for (const to of targets) {
      const edge = { from: owner, to, site, kind };
      push(from, owner, edge);
      push(into, to, edge);
    }
  };
  /** A value handed to a call: a function, a reference, or an options object whose handlers are each handed. */
  const hand = (owner: Node, value: Node, kind: EdgeKind) => {
    if (value.type === 'ObjectExpression') {
      for (const p of value.properties as Node[]) {
        if (p.type !== 'Property') continue;
        const key = p.computed ? undefined : nameOf(p.key as Node);
        const onFailure = kind === 'handed' && key !== undefined && FAILURE_HANDLER.test(key);
        add(owner, p.value as Node, onFailure ? 'failure-event' : kind, valueTargets(p.value as Node));
      }
      return;
    }
    add(owner, value, kind, valueTargets(value));
  };
  for (const owner of [program, ...functions]) {
    const own = owned(owner === program ? program : bodyOf(owner), keys, { skipLoops: false, skipCallbacks: true });
    for (const n of own) {
      if (n.type === 'CallExpression' || n.type === 'NewExpression') {
        const args = n.arguments as Node[];
        if (n.type === 'CallExpression') add(owner, n, 'call', calleeTargets(n));
        const name = n.type === 'CallExpression' ? callName(n) : '';
        const event = eventName(args[0]);
        args.forEach((a, i) => {
          // `off('close', onClose)`, `removeListener(...)`: a listener taken away is not run.
          if (a.type === 'SpreadElement' || UNLISTENS.test(name)) return;
          let kind: EdgeKind = 'handed';
          if (TIMERS.test(name)) kind = 'later';
          else if (name === 'setInterval') kind = 'repeat';
          else if (name === 'then') kind = i === 0 ? 'then' : 'rejection';
          else if (name === 'catch') kind = 'rejection';
          else if (name === 'finally') kind = 'then';
          else if (LISTENS.test(name) && event !== undefined && i > 0) {
            kind = FAILURE_EVENTS.has(event) ? 'failure-event' : 'event';
          } else if (name === 'receive' && event !== undefined && i > 0) {
            kind = event === 'error' || event === 'timeout' ? 'rejection' : 'then';
          }
          hand(owner, a, kind);
        });
      }
      // `ws.onclose = this.onClose.bind(this)`, `ws.onopen = () => ...`: a listener set as a property.
      if (n.type === 'AssignmentExpression' && (n.left as Node).type === 'MemberExpression') {
        const prop = memberName(n.left as Node) ?? '';
        if (/^on[a-z]+$/.test(prop)) {
          add(
            owner,
            n.right as Node,
            FAILURE_EVENTS.has(prop.slice(2)) ? 'failure-event' : 'event',
            valueTargets(n.right as Node),
          );
        }
      }
    }
  }
  // `this.init = function (next) { open((err) => { if (err) return next(err); ... }) }` with `self.init((err) => ...)`:
  // a call of a parameter enters what the file's calls of that function hand it there (rascal).
  for (const owner of functions) {
    for (const n of owned(bodyOf(owner), keys, { skipLoops: false, skipCallbacks: true })) {
      if (n.type !== 'CallExpression' || (n.callee as Node).type !== 'Identifier') continue;
      const name = (n.callee as Node).name as string;
      let holder: Node | undefined = owner;
      let at = -1;
      for (; holder; holder = enclosingFunction(holder)) {
        at = (holder.params as Node[]).findIndex((p) => p.type === 'Identifier' && p.name === name);
        if (at >= 0) break;
        if (resolve(name, n).length > 0) break;
      }
      if (!holder || at < 0) continue;
      for (const e of into.get(holder) ?? []) {
        if (e.kind !== 'call' || e.site.type !== 'CallExpression') continue;
        const arg = (e.site.arguments as Node[])[at];
        if (!arg || arg.type === 'SpreadElement') continue;
        add(
          owner,
          n,
          'call',
          valueTargets(arg).filter((f) => goesOnWith(f, n)),
        );
      }
    }
  }
  const none: readonly Edge[] = [];
  return {
    functions,
    from: (fn) => from.get(fn) ?? none,
    into: (fn) => into.get(fn) ?? none,
    valueTargets,
  };
}

/**
 * Whether an error-first callback goes on with what `call` hands it: only a callback that first tells failure from
 * success and leaves on one of them (`(err) => { if (err) return done(err); ... }`, `(err) => { if (!err) return;
 * ... }`) is followed, on the side it goes on with: `next(err)` into the first, `next(null, x)` into the second, do
 * not. One that goes on either way (a heartbeat's `(err, reply) => { if (err) log(err); done(); }`) is not followed:
 * its success would come back too, a poll and not a retry (mongodb's monitor).
 */
function goesOnWith(callback: Node, call: Node): boolean {
  const param = (callback.params as Node[] | undefined)?.[0];
  const body = callback.body as Node;
  const first = body.type === 'BlockStatement' ? (body.body as Node[])[0] : undefined;
  if (param?.type !== 'Identifier' || first?.type !== 'IfStatement' || first.alternate) return false;
  const leaves = (st: Node): boolean => {
    const last = st.type === 'BlockStatement' ? (st.body as Node[]).at(-1) : st;
    return last?.type === 'ReturnStatement' || last?.type === 'ThrowStatement';
  };
  if (!leaves(first.consequent as Node)) return false;
  let test = first.test as Node;
  let onError = true;
  if (test.type === 'UnaryExpression' && test.operator === '!') {
    test = test.argument as Node;
    onError = false;
  }
  // `if (err)`, `if (err != null)`, `if (err !== null)`
  const named = (t: Node) => t.type === 'Identifier' && t.name === param.name;
  const asks =
    named(test) ||
    (test.type === 'BinaryExpression' &&
      ['!=', '!=='].includes(test.operator as string) &&
      named(test.left as Node) &&
      (test.right as Node).type === 'Literal' &&
      (test.right as Node).value === null);
  if (!asks) return false;
  const given = (call.arguments as Node[])[0];
  const none =
    !given ||
    (given.type === 'Literal' && given.value === null) ||
    (given.type === 'Identifier' && given.name === 'undefined');
  return onError ? none : !none;
}

/** `function (err) { ... }.bind(this)`: a function expression bound to the `this` it is written under. */
function boundToThis(f: Node): boolean {
  const member = f.parent;
  const call = member?.parent;
  return (
    f.type === 'FunctionExpression' &&
    member?.type === 'MemberExpression' &&
    member.object === f &&
    nameOf(member.property as Node) === 'bind' &&
    call?.type === 'CallExpression' &&
    call.callee === member &&
    (call.arguments as Node[])[0]?.type === 'ThisExpression'
  );
}

/** What the reading of a file is given: how to walk its nodes and what a name refers to. */
export interface Context {
  readonly keys: VisitorKeys;
  readonly resolve: Resolve;
  /** This file's name and parser, to read a function it imports from another file of its package (imports.ts). */
  readonly files?: Files | undefined;
}

/**
 * `isFunction(options.delayStrategy) ? options.delayStrategy : function () { return this.retryDelay; }`: a function
 * the caller may give, else one of the file: the retry as set up by default is the file's function (requestretry).
 */
export function byDefault(value: Node): Node[] {
  if (value.type !== 'ConditionalExpression' && value.type !== 'LogicalExpression') return [value];
  const sides =
    value.type === 'ConditionalExpression'
      ? [value.consequent as Node, value.alternate as Node]
      : [value.left as Node, value.right as Node];
  const own = sides.filter((side) => FUNCTIONS.has(side.type));
  return own.length === 1 && sides.every((side) => own.includes(side) || side.type === 'MemberExpression')
    ? own
    : [value];
}

/** The callee a call goes by, past `f.bind(this)` / `f.call(this)` and wrappers. */
function reference(n: Node): Node | undefined {
  if (n.type === 'CallExpression') {
    let callee = n.callee as Node;
    while (callee.type === 'ChainExpression' || callee.type === 'TSNonNullExpression')
      callee = callee.expression as Node;
    if (
      callee.type === 'MemberExpression' &&
      ['bind', 'call', 'apply'].includes(nameOf(callee.property as Node) ?? '')
    ) {
      return callee.object as Node;
    }
    return callee;
  }
  // A function handed on: `setTimeout(connect, ms)`, `.catch(onError)`, `on('close', this.onClose)`.
  if ((n.type === 'Identifier' || n.type === 'MemberExpression') && n.parent?.type === 'CallExpression') {
    return (n.parent.arguments as Node[]).includes(n) ? n : undefined;
  }
  return undefined;
}

/**
 * The functions of this file that a call or a handed reference enters: `f()`, `this.m()`, `this.#m()`,
 * `this.timer.schedule()` on a helper class of the file (and on to the callback its constructor was given), or, for a
 * helper class out of reach (imported), the callbacks it was constructed with.
 */
export function entered(n: Node, ctx: Context): Node[] {
  const ref = reference(n);
  if (!ref || (ref.type !== 'Identifier' && ref.type !== 'MemberExpression')) return [];
  const targets = fileModel(ref, ctx.keys, ctx.resolve).valueTargets(ref);
  if (targets.length > 0 || n.type !== 'CallExpression' || ref.type !== 'MemberExpression') return targets;
  return foreignConstructions(ref.object as Node, fileIndex(ref, ctx.keys)).flatMap((c) =>
    (c.arguments as Node[]).filter((a) => FUNCTIONS.has(a.type)),
  );
}
