/**
 * The one place that decides what a hand-written retry is, so the four rules agree.
 *
 * A retry is failure-driven repetition of the same call: a loop (`for`, `while`, `do`) or a recursive function whose
 * failure path (a `catch`, a `.catch()`, or a status check such as `if (!res.ok)`) leads back to the call, while
 * success leaves, or a worker that keeps its pace through failures. Polling that repeats on success, pagination, stream
 * reading and loops over a list of items are not retries: their success path does not leave, or their failure path
 * does not lead back.
 *
 * It finds the three kinds of retry: a loop, a recursion, and a cycle through other functions of the file (found by
 * cycles.ts in model.ts's model), and hands each its way back to read. The stages, each a file: model.ts (what runs
 * what), cycles.ts (the ways from a failure back to the call), failure-paths.ts (whether a way back repairs first or
 * goes elsewhere), properties.ts (the wait, jitter, limit and check read on it); beside them imports.ts (a function
 * imported from another file of the package, read there) and libraries.ts (a retry library's call and its defaults).
 *
 * It reads the AST that ESLint hands it (any parser: espree, typescript-eslint), walking children through the visitor
 * keys ESLint provides, and another file of the package only with ESLint's own parser, so it needs no runtime
 * dependency.
 */

import {
  bindingOf,
  calleeName,
  callName,
  FUNCTIONS,
  isNode,
  isWithin,
  LOOPS,
  mentions,
  type Node,
  nameOf,
  owned,
  paramName,
  refKey,
  type VisitorKeys,
  walk,
} from './ast';
import { type FailurePath, failureCycles } from './cycles';
import {
  changesArguments,
  handsOnError,
  judge,
  modelOf,
  nullFailure,
  nullResultTest,
  onFailurePath,
  pacedTry,
  pointsElsewhere,
  remedies,
  requeues,
  resultPolarity,
  resultUsed,
  SCHEDULES,
  stepsIndex,
  walksList,
} from './failure-paths';
import { fileIndex } from './file-index';
import { after, completions, leadsBack, leaves, sequence } from './flow';
import {
  bodyOf,
  type Context,
  enclosingFunction,
  entered,
  eventName,
  FAILURE_EVENTS,
  functionName,
  isFailureEvent,
  LISTENS,
  type Resolve,
} from './model';
import {
  aliases,
  bounds,
  counters,
  cycleProperties,
  endsByAnswer,
  errorCheck,
  helperLimits,
  importedProperties,
  isWaitCall,
  limitedBy,
  noteByName,
  type Properties,
  statusPolarity,
  tests,
  WAITS_BY_NAME,
  waitsIn,
  withAliases,
  withImported,
  withNotes,
} from './properties';

export type { Resolve };

/** One retry found, and what it has and lacks of the four elements; each rule reports one missing element. */
export interface RetryShape extends Properties {
  /** The loop statement, the recursive function, or the call of a retry library (libraries.ts). */
  readonly node: Node;
  readonly kind: 'loop' | 'recursion' | 'library';
  /** For a retry library's call: what its defaults or its options leave out, for the report. */
  readonly setup?: string;
}

