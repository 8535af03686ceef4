/**
 * The one place that decides what a hand-written retry is, so the four rules agree.
 *
 * A retry is failure-driven repetition of the same call: a loop (`for`, `while`, `do`) or a recursive function whose
 * failure path (a `catch`, a `.catch()`, or a status check such as `if (!res.ok)`) leads back to the call, while
 * success leaves. Polling that repeats on success, pagination, stream reading and loops over a list of items are not
 * retries: their success path does not leave, or their failure path does not lead back.
 *
 * It reads only the AST that ESLint hands it (any parser: espree, typescript-eslint), walking children through the
 * visitor keys ESLint provides, so it needs no runtime dependency.
 */

import {
  calleeName,
  callName,
  FUNCTIONS,
  isNode,
  mentions,
  type Node,
  nameOf,
  owned,
  refKey,
  type VisitorKeys,
  walk,
} from './ast';
import { after, completions, leadsBack, leaves, sequence } from './flow';

/** What a name refers to at a node: a function, or every value assigned to the variable; empty when unseen. */
export type Resolve = (name: string, at: Node) => readonly Node[];

/** What one retry has and lacks; each rule reports one missing element. */
export interface RetryShape {
  /** The loop statement or the recursive function. */
  readonly node: Node;
  readonly kind: 'loop' | 'recursion';
  /** Some wait (sleep, delay, setTimeout...) happens between attempts. */
  readonly waits: boolean;
  /** The delay is visibly fixed (constants, counters, options) with no randomness; false when unknown. */
  readonly fixedDelay: boolean;
  /** A counter bound or a deadline stops the attempts. */
  readonly limited: boolean;
  /** The failure path looks at the error or the response status before retrying. */
  readonly checksError: boolean;
}

const WAIT_NAME = /sleep|delay|wait|backoff|pause|timeout|nap/i;
const RANDOM_NAME = /jitter|random/i;
const CLASSIFIER_NAME = /retr|transient|recover|fatal|permanent|should|^is|^can|^assert|classif|check|status/i;
const LIMIT_NAME =
  /limit|max|attempt|tries|count$|deadline|time[dr]?out|remaining|exhaust|expire|budget|giveup|retriesLeft/i;
const RELATIONAL = new Set(['<', '<=', '>', '>=', '===', '==', '!==', '!=']);

const isClockCall = (node: Node): boolean =>
  (node.type === 'CallExpression' &&
    ['now', 'getTime', 'hrtime', 'uptime'].includes(callName(node)) &&
    (node.callee as Node).type === 'MemberExpression') ||
  (node.type === 'NewExpression' &&
    (node.callee as Node).type === 'Identifier' &&
    (node.callee as Node).name === 'Date');

const isRandomCall = (node: Node): boolean => {
  if (node.type !== 'CallExpression') return false;
  const name = callName(node);
  return name === 'getRandomValues' || name === 'randomInt' || name === 'randomBytes' || RANDOM_NAME.test(name);
};

/** A wait: a call named like sleep/delay/wait/backoff/setTimeout, or `new Promise(r => setTimeout(r, ms))`. */
const isWaitCall = (node: Node): boolean =>
  node.type === 'CallExpression' &&
  (WAIT_NAME.test(callName(node)) ||
    // `await guard(delayMs, signal)`: an awaited call handed a delay waits it.
    (node.parent?.type === 'AwaitExpression' &&
      (node.arguments as Node[]).some((a) => WAIT_NAME.test(refKey(a)?.split('.').pop() ?? ''))));

