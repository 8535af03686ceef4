/**
 * Between the second stage and the third (design.md, "An analysis shows its steps"): whether a way out of a call
 * through a failure goes back to the same call unrepaired, so the cycle that cycles.ts follows is a retry.
 *
 * A failure path is a catch clause, a failure branch (`if (!res.ok)`, a node-style `if (err)`), a callback run on a
 * rejection or a failure event, or the timer after a worker's try whose catch only reports ({@link pacedFailure}). It
 * is no retry when it first repairs the cause (a call made for what it changes, state the attempt reads set anew), when
 * it hands the error on to the next pass, or when the way back points the call at another input (the next host, a
 * redirect) or walks a list; putting the failed input back on a queue the way back drains is the same call again.
 */
import {
  bindingOf,
  calleeName,
  callName,
  FUNCTIONS,
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
import type { FailureCycle, FailurePath, Judge } from './cycles';
import { fileIndex, isThis } from './file-index';
import { completions, offPath, sequence } from './flow';
import {
  bodyOf,
  type Context,
  entered,
  eventName,
  FAILURE_EVENTS,
  type FileModel,
  fileModel,
  functionName,
  isFailureEvent,
  LISTENS,
} from './model';
import { isClockCall, isWaitCall, statusPolarity, tests } from './properties';

/**
 * The try of a worker's pass that goes on the same way whether it failed or not: the attempt always ends normally
 * (no return, break or continue) and its result is used (`const jobs = await this.fetch(); if (jobs) ...`), not an
 * item taken off a queue; the catch also ends normally, neither repairing nor handing the error to the next pass. Its
 * bookkeeping of fields `within` does not read (`this.lastError = err`, `this.lastErrorOn = Date.now()`) is no repair.
 */
export function pacedTry(tryStatement: Node, within: Node, keys: VisitorKeys): boolean {
  const handlerBody = (tryStatement.handler as Node).body as Node;
  const block = completions(tryStatement.block as Node, true);
  block.delete('throw');
  const caught = completions(handlerBody, true);
  const only = (c: Set<string>) => c.size === 1 && c.has('normal');
  if (!only(block) || !only(caught)) return false;
  const attempt = owned(tryStatement.block as Node, keys, { skipLoops: false, skipCallbacks: true });
  const consumes = attempt.some((n) => n.type === 'CallExpression' && CONSUMES.test(callName(n)));
  if (!resultUsed(tryStatement, keys) || consumes) return false;
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

/** The try's attempt keeps what a call gives and uses it (`const jobs = await fetch(); if (jobs) ...`): not a ping. */
export function resultUsed(tryStatement: Node, keys: VisitorKeys): boolean {
  const attempt = owned(tryStatement.block as Node, keys, { skipLoops: false, skipCallbacks: true });
  const results = new Set(
    attempt.flatMap((n) => {
      const [id, init] = bindingOf(n);
      return id?.type === 'Identifier' && init && mentions(init, keys, (m) => m.type === 'CallExpression')
        ? [id.name as string]
        : [];
    }),
  );
  return attempt.some(
    (n) => n.type === 'Identifier' && results.has(n.name as string) && bindingOf(n.parent as Node)[0] !== n,
  );
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

/** The catch stores the error (or something made of it) where the attempt reads it: the next pass handles it. */
export function handsOnError(tryStatement: Node, keys: VisitorKeys): boolean {
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
export function remedies(
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
    // `if (opts && opts.callback) opts.callback(n)`, `onRetry?.(err)`: a hook called only when it is there; without
    // it the way back is the same, so it repairs nothing the retry needs (node-fetch-retry).
    if (optionalCall(n, body, keys)) return false;
    // `this.transitionTo(RETRY)` in a catch of a function that calls `this.transitionTo(...)` itself on its way: what
    // the attempt does anyway is no repair of the cause (tedious).
    if (alsoOnItsWay(n, body, keys)) return false;
    const name = callName(n);
    // `yield refresh()` in compiled TypeScript's `__awaiter` generator is `await refresh()`.
    const awaited = n.parent?.type === 'AwaitExpression' || n.parent?.type === 'YieldExpression';
    const statement = awaited ? n.parent?.parent : n.parent;
    // `refresh();`, `x = await login()`, `const token = await authorize()`: called for what it changes.
    const onItsOwn =
      statement?.type === 'ExpressionStatement' ||
      statement?.type === 'AssignmentExpression' ||
      (statement?.type === 'VariableDeclarator' && awaited);
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

/** The function around `body` calls the same callee (`this.transitionTo`) in its own code outside `body`. */
function alsoOnItsWay(call: Node, body: Node, keys: VisitorKeys): boolean {
  const key = refKey(call.callee as Node);
  if (key === undefined || !key.startsWith('this.')) return false;
  let fn: Node | null | undefined = body.parent;
  while (fn && !FUNCTIONS.has(fn.type)) fn = fn.parent;
  if (!fn) return false;
  return owned(fn.body as Node, keys, { skipLoops: false, skipCallbacks: true }).some(
    (m) => m.type === 'CallExpression' && m !== call && !isWithin(m, body) && refKey(m.callee as Node) === key,
  );
}

/**
 * A call made only when its callee is there: `f?.()`, `cb && cb()`, `if (opts && opts.callback) opts.callback()`,
 * `if (typeof o.f === 'function') o.f()`, inside `body`.
 */
function optionalCall(call: Node, body: Node, keys: VisitorKeys): boolean {
  // `f?.()` and `o.f?.()`: the call itself is optional (inside its ChainExpression).
  if (call.optional) return true;
  const callee = call.callee as Node;
  const key = refKey(callee);
  if (key === undefined) return false;
  const testsCallee = (test: Node) => mentions(test, keys, (m) => m !== callee && refKey(m) === key);
  for (let at = call, p = call.parent; p && at !== body; at = p, p = p.parent) {
    if (p.type === 'IfStatement' && p.consequent === at && testsCallee(p.test as Node)) return true;
    if (p.type === 'LogicalExpression' && p.operator === '&&' && p.right === at && testsCallee(p.left as Node)) {
      return true;
    }
    if (FUNCTIONS.has(p.type)) return false;
  }
  return false;
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

/** `x` of `x.on('error', cb)` for the listener `cb` of a failure event, as a reference key; undefined otherwise. */
function emitterOf(callback: Node): string | undefined {
  const call = callback.parent;
  if (call?.type !== 'CallExpression' || (call.arguments as Node[])[1] !== callback) return undefined;
  const callee = call.callee as Node;
  if (callee.type !== 'MemberExpression' || !LISTENS.test(nameOf(callee.property as Node) ?? '')) return undefined;
  if (!isFailureEvent((call.arguments as Node[])[0])) return undefined;
  return refKey(callee.object as Node);
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
  // `local.once('error', (err) => { local.end(); ...; setTimeout(connect, 1000); })`: what the listener does to the
  // object that failed (ends, destroys it) repairs nothing; the attempt makes a new one (localtunnel's `connLocal`).
  const failed = emitterOf(callback);
  const onFailed = (call: Node) =>
    failed !== undefined &&
    (call.callee as Node).type === 'MemberExpression' &&
    refKey((call.callee as Node).object as Node) === failed;
  const exempted = (call: Node) => onFailed(call) || exempt?.(call) === true;
  if (remedies(callback.body as Node, keys, name, exempted, along, reads)) return undefined;
  const param = (callback.params as Node[])[0];
  return param?.type === 'Identifier' ? { errorName: param.name as string, handler: callback } : { handler: callback };
}

/** The callback's error a test asks for: `err`, or one side of an `&&` (`err && n < 5`): the branch runs on a failure. */
function testedError(test: Node, keys: VisitorKeys): Node | undefined {
  if (test.type === 'LogicalExpression' && test.operator === '&&') {
    return testedError(test.left as Node, keys) ?? testedError(test.right as Node, keys);
  }
  return nodeStyleError(test) ? test : classifiedError(test, keys);
}

/**
 * `var mustRetry = await this.retryStrategy(err, response, body); if (mustRetry && ...)`: in a node-style callback,
 * the answer of a call handed the callback's error tells the failure branch, as `if (err)` does (requestretry). The
 * callback's error is returned: the way back asks about it through that call.
 */
function classifiedError(test: Node, keys: VisitorKeys): Node | undefined {
  if (test.type !== 'Identifier') return undefined;
  for (let p = test.parent; p; p = p.parent) {
    if (!FUNCTIONS.has(p.type)) continue;
    const first = (p.params as Node[])[0];
    // handed to a call, as it is or bound: `request(opts, function (err, res) {...}.bind(this))`
    const handed =
      p.parent?.type === 'CallExpression' ||
      (p.parent?.type === 'MemberExpression' &&
        nameOf(p.parent.property as Node) === 'bind' &&
        p.parent.parent?.type === 'CallExpression');
    if (first?.type !== 'Identifier' || !handed || !/^(e|err|error)$|Err/.test(first.name as string)) return undefined;
    const body = p.body as Node;
    const declared = (body.type === 'BlockStatement' ? (body.body as Node[]) : []).flatMap((st) =>
      st.type === 'VariableDeclaration' ? (st.declarations as Node[]) : [],
    );
    const decl = declared.find((d) => (d.id as Node).type === 'Identifier' && (d.id as Node).name === test.name);
    const handedError = (n: Node) =>
      n.type === 'CallExpression' &&
      (n.arguments as Node[]).some((a) => a.type === 'Identifier' && a.name === first.name);
    let found = false;
    walk((decl?.init as Node | null) ?? first, keys, (n) => {
      if (handedError(n)) found = true;
      return !found;
    });
    return found ? first : undefined;
  }
  return undefined;
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
export function onFailurePath(
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
      const event = eventName(args[0]) ?? '';
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
      const error = testedError(test, keys);
      const polarity = statusPolarity(test) ?? (error ? 'failure' : undefined);
      if ((polarity === 'failure' && child === p.consequent) || (polarity === 'success' && child === p.alternate)) {
        if (remedies(child, keys, name, exempt, along)) return undefined;
        return error ? { errorName: error.name as string, handler: child } : { handler: child };
      }
    }
  }
  return undefined;
}

/**
 * `while ((item = stack.pop()))`, or `if (!hosts.length) return giveUp(); ... hosts.shift()`: it works through a queue
 * or a list of fallbacks, a different call each time.
 */
export function walksList(nodes: readonly Node[], keys: VisitorKeys): boolean {
  const lengths = new Set<string>();
  for (const t of tests(nodes)) {
    walk(t, keys, (m) => {
      if (m.type === 'MemberExpression' && nameOf(m.property as Node) === 'length') {
        lengths.add(refKey(m.object as Node) ?? '');
      }
      return true;
    });
  }
  // `front = front.next`: it walks a linked list, the next item each time. Not `mustRetry = mustRetry.mustRetry` of
  // `var mustRetry = await strategy(err)`: an answer unwrapped (requestretry).
  const answers = new Set(
    nodes.flatMap((n) => {
      let init = n.type === 'VariableDeclarator' ? (n.init as Node | null) : null;
      while (init?.type === 'AwaitExpression') init = init.argument as Node;
      return init?.type === 'CallExpression' && (n.id as Node).type === 'Identifier'
        ? [(n.id as Node).name as string]
        : [];
    }),
  );
  const linked = nodes.some(
    (n) =>
      n.type === 'AssignmentExpression' &&
      n.operator === '=' &&
      (n.right as Node).type === 'MemberExpression' &&
      !(n.right as Node).computed &&
      refKey(n.left as Node) !== undefined &&
      refKey(n.left as Node) === refKey((n.right as Node).object as Node) &&
      !answers.has(refKey(n.left as Node) as string),
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

export const modelOf = (node: Node, ctx: Context): FileModel => fileModel(node, ctx.keys, ctx.resolve);

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
export const changesArguments = (call: Node): boolean =>
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

/** What this stage decides about failure paths, for the search of cycles.ts. */
export function judge(ctx: Context): Judge {
  const { keys } = ctx;
  // A call on the path, or the call a function handed on is an argument of, is not a repair of the failure.
  const exemptFor = (along: readonly Node[]) => (c: Node) => along.some((a) => a === c || a.parent === c);
  return {
    within: (site, fn) =>
      onFailurePath(site, fn, keys, functionName(fn) ?? '', exemptFor([site]), [site]) ??
      pacedFailure(site, fn, keys) ??
      nullFailure(site, fn, ctx, functionName(fn) ?? ''),
    handler: (fn, along, attempt) => listenerPath(fn, keys, '', exemptFor(along), along, readsOf(attempt, ctx)),
    sameCall: (site) => !changesArguments(site) && !stepsIndex(site, ctx),
  };
}

/**
 * `tryNode(index + 1)` into `function tryNode(index) { const node = nodes[index]; ... }`: the next item of a list, not
 * the same call again (ioredis cluster's slot refresh falls back node by node). A count handed on one less
 * (`makeRequest(options, retriesRemaining - 1)`) indexes nothing: it stays the same call.
 */
export function stepsIndex(site: Node, ctx: Context): boolean {
  if (site.type !== 'CallExpression') return false;
  const args = site.arguments as Node[];
  const stepped = args.flatMap((a, i) =>
    a.type === 'BinaryExpression' &&
    ['+', '-'].includes(a.operator as string) &&
    (a.right as Node).type === 'Literal' &&
    typeof (a.right as Node).value === 'number'
      ? [i]
      : [],
  );
  if (stepped.length === 0) return false;
  return entered(site, ctx).some((f) =>
    stepped.some((i) => {
      const name = paramName((f.params as Node[])[i]);
      return (
        name !== undefined &&
        mentions(
          bodyOf(f),
          ctx.keys,
          (m) =>
            m.type === 'MemberExpression' &&
            !!m.computed &&
            (m.property as Node).type === 'Identifier' &&
            (m.property as Node).name === name,
        )
      );
    }),
  );
}

/**
 * `catch (e) { await store.push(envelope); flushWithBackOff(); }` and, on the way back, `const found = await
 * store.shift(); if (found) send(found)`: the failure puts the attempt's own input back on the queue the way back takes
 * it from, so the queue hands the same call back, it is not walked (@sentry/core's offline transport).
 */
export function requeues(c: FailureCycle, ctx: Context): boolean {
  const { keys } = ctx;
  const inputs = new Set((c.attempt.params as Node[]).flatMap((p) => paramName(p) ?? []));
  const handler = c.path.handler.type === 'CatchClause' ? (c.path.handler.body as Node) : c.path.handler;
  // `this._maybeRetry(err, item, callback)` then `this.retryQueue.push({ item, callback })` in a function of the way
  // back: the input handed on under the next function's parameter name, pushed there, alone or in an object
  // (rollbar's retry queue, drained by an interval).
  const way = [handler, ...c.route.map(bodyOf)].flatMap((b) => owned(b, keys, { skipLoops: false }));
  for (const n of way) {
    if (n.type !== 'CallExpression') continue;
    const args = n.arguments as Node[];
    for (const t of entered(n, ctx)) {
      if (!c.route.includes(t)) continue;
      args.forEach((a, i) => {
        const p = paramName((t.params as Node[])[i]);
        if (p && a.type === 'Identifier' && inputs.has(a.name as string)) inputs.add(p);
      });
    }
  }
  const holdsInput = (a: Node): boolean =>
    (a.type === 'Identifier' && inputs.has(a.name as string)) ||
    (a.type === 'ObjectExpression' &&
      (a.properties as Node[]).some((p) => p.type === 'Property' && holdsInput(p.value as Node)));
  const queues = new Set(
    way.flatMap((n) =>
      n.type === 'CallExpression' &&
      /^(push|unshift|enqueue|add)$/.test(callName(n)) &&
      (n.callee as Node).type === 'MemberExpression' &&
      (n.arguments as Node[]).some(holdsInput)
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
export function pointsElsewhere(c: FailureCycle, keys: VisitorKeys): boolean {
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

/** Scheduling calls that run a function handed to them: `setTimeout(connect, ms)`, `p.then(start)`. */
export const SCHEDULES = /^(setTimeout|setImmediate|nextTick|queueMicrotask|requestAnimationFrame|then|catch|finally)$/;

/**
 * A test on a result the attempt assigned: 'success' when it asks whether the result is there (`res`,
 * `res !== undefined`, `result != null`), 'failure' when it asks whether it is missing (`!res`, `message === null`).
 */
export function resultPolarity(test: Node, names: ReadonlySet<string>): 'success' | 'failure' | undefined {
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

/**
 * `while (token === null) { await delay(ms); token = await tryGet(); }` where `tryGet`, a function of the file, returns
 * `null` from its catch: a failure told by a null result (@azure/core-rest-pipeline's token cycler).
 */
export function nullResultTest(test: Node, nodes: readonly Node[], ctx: Context): 'success' | 'failure' | undefined {
  const names = new Set<string>();
  for (const n of nodes) {
    const [id, init] = bindingOf(n);
    let call = init;
    while (call?.type === 'AwaitExpression') call = call.argument as Node;
    if (id?.type !== 'Identifier' || call?.type !== 'CallExpression') continue;
    const callee = call.callee as Node;
    // `tryGet()` of the file, or a method of its class: `this.tryGet()`.
    const targets = (
      callee.type === 'Identifier' ? ctx.resolve(callee.name as string, callee) : entered(call, ctx)
    ).filter((f) => FUNCTIONS.has(f.type));
    if (targets.some((f) => failsAsNull(f, ctx.keys))) names.add(id.name as string);
  }
  return names.size > 0 ? resultPolarity(test, names) : undefined;
}

/**
 * `const token = await tryGet(); if (!token) { setTimeout(() => this.refresh(), ms); return; }` where `tryGet`, a
 * function of the file, returns `null` from its catch: the branch taken on a missing result is a failure path, as a
 * catch would be (a failure reported by returning `null`).
 */
export function nullFailure(site: Node, fn: Node, ctx: Context, name: string): FailurePath | undefined {
  const nodes = owned(bodyOf(fn), ctx.keys, { skipLoops: false, skipCallbacks: true });
  let child = site;
  for (let p = site.parent; p && child !== fn; child = p, p = p.parent) {
    if (p.type !== 'IfStatement' || child === p.test) continue;
    const polarity = nullResultTest(p.test as Node, nodes, ctx);
    if ((polarity === 'failure' && child === p.consequent) || (polarity === 'success' && child === p.alternate)) {
      return remedies(child, ctx.keys, name, (c) => c === site || c === site.parent, [site])
        ? undefined
        : { handler: child };
    }
  }
  return undefined;
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
