/**
 * The one place that decides what a hand-written retry is, so the four rules agree.
 *
 * A retry is failure-driven repetition of the same call: a loop (`for`, `while`, `do`) or a recursive function whose
 * failure path (a `catch`, a `.catch()`, or a status check such as `if (!res.ok)`) leads back to the call, while
 * success leaves, or a worker that keeps its pace through failures. Polling that repeats on success, pagination, stream
 * reading and loops over a list of items are not retries: their success path does not leave, or their failure path
 * does not lead back.
 *
 * It judges failure paths (what repairs the cause first, what points the call at another input) for the three kinds
 * of retry: a loop, a recursion, and a cycle through other functions of the file (found by cycles.ts in model.ts's
 * model). What each retry has of the wait, jitter, limit and check is read by properties.ts.
 *
 * It reads only the AST that ESLint hands it (any parser: espree, typescript-eslint), walking children through the
 * visitor keys ESLint provides, so it needs no runtime dependency.
 */

import {
  calleeName,
  callName,
  FUNCTIONS,
  isNode,
  isWithin,
  mentions,
  type Node,
  nameOf,
  owned,
  paramName,
  refKey,
  type VisitorKeys,
  walk,
} from './ast';
import { type FailureCycle, type FailurePath, failureCycles, type Judge } from './cycles';
import { fileIndex, isThis } from './file-index';
import { after, completions, leadsBack, leaves, offPath, sequence } from './flow';
import {
  bodyOf,
  type Context,
  enclosingFunction,
  entered,
  FAILURE_EVENTS,
  type FileModel,
  fileModel,
  functionName,
  LISTENS,
  type Resolve,
} from './model';
import {
  aliases,
  bounds,
  counters,
  cycleProperties,
  errorCheck,
  helperLimits,
  isClockCall,
  isWaitCall,
  limitedBy,
  noteByName,
  type Properties,
  statusPolarity,
  tests,
  WAITS_BY_NAME,
  waitsIn,
  withAliases,
  withNotes,
} from './properties';

export type { Resolve };

/** One retry found, and what it has and lacks of the four elements; each rule reports one missing element. */
export interface RetryShape extends Properties {
  /** The loop statement or the recursive function. */
  readonly node: Node;
  readonly kind: 'loop' | 'recursion';
}

/** The failure paths of a loop body, if it is a retry: catch clauses and status checks that lead back. */
function failurePaths(
  loop: Node,
  direct: readonly Node[],
  nodes: readonly Node[],
  ctx: Context,
): { errorNames: Set<string>; extra: Node[] } | undefined {
  const { keys } = ctx;
  const body = loop.body as Node;
  const loopTestNames = new Set<string>();
  if (loop.test)
    walk(loop.test as Node, keys, (n) => void (n.type === 'Identifier' && loopTestNames.add(n.name as string)));
  const rest = (node: Node) => sequence(after(node, body), true);
  const errorNames = new Set<string>();
  // `while (!res.ok)`, `do { ... } while (!result)` with `result = await f().catch(...)`: the test is the failure path.
  const test = loop.test as Node | null;
  let retry =
    !!test &&
    (statusPolarity(test) ?? caughtValueTest(test, direct, keys) ?? nullResultTest(test, direct, ctx)) === 'failure';
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
        !handsOnError(n, keys) &&
        (handler.has('continue') || (handler.has('normal') && leadsBack(tail)));
      if ((successLeaves && failureBack) || keepsPace(n, body, keys)) {
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
      // Success leaves on every path: a success that can go round again is reading or polling, not a retry.
      const successThen = new Set(success);
      if (success !== tail && successThen.delete('normal')) for (const k of tail) successThen.add(k);
      const successLeaves = leaves(successThen) && !leadsBack(successThen);
      if (successLeaves && failureBack && !(failure === consequent && leaves(consequent) && !leadsBack(consequent))) {
        retry = true;
      }
    }
  }
  // `outer: for (;;) { for (const part of parts) { try {...} catch { continue outer } } return }`: a catch in a
  // nested loop starts the whole batch again.
  const extra: Node[] = [];
  if (loop.parent?.type === 'LabeledStatement') {
    for (const handler of labelledRetries(loop, (loop.parent.label as Node).name as string, keys)) {
      retry = true;
      extra.push(handler, ...owned(handler.body as Node, keys, { skipLoops: true }));
      const param = handler.param as Node | null;
      if (param?.type === 'Identifier') errorNames.add(param.name as string);
    }
  }
  if (!retry) return undefined;
  const all = [...nodes, ...extra];
  // `.catch(e => ...)` callbacks' parameters are errors too.
  for (const n of all) {
    if (n.type === 'CallExpression' && calleeName(n) === 'catch') {
      const cb = (n.arguments as Node[])[0];
      const p = cb && FUNCTIONS.has(cb.type) ? (cb.params as Node[])[0] : undefined;
      if (p?.type === 'Identifier') errorNames.add(p.name as string);
    }
  }
  aliases(all, errorNames);
  return { errorNames, extra };
}

/**
 * `while (!stopping) { try { const jobs = await fetch(); if (jobs) await run(jobs); } catch (err) { onError(err); }
 * await delay(interval); }`: a worker that keeps its pace through failures. Its success goes round too, but a failed
 * fetch comes back to the same fetch after the same wait, forever: a retry of its failures (pg-boss's worker). Not
 * this shape: a ping whose answer nothing reads (a heartbeat), a catch that waits or leaves on its own, a worker with
 * no wait, one that takes the next item off a queue, or a catch that changes what the loop reads.
 */
function keepsPace(tryStatement: Node, body: Node, keys: VisitorKeys): boolean {
  const tail = after(tryStatement, body);
  const only = (c: Set<string>) => c.size === 1 && c.has('normal');
  if (tryStatement.parent !== body || !only(sequence(tail, true))) return false;
  const paced = tail.some((st) => mentions(st, keys, (m) => isWaitCall(m) && !/^setInterval$/.test(callName(m))));
  return paced && pacedTry(tryStatement, body, keys);
}

/**
 * The try of a worker's pass that goes on the same way whether it failed or not: the attempt always ends normally
 * (no return, break or continue) and its result is used (`const jobs = await this.fetch(); if (jobs) ...`), not an
 * item taken off a queue; the catch also ends normally, neither repairing nor handing the error to the next pass. Its
 * bookkeeping of fields `within` does not read (`this.lastError = err`, `this.lastErrorOn = Date.now()`) is no repair.
 */