/** The failure paths of a loop body, if it is a retry: catch clauses and status checks that lead back. */
function failurePaths(
  loop: Node,
  direct: readonly Node[],
  nodes: readonly Node[],
  ctx: Context,
): { errorNames: Set<string>; extra: Node[]; backs: Node[] } | undefined {
  const { keys } = ctx;
  const body = loop.body as Node;
  // The failure paths that go back with a `continue`: each its own way back, skipping the rest of the body.
  const backs: Node[] = [];
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
      const assignsTest = ((n.block as Node).body as Node[]).some((st) => {
        const a = st.type === 'ExpressionStatement' ? (st.expression as Node) : undefined;
        return a?.type === 'AssignmentExpression' && loopTestNames.has(refKey(a.left as Node) ?? '');
      });
      const tail = rest(n);
      const successLeaves =
        (leaves(block) && !leadsBack(block)) ||
        (leaves(block) && leavesOnSuccess(n.block as Node, keys)) ||
        (block.has('normal') && tailLeavesOnResult(n, after(n, body), keys)) ||
        assignsTest;
      const handler = completions((n.handler as Node).body as Node, true);
      // A failure path that moves what the loop tests (`current = generator.throw(err)`) goes on, not back; a count
      // stepped (`retry = retry - 1`, as `retry--`) is the loop's limit, not a move; nor is a value the attempt never
      // reads (`nextDelay = policy.next(err)`, waited before the attempt and tested by the loop: signalr's reconnect).
      const attemptReads = new Set<string>();
      walk(n.block as Node, keys, (m) => void (m.type === 'Identifier' && attemptReads.add(m.name as string)));
      const movesTest = (block: Node) =>
        (block.body as Node[]).some((st) => {
          const a = st.type === 'ExpressionStatement' ? (st.expression as Node) : undefined;
          const key = a?.type === 'AssignmentExpression' ? refKey(a.left as Node) : undefined;
          return key !== undefined && loopTestNames.has(key) && !isCountStep(a as Node) && attemptReads.has(key);
        });
      // What a branch of the catch that leaves does (`this.skipSync = true; throw err`) is not done on the way back,
      // when the way back is a `continue` (telegraf's polling).
      const handlerBody = (n.handler as Node).body as Node;
      const continues = handler.has('normal')
        ? []
        : owned(handlerBody, keys, { skipLoops: true, skipCallbacks: true }).filter(
            (m) => m.type === 'ContinueStatement',
          );
      const failureBack =
        !movesTest(handlerBody) &&
        !remedies(handlerBody, keys, '', undefined, continues) &&
        !handsOnError(n, keys) &&
        (handler.has('continue') || (handler.has('normal') && leadsBack(tail)));
      if ((failureBack && (successLeaves || backsOffFailures(n, loop, ctx))) || keepsPace(n, body, keys)) {
        retry = true;
        if (handler.has('continue')) backs.push((n.handler as Node).body as Node);
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
        const branch = polarity === 'success' ? (n.alternate as Node | null) : (n.consequent as Node);
        if (branch && failure.has('continue')) backs.push(branch);
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
  return { errorNames, extra, backs };
}

/**
 * `while (n <= max) { try { const res = await f(); if (res.status >= 500) { n++; continue; } return res; } catch (err)
 * { n++; await sleep(backoff(n)); continue; } }`: a wait on one way back does not hold back another. Each failure path
 * that goes back with a `continue` must wait on its own, unless the loop waits for every pass (a wait in its test or
 * update, or at the top of its body, before any failure path): Elasticsearch's transport retries a 502 at once while
 * its connection errors back off (review: an independent labelling).
 */
function everyWayBackWaits(loop: Node, backs: readonly Node[], ctx: Context): boolean {
  if (backs.length === 0) return true;
  const { keys } = ctx;
  const body = loop.body as Node;
  const statements = body.type === 'BlockStatement' ? (body.body as Node[]) : [body];
  // Every way back lies in the body: the statements before the first that holds one are on every pass.
  const first = statements.findIndex((st) => backs.some((b) => isWithin(b, st)));
  const head = [...[loop.test, loop.update].filter(isNode), ...statements.slice(0, first)].flatMap((n) =>
    owned(n, keys, { skipLoops: true }),
  );
  if (waitsIn(head, ctx).waits) return true;
  return backs.every((b) => waitsIn(owned(b, keys, { skipLoops: true }), ctx).waits);
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
 * `do { try { const updates = await getUpdates(offset); yield updates; } catch (err) { if (transient(err)) { await
 * wait(5000); continue; } throw err; } } while (!aborted)`: a long poll or a consumer whose success goes round at once
 * and whose catch waits before going back: the failed call is made again, the same, after that wait: a retry of its
 * failures (telegraf's polling). Not this shape: a success that waits too (a paced poll: `keepsPace`'s when its catch
 * only reports), an answer nothing reads (a heartbeat), a catch that goes back at once (a reader's loop).
 */
function backsOffFailures(tryStatement: Node, loop: Node, ctx: Context): boolean {
  const { keys } = ctx;
  const handler = owned((tryStatement.handler as Node).body as Node, keys, { skipLoops: true });
  if (!waitsIn(handler, ctx).waits) return false;
  const success = [tryStatement.block as Node, ...after(tryStatement, loop.body as Node), loop.test, loop.update]
    .filter(isNode)
    .flatMap((n) => owned(n, keys, { skipLoops: true }));
  return !waitsIn(success, ctx).waits && resultUsed(tryStatement, keys);
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

/** `n = n - 1`, `n = 1 + n`, `n -= 1`: a count stepped by a number, what `n--` does. */
function isCountStep(a: Node): boolean {
  const key = refKey(a.left as Node);
  const right = a.right as Node;
  const number = (x: Node) => x.type === 'Literal' && typeof x.value === 'number';
  if (a.operator === '+=' || a.operator === '-=') return number(right);
  if (a.operator !== '=' || right.type !== 'BinaryExpression' || !['+', '-'].includes(right.operator as string)) {
    return false;
  }
  const [l, r] = [right.left as Node, right.right as Node];
  return (refKey(l) === key && number(r)) || (right.operator === '+' && refKey(r) === key && number(l));
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
  const waits = waitsIn(
    shapeNodes.filter((n) => !firesLater(n, loop)),
    ctx,
  );
  return {
    node: loop,
    kind: 'loop',
    ...(waits.waits && !everyWayBackWaits(loop, paths.backs, ctx) ? { waits: false, fixedDelay: false } : waits),
    limited:
      limitedBy([loop.test].filter(isNode), [...direct, ...paths.extra], names, keys) ||
      helperLimits([...direct, ...paths.extra], names, ctx, paths.errorNames) ||
      (isNode(loop.test) && endsByAnswer(loop.test, direct, ctx)),
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

/**
 * `call` enters `fn` again, as the file's model resolves it: `f()`, `this.f()`, `self.f()`, `K.f()`, `$.f()`, or `fn`
 * handed to `setTimeout(f, ms)`, `.then(f)`, `.catch(f)`, `on('error', f)`.
 */
function entersAgain(call: Node, fn: Node, ctx: Context): boolean {
  if (entered(call, ctx).includes(fn)) return true;
  const isFn = (a: Node) =>
    (a.type === 'Identifier' || a.type === 'MemberExpression' || callName(a) === 'bind') &&
    modelOf(a, ctx).valueTargets(a).includes(fn);
  return (
    (SCHEDULES.test(callName(call)) && (call.arguments as Node[]).some(isFn)) ||
    failureReference(call, isFn) ||
    schedulerOf(call, ctx).some((s) => isFn((call.arguments as Node[])[s.at] as Node))
  );
}

/**
 * `delayReconnectAttempt(cb) { const ms = this.timeout * ++this.failures; setTimeout(() => cb.apply(this), ms); }`: a
 * function of the file that waits and then runs the function handed to it (called, `.call`ed or `.apply`ed) is a
 * scheduler, as `setTimeout` is: handing it a function enters that function again, later (@slack/socket-mode's
 * `delayReconnectAttempt(this.retrieveWSSURL)`). Each such function the call enters, with the place of the parameter
 * it runs; its code is read with the retry's.
 */
function schedulerOf(call: Node, ctx: Context): { fn: Node; at: number }[] {
  if (call.type !== 'CallExpression' || (call.arguments as Node[]).length === 0) return [];
  return entered(call, ctx).flatMap((f) => {
    const body = owned(bodyOf(f), ctx.keys, { skipLoops: false });
    if (!body.some(isWaitCall)) return [];
    const at = (f.params as Node[]).findIndex((p) => {
      const param = paramName(p);
      return (
        param !== undefined &&
        body.some((n) => {
          if (n.type !== 'CallExpression') return false;
          let callee = n.callee as Node;
          if (callee.type === 'MemberExpression' && /^(call|apply)$/.test(nameOf(callee.property as Node) ?? '')) {
            callee = callee.object as Node;
          }
          return callee.type === 'Identifier' && callee.name === param;
        })
      );
    });
    return at >= 0 && (call.arguments as Node[])[at] ? [{ fn: f, at }] : [];
  });
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

/**
 * The enclosing function that `call` enters again (a self-call, or itself handed to a scheduler), or undefined; only
 * functions named as the call's callee or its argument are looked at.
 */
export function recursiveCaller(call: Node, ctx: Context): Node | undefined {
  const name = calleeName(call);
  // `f`, `this.connect`, `this.connect.bind(this)` handed to a timer or a failure listener: the name it goes by.
  const handedName = (a: Node): string[] => {
    const ref = a.type === 'CallExpression' && callName(a) === 'bind' ? ((a.callee as Node).object as Node) : a;
    const own = ref.type === 'MemberExpression' ? nameOf(ref.property as Node) : nameOf(ref);
    return own === undefined ? [] : [own];
  };
  const handed =
    SCHEDULES.test(name ?? '') ||
    (LISTENS.test(name ?? '') && isFailureEvent((call.arguments as Node[])[0])) ||
    schedulerOf(call, ctx).length > 0
      ? (call.arguments as Node[]).flatMap(handedName)
      : [];
  if (!name && handed.length === 0) return undefined;
  for (let p = call.parent; p; p = p.parent) {
    if (!FUNCTIONS.has(p.type)) continue;
    const own = functionName(p);
    if (own !== undefined && (own === name || handed.includes(own)) && entersAgain(call, p, ctx)) return p;
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
      nullFailure(n, fn, ctx, name) ??
      handedOnFailure(n, fn, nodes) ??
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
  // The self-call is not a wait, even when its name says wait (`waitForExit()`); a scheduler of the file it goes
  // through is read for its wait and limit, not taken as a wait by its name.
  const schedulers = new Map(again.map((n) => [n, schedulerOf(n, ctx).map((s) => s.fn)]));
  const scheduled = [...schedulers.values()].flat().flatMap((f) => owned(bodyOf(f), keys, { skipLoops: false }));
  const viaScheduler = (n: Node) => (schedulers.get(n)?.length ?? 0) > 0;
  const others = [
    ...nodes.filter((n) => !(again.includes(n) && (calleeName(n) === name || viaScheduler(n)))),
    ...scheduled,
  ];
  const names = withAliases(nodes, errorNames);
  const own = {
    ...waitsIn(others, ctx),
    limited: tests([...nodes, ...scheduled]).some((t) => bounds(t, params, keys)),
    ...errorCheck([...nodes.filter((n) => !onSuccessOnly(n, fn, again)), ...viaCallback], names, ctx),
  };
  // `await getRetryConfig(err)` of another file of the package: what it keeps is the recursion's (gaxios).
  return { node: fn, kind: 'recursion', ...withImported(own, importedProperties(others, names, ctx)) };
}

/**
 * `get(uri).then((res) => { if (res.status !== 200) return cb(new Error(...)); ... }).catch((err) => setTimeout(getUrl,
 * 1000))`: what the success handler of `.then` looks at, when no way back starts there, is not looked at on the way
 * back: the catch retries any error (localtunnel's `getUrl`).
 */
function onSuccessOnly(n: Node, fn: Node, again: readonly Node[]): boolean {
  for (let g = n.parent; g && g !== fn; g = g.parent) {
    if (!FUNCTIONS.has(g.type)) continue;
    const call = g.parent;
    return (
      call?.type === 'CallExpression' &&
      callName(call) === 'then' &&
      (call.arguments as Node[])[0] === g &&
      !again.some((a) => isWithin(a, g))
    );
  }
  return false;
}

/**
 * `const onError = async (err) => { ...; return makeAttempt(); }; return attemptFunc().catch(onError);` inside
 * `makeAttempt`: the self-call sits in a function of the attempt handed where only a failure runs it (@lifeomic/attempt).
 */
function handedOnFailure(call: Node, fn: Node, nodes: readonly Node[]): FailurePath | undefined {
  let g = call.parent as Node;
  while (g !== fn && !FUNCTIONS.has(g.type)) g = g.parent as Node;
  // The function the self-call is in, declared by name in the attempt (`const onError = ...`).
  const name = g !== fn && g.parent?.type === 'VariableDeclarator' ? paramName(g.parent.id as Node) : undefined;
  const named = (a: Node) => a.type === 'Identifier' && a.name === name;
  if (!name || !nodes.some((m) => m.type === 'CallExpression' && failureReference(m, named))) return undefined;
  return { errorName: paramName((g.params as Node[])[0]) ?? '', handler: g.body as Node };
}

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

function analyseCycle(fn: Node, ctx: Context): RetryShape | undefined {
  const { keys } = ctx;
  const mine = failureCycles(modelOf(fn, ctx), judge(ctx)).filter((c) => c.at === fn);
  for (const c of mine) {
    if (c.at === c.attempt) {
      if (functionName(fn) === undefined || retryRecursion(fn, ctx)) return undefined;
      // A way back written inside the attempt itself was the recursion's to judge.
      // Not a timer after a paced try (failure-paths.ts's `pacedFailure`): no self-call is on a failure path there.
      const paced = c.path.handler.type === 'CatchClause' && c.along.every((a) => !isWithin(a, c.path.handler));
      if (!paced && [c.path.handler, ...c.route].every((g) => isWithin(g, fn))) continue;
    }
    const spans = [c.attempt, ...c.route].flatMap((g) => owned(bodyOf(g), keys, { skipLoops: false }));
    if ((walksList(spans, keys) && !requeues(c, ctx)) || pointsElsewhere(c, keys)) continue;
    // `tryNode(index + 1)` on the way back, `nodes[index]` in it: the next item of a list (ioredis cluster).
    if ([...c.along, ...spans].some((n) => stepsIndex(n, ctx))) continue;
    return { node: c.at, kind: 'recursion', ...cycleProperties(c.attempt, c.path, c.route, ctx, c.along) };
  }
  return undefined;
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
    const event = eventName(args[0]) ?? '';
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
  const resent = resends(fn, ctx);
  if (resent) return resent;
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
          const attempt =
            methods.has(t) &&
            (ATTEMPT_NAME.test(functionName(t) ?? '') || (scheduledBy(m, fn, ctx) && reopens(t, ctx.keys)));
          if (attempt) {
            if (changesArguments(m) || retryCycle(t, ctx) || retryRecursion(t, ctx) || holdsRetryLoop(t, ctx)) {
              return undefined;
            }
            // A method named like a retry schedules the attempt (a timer, a callback run later); one that calls it
            // itself (`async _reconnectAuth() { await this._waitForAuth(); this.connect(); }`, a hook handed to a
            // library to run before its own reconnect) schedules nothing: @supabase/realtime-js.
            if (byRetry && g === fn && enclosingFunction(m) === fn) return undefined;
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

/**
 * `async _reconnect(err) { while (delay !== null) { await wait(delay); try { return await this._start(); } catch ...
 * } }`: the attempt a handler hands the failure to is itself a retry loop; its wait, limit and check are the loop's,
 * reported on the loop (signalr's close handler and `_reconnect`).
 */
function holdsRetryLoop(fn: Node, ctx: Context): boolean {
  return owned(bodyOf(fn), ctx.keys, { skipLoops: false, skipCallbacks: true }).some(
    (n) => LOOPS.has(n.type) && retryLoop(n, ctx) !== undefined,
  );
}

/**
 * `this.on('close', () => { if (!this.shuttingDown) this.delayReconnectAttempt(this.start); })`: a method handed from
 * the failure callback itself to a timer with a delay or to a scheduler of the file (see {@link schedulerOf}) is what
 * the failure starts again later, whatever its name (@slack/socket-mode's `start`).
 */
function scheduledBy(ref: Node, handler: Node, ctx: Context): boolean {
  const call = ref.parent;
  if (call?.type !== 'CallExpression' || !(call.arguments as Node[]).includes(ref)) return false;
  if (enclosingFunction(call) !== handler || !failureCallback(handler)) return false;
  const args = call.arguments as Node[];
  const timer = /^set(Timeout|Interval)$/.test(callName(call)) && args[0] === ref && args.length > 1;
  return timer || schedulerOf(call, ctx).some((s) => args[s.at] === ref);
}

/**
 * What a method scheduled from a failure callback makes can fail into that callback again: it hands the object
 * itself to something it constructs (`new SlackWebSocket({ client: this })`, which emits `close` on it) or listens for
 * a failure event. A method that only sends or flushes does neither.
 */
function reopens(fn: Node, keys: VisitorKeys): boolean {
  return owned(bodyOf(fn), keys, { skipLoops: false }).some(
    (n) =>
      (n.type === 'NewExpression' &&
        (n.arguments as Node[]).some((a) => mentions(a, keys, (m) => m.type === 'ThisExpression'))) ||
      (n.type === 'CallExpression' && LISTENS.test(callName(n)) && isFailureEvent((n.arguments as Node[])[0])),
  );
}

/**
 * `client.interceptors.response.use(undefined, (error) => { ...; return client(error.config); })`: the failure handler
 * a client runs on each failed request sends the failed request again through the same client, so its next failure
 * comes back to the handler: a retry run by the client, its cycle closed in the client's code (axios-retry,
 * retry-axios). Followed through the file's functions the handler calls, with the client and the error (or what is
 * taken from it: `const { config } = error`) handed on as arguments. The report goes on the handler.
 */
const position = (node: Node): number => (node.range as [number, number])[0];

function resends(fn: Node, ctx: Context): RetryShape | undefined {
  const p = fn.parent;
  if (p?.type !== 'CallExpression' || (p.arguments as Node[])[1] !== fn) return undefined;
  const callee = p.callee as Node;
  if (callee.type !== 'MemberExpression' || nameOf(callee.property as Node) !== 'use') return undefined;
  let root = callee.object as Node;
  let intercepts = false;
  while (root.type === 'MemberExpression') {
    intercepts ||= nameOf(root.property as Node) === 'interceptors';
    root = root.object as Node;
  }
  const errorName = paramName((fn.params as Node[])[0]);
  const client = refKey(root);
  if (!intercepts || !client || !errorName) return undefined;
  const { keys } = ctx;
  const clients = new Set([client]);
  const errors = new Set([errorName]);
  const isClient = (n: Node) => clients.has(refKey(n) ?? '');
  const fromError = (n: Node | null | undefined) => mentions(n, keys, (m) => errors.has(refKey(m) ?? ''));
  const parentOf = new Map<Node, Node>();
  let level = [fn];
  for (let depth = 0; depth < 4 && level.length > 0; depth++) {
    const next: Node[] = [];
    for (const g of level) {
      const nodes = owned(bodyOf(g), keys, { skipLoops: false });
      for (const n of nodes) {
        // `const { config } = error`, `const config = getConfig(error) || {}`: taken from the error.
        const [id, init] = bindingOf(n);
        if (id && fromError(init))
          walk(id, keys, (m) => void (m.type === 'Identifier' && errors.add(m.name as string)));
      }
      for (const n of nodes) {
        if (n.type !== 'CallExpression') continue;
        const args = n.arguments as Node[];
        const target = n.callee as Node;
        const viaClient = isClient(target) || (target.type === 'MemberExpression' && isClient(target.object as Node));
        if (viaClient && args.some(fromError)) {
          const chain: Node[] = [];
          for (let c: Node | undefined = g; c && c !== fn; c = parentOf.get(c)) chain.unshift(c);
          // `if (error.response?.status === 401) { await refreshToken(); return client(error.config); }`: the
          // handler repairs first (a new token), it does not retry the same call.
          // What runs after the way back has started (`yield onMaxRetries(error)` past `return resend()`) repairs nothing.
          const starts = (c: Node) => c === n || entered(c, ctx).some((t) => chain.includes(t));
          const inHandler = owned(bodyOf(fn), keys, { skipLoops: false });
          const from = Math.min(...inHandler.filter((c) => c.type === 'CallExpression' && starts(c)).map(position));
          const exempt = (c: Node) => starts(c) || position(c) > from;
          const own = inHandler.filter((m) => FUNCTIONS.has(m.type));
          if ([fn, ...own].some((h) => remedies(h.body as Node, keys, '', exempt))) return undefined;
          return { node: fn, kind: 'recursion', ...cycleProperties(fn, { handler: fn, errorName }, chain, ctx) };
        }
        for (const t of entered(n, ctx)) {
          if (t === fn || parentOf.has(t)) continue;
          parentOf.set(t, g);
          (t.params as Node[]).forEach((q, i) => {
            const name = paramName(q);
            const arg = args[i];
            if (!name || !arg) return;
            if (isClient(arg)) clients.add(name);
            if (fromError(arg)) errors.add(name);
          });
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