/** Success or failure, as a status test says: `res.ok` is success, `res.status >= 500` failure; else undefined. */
export function statusPolarity(test: Node): 'success' | 'failure' | undefined {
  if (test.type === 'UnaryExpression' && test.operator === '!') {
    const inner = statusPolarity(test.argument as Node);
    return inner === undefined ? undefined : inner === 'success' ? 'failure' : 'success';
  }
  if (test.type === 'MemberExpression' && !test.computed && (test.property as Node).name === 'ok') return 'success';
  if (test.type === 'LogicalExpression') {
    const left = statusPolarity(test.left as Node);
    const right = statusPolarity(test.right as Node);
    if (left === right) return left;
    return left === undefined ? right : right === undefined ? left : undefined;
  }
  if (test.type === 'BinaryExpression' && RELATIONAL.has(test.operator as string)) {
    let [status, literal, op] = [test.left as Node, test.right as Node, test.operator as string];
    if (status.type === 'Literal') {
      [status, literal] = [literal, status];
      op = ({ '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as Record<string, string>)[op] ?? op;
    }
    if (!isStatusRef(status) || literal.type !== 'Literal' || typeof literal.value !== 'number') return undefined;
    const n = literal.value;
    const good = n < 300;
    // A redirect (3xx) is neither: following it is not a retry.
    if (n >= 300 && n < 400 && op !== '>' && op !== '>=') return undefined;
    switch (op) {
      case '===':
      case '==':
        return good ? 'success' : 'failure';
      case '!==':
      case '!=':
        return good ? 'failure' : 'success';
      case '<':
      case '<=':
        return n <= 500 ? 'success' : undefined;
      default:
        return n >= 300 ? 'failure' : undefined;
    }
  }
  return undefined;
}

const isStatusRef = (node: Node): boolean =>
  (node.type === 'MemberExpression' &&
    !node.computed &&
    ['status', 'statusCode'].includes((node.property as Node).name as string)) ||
  (node.type === 'Identifier' && ['status', 'statusCode'].includes(node.name as string));

/** The tests of conditions under `nodes`: if, ?:, && and ||, switch, loop tests. */
function tests(nodes: readonly Node[]): Node[] {
  const out: Node[] = [];
  for (const n of nodes) {
    if (
      n.type === 'IfStatement' ||
      n.type === 'ConditionalExpression' ||
      n.type === 'WhileStatement' ||
      n.type === 'DoWhileStatement' ||
      n.type === 'ForStatement'
    ) {
      if (n.test) out.push(n.test as Node);
    } else if (n.type === 'LogicalExpression') out.push(n.left as Node);
    else if (n.type === 'SwitchStatement') out.push(n.discriminant as Node);
  }
  return out;
}

interface Context {
  readonly keys: VisitorKeys;
  readonly resolve: Resolve;
}

/** The delay a wait call waits: its last numeric-looking argument (`sleep(ms)`, `setTimeout(r, ms)`). */
function delayOf(call: Node): Node | undefined {
  const args = call.arguments as Node[];
  const name = callName(call);
  if (/settimeout/i.test(name) && args.length >= 2) return args[1];
  if (/settimeout/i.test(name) && args[0]?.type !== 'ArrowFunctionExpression') return args[0];
  return args.find((a) => !FUNCTIONS.has(a.type) && a.type !== 'ObjectExpression');
}

/**
 * Whether an expression is visibly deterministic: literals, names of plain values, arithmetic and `Math.min/max/pow`
 * of those, with no randomness. 'random' when randomness is seen; 'unknown' for a call it cannot see into.
 */
function determinism(
  expr: Node | undefined,
  ctx: Context,
  depth: number,
  seen: Set<Node>,
): 'fixed' | 'random' | 'unknown' {
  if (seen.has(expr as Node)) return 'fixed'; // `d = d * 2`: already being read, it adds nothing
  if (!expr || depth > 6) return 'unknown';
  seen.add(expr);
  let verdict: 'fixed' | 'random' | 'unknown' = 'fixed';
  walk(expr, ctx.keys, (n) => {
    if (verdict === 'random') return false;
    if (isRandomCall(n)) {
      verdict = 'random';
      return false;
    }
    const see = (targets: readonly Node[]) => {
      for (const target of targets) {
        const inner = determinism(target, ctx, depth + 1, seen);
        if (inner === 'random' || verdict === 'fixed') verdict = inner;
      }
    };
    const parent = n.parent;
    const isName =
      (parent?.type === 'MemberExpression' && parent.property === n && !parent.computed) ||
      (parent?.type === 'CallExpression' && parent.callee === n) ||
      (parent?.type === 'Property' && parent.key === n);
    if (n.type === 'Identifier' && !isName) {
      see(ctx.resolve(n.name as string, n));
    }
    if (n.type === 'CallExpression') {
      const callee = n.callee as Node;
      if (!(callee.type === 'MemberExpression' && refKey(callee.object as Node) === 'Math')) {
        const targets = callee.type === 'Identifier' ? ctx.resolve(callee.name as string, n) : [];
        if (targets.length === 0 && verdict === 'fixed') verdict = 'unknown';
        see(targets);
      }
    }
    return true;
  });
  return verdict;
}

/** What the waits among `nodes` say: present, and visibly fixed. */
function waitsIn(nodes: readonly Node[], ctx: Context): { waits: boolean; fixedDelay: boolean } {
  const calls = nodes.filter(isWaitCall);
  if (calls.length === 0) {
    // `await onFailure(...)`: a local helper that waits inside; its delay is not seen here.
    const helperWaits = nodes.some(
      (n) =>
        n.type === 'CallExpression' &&
        n.parent?.type === 'AwaitExpression' &&
        (n.callee as Node).type === 'Identifier' &&
        ctx
          .resolve((n.callee as Node).name as string, n)
          .some((f) => FUNCTIONS.has(f.type) && mentions(f, ctx.keys, isWaitCall)),
    );
    return { waits: helperWaits, fixedDelay: false };
  }
  let fixedDelay = true;
  for (const call of calls) {
    if (RANDOM_NAME.test(callName(call))) return { waits: true, fixedDelay: false };
    const callee = call.callee as Node;
    const local = callee.type === 'Identifier' ? ctx.resolve(callee.name as string, call) : [];
    if (local.some((f) => determinism(f, ctx, 0, new Set()) === 'random')) return { waits: true, fixedDelay: false };
    const delay = delayOf(call);
    // A wait whose delay cannot be seen (`await backoff()`, `sleep(next())`) is not called fixed.
    if (!delay || determinism(delay, ctx, 0, new Set()) !== 'fixed') fixedDelay = false;
    if (nodes.some(isRandomCall)) fixedDelay = false;
  }
  return { waits: true, fixedDelay };
}

/** Names updated in `nodes`: `i++`, `tries += 1`, `attempt = attempt + 1`, `this.count++`. */
function counters(nodes: readonly Node[]): Set<string> {
  const out = new Set<string>();
  for (const n of nodes) {
    if (n.type === 'UpdateExpression') {
      const key = refKey(n.argument as Node);
      if (key) out.add(key);
    } else if (n.type === 'AssignmentExpression' && n.operator !== '=') {
      const key = refKey(n.left as Node);
      if (key) out.add(key);
    } else if (n.type === 'AssignmentExpression') {
      const key = refKey(n.left as Node);
      if (key && (n.right as Node).type === 'BinaryExpression') out.add(key);
    }
  }
  return out;
}

/** A test that bounds: it compares (or decrements) a counter, or reads a clock. */
function bounds(test: Node, names: ReadonlySet<string>, keys: VisitorKeys): boolean {
  if (test.type === 'LogicalExpression') {
    return bounds(test.left as Node, names, keys) || bounds(test.right as Node, names, keys);
  }
  if (mentions(test, keys, isStatusRef)) return false;
  return mentions(test, keys, (n) => {
    if (isClockCall(n) || n.type === 'UpdateExpression') return true;
    // `this.attemptLimitReached`, `deadlineExceeded()`, `retriesLeft`: a bound by its name.
    if (LIMIT_NAME.test(nameOf(n) ?? '')) return true;
    const key = refKey(n);
    return key !== undefined && names.has(key) && n.parent?.type !== 'MemberExpression';
  });
}

/** Whether some condition in `nodes` stops the attempts: a bounded loop test, or a bounded `if` that leaves. */
function limitedBy(loopTests: readonly Node[], nodes: readonly Node[], names: ReadonlySet<string>, keys: VisitorKeys) {
  if (loopTests.some((t) => bounds(t, names, keys))) return true;
  for (const n of nodes) {
    if (n.type === 'IfStatement' && bounds(n.test as Node, names, keys)) {
      const c = completions(n.consequent as Node, true);
      if (!leadsBack(c) || c.has('exit') || c.has('throw')) return true;
      // `if (code === 'EAGAIN' && n < 10) { n++; continue } throw err`: the way back is the bounded branch.
      const list = n.parent?.type === 'BlockStatement' ? (n.parent.body as Node[]) : [];
      const rest = list.slice(list.indexOf(n) + 1);
      const otherwise = n.alternate ? completions(n.alternate as Node, true) : sequence(rest, true);
      if ((n.alternate || rest.length > 0) && !leadsBack(otherwise)) return true;
    }
    if (
      (n.type === 'ConditionalExpression' || n.type === 'LogicalExpression') &&
      n.parent?.type === 'ReturnStatement'
    ) {
      if (bounds((n.test ?? n.left) as Node, names, keys)) return true;
    }
  }
  return false;
}

/** Whether the failure path looks at the error (`err` in a condition, or passed to a classifier) or a status code. */
function checksError(nodes: readonly Node[], errorNames: ReadonlySet<string>, ctx: Context, depth = 0): boolean {
  const { keys } = ctx;
  const isError = (n: Node) => n.type === 'Identifier' && errorNames.has(n.name as string);
  if (tests(nodes).some((t) => mentions(t, keys, (n) => isError(n) || isStatusRef(n)))) return true;
  return nodes.some((n) => {
    if (n.type !== 'CallExpression') return false;
    const args = n.arguments as Node[];
    const at = args.findIndex((a) => mentions(a, keys, isError));
    if (at < 0) return false;
    if (CLASSIFIER_NAME.test(callName(n))) return true;
    // `await onFailure(error)`: a local helper that looks at its parameter in a condition.
    const callee = n.callee as Node;
    if (depth > 0 || callee.type !== 'Identifier') return false;
    return ctx.resolve(callee.name as string, n).some((f) => {
      const param = FUNCTIONS.has(f.type) ? (f.params as Node[])[at] : undefined;
      if (param?.type !== 'Identifier') return false;
      return checksError(owned(f, keys, { skipLoops: false }), new Set([param.name as string]), ctx, depth + 1);
    });
  });
}

/** The failure paths of a loop body, if it is a retry: catch clauses and status checks that lead back. */
function failurePaths(
  loop: Node,
  direct: readonly Node[],
  nodes: readonly Node[],
  keys: VisitorKeys,
): { errorNames: Set<string> } | undefined {
  const body = loop.body as Node;
  const loopTestNames = new Set<string>();
  if (loop.test)
    walk(loop.test as Node, keys, (n) => void (n.type === 'Identifier' && loopTestNames.add(n.name as string)));
  const rest = (node: Node) => sequence(after(node, body), true);
  const errorNames = new Set<string>();
  // `while (!res.ok)`, `do { ... } while (!result)` with `result = await f().catch(...)`: the test is the failure path.
  const test = loop.test as Node | null;
  let retry = !!test && (statusPolarity(test) ?? caughtValueTest(test, direct, keys)) === 'failure';
  for (const n of direct) {
    if (n.type === 'TryStatement' && n.handler) {
      const block = completions(n.block as Node, true);
      block.delete('throw');
      // `while (!done) { try { ...; done = true } ... }`: a statement of the attempt itself sets what the loop tests.
      const setsTest = (block: Node) =>
        (block.body as Node[]).some((st) => {
          const a = st.type === 'ExpressionStatement' ? (st.expression as Node) : undefined;
          return a?.type === 'AssignmentExpression' && loopTestNames.has(refKey(a.left as Node) ?? '');
        });
      const assignsTest = setsTest(n.block as Node);
      const tail = rest(n);
      const successLeaves =
        (leaves(block) && !leadsBack(block)) ||
        (leaves(block) && leavesOnSuccess(n.block as Node, keys)) ||
        (block.has('normal') && tailLeavesOnResult(n, after(n, body), keys)) ||
        assignsTest;
      const handler = completions((n.handler as Node).body as Node, true);
      // A failure path that moves what the loop tests (`current = generator.throw(err)`) goes on, not back.
      const failureBack =
        !setsTest((n.handler as Node).body as Node) &&
        !remedies((n.handler as Node).body as Node, keys, '') &&
        (handler.has('continue') || (handler.has('normal') && leadsBack(tail)));
      if (successLeaves && failureBack) {
        retry = true;
        const param = (n.handler as Node).param as Node | null;
        if (param?.type === 'Identifier') errorNames.add(param.name as string);
      }
    } else if (n.type === 'IfStatement') {
      const polarity = statusPolarity(n.test as Node) ?? caughtValueTest(n.test as Node, direct, keys);
      if (!polarity) continue;
      const tail = rest(n);
      const consequent = completions(n.consequent as Node, true);
      const alternate = n.alternate ? completions(n.alternate as Node, true) : undefined;
      const onFalse = alternate ?? tail;
      const [success, failure] = polarity === 'success' ? [consequent, onFalse] : [onFalse, consequent];
      const failureBack = failure.has('continue') || (failure.has('normal') && leadsBack(alternate ? tail : failure));
      const successLeaves = leaves(success) || (success.has('normal') && leaves(tail));
      if (successLeaves && failureBack && !(failure === consequent && leaves(consequent) && !leadsBack(consequent))) {
        retry = true;
      }
    }
  }
  if (!retry) return undefined;
  // `.catch(e => ...)` callbacks' parameters are errors too.
  for (const n of nodes) {
    if (n.type === 'CallExpression' && calleeName(n) === 'catch') {
      const cb = (n.arguments as Node[])[0];
      const p = cb && FUNCTIONS.has(cb.type) ? (cb.params as Node[])[0] : undefined;
      if (p?.type === 'Identifier') errorNames.add(p.name as string);
    }
  }
  // `lastError = err` carries the error's name on.
  for (const n of nodes) {
    if (
      n.type === 'AssignmentExpression' &&
      (n.right as Node).type === 'Identifier' &&
      errorNames.has((n.right as Node).name as string) &&
      (n.left as Node).type === 'Identifier'
    ) {
      errorNames.add((n.left as Node).name as string);
    }
  }
  return { errorNames };
}

/** Names given a value in `node`: declared (`const res = ...`) or assigned (`res = ...`). */
function assignedIn(node: Node, keys: VisitorKeys): Set<string> {
  const out = new Set<string>();
  for (const n of owned(node, keys, { skipLoops: true, skipCallbacks: true })) {
    const id =
      n.type === 'VariableDeclarator'
        ? (n.id as Node)
        : n.type === 'AssignmentExpression'
          ? (n.left as Node)
          : undefined;
    if (id?.type === 'Identifier') out.add(id.name as string);
  }
  return out;
}

/** A test on a result: `res`, `!res`, `res !== undefined`, `result != null`, for a name the attempt assigned. */
function testsResult(test: Node, names: ReadonlySet<string>): boolean {
  let t = test;
  while (t.type === 'UnaryExpression' && t.operator === '!') t = t.argument as Node;
  if (t.type === 'BinaryExpression' && ['!==', '!=', '===', '=='].includes(t.operator as string)) {
    const empty = (v: Node) =>
      (v.type === 'Literal' && v.value === null) || (v.type === 'Identifier' && v.name === 'undefined');
    const other = empty(t.right as Node) ? (t.left as Node) : empty(t.left as Node) ? (t.right as Node) : undefined;
    return other?.type === 'Identifier' && names.has(other.name as string);
  }
  return t.type === 'Identifier' && names.has(t.name as string);
}

/** Inside the attempt, every way out is taken on success: `if (res.ok) return res`, `if (result) break`. */
function leavesOnSuccess(block: Node, keys: VisitorKeys): boolean {
  const names = assignedIn(block, keys);
  let exits = 0;
  for (const n of owned(block, keys, { skipLoops: true, skipCallbacks: true })) {
    if (n.type === 'SwitchStatement' && leaves(completions(n, true))) return false;
    if (n.type !== 'IfStatement') continue;
    const [yes, no] = [completions(n.consequent as Node, true), completions(n.alternate as Node, true)];
    if (!leaves(yes) && !leaves(no)) continue;
    exits++;
    const polarity = statusPolarity(n.test as Node) ?? (testsResult(n.test as Node, names) ? 'success' : undefined);
    if (polarity === undefined || (polarity === 'success') !== leaves(yes)) return false;
  }
  return exits > 0;
}

/** After the attempt, the loop leaves unconditionally (`break;`) or on a test of what the attempt assigned. */
function tailLeavesOnResult(tryStatement: Node, tail: readonly Node[], keys: VisitorKeys): boolean {
  if (tail.length > 0 && !leadsBack(sequence(tail, true))) return true;
  const names = assignedIn(tryStatement.block as Node, keys);
  return tail.some(
    (n) =>
      n.type === 'IfStatement' && leaves(completions(n.consequent as Node, true)) && testsResult(n.test as Node, names),
  );
}

/** `if (res)` / `if (result !== undefined)` on a value that came from `x.catch(...)`: success when it is there. */
function caughtValueTest(test: Node, nodes: readonly Node[], keys: VisitorKeys): 'success' | 'failure' | undefined {
  const fromCatch = new Set<string>();
  for (const n of nodes) {
    const [id, init] =
      n.type === 'VariableDeclarator'
        ? [n.id as Node, n.init as Node | null]
        : n.type === 'AssignmentExpression'
          ? [n.left as Node, n.right as Node]
          : [];
    if (
      id?.type === 'Identifier' &&
      init &&
      mentions(init, keys, (c) => c.type === 'CallExpression' && calleeName(c) === 'catch')
    ) {
      fromCatch.add(id.name as string);
    }
  }
  let t = test;
  let negated = false;
  while (t.type === 'UnaryExpression' && t.operator === '!') {
    negated = !negated;
    t = t.argument as Node;
  }
  if (t.type === 'Identifier' && fromCatch.has(t.name as string)) return negated ? 'failure' : 'success';
  return undefined;
}

const cache = new WeakMap<Node, RetryShape | null>();

/** The retry shape of a loop statement, or undefined when the loop is not a retry. */
export function retryLoop(loop: Node, ctx: Context): RetryShape | undefined {
  const known = cache.get(loop);
  if (known !== undefined) return known ?? undefined;
  const shape = analyseLoop(loop, ctx);
  cache.set(loop, shape ?? null);
  return shape;
}

function analyseLoop(loop: Node, ctx: Context): RetryShape | undefined {
  const { keys } = ctx;
  const nodes = owned(loop.body as Node, keys, { skipLoops: true });
  const direct = owned(loop.body as Node, keys, { skipLoops: true, skipCallbacks: true });
  const paths = failurePaths(loop, direct, nodes, keys);
  if (!paths) return undefined;
  const loopParts = [loop.init, loop.test, loop.update].filter(isNode);
  const partNodes = loopParts.flatMap((p) => owned(p, keys, { skipLoops: true }));
  const names = counters([...partNodes, ...direct]);
  if (iterates(loop, direct, partNodes, names)) return undefined;
  return {
    node: loop,
    kind: 'loop',
    ...waitsIn(nodes, ctx),
    limited: limitedBy([loop.test].filter(isNode), direct, names, keys),
    checksError: checksError([loop, ...nodes], paths.errorNames, ctx),
  };
}

/** Inside a catch clause or a wait's arguments, below `top`. */
function inFailureOrWait(node: Node, top: Node): boolean {
  for (let p = node.parent; p && p !== top; p = p.parent) {
    if (p.type === 'CatchClause' || isWaitCall(p)) return true;
  }
  return false;
}

/**
 * An iteration, not a retry: it indexes with its counter (`candidates[i]`) or steps a variable outside any `try`
 * (`dir = parent`, `url = page.next`), so each pass makes a different call.
 */
function iterates(top: Node, body: readonly Node[], parts: readonly Node[], names: ReadonlySet<string>): boolean {
  const nodes = [...body, ...parts];
  const declared = new Set(
    // Declared in the body: a fresh value each pass, not a step (the loop's own `let x = ...` is a step).
    body.flatMap((n) =>
      n.type === 'VariableDeclarator' && (n.id as Node).type === 'Identifier' ? [(n.id as Node).name] : [],
    ),
  );
  for (const n of nodes) {
    if (n.type === 'MemberExpression' && n.computed) {
      const key = refKey(n.property as Node);
      if (key !== undefined && names.has(key) && !inFailureOrWait(n, top)) return true;
    }
    if (n.type === 'AssignmentExpression' && n.operator === '=' && (n.left as Node).type === 'Identifier') {
      const right = n.right as Node;
      const steps = right.type === 'Identifier' || right.type === 'MemberExpression' || right.type === 'CallExpression';
      let inTry = false;
      for (let p = n.parent; p && p !== top && !inTry; p = p.parent) inTry = p.type === 'TryStatement';
      if (steps && !inTry && !declared.has((n.left as Node).name)) return true;
    }
  }
  return false;
}

const BOOKKEEPING =
  /log|warn|error|info|debug|trace|print|emit|report|notify|track|record|metric|increment|^push$|^set$|^add$|^on[A-Z]/;

/**
 * A failure path that first repairs the cause (creates the parent directory, asks for a one-time password, deletes a
 * stale lock, switches to full metadata) is recovery, not a retry: some call there other than a wait, a classifier,
 * logging or the retried call itself, or a flag set on `this`.
 */
function remedies(body: Node, keys: VisitorKeys, self: string): boolean {
  return owned(body, keys, { skipLoops: true, skipCallbacks: true }).some((n) => {
    if (n.type === 'AssignmentExpression') {
      return (
        (n.left as Node).type === 'MemberExpression' && ((n.left as Node).object as Node).type === 'ThisExpression'
      );
    }
    if (n.type !== 'CallExpression' || isWaitCall(n)) return false;
    const name = callName(n);
    const statement = n.parent?.type === 'AwaitExpression' ? n.parent.parent : n.parent;
    const onItsOwn = statement?.type === 'ExpressionStatement' || statement?.type === 'AssignmentExpression';
    // `mkdirp(dirname(p))`: the function called on something else first repairs the way for the call again.
    if (name === self) return onItsOwn && (n.arguments as Node[]).some((a) => a.type === 'CallExpression');
    return (
      onItsOwn &&
      name !== '' &&
      !BOOKKEEPING.test(name) &&
      !CLASSIFIER_NAME.test(name) &&
      !/^(throw|fail$|raise|bail)/i.test(name) &&
      refKey((n.callee as Node).type === 'MemberExpression' ? ((n.callee as Node).object as Node) : n) !== 'console'
    );
  });
}

/** The name a function is called by: its own, or the variable or property it is assigned to. */
function functionName(fn: Node): string | undefined {
  const id = fn.id as Node | null | undefined;
  if (id?.type === 'Identifier') return id.name as string;
  const parent = fn.parent;
  if (parent?.type === 'VariableDeclarator' && (parent.id as Node).type === 'Identifier')
    return (parent.id as Node).name as string;
  if (parent?.type === 'MethodDefinition' || parent?.type === 'Property' || parent?.type === 'PropertyDefinition') {
    return nameOf(parent.key as Node);
  }
  return undefined;
}

/** The enclosing function that `call` calls by name (a self-call), or undefined. */
export function recursiveCaller(call: Node): Node | undefined {
  const name = calleeName(call);
  if (!name) return undefined;
  for (let p = call.parent; p; p = p.parent) {
    if (FUNCTIONS.has(p.type) && functionName(p) === name) return p;
  }
  return undefined;
}

/** Where a node sits on a failure path inside `fn`: a catch clause, a `.catch()` callback, a failure branch. */
function onFailurePath(node: Node, fn: Node, ctxKeys: VisitorKeys): { errorName?: string } | undefined {
  let child = node;
  for (let p = node.parent; p && child !== fn; child = p, p = p.parent) {
    if (p.type === 'CatchClause' && child === p.body) {
      if (remedies(p.body as Node, ctxKeys, functionName(fn) as string)) return undefined;
      const param = p.param as Node | null;
      return param?.type === 'Identifier' ? { errorName: param.name as string } : {};
    }
    if (FUNCTIONS.has(child.type) && p.type === 'CallExpression' && (p.arguments as Node[]).includes(child)) {
      const name = calleeName(p);
      const args = p.arguments as Node[];
      if (name === 'catch' || (name === 'then' && args[1] === child)) {
        const param = (child.params as Node[])[0];
        return param?.type === 'Identifier' ? { errorName: param.name as string } : {};
      }
    }
    if (p.type === 'IfStatement' && child !== p.test) {
      const polarity = statusPolarity(p.test as Node);
      if ((polarity === 'failure' && child === p.consequent) || (polarity === 'success' && child === p.alternate)) {
        return {};
      }
    }
  }
  return undefined;
}

/** The retry shape of a function that calls itself again on failure, or undefined. */
export function retryRecursion(fn: Node, ctx: Context): RetryShape | undefined {
  const known = cache.get(fn);
  if (known !== undefined) return known ?? undefined;
  const shape = analyseRecursion(fn, ctx);
  cache.set(fn, shape ?? null);
  return shape;
}

function analyseRecursion(fn: Node, ctx: Context): RetryShape | undefined {
  // Only reached through recursiveCaller, which found the name.
  const name = functionName(fn) as string;
  const { keys } = ctx;
  const nodes = owned(fn.body as Node, keys, { skipLoops: false });
  const errorNames = new Set<string>();
  let retry = false;
  for (const n of nodes) {
    if (n.type !== 'CallExpression' || calleeName(n) !== name) continue;
    const callee = n.callee as Node;
    if (callee.type === 'MemberExpression' && (callee.object as Node).type !== 'ThisExpression') continue;
    const path = onFailurePath(n, fn, keys);
    if (!path) continue;
    retry = true;
    if (path.errorName) errorNames.add(path.errorName);
  }
  if (!retry) return undefined;
  const params = new Set(
    (fn.params as Node[]).flatMap((p) => {
      const target = p.type === 'AssignmentPattern' ? (p.left as Node) : p;
      return target.type === 'Identifier' ? [target.name as string] : [];
    }),
  );
  for (const c of counters(nodes)) params.add(c);
  if (nodes.some((n) => n.type === 'MemberExpression' && n.computed && params.has(refKey(n.property as Node) ?? ''))) {
    return undefined; // `parsers[index]`: it tries the next item of a list, not the same call again
  }
  return {
    node: fn,
    kind: 'recursion',
    ...waitsIn(nodes, ctx),
    limited: tests(nodes).some((t) => bounds(t, params, keys)),
    checksError: checksError(nodes, errorNames, ctx),
  };
}