function pacedTry(tryStatement: Node, within: Node, keys: VisitorKeys): boolean {
  const handlerBody = (tryStatement.handler as Node).body as Node;
  const block = completions(tryStatement.block as Node, true);
  block.delete('throw');
  const caught = completions(handlerBody, true);
  const only = (c: Set<string>) => c.size === 1 && c.has('normal');
  if (!only(block) || !only(caught)) return false;
  const attempt = owned(tryStatement.block as Node, keys, { skipLoops: true, skipCallbacks: true });
  const results = new Set(
    attempt.flatMap((n) => {
      const [id, init] = bindingOf(n);
      return id?.type === 'Identifier' && init && mentions(init, keys, (m) => m.type === 'CallExpression')
        ? [id.name as string]
        : [];
    }),
  );
  const used = attempt.some(
    (n) => n.type === 'Identifier' && results.has(n.name as string) && bindingOf(n.parent as Node)[0] !== n,
  );
  const consumes = attempt.some((n) => n.type === 'CallExpression' && CONSUMES.test(callName(n)));
  if (!used || consumes) return false;
  const reads = new Set(
    owned(within, keys, { skipLoops: true, skipCallbacks: true }).flatMap((n) =>
      n.type === 'MemberExpression' &&
      isThis(n.object as Node) &&
      !(n.parent?.type === 'AssignmentExpression' && n.parent.left === n)
        ? [nameOf(n.property as Node) ?? '']
        : [],
    ),
  );
  return !remedies(handlerBody, keys, '', undefined, [], reads) && !handsOnError(tryStatement, keys);
}

/**
 * `async poll() { try { const jobs = await this.fetch(); ... } catch (err) { this.emit('error', err); }
 * this.timer = setTimeout(() => this.poll(), this.interval); }`: the timer after a {@link pacedTry} is reached from
 * its catch as well, so a failed fetch is tried again at the poll's pace: the catch is the failure path. Only a timer
 * keeps a pace; the statements between must go on.
 */
function pacedFailure(site: Node, fn: Node, keys: VisitorKeys): FailurePath | undefined {
  const timed = isWaitCall(site) || (site.parent !== null && site.parent !== undefined && isWaitCall(site.parent));
  if (!timed || (fn.body as Node | undefined)?.type !== 'BlockStatement') return undefined;
  const statements = (fn.body as Node).body as Node[];
  const at = statements.findIndex((st) => isWithin(site, st));
  for (let i = at - 1; i >= 0; i--) {
    const st = statements[i] as Node;
    if (st.type === 'TryStatement' && st.handler && !st.finalizer && pacedTry(st, fn.body as Node, keys)) {
      const between = statements.slice(i + 1, at);
      const goesOn = sequence(between, false);
      if (goesOn.size !== 1 || !goesOn.has('normal')) return undefined;
      const param = (st.handler as Node).param as Node | null;
      const handler = st.handler as Node;
      return param?.type === 'Identifier' ? { errorName: param.name as string, handler } : { handler };
    }
  }
  return undefined;
}

/**
 * The catch clauses, in loops nested in `loop`, that `continue` to its label, when what follows their loop in the
 * body leaves (the batch done): each is a way back to the whole attempt.
 */
function labelledRetries(loop: Node, label: string, keys: VisitorKeys): Node[] {
  const body = loop.body as Node;
  const out: Node[] = [];
  walk(body, keys, (n) => {
    if (FUNCTIONS.has(n.type)) return false;
    if (n.type !== 'ContinueStatement' || (n.label as Node | null)?.name !== label) return true;
    let handler: Node | undefined;
    let top = n;
    for (let p = n.parent; p && p !== body; top = p, p = p.parent) {
      if (!handler && p.type === 'CatchClause') handler = p;
    }
    const tail = body.type === 'BlockStatement' ? after(top, body) : [];
    if (handler && !out.includes(handler) && tail.length > 0 && !leadsBack(sequence(tail, true))) out.push(handler);
    return true;
  });
  return out;
}

/** The catch stores the error (or something made of it) where the attempt reads it: the next pass handles it. */
function handsOnError(tryStatement: Node, keys: VisitorKeys): boolean {
  const handler = tryStatement.handler as Node;
  const param = handler.param as Node | null;
  if (param?.type !== 'Identifier') return false;
  const read = new Set<string>();
  walk(tryStatement.block as Node, keys, (n) => void (n.type === 'Identifier' && read.add(n.name as string)));
  return owned(handler.body as Node, keys, { skipLoops: true, skipCallbacks: true }).some(
    (n) =>
      n.type === 'AssignmentExpression' &&
      n.operator === '=' &&
      (n.left as Node).type === 'Identifier' &&
      read.has((n.left as Node).name as string) &&
      mentions(n.right as Node, keys, (m) => m.type === 'Identifier' && m.name === param.name),
  );
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

/**
 * A test on a result the attempt assigned: 'success' when it asks whether the result is there (`res`,
 * `res !== undefined`, `result != null`), 'failure' when it asks whether it is missing (`!res`, `message === null`).
 */
function resultPolarity(test: Node, names: ReadonlySet<string>): 'success' | 'failure' | undefined {
  let t = test;
  let present = true;
  while (t.type === 'UnaryExpression' && t.operator === '!') {
    present = !present;
    t = t.argument as Node;
  }
  if (t.type === 'BinaryExpression' && ['!==', '!=', '===', '=='].includes(t.operator as string)) {
    const empty = (v: Node) =>
      (v.type === 'Literal' && v.value === null) || (v.type === 'Identifier' && v.name === 'undefined');
    const other = empty(t.right as Node) ? (t.left as Node) : empty(t.left as Node) ? (t.right as Node) : undefined;
    if (other?.type !== 'Identifier' || !names.has(other.name as string)) return undefined;
    if ((t.operator as string).startsWith('=')) present = !present;
  } else if (t.type !== 'Identifier' || !names.has(t.name as string)) return undefined;
  return present ? 'success' : 'failure';
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
    const polarity = statusPolarity(n.test as Node) ?? resultPolarity(n.test as Node, names);
    if (polarity === undefined || (polarity === 'success') !== leaves(yes)) return false;
  }
  return exits > 0;
}

/** After the attempt, the loop leaves unconditionally (`break;`) or on a test of what the attempt assigned. */
function tailLeavesOnResult(tryStatement: Node, tail: readonly Node[], keys: VisitorKeys): boolean {
  if (tail.length > 0 && !leadsBack(sequence(tail, true))) return true;
  const names = assignedIn(tryStatement.block as Node, keys);
  const readsResult = (t: Node) => mentions(t, keys, (m) => m.type === 'Identifier' && names.has(m.name as string));
  return tail.some(
    (n) =>
      n.type === 'IfStatement' &&
      ((leaves(completions(n.consequent as Node, true)) && resultPolarity(n.test as Node, names) === 'success') ||
        // `if (r.more) continue; return r;`: a success that goes round only when its result says so, and otherwise
        // leaves, does not hide the catch's way back to the same call (review).
        (completions(n.consequent as Node, true).has('continue') &&
          readsResult(n.test as Node) &&
          leaves(sequence(tail, true)))),
  );
}

/** What a declarator or an assignment binds, and to what: `[id, init]`, or `[]` for any other node. */
const bindingOf = (n: Node): [Node, Node | null | undefined] | [] =>
  n.type === 'VariableDeclarator'
    ? [n.id as Node, n.init as Node | null]
    : n.type === 'AssignmentExpression'
      ? [n.left as Node, n.right as Node]
      : [];

/**
 * `while (token === null) { await delay(ms); token = await tryGet(); }` where `tryGet`, a function of the file, returns
 * `null` from its catch: a failure told by a null result (@azure/core-rest-pipeline's token cycler).
 */
function nullResultTest(test: Node, nodes: readonly Node[], ctx: Context): 'success' | 'failure' | undefined {
  const names = new Set<string>();
  for (const n of nodes) {
    const [id, init] = bindingOf(n);
    let call = init;
    while (call?.type === 'AwaitExpression') call = call.argument as Node;
    const callee = call?.type === 'CallExpression' ? (call.callee as Node) : undefined;
    if (id?.type !== 'Identifier' || callee?.type !== 'Identifier') continue;
    const targets = ctx.resolve(callee.name as string, callee).filter((f) => FUNCTIONS.has(f.type));
    if (targets.some((f) => failsAsNull(f, ctx.keys))) names.add(id.name as string);
  }
  return names.size > 0 ? resultPolarity(test, names) : undefined;
}

/** A function whose catch clause returns `null` or `undefined`: its callers tell its failure by that result. */
function failsAsNull(fn: Node, keys: VisitorKeys): boolean {
  return owned(bodyOf(fn), keys, { skipLoops: false, skipCallbacks: true }).some(
    (n) =>
      n.type === 'CatchClause' &&
      ((n.body as Node).body as Node[]).some((st) => {
        const value = st.type === 'ReturnStatement' ? (st.argument as Node | null) : undefined;
        return (
          st.type === 'ReturnStatement' &&
          (!value ||
            (value.type === 'Literal' && value.value === null) ||
            (value.type === 'Identifier' && value.name === 'undefined'))
        );
      }),
  );
}

/** `if (res)` / `if (result !== undefined)` on a value that came from `x.catch(...)`: success when it is there. */
function caughtValueTest(test: Node, nodes: readonly Node[], keys: VisitorKeys): 'success' | 'failure' | undefined {
  const fromCatch = new Set<string>();
  for (const n of nodes) {
    const [id, init] = bindingOf(n);
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
  const shape = withNotes(() => analyseLoop(loop, ctx));
  cache.set(loop, shape ?? null);
  return shape;
}

function analyseLoop(loop: Node, ctx: Context): RetryShape | undefined {
  const { keys } = ctx;
  const nodes = owned(loop.body as Node, keys, { skipLoops: true });
  const direct = owned(loop.body as Node, keys, { skipLoops: true, skipCallbacks: true });
  const paths = failurePaths(loop, direct, nodes, ctx);
  if (!paths) return undefined;
  const shapeNodes = [...nodes, ...paths.extra];
  const loopParts = [loop.init, loop.test, loop.update].filter(isNode);
  const partNodes = loopParts.flatMap((p) => owned(p, keys, { skipLoops: true }));
  const names = counters([...partNodes, ...direct, ...paths.extra]);
  if (iterates(loop, direct, partNodes, names)) return undefined;
  return {
    node: loop,
    kind: 'loop',
    ...waitsIn(
      shapeNodes.filter((n) => !firesLater(n, loop)),
      ctx,
    ),
    limited:
      limitedBy([loop.test].filter(isNode), [...direct, ...paths.extra], names, keys) ||
      helperLimits([...direct, ...paths.extra], names, ctx, paths.errorNames),
    ...errorCheck([loop, ...shapeNodes], paths.errorNames, ctx),
  };
}

/**
 * `const timer = setTimeout(() => req.abort(), 5000)` in a loop: a timer started and not waited for (not awaited, not
 * in a `new Promise` executor) does not hold the next attempt back.
 */
function firesLater(node: Node, loop: Node): boolean {
  if (node.type !== 'CallExpression' || !/^(setTimeout|setInterval|setImmediate)$/.test(callName(node))) return false;
  for (let p = node.parent; p && p !== loop; p = p.parent) {
    if (p.type === 'AwaitExpression' || p.type === 'ReturnStatement') return false;
    if (p.type === 'NewExpression' && refKey(p.callee as Node) === 'Promise') return false;
  }
  return true;
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
  const inits = new Map<string, Node>();
  for (const n of body) {
    if (n.type === 'VariableDeclarator' && (n.id as Node).type === 'Identifier' && n.init) {
      inits.set((n.id as Node).name as string, n.init as Node);
    }
  }
  // `response = r` after `const r = await client.scroll(...)`: this pass's result kept; `dir = parent` after
  // `const parent = dirname(dir)` is a step.
  const keeps = (name: string, target: string) => {
    const init = inits.get(name);
    return init !== undefined && !mentions(init, {}, (m) => m.type === 'Identifier' && m.name === target);
  };
  for (const n of nodes) {
    if (n.type === 'MemberExpression' && n.computed) {
      const key = refKey(n.property as Node);
      if (key !== undefined && names.has(key) && !inFailureOrWait(n, top)) return true;
    }
    if (n.type === 'AssignmentExpression' && n.operator === '=' && (n.left as Node).type === 'Identifier') {
      const right = n.right as Node;
      // `response = r` with `const r = await ...` in the body: this pass's result kept, not a step.
      const steps =
        (right.type === 'Identifier' && !keeps(right.name as string, (n.left as Node).name as string)) ||
        right.type === 'MemberExpression' ||
        right.type === 'CallExpression';
      let inTry = false;
      for (let p = n.parent; p && p !== top && !inTry; p = p.parent) inTry = p.type === 'TryStatement';
      if (steps && !inTry && !declared.has((n.left as Node).name)) return true;
    }
  }
  return false;
}

// `safeEmit(ctx, ...)` as well as `emit(...)`; `this.onerror(event)`, the user's handler, as well as `onError`.
const BOOKKEEPING =
  /log|warn|error|info|debug|trace|print|[eE]mit|report|notify|track|record|metric|increment|^push$|^unshift$|^set$|^add$|^on[A-Za-z]/;
/**
 * Calls that close or clear what failed (`socket.destroy()`, `this.teardown()`, `this._unbindModel()`): cleanup, not a
 * repair of the cause.
 */
const CLEANUP =
  /close|destroy|teardown|cleanup|dispose|reset|remove|clear|cancel|unref|release|unbind|detach|disconnect|^off$|^stop/i;
/** A value that resets a field: `undefined`, `null`, `false`, `0`, `''`, or a timer's id. */
const resets = (value: Node): boolean =>
  (value.type === 'Identifier' && value.name === 'undefined') ||
  (value.type === 'Literal' &&
    (value.value === null || value.value === false || value.value === 0 || value.value === '')) ||
  (value.type === 'UnaryExpression' && value.operator === 'void') ||
  (value.type === 'CallExpression' && SCHEDULES.test(callName(value)));
/** Calls that only look at the error (`isTransient(err)`, `assertRetryable(err)`): not a repair. */
const LOOKS = /^(is|assert|check|should|can|classif|has)/i;

/**
 * A failure path that first repairs the cause (creates the parent directory, asks for a one-time password, deletes a
 * stale lock, authorizes, restarts the worker, swaps in a fallback) is recovery, not a retry: some call there other
 * than a wait, a look at the error, logging or the retried call itself, or a flag set on `this`, or the called
 * function itself replaced (`alloc = legacy`).
 */
function remedies(
  body: Node,
  keys: VisitorKeys,
  self: string,
  exempt?: (call: Node) => boolean,
  along: readonly Node[] = [],
  reads?: ReadonlySet<string>,
): boolean {
  const nodes = owned(body, keys, { skipLoops: true, skipCallbacks: true });
  // `const handle = wait(ms); this.cancel = handle.cancel`: the wait's handle kept, not a repair.
  const waitHandles = new Set(
    nodes.flatMap((n) =>
      n.type === 'VariableDeclarator' && (n.id as Node).type === 'Identifier' && n.init && isWaitCall(n.init as Node)
        ? [(n.id as Node).name as string]
        : [],
    ),
  );
  return nodes.some((n) => {
    // `if (active) retryLater(); else { deferred.reject(err); release(); }`: what another branch does is not done on
    // the way back (graphile-worker).
    if (along.length > 0 && offPath(n, body, along)) return false;
    if (n.type === 'AssignmentExpression') {
      const left = n.left as Node;
      // `this.conn = undefined`, `this.timer = setTimeout(...)`, `this.tries += 1`: state reset or kept, not a repair.
      if (left.type === 'MemberExpression' && (left.object as Node).type === 'ThisExpression') {
        const kept = mentions(
          n.right as Node,
          keys,
          (m) => m.type === 'Identifier' && waitHandles.has(m.name as string),
        );
        // `this.reconnections = this.reconnections + 1`: a counter stepped, made from itself.
        const stepped = mentions(n.right as Node, keys, (m) => refKey(m) !== undefined && refKey(m) === refKey(left));
        // `this.reason = msg`, `this.moderators = {}`: state the attempt never reads changes nothing for it (tmi.js).
        const unread = reads !== undefined && !reads.has(nameOf(left.property as Node) ?? '');
        return n.operator === '=' && !resets(n.right as Node) && !kept && !stepped && !unread;
      }
      return left.type === 'Identifier' && left.name === self;
    }
    // `this.lastErrorOn = Date.now()`: reading the clock repairs nothing.
    if (n.type !== 'CallExpression' || isWaitCall(n) || isClockCall(n) || exempt?.(n)) return false;
    // `p.then(f).catch(g)`, `listeners.forEach(f)`: a promise's plumbing, a list's walk; not a repair by itself.
    if (/^(then|catch|finally|forEach)$/.test(callName(n))) return false;
    const name = callName(n);
    const statement = n.parent?.type === 'AwaitExpression' ? n.parent.parent : n.parent;
    // `refresh();`, `x = await login()`, `const token = await authorize()`: called for what it changes.
    const onItsOwn =
      statement?.type === 'ExpressionStatement' ||
      statement?.type === 'AssignmentExpression' ||
      (statement?.type === 'VariableDeclarator' && n.parent?.type === 'AwaitExpression');
    // `e = rewrite(e)`: a value made over from itself (the error reworded) repairs nothing.
    if (
      statement?.type === 'AssignmentExpression' &&
      mentions(n, keys, (m) => refKey(m) !== undefined && refKey(m) === refKey(statement.left as Node))
    ) {
      return false;
    }
    // `mkdirp(dirname(p))`: the function called on something else first repairs the way for the call again.
    if (name === self) return onItsOwn && (n.arguments as Node[]).some((a) => a.type === 'CallExpression');
    // `await makeTimeoutError();` of `function makeTimeoutError() { return new Error('timeout'); }`: a function of
    // the file that only builds a value changes nothing, whatever its name (review).
    if ((n.callee as Node).type === 'Identifier' && onlyBuilds(n.callee as Node, keys)) return false;
    return (
      onItsOwn &&
      name !== '' &&
      !BOOKKEEPING.test(name) &&
      !LOOKS.test(name) &&
      !/retr|transient|fatal|permanent|status/i.test(name) &&
      !/^(throw|fail$|raise|bail)/i.test(name) &&
      !CLEANUP.test(name) &&
      // `lastError = makeTimeoutError(err)`, `toError(e)`: a value built from the error repairs nothing.
      !(statement?.type !== 'ExpressionStatement' && /^(make|create|build|wrap|to[A-Z])|Error$/.test(name)) &&
      refKey((n.callee as Node).type === 'MemberExpression' ? ((n.callee as Node).object as Node) : n) !== 'console'
    );
  });
}

/**
 * `makeError()` names functions of this file, each of which only returns a value it builds (`new Error(...)`, a
 * literal, an object): no call, assignment or await in it. An unknown name (an import) is not.
 */
function onlyBuilds(callee: Node, keys: VisitorKeys): boolean {
  const found = fileIndex(callee, keys).functions.get(callee.name as string) ?? [];
  return (
    found.length > 0 &&
    found.every((f) => {
      const body = f.body as Node;
      const statements = body.type === 'BlockStatement' ? (body.body as Node[]) : [body];
      return (
        statements.length > 0 &&
        statements.every((st) => st.type === 'ReturnStatement' || body.type !== 'BlockStatement') &&
        !mentions(
          body,
          keys,
          (m) =>
            m.type === 'CallExpression' ||
            m.type === 'AssignmentExpression' ||
            m.type === 'UpdateExpression' ||
            m.type === 'AwaitExpression' ||
            m.type === 'YieldExpression' ||
            m.type === 'TaggedTemplateExpression' ||
            (m.type === 'UnaryExpression' && m.operator === 'delete'),
        )
      );
    })
  );
}

/** Scheduling calls that run a function handed to them: `setTimeout(connect, ms)`, `p.then(start)`. */
const SCHEDULES = /^(setTimeout|setImmediate|nextTick|queueMicrotask|requestAnimationFrame|then|catch|finally)$/;

/**
 * `call` enters `fn` again, as the file's model resolves it: `f()`, `this.f()`, `self.f()`, `K.f()`, `$.f()`, or `fn`
 * handed to `setTimeout(f, ms)`, `.then(f)`, `.catch(f)`, `on('error', f)`.
 */
function entersAgain(call: Node, fn: Node, ctx: Context): boolean {
  if (entered(call, ctx).includes(fn)) return true;
  const isFn = (a: Node) =>
    (a.type === 'Identifier' || a.type === 'MemberExpression') && modelOf(a, ctx).valueTargets(a).includes(fn);
  return (SCHEDULES.test(callName(call)) && (call.arguments as Node[]).some(isFn)) || failureReference(call, isFn);
}

/** A function handed where only a failure runs it: `.catch(f)`, `.then(ok, f)`, `.on('error', f)`. */
function failureReference(call: Node, matches: (arg: Node) => boolean): boolean {
  if (call.type !== 'CallExpression') return false;
  const args = call.arguments as Node[];
  const name = callName(call);
  const at = name === 'catch' ? 0 : name === 'then' ? 1 : LISTENS.test(name) && isFailureEvent(args[0]) ? 1 : -1;
  const arg = args[at];
  return arg !== undefined && !FUNCTIONS.has(arg.type) && matches(arg);
}

const isFailureEvent = (arg: Node | undefined): boolean =>
  arg?.type === 'Literal' && FAILURE_EVENTS.has(String(arg.value));

/**
 * The enclosing function that `call` enters again (a self-call, or itself handed to a scheduler), or undefined; only
 * functions named as the call's callee or its argument are looked at.
 */
export function recursiveCaller(call: Node, ctx: Context): Node | undefined {
  const name = calleeName(call);
  const handed =
    SCHEDULES.test(name ?? '') || (LISTENS.test(name ?? '') && isFailureEvent((call.arguments as Node[])[0]))
      ? (call.arguments as Node[]).flatMap((a) => (a.type === 'Identifier' ? [a.name as string] : []))
      : [];
  if (!name && handed.length === 0) return undefined;
  for (let p = call.parent; p; p = p.parent) {
    if (!FUNCTIONS.has(p.type)) continue;
    const own = functionName(p);
    if (own !== undefined && (own === name || handed.includes(own)) && entersAgain(call, p, ctx)) return p;
  }
  return undefined;
}

/** A failure callback (`.catch(cb)`, an `error` or `close` listener) is a failure path unless it repairs first. */
function listenerPath(
  callback: Node,
  keys: VisitorKeys,
  name: string,
  exempt?: (call: Node) => boolean,
  along: readonly Node[] = [],
  reads?: ReadonlySet<string>,
): FailurePath | undefined {
  if (remedies(callback.body as Node, keys, name, exempt, along, reads)) return undefined;
  const param = (callback.params as Node[])[0];
  return param?.type === 'Identifier' ? { errorName: param.name as string, handler: callback } : { handler: callback };
}

/** `(err) => { if (err) ... }`: a node-style callback's error parameter, tested. */
function nodeStyleError(test: Node): boolean {
  const t = test;
  if (t.type !== 'Identifier' || !/^(e|err|error|ex|reason)$|Err/.test(t.name as string)) return false;
  for (let p = t.parent; p; p = p.parent) {
    if (!FUNCTIONS.has(p.type)) continue;
    const first = (p.params as Node[])[0];
    return first?.type === 'Identifier' && first.name === t.name && p.parent?.type === 'CallExpression';
  }
  return false;
}

/**
 * Where a node sits on a failure path inside `fn`: a catch clause, a `.catch()` callback, a failure branch, an
 * `error` or `close` listener (`on('close', cb)` or `onclose = cb`). A path that repairs the cause first is not one.
 */
function onFailurePath(
  node: Node,
  fn: Node,
  keys: VisitorKeys,
  name: string,
  exempt?: (call: Node) => boolean,
  along: readonly Node[] = [node],
): FailurePath | undefined {
  let child = node;
  for (let p = node.parent; p && child !== fn; child = p, p = p.parent) {
    if (p.type === 'CatchClause' && child === p.body) {
      if (remedies(p.body as Node, keys, name, exempt, along)) return undefined;
      const param = p.param as Node | null;
      return param?.type === 'Identifier' ? { errorName: param.name as string, handler: p } : { handler: p };
    }
    if (FUNCTIONS.has(child.type) && p.type === 'CallExpression' && (p.arguments as Node[]).includes(child)) {
      const callee = calleeName(p);
      const args = p.arguments as Node[];
      const event = args[0]?.type === 'Literal' ? String(args[0].value) : '';
      if (
        callee === 'catch' ||
        (callee === 'then' && args[1] === child) ||
        (LISTENS.test(callee ?? '') && FAILURE_EVENTS.has(event)) ||
        // phoenix's `push.receive('error', cb)` / `receive('timeout', cb)`
        (callee === 'receive' && (event === 'error' || event === 'timeout'))
      ) {
        return listenerPath(child, keys, name, exempt, along);
      }
    }
    // `ws.onclose = () => setTimeout(connect, 1000)`: the handler property is the listener form of the same event.
    if (FUNCTIONS.has(child.type) && p.type === 'AssignmentExpression' && p.right === child) {
      const left = p.left as Node;
      const prop = left.type === 'MemberExpression' ? nameOf(left.property as Node) : undefined;
      if (prop?.startsWith('on') && FAILURE_EVENTS.has(prop.slice(2))) {
        return listenerPath(child, keys, name, exempt, along);
      }
    }
    if (p.type === 'IfStatement' && child !== p.test) {
      const test = p.test as Node;
      const polarity = statusPolarity(test) ?? (nodeStyleError(test) ? 'failure' : undefined);
      if ((polarity === 'failure' && child === p.consequent) || (polarity === 'success' && child === p.alternate)) {
        if (remedies(child, keys, name, exempt, along)) return undefined;
        return nodeStyleError(test) ? { errorName: test.name as string, handler: child } : { handler: child };
      }
    }
  }
  return undefined;
}

/** The retry shape of a function that calls itself again on failure, or undefined. */
export function retryRecursion(fn: Node, ctx: Context): RetryShape | undefined {
  const known = cache.get(fn);
  if (known !== undefined) return known ?? undefined;
  const shape = withNotes(() => analyseRecursion(fn, ctx));
  cache.set(fn, shape ?? null);
  return shape;
}

/**
 * The self-call passes something else where a parameter was (`realPath(parent)`, `resolve(dirname(p))`, `f(url,
 * undefined)`): it walks to another input or falls back, it does not try the same call again. Arithmetic on the
 * parameter (`n - 1`) and the error (`lastError`) keep it the same call.
 */
function changesInput(call: Node, fn: Node, keys: VisitorKeys): boolean {
  const params = (fn.params as Node[]).map(paramName);
  const derived = new Map<string, Node>();
  for (const n of owned(fn.body as Node, keys, { skipLoops: false, skipCallbacks: true })) {
    if (n.type === 'VariableDeclarator' && (n.id as Node).type === 'Identifier' && n.init) {
      derived.set((n.id as Node).name as string, n.init as Node);
    }
  }
  const walksFrom = (expr: Node, param: string, depth: number): boolean => {
    if (depth > 4) return false;
    if (expr.type === 'Identifier') {
      const init = derived.get(expr.name as string);
      return init !== undefined && walksFrom(init, param, depth + 1);
    }
    if (expr.type === 'AwaitExpression') return walksFrom(expr.argument as Node, param, depth);
    if (expr.type !== 'CallExpression' && expr.type !== 'MemberExpression') return false;
    if (
      expr.type === 'CallExpression' &&
      (isWaitCall(expr) || refKey(((expr.callee as Node).object as Node) ?? expr) === 'Math')
    ) {
      return false;
    }
    return mentions(expr, keys, (m) => m.type === 'Identifier' && (m.name === param || derived.has(m.name as string)));
  };
  return (call.arguments as Node[]).some((a, i) => {
    const param = params[i];
    if (param === undefined || (a.type === 'Identifier' && a.name === param)) return false;
    const empty =
      (a.type === 'Identifier' && a.name === 'undefined') ||
      (a.type === 'Literal' && a.value === null) ||
      // `resume("throw", err)` from `resume(key, arg)`: another command, not the same call again
      (a.type === 'Literal' && typeof a.value === 'string') ||
      (a.type === 'UnaryExpression' && a.operator === 'void');
    return empty || walksFrom(a, param, 0);
  });
}

/**
 * `while ((item = stack.pop()))`, or `if (!hosts.length) return giveUp(); ... hosts.shift()`: it works through a queue
 * or a list of fallbacks, a different call each time.
 */
function walksList(nodes: readonly Node[], keys: VisitorKeys): boolean {
  const lengths = new Set<string>();
  for (const t of tests(nodes)) {
    walk(t, keys, (m) => {
      if (m.type === 'MemberExpression' && nameOf(m.property as Node) === 'length') {
        lengths.add(refKey(m.object as Node) ?? '');
      }
      return true;
    });
  }
  // `front = front.next`: it walks a linked list, the next item each time.
  const linked = nodes.some(
    (n) =>
      n.type === 'AssignmentExpression' &&
      n.operator === '=' &&
      (n.right as Node).type === 'MemberExpression' &&
      !(n.right as Node).computed &&
      refKey(n.left as Node) !== undefined &&
      refKey(n.left as Node) === refKey((n.right as Node).object as Node),
  );
  if (linked) return true;
  return nodes.some(
    (n) =>
      n.type === 'CallExpression' &&
      CONSUMES.test(callName(n)) &&
      (n.parent?.type !== 'ExpressionStatement' ||
        ((n.callee as Node).type === 'MemberExpression' &&
          lengths.has(refKey((n.callee as Node).object as Node) ?? ''))),
  );
}

/** It takes the next item off a queue or a stream (`stack.pop()`, `reader.read()`): each call handles another. */
const CONSUMES = /^(pop|shift|dequeue|read|readMessage|take)$/;

/** The attempt only waits for an event or a timer (`await once(child, 'exit')`): waiting again is not retrying. */
function onlyWaits(block: Node, keys: VisitorKeys): boolean {
  const calls = owned(block, keys, { skipLoops: true, skipCallbacks: true }).filter((n) => n.type === 'CallExpression');
  return calls.length > 0 && calls.every((c) => isWaitCall(c) || /^(once|waitForEvent)$/.test(callName(c)));
}

function analyseRecursion(fn: Node, ctx: Context): RetryShape | undefined {
  // Only reached through recursiveCaller, which found the name.
  const name = functionName(fn) as string;
  const { keys } = ctx;
  const nodes = owned(fn.body as Node, keys, { skipLoops: false });
  const errorNames = new Set<string>();
  const again: Node[] = [];
  // The attempt's nodes when the retry goes through it as a callback parameter (`setTimeout(tryBulk, ms, body, me)`).
  const viaCallback: Node[] = [];
  for (const n of nodes) {
    if (n.type !== 'CallExpression' || !entersAgain(n, fn, ctx)) continue;
    // `catch (e) { throw (setTimeout(flush, 0), e) }`: the failure goes to the caller; the rest of the work goes on.
    if (n.parent?.type === 'SequenceExpression' && n.parent.parent?.type === 'ThrowStatement') continue;
    const back = callsBack(n, name, ctx);
    if (back) viaCallback.push(...back);
    const path =
      onFailurePath(n, fn, keys, name) ??
      (failureReference(n, (a) => a.type === 'Identifier' && a.name === name) || back ? { handler: n } : undefined);
    if (!path || (calleeName(n) === name && changesInput(n, fn, keys))) continue;
    again.push(n);
    if (path.errorName) errorNames.add(path.errorName);
  }
  if (again.length === 0) return undefined;
  const params = new Set((fn.params as Node[]).flatMap((p) => paramName(p) ?? []));
  for (const c of counters(nodes)) params.add(c);
  const counterKey = (n: Node) => refKey(n.type === 'UpdateExpression' ? (n.argument as Node) : n) ?? '';
  // `for (let i = 0; ...; i += 2) drop(body[i])`: the index of a loop of its own does not pick the next input.
  const loopIndexes = new Set(
    nodes.flatMap((n) =>
      n.type === 'ForStatement' && (n.init as Node | null)?.type === 'VariableDeclaration'
        ? ((n.init as Node).declarations as Node[]).flatMap((d) => paramName(d.id as Node) ?? [])
        : [],
    ),
  );
  const picks = (key: string) => params.has(key) && !loopIndexes.has(key);
  if (nodes.some((n) => n.type === 'MemberExpression' && n.computed && picks(counterKey(n.property as Node)))) {
    return undefined; // `parsers[index]`: it tries the next item of a list, not the same call again
  }
  if (walksList(nodes, keys)) return undefined; // it works through a queue or a list of fallbacks
  const attempts = nodes.filter((n) => n.type === 'TryStatement' && n.handler);
  if (attempts.length > 0 && attempts.every((t) => onlyWaits(t.block as Node, keys))) return undefined;
  // The self-call is not a wait, even when its name says wait (`waitForExit()`).
  const others = nodes.filter((n) => !(again.includes(n) && calleeName(n) === name));
  return {
    node: fn,
    kind: 'recursion',
    ...waitsIn(others, ctx),
    limited: tests(nodes).some((t) => bounds(t, params, keys)),
    ...errorCheck([...nodes, ...viaCallback], withAliases(nodes, errorNames), ctx),
  };
}

const modelOf = (node: Node, ctx: Context): FileModel => fileModel(node, ctx.keys, ctx.resolve);

/** The fields of `this` an attempt reads, in its own code and in what it calls (a few calls deep). */
function readsOf(attempt: Node, ctx: Context): Set<string> {
  const model = modelOf(attempt, ctx);
  const out = new Set<string>();
  const seen = new Set([attempt]);
  let level = [attempt];
  for (let depth = 0; depth < 3 && level.length > 0; depth++) {
    const next: Node[] = [];
    for (const g of level) {
      for (const n of owned(bodyOf(g), ctx.keys, { skipLoops: false, skipCallbacks: true })) {
        const written = n.parent?.type === 'AssignmentExpression' && n.parent.left === n;
        if (n.type === 'MemberExpression' && !written && isThis(n.object as Node)) {
          out.add(nameOf(n.property as Node) ?? '');
        }
      }
      for (const e of model.from(g)) {
        if ((e.kind === 'call' || e.kind === 'handed') && !seen.has(e.to)) {
          seen.add(e.to);
          next.push(e.to);
        }
      }
    }
    level = next;
  }
  return out;
}

/** `this.dial(this.hosts[i + 1])`, `f(next())`: the call goes on to another input, not the same call again. */
const changesArguments = (call: Node): boolean =>
  call.type === 'CallExpression' &&
  (call.arguments as Node[]).some(
    (a) =>
      (a.type === 'MemberExpression' && a.computed) ||
      a.type === 'CallExpression' ||
      a.type === 'NewExpression' ||
      a.type === 'ObjectExpression' ||
      // `callWithErrorHandling(handler, null, 10, [err, instance])`: a new argument list, another call
      a.type === 'ArrayExpression' ||
      // `children.forEach((pid) => build(pid))`: each item of a list, not the same call again
      itemOfList(a) ||
      // `this.emit('error', e)` from `emit(event)`'s failure: another event, not the same call again
      (a.type === 'Literal' && typeof a.value === 'string'),
  );

const cycles = new WeakMap<Node, RetryShape | null>();

/**
 * The retry shape of a function that the file calls again from its failure path through other functions: the catch
 * calls `this.retryLater()`, whose timer calls `this.connect()`; an error listener bound by reference; a timer helper
 * class of the file; a prototype's or a plain object's methods. The cycles are the model's (model.ts, cycles.ts); its
 * wait, jitter, limit and check are looked for along the whole cycle and in the helpers it calls. A self-call is
 * {@link retryRecursion}'s; a second retry of an attempt (a dropped connection) is reported on its listener.
 */
export function retryCycle(fn: Node, ctx: Context): RetryShape | undefined {
  const known = cycles.get(fn);
  if (known !== undefined) return known ?? undefined;
  const shape = withNotes(() => analyseCycle(fn, ctx));
  cycles.set(fn, shape ?? null);
  return shape;
}

/** What this stage decides about failure paths, for the search of cycles.ts. */
function judge(ctx: Context): Judge {
  const { keys } = ctx;
  // A call on the path, or the call a function handed on is an argument of, is not a repair of the failure.
  const exemptFor = (along: readonly Node[]) => (c: Node) => along.some((a) => a === c || a.parent === c);
  return {
    within: (site, fn) =>
      onFailurePath(site, fn, keys, functionName(fn) ?? '', exemptFor([site]), [site]) ?? pacedFailure(site, fn, keys),
    handler: (fn, along, attempt) => listenerPath(fn, keys, '', exemptFor(along), along, readsOf(attempt, ctx)),
    sameCall: (site) => !changesArguments(site),
  };
}

function analyseCycle(fn: Node, ctx: Context): RetryShape | undefined {
  const { keys } = ctx;
  const mine = failureCycles(modelOf(fn, ctx), judge(ctx)).filter((c) => c.at === fn);
  for (const c of mine) {
    if (c.at === c.attempt) {
      if (functionName(fn) === undefined || retryRecursion(fn, ctx)) return undefined;
      // A way back written inside the attempt itself was the recursion's to judge.
      // Not a timer after a paced try ({@link pacedFailure}): no self-call is on a failure path there.
      const paced = c.path.handler.type === 'CatchClause' && c.along.every((a) => !isWithin(a, c.path.handler));
      if (!paced && [c.path.handler, ...c.route].every((g) => isWithin(g, fn))) continue;
    }
    const spans = [c.attempt, ...c.route].flatMap((g) => owned(bodyOf(g), keys, { skipLoops: false }));
    if ((walksList(spans, keys) && !requeues(c, keys)) || pointsElsewhere(c, keys)) continue;
    return { node: c.at, kind: 'recursion', ...cycleProperties(c.attempt, c.path, c.route, ctx, c.along) };
  }
  return undefined;
}

/**
 * `catch (e) { await store.push(envelope); flushWithBackOff(); }` and, on the way back, `const found = await
 * store.shift(); if (found) send(found)`: the failure puts the attempt's own input back on the queue the way back takes
 * it from, so the queue hands the same call back, it is not walked (@sentry/core's offline transport).
 */
function requeues(c: FailureCycle, keys: VisitorKeys): boolean {
  const inputs = new Set((c.attempt.params as Node[]).flatMap((p) => paramName(p) ?? []));
  const handler = c.path.handler.type === 'CatchClause' ? (c.path.handler.body as Node) : c.path.handler;
  const queues = new Set(
    owned(handler, keys, { skipLoops: false }).flatMap((n) =>
      n.type === 'CallExpression' &&
      /^(push|unshift|enqueue|add)$/.test(callName(n)) &&
      (n.callee as Node).type === 'MemberExpression' &&
      (n.arguments as Node[]).some((a) => a.type === 'Identifier' && inputs.has(a.name as string))
        ? [refKey((n.callee as Node).object as Node) ?? '']
        : [],
    ),
  );
  return c.route.some((g) =>
    owned(bodyOf(g), keys, { skipLoops: false }).some(
      (n) =>
        n.type === 'CallExpression' &&
        CONSUMES.test(callName(n)) &&
        (n.callee as Node).type === 'MemberExpression' &&
        queues.has(refKey((n.callee as Node).object as Node) ?? ''),
    ),
  );
}

/**
 * `targetSlot = Number(slot); tryConnection()`: the way back gives a variable the attempt reads (not its own) a new
 * value, pointing it at another input (a MOVED redirect, the next host): a different call, as `realPath(parent)` is
 * for a recursion. Counters stepped, resets and a timer's handle do not.
 */
function pointsElsewhere(c: FailureCycle, keys: VisitorKeys): boolean {
  const handler = c.path.handler.type === 'CatchClause' ? (c.path.handler.body as Node) : c.path.handler;
  const way = [
    ...owned(handler, keys, { skipLoops: false }).filter((n) => !offPath(n, handler, c.along)),
    ...c.route.flatMap((g) => owned(bodyOf(g), keys, { skipLoops: false })),
  ];
  const attempt = owned(bodyOf(c.attempt), keys, { skipLoops: false, skipCallbacks: true });
  const own = new Set([
    ...(c.attempt.params as Node[]).flatMap((p) => paramName(p) ?? []),
    ...attempt.flatMap((n) =>
      n.type === 'VariableDeclarator' && (n.id as Node).type === 'Identifier' ? [(n.id as Node).name as string] : [],
    ),
  ]);
  const reads = new Set(
    attempt.flatMap((n) =>
      n.type === 'Identifier' &&
      !own.has(n.name as string) &&
      !(n.parent?.type === 'MemberExpression' && n.parent.property === n && !n.parent.computed) &&
      !(n.parent?.type === 'AssignmentExpression' && n.parent.left === n)
        ? [n.name as string]
        : [],
    ),
  );
  return way.some((n) => {
    if (n.type !== 'AssignmentExpression' || n.operator !== '=' || (n.left as Node).type !== 'Identifier') return false;
    const name = (n.left as Node).name as string;
    const right = n.right as Node;
    return (
      reads.has(name) &&
      !resets(right) &&
      !isWaitCall(right) &&
      !mentions(right, keys, (m) => m.type === 'Identifier' && m.name === name)
    );
  });
}

/** A method named like what a failure runs: `onConnClose`, `_handleClose`, `handleError`, `onDisconnect`. */
const HANDLER_NAME = /^_*(on|handle)\w*(close|error|disconnect|end|fail\w*)$/i;
/** A method named like the scheduling half of a retry, called where the failure was judged: `retryIn(ms)`. */
const RETRY_METHOD = /^_*(retry|reconnect|rejoin|resubscribe)\w*$/i;
/** A method named like an attempt: what a reconnect calls again (`connect`, `_reconnect`, `rejoin`, `#open`). */
const ATTEMPT_NAME =
  /^_*#?(re)?(connect|open|join|dial|subscribe|login|authenticate|handshake)(Now|Internal|Impl|Async|Socket|Transport|Stream|Connection|Channel|Client|Server|With[A-Z]\w*)?$/i;

/** `x.on('close', cb)`, `.catch(cb)`, `.then(ok, cb)`, `push.receive('error', cb)`, `ws.onclose = cb`: cb runs on a failure. */
function failureCallback(fn: Node): boolean {
  const p = fn.parent;
  if (p?.type === 'CallExpression' && (p.arguments as Node[]).includes(fn)) {
    const callee = calleeName(p) ?? '';
    const args = p.arguments as Node[];
    const event = args[0]?.type === 'Literal' ? String(args[0].value) : '';
    return (
      callee === 'catch' ||
      (callee === 'then' && args[1] === fn) ||
      (LISTENS.test(callee) && FAILURE_EVENTS.has(event)) ||
      (callee === 'receive' && (event === 'error' || event === 'timeout'))
    );
  }
  if (p?.type === 'AssignmentExpression' && p.right === fn && (p.left as Node).type === 'MemberExpression') {
    const prop = nameOf((p.left as Node).property as Node) ?? '';
    return prop.startsWith('on') && FAILURE_EVENTS.has(prop.slice(2));
  }
  return false;
}

const opened = new WeakMap<Node, RetryShape | null>();

/**
 * A reconnect whose closing half is out of reach: a failure callback or a method named like a close or error handler
 * (or like a retry: `retryIn`) calls, through the file's functions (a timer, an imported `Timer`), a method of its class
 * named like an attempt (`connect`, `rejoin`), while what runs the handler on the next failure (the transport's event,
 * another file, an `emit` to the class's own listener) is not in the file. The report goes on that attempt.
 */
export function retryOpenCycle(fn: Node, ctx: Context): RetryShape | undefined {
  const known = opened.get(fn);
  if (known !== undefined) return known ?? undefined;
  const shape = withNotes(() => analyseOpenCycle(fn, ctx));
  opened.set(fn, shape ?? null);
  return shape;
}

function analyseOpenCycle(fn: Node, ctx: Context): RetryShape | undefined {
  const name = functionName(fn) ?? '';
  const byHandler = HANDLER_NAME.test(name) && fn.parent?.type === 'MethodDefinition';
  const byRetry =
    !byHandler && RETRY_METHOD.test(name) && !ATTEMPT_NAME.test(name) && fn.parent?.type === 'MethodDefinition';
  if (!byHandler && !byRetry && !failureCallback(fn)) return undefined;
  const index = fileIndex(fn, ctx.keys);
  const cls = index.classOf(fn);
  if (!cls) return undefined;
  const methods = new Set([...cls.methods.values()].flat());
  const home = enclosingFunction(fn);
  const { keys } = ctx;
  // Breadth first from the handler, up to 4 functions deep: the first method of the class named like an attempt.
  const parentOf = new Map<Node, Node>();
  let level = [fn];
  for (let depth = 0; depth < 4 && level.length > 0; depth++) {
    const next: Node[] = [];
    for (const g of level) {
      for (const m of owned(bodyOf(g), keys, { skipLoops: false })) {
        for (const t of entered(m, ctx)) {
          if (t === fn || parentOf.has(t) || t === home) continue;
          parentOf.set(t, g);
          const attempt = methods.has(t) && ATTEMPT_NAME.test(functionName(t) ?? '');
          if (attempt) {
            if (changesArguments(m) || retryCycle(t, ctx) || retryRecursion(t, ctx)) return undefined;
            const chain: Node[] = [];
            for (let c = parentOf.get(t); c && c !== fn; c = parentOf.get(c)) chain.unshift(c);
            // `if (this.transports.length > 1) { this.transports.shift(); return this._open(); }`: the handler
            // falls back to the next transport or host of a list, a different call each time (engine.io-client).
            const path = [fn, ...chain].flatMap((g) => owned(bodyOf(g), keys, { skipLoops: false }));
            if (walksList(path, keys)) return undefined;
            return openShape(t, fn, chain, byRetry, ctx);
          }
          next.push(t);
        }
      }
    }
    level = next;
  }
  return undefined;
}

function openShape(attempt: Node, handler: Node, chain: readonly Node[], byRetry: boolean, ctx: Context): RetryShape {
  const param = paramName((handler.params as Node[])[0]);
  const path: FailurePath = { handler, ...(param && !byRetry ? { errorName: param } : {}) };
  const shape: RetryShape = { node: attempt, kind: 'recursion', ...cycleProperties(attempt, path, chain, ctx) };
  // `new Timer(delay, () => this.connect())` of an imported class, in the handler itself: a wait by its name.
  const index = fileIndex(handler, ctx.keys);
  const timer = owned(bodyOf(handler), ctx.keys, { skipLoops: false }).some(
    (n) =>
      n.type === 'NewExpression' &&
      (n.callee as Node).type === 'Identifier' &&
      !index.classes.has((n.callee as Node).name as string) &&
      WAITS_BY_NAME.test((n.callee as Node).name as string) &&
      (n.arguments as Node[]).some((a) => FUNCTIONS.has(a.type)),
  );
  if (!shape.waits && timer) noteByName('an imported timer class a wait by its name');
  return {
    ...shape,
    waits: shape.waits || timer,
    // `retryIn(ms)` is called where the failure was judged, out of this reach: its check is not asked for here.
    checksError: shape.checksError || byRetry,
  };
}

/**
 * `setTimeout(tryBulk, wait, body, retryDocuments)` in `retryDocuments`: the function hands itself to an attempt of
 * the file that calls it back (its parameter at that place) from a failure test or a catch. The attempt's nodes, or
 * undefined when it is not that shape.
 */
function callsBack(call: Node, name: string, ctx: Context): Node[] | undefined {
  const args = call.arguments as Node[];
  const timer = /^set(Timeout|Immediate)$/.test(callName(call));
  const target = timer ? args[0] : (call.callee as Node);
  if (target?.type !== 'Identifier') return undefined;
  const handed = (timer ? args.slice(2) : args).findIndex((a) => a.type === 'Identifier' && a.name === name);
  if (handed < 0) return undefined;
  for (const attempt of ctx.resolve(target.name as string, target)) {
    if (!FUNCTIONS.has(attempt.type)) continue;
    const param = paramName((attempt.params as Node[])[handed]);
    if (!param) continue;
    const body = owned(bodyOf(attempt), ctx.keys, { skipLoops: false });
    const callsParam = body.some(
      (n) =>
        n.type === 'CallExpression' && (n.callee as Node).type === 'Identifier' && (n.callee as Node).name === param,
    );
    const fails = body.some(
      (n) =>
        n.type === 'CatchClause' ||
        (n.type === 'CallExpression' && calleeName(n) === 'catch') ||
        (n.type === 'IfStatement' && statusPolarity(n.test as Node) === 'failure'),
    );
    if (callsParam && fails) return body;
  }
  return undefined;
}

/** An iteration callback's own parameter (`list.forEach((pid) => f(pid))`), or a `for (const x of list)` variable. */
function itemOfList(arg: Node): boolean {
  if (arg.type !== 'Identifier') return false;
  for (let p = arg.parent; p; p = p.parent) {
    if (p.type === 'ForOfStatement' || p.type === 'ForInStatement') {
      const left = p.left as Node;
      const id = left.type === 'VariableDeclaration' ? ((left.declarations as Node[])[0]?.id as Node) : left;
      if (id?.type === 'Identifier' && id.name === arg.name) return true;
    }
    if (FUNCTIONS.has(p.type)) {
      const own = (p.params as Node[]).some((q) => paramName(q) === arg.name);
      if (!own) continue;
      const call = p.parent;
      return (
        call?.type === 'CallExpression' &&
        (call.arguments as Node[])[0] === p &&
        /^(forEach|map|flatMap|filter|some|every|reduce)$/.test(callName(call))
      );
    }
  }
  return false;
}
