/**
 * The third stage of reading a file for retries (design.md, "An analysis shows its steps"): what a retry found by the
 * second (cycles.ts, or a loop or a recursion of retry-loop.ts) has of the four elements, read on the nodes of its way
 * back from the failure to the attempt: a wait between attempts, jitter on that wait, a limit on the attempts, and a
 * check that the failure is transient.
 *
 * Each element is read by what the code does where it can see it (a timer, a delay made of constants, a counter
 * stepped and compared, the error looked at in a condition), and by a name only where the code is out of reach (an
 * import, a field no code of the file sets); what was accepted by its name is noted, and the reports say so.
 */
import {
  callName,
  FUNCTIONS,
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
import type { FailurePath } from './cycles';
import { fileIndex, isCounted, isScaledOnly, isThis, memberTargets } from './file-index';
import { completions, leadsBack, offPath, sequence } from './flow';
import { importedFunction } from './imports';
import { bodyOf, byDefault, type Context, entered, fileModel } from './model';

/** What a retry has and lacks of the four elements: a wait, jitter on it, a limit, a check of the failure. */
export interface Properties {
  /** Some wait (sleep, delay, setTimeout...) happens between attempts. */
  readonly waits: boolean;
  /** The delay is visibly fixed (constants, counters, options) with no randomness; false when unknown. */
  readonly fixedDelay: boolean;
  /** A counter bound or a deadline stops the attempts. */
  readonly limited: boolean;
  /** The failure path looks at the error or the response status before retrying. */
  readonly checksError: boolean;
  /**
   * The failure is told by a response's `ok` alone (`if (res.ok) return res`, `if (!res?.ok) continue`): the retry
   * looks at the response, but only at whether it failed. Set only when {@link checksError} is false, for the report:
   * `response` when the `ok` is a fetch Response's (from a `fetch` call, or read with its status or body), `call` when
   * it may be any result's (`{ ok, value }`).
   */
  readonly readsOk?: 'response' | 'call';
  /**
   * What was accepted by its name only, its code out of reach (an import, another file): `pastDeadline() as a limit`,
   * `backoff() as a wait`. The reports say so.
   */
  readonly byName?: readonly string[];
}

/** Where the analysis of the shape being read notes what it accepts by name (see {@link Properties.byName}). */
let notes: Set<string> | undefined;

export const noteByName = (what: string): void => void notes?.add(what);

// On a cycle: the way back, the route's functions and the helpers they call, read for each element below.

/** A helper out of reach whose name says it waits: `new Timer(cb, ms)`, `this.backoff.schedule()`. */
export const WAITS_BY_NAME = /timer|schedule|backoff|retry|delay|wait|sleep/i;

/**
 * The four elements read on a cycle of cycles.ts: on the failure path's way back (not a branch that rejects or hands
 * the error to an option), the functions of the route, the helpers they call one level down, and a guard at the top
 * of the attempt `fn`.
 */
export function cycleProperties(
  fn: Node,
  path: FailurePath,
  chain: readonly Node[],
  ctx: Context,
  along: readonly Node[] = [],
): Properties {
  const { keys } = ctx;
  const handler = path.handler.type === 'CatchClause' ? (path.handler.body as Node) : path.handler;
  const pathNodes = [
    // Of the failure path, what is on the way back: not a branch that rejects or hands the error to an option.
    ...owned(handler, keys, { skipLoops: false }).filter((n) => along.length === 0 || !offPath(n, handler, along)),
    ...chain.flatMap((g) => owned(bodyOf(g), keys, { skipLoops: false })),
    ...onward(path, along).flatMap((st) => owned(st, keys, { skipLoops: false })),
  ];
  // The helpers the cycle calls (`this.nextDelay()`, `assertAttempts(n)`), one level: where a limit or a delay lives.
  const inCycle = new Set([fn, ...chain]);
  const helpers = new Set<Node>();
  for (const m of pathNodes) {
    if (m.type !== 'CallExpression') continue;
    for (const t of entered(m, ctx)) if (!inCycle.has(t)) helpers.add(t);
  }
  const helperNodes = [...helpers].flatMap((h) => owned(bodyOf(h), keys, { skipLoops: false }));
  // A guard at the top of the attempt (`if (this.attempts > max) return;`) bounds the cycle too; an `if` that goes on
  // (`if (this.connectionTimeout > 0) { this.watcher = setTimeout(...) }`) guards nothing.
  const guards = ((fn.body as Node).type === 'BlockStatement' ? ((fn.body as Node).body as Node[]) : []).filter(
    (st) => st.type === 'IfStatement' && !completions(st.consequent as Node, false).has('normal'),
  );
  const all = [...pathNodes, ...helperNodes];
  const names = counters(all);
  for (const g of [fn, ...chain, ...helpers]) for (const p of (g.params as Node[]) ?? []) names.add(paramName(p) ?? '');
  const errorNames = new Set<string>(path.errorName ? [path.errorName] : []);
  // `this.retryLater(err)`: the error goes on under the next function's parameter name.
  for (const m of pathNodes) {
    if (m.type !== 'CallExpression') continue;
    // `failOnce({ message: err.message })`, `fail({ status: res.statusCode })`: the failure described is handed on too.
    const described = (a: Node) =>
      a.type === 'ObjectExpression' &&
      mentions(a, keys, (x) => (x.type === 'Identifier' && errorNames.has(x.name as string)) || isStatusRef(x));
    const at = (m.arguments as Node[]).findIndex(
      (a) => (a.type === 'Identifier' && errorNames.has(a.name as string)) || described(a),
    );
    if (at < 0) continue;
    for (const t of entered(m, ctx)) {
      const p = paramName((t.params as Node[])[at]);
      if (p) errorNames.add(p);
    }
  }
  aliases(all, errorNames);
  const index = fileIndex(fn, keys);
  // Out of reach: `new Timer(() => this.rejoin(), ms)` of an imported class named like a timer is taken as a wait.
  const assumedWait = chain.some(
    (g) =>
      g.parent?.type === 'NewExpression' &&
      (g.parent.callee as Node).type === 'Identifier' &&
      !index.classes.has((g.parent.callee as Node).name as string) &&
      WAITS_BY_NAME.test((g.parent.callee as Node).name as string),
  );
  // `this._retrier.retryLater(tracker, () => this.fill())`: an object out of reach, named like a scheduler, handed
  // the way back, is taken as a wait by that name.
  const handedOn = pathNodes.some(
    (m) =>
      m.type === 'CallExpression' &&
      (m.callee as Node).type === 'MemberExpression' &&
      entered(m, ctx).length === 0 &&
      WAITS_BY_NAME.test(callName(m)) &&
      (m.arguments as Node[]).some((a) => FUNCTIONS.has(a.type)),
  );
  const waits = waitsIn([...pathNodes, ...helperNodes, ...waitsFirst(fn, ctx)], ctx, true);
  // `if (this.exhausted()) return;` with `exhausted() { return ++this.attempts > this.max; }`: a yes/no helper of the
  // cycle whose answer compares a counter, asked in a condition, is the limit kept there (review).
  const answersBound = (h: Node): boolean => {
    const body = bodyOf(h);
    const answers =
      body.type === 'BlockStatement'
        ? owned(body, keys, { skipLoops: false, skipCallbacks: true }).flatMap((r) =>
            r.type === 'ReturnStatement' && r.argument ? [r.argument as Node] : [],
          )
        : [body];
    return answers.some((a) => compares(a, names, keys));
  };
  const asksHelper = (t: Node): boolean =>
    mentions(
      t,
      keys,
      (m) => m.type === 'CallExpression' && entered(m, ctx).some((h) => helpers.has(h) && answersBound(h)),
    );
  if (!waits.waits && assumedWait) noteByName('an imported timer class a wait by its name');
  else if (!waits.waits && handedOn) noteByName(`a scheduler out of reach a wait by its name`);
  return {
    waits: waits.waits || assumedWait || handedOn,
    fixedDelay: waits.waits && waits.fixedDelay,
    limited:
      conditions([...guards, ...pathNodes].filter((n) => !LOOPS.has(n.type))).some(
        (t) => compares(t, names, keys) || asksHelper(t),
      ) ||
      countHandedOn(all, ctx) ||
      countReadElsewhere(all, ctx) ||
      // `schedule() { if (max === undefined || this.backoff.retries <= max) setTimeout(...) }`, a helper of the cycle:
      // the wait is only set under a compared count (websocket-ts).
      helperNodes.some(
        (h) =>
          h.type === 'IfStatement' &&
          mentions(h.consequent as Node, keys, isWaitCall) &&
          compares(h.test as Node, names, keys),
      ) ||
      countsDown(fn, [...guards, ...pathNodes], ctx) ||
      [...helpers].some((h) => {
        const body = owned(bodyOf(h), keys, { skipLoops: false, skipCallbacks: true });
        return body.some((b) => b.type === 'ThrowStatement') && conditions(body).some((t) => compares(t, names, keys));
      }),
    ...(stopsOnPermanent([...guards, ...pathNodes], keys)
      ? { checksError: true }
      : eachWayChecks(all, handler, along, errorNames, ctx)),
  };
}

/**
 * `_connect() { if (this.count >= max) return; this.count++; this._wait().then(() => this.open()).catch(...) }`: the
 * attempt waits first, on every entry, before anything of it can fail: a statement of its own body, not under a
 * branch, whose promise chain starts with a wait (`await sleep(ms)`, `wait(ms).then(...)`, a function of the file that
 * waits). Every way back goes through it. The nodes of those waits, and of the file's functions they call.
 */
function waitsFirst(fn: Node, ctx: Context): Node[] {
  const body = bodyOf(fn);
  const out: Node[] = [];
  for (const st of body.type === 'BlockStatement' ? (body.body as Node[]) : []) {
    let e: Node | undefined =
      st.type === 'ExpressionStatement'
        ? (st.expression as Node)
        : st.type === 'VariableDeclaration'
          ? (((st.declarations as Node[])[0]?.init as Node | null) ?? undefined)
          : undefined;
    if (e?.type === 'AwaitExpression') e = e.argument as Node;
    // `wait().then(f).catch(g)`: down the chain to the call it starts with.
    while (
      e?.type === 'CallExpression' &&
      (e.callee as Node).type === 'MemberExpression' &&
      /^(then|catch|finally)$/.test(callName(e))
    ) {
      e = ((e.callee as Node).object as Node) ?? undefined;
    }
    if (e?.type !== 'CallExpression') continue;
    const inFile = entered(e, ctx).filter((f) => mentions(bodyOf(f), ctx.keys, isWaitCall));
    if (isWaitCall(e) || inFile.length > 0) {
      out.push(...owned(e, ctx.keys, { skipLoops: false }));
      for (const f of inFile) out.push(...owned(bodyOf(f), ctx.keys, { skipLoops: false }));
    }
  }
  return out;
}

/**
 * `try { ... } catch (err) { report(err); } this.timer = setTimeout(() => this.poll(), ms);`: when the way back starts
 * after the try its catch belongs to (a worker keeping its pace, failure-paths.ts's `pacedFailure`), the statements from
 * the try to the one that starts it are on the way back too.
 */
function onward(path: FailurePath, along: readonly Node[]): Node[] {
  const clause = path.handler;
  const tryStatement = clause.parent;
  const block = tryStatement?.parent;
  if (clause.type !== 'CatchClause' || block?.type !== 'BlockStatement' || along.length === 0) return [];
  if (along.some((a) => isWithin(a, clause))) return [];
  const statements = block.body as Node[];
  const from = statements.indexOf(tryStatement as Node);
  const to = statements.findIndex((st) => along.some((a) => isWithin(a, st)));
  return to > from ? statements.slice(from + 1, to + 1) : [];
}

// The wait, and the jitter on it.

/** Runs `analyse` collecting its notes into the shape it returns. */
export function withNotes<T extends Properties>(analyse: () => T | undefined): T | undefined {
  const outer = notes;
  const mine = new Set<string>();
  notes = mine;
  try {
    const shape = analyse();
    return shape && mine.size > 0 ? { ...shape, byName: [...mine].sort() } : shape;
  } finally {
    notes = outer;
  }
}

const WAIT_NAME = /sleep|delay|wait|backoff|pause|timeout|nap/i;

const RANDOM_NAME = /jitter|random/i;

/** Named like a wait, but makes, clears or reads one: `makeTimeoutError()`, `clearTimeout()`, `isTimeout(err)`. */
const NOT_A_WAIT = /^(clear|make|create|build|new|is|has|get|on|handle|emit|to)|error$|exception$/i;

export const isClockCall = (node: Node): boolean =>
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

/** `setTimeout(f, this.nextDelay())`, `base + delay(n)`: a call whose result is a number handed on computes a delay. */
const usedAsValue = (node: Node): boolean =>
  (node.parent?.type === 'CallExpression' && (node.parent.arguments as Node[]).includes(node)) ||
  node.parent?.type === 'BinaryExpression';

/**
 * `remote.pause();`: a method named like a wait, handed nothing (no delay, no callback), its result neither awaited,
 * chained nor kept, holds nothing back (a stream paused: localtunnel).
 */
const waitedForNothing = (node: Node): boolean =>
  (node.callee as Node).type === 'MemberExpression' &&
  (node.arguments as Node[]).length === 0 &&
  node.parent?.type === 'ExpressionStatement';

/** A wait: a call named like sleep/delay/wait/backoff/setTimeout, or `new Promise(r => setTimeout(r, ms))`. */
export const isWaitCall = (node: Node): boolean =>
  node.type === 'CallExpression' &&
  ((WAIT_NAME.test(callName(node)) &&
    !NOT_A_WAIT.test(callName(node)) &&
    !usedAsValue(node) &&
    !waitedForNothing(node)) ||
    // `safeUnref(setTimeout(f, ms))`: a timer handed on still waits.
    /^set(Timeout|Interval)$/.test(callName(node)) ||
    // `await guard(delayMs, signal)`: an awaited call handed a delay waits it.
    (node.parent?.type === 'AwaitExpression' &&
      (node.arguments as Node[]).some((a) => WAIT_NAME.test(refKey(a)?.split('.').pop() ?? ''))));

/** The delay a wait call waits: its last numeric-looking argument (`sleep(ms)`, `setTimeout(r, ms)`). */
function delayOf(call: Node): Node | undefined {
  const args = call.arguments as Node[];
  const name = callName(call);
  if (/set(timeout|interval)/i.test(name) && args.length >= 2) return args[1];
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
    // `_getNextDelay() { ...; this._debug('next delay', delay); return delay; }`: a call made for its effect, its value
    // unused (logging), is no part of the delay; a random one still is.
    if (
      n.type === 'ExpressionStatement' &&
      (n.expression as Node).type === 'CallExpression' &&
      !mentions(n, ctx.keys, isRandomCall)
    ) {
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
      const values = ctx.resolve(n.name as string, n);
      // `scheduleRetry(delay) { setTimeout(f, delay) }`: a parameter is what the file's calls hand it there (apollo's
      // RetryLink hands it `this.delayFor(...)`, out of reach); one no call of the file hands anything stays a value.
      // Any call handing it randomness makes it random, any handing a plain value fixed; only calls out of reach all
      // (`this.delayFor(n)`) leave it unknown.
      const handed = values.length === 0 ? (argumentsFor(n, ctx) ?? []) : [];
      if (handed.length === 0) see(values);
      else {
        const each = handed.map((a) => determinism(a, ctx, depth + 1, seen));
        const inner = each.includes('random') ? 'random' : each.includes('fixed') ? 'fixed' : 'unknown';
        if (inner === 'random' || verdict === 'fixed') verdict = inner;
      }
    }
    // `interval - (Date.now() - started)`: the clock is no randomness; clients that failed together read the same one.
    if (isClockCall(n)) return false;
    if (n.type === 'CallExpression') {
      let callee = n.callee as Node;
      // `this.delayStrategy.call(this, err)`: the function called.
      if (callee.type === 'MemberExpression' && ['call', 'apply'].includes(nameOf(callee.property as Node) ?? '')) {
        callee = callee.object as Node;
      }
      if (!(callee.type === 'MemberExpression' && refKey(callee.object as Node) === 'Math')) {
        // `this.nextDelay()`, `this.backoff.duration()`: a method of the file is read, not taken as unknown.
        let targets = (
          callee.type === 'Identifier'
            ? ctx.resolve(callee.name as string, n)
            : memberTargets(callee, fileIndex(n, ctx.keys))
        ).flatMap(byDefault);
        // `this.delayStrategy` given by a constructor function or a prototype: the model's methods.
        if (targets.length === 0 && callee.type === 'MemberExpression') {
          targets = fileModel(n, ctx.keys, ctx.resolve).valueTargets(callee);
        }
        // `const { retryDelay } = state; retryDelay(n)`: a name bound to no function the file shows is out of reach,
        // not the object it was taken from.
        const seen = targets.some((t) => FUNCTIONS.has(t.type) || t.type === 'MethodDefinition');
        if ((targets.length === 0 || !seen) && verdict === 'fixed') verdict = 'unknown';
        see(targets);
      }
    }
    return true;
  });
  return verdict;
}

/**
 * For a parameter `n` of a function, the arguments the file's calls of that function hand it; undefined when `n` is
 * no parameter.
 */
function argumentsFor(n: Node, ctx: Context): Node[] | undefined {
  for (let f = n.parent; f; f = f.parent) {
    if (!FUNCTIONS.has(f.type)) continue;
    const at = (f.params as Node[]).findIndex((p) => p.type === 'Identifier' && p.name === n.name);
    if (at < 0) continue;
    return fileModel(f, ctx.keys, ctx.resolve)
      .into(f)
      .flatMap((e) => {
        const arg =
          e.kind === 'call' && e.site.type === 'CallExpression' ? (e.site.arguments as Node[])[at] : undefined;
        return arg && arg.type !== 'SpreadElement' ? [arg] : [];
      });
  }
  return undefined;
}

/**
 * What functions imported from other files of the package keep of the four elements, for the calls among `nodes`
 * that enter none of this file's functions (imports.ts): gaxios's `_request` catch awaits `getRetryConfig(err)` of
 * `./retry.js`, which checks the status and the method, counts, and waits `setTimeout(resolve, delay)` with a delay
 * that doubles without randomness. Each is read in its own file, with the helpers of that file it calls; undefined
 * when no such call is there.
 */
export function importedProperties(
  nodes: readonly Node[],
  errorNames: ReadonlySet<string>,
  ctx: Context,
): Properties | undefined {
  let out: Properties | undefined;
  for (const call of nodes) {
    if (call.type !== 'CallExpression' || entered(call, ctx).length > 0) continue;
    const found = importedFunction(call, ctx);
    if (!found) continue;
    const { fn, ctx: there } = found;
    const own = owned(bodyOf(fn), there.keys, { skipLoops: false });
    const helpers = own.flatMap((c) => (c.type === 'CallExpression' ? entered(c, there).filter((h) => h !== fn) : []));
    const all = [...own, ...helpers.flatMap((h) => owned(bodyOf(h), there.keys, { skipLoops: false }))];
    const names = counters(all);
    for (const g of [fn, ...helpers]) for (const p of (g.params as Node[]) ?? []) names.add(paramName(p) ?? '');
    const at = (call.arguments as Node[]).findIndex((a) => a.type === 'Identifier' && errorNames.has(a.name as string));
    const param = at >= 0 ? paramName((fn.params as Node[])[at]) : undefined;
    const waits = waitsIn(all, there, true);
    const read: Properties = {
      ...waits,
      limited: tests(all).some((t) => bounds(t, names, there.keys)),
      checksError: param !== undefined && errorCheck(all, new Set([param]), there).checksError,
    };
    out = out
      ? {
          waits: out.waits || read.waits,
          fixedDelay: (out.waits && out.fixedDelay) || (read.waits && read.fixedDelay),
          limited: out.limited || read.limited,
          checksError: out.checksError || read.checksError,
        }
      : read;
  }
  return out;
}

/** A retry's own reading and what its imported helpers keep: either's wait, limit or check is the retry's. */
export function withImported(own: Properties, imported: Properties | undefined): Properties {
  if (!imported) return own;
  return {
    ...own,
    waits: own.waits || imported.waits,
    // The wait the helper keeps, read in its file, is the retry's: here it was at best a name (`await pause(err)`).
    fixedDelay: imported.waits ? imported.fixedDelay : own.fixedDelay,
    limited: own.limited || imported.limited,
    checksError: own.checksError || imported.checksError,
  };
}

// The limit: a counter stepped and compared, a deadline, a count handed back one less.

/** What the waits among `nodes` say: present, and visibly fixed. */
export function waitsIn(nodes: readonly Node[], ctx: Context, cycle = false): { waits: boolean; fixedDelay: boolean } {
  // Along a cycle, a method of the file named like a wait (`this.timer.scheduleTimeout()`) is read: its waits are
  // among the cycle's nodes.
  const calls = nodes.filter((n) => isWaitCall(n) && !(cycle && entered(n, ctx).length > 0));
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
    // `await sleep(ms)` of an import, `this.backoff()` of no class here: a wait by its name.
    if (
      !/^set(Timeout|Interval|Immediate)$/.test(callName(call)) &&
      local.length === 0 &&
      entered(call, ctx).length === 0
    ) {
      noteByName(`${callName(call)}() a wait by its name`);
    }
    const delay = delayOf(call);
    // A wait whose delay cannot be seen (`await backoff()`, `sleep(next())`) is not called fixed.
    if (!delay || determinism(delay, ctx, 0, new Set()) !== 'fixed') fixedDelay = false;
    if (nodes.some(isRandomCall)) fixedDelay = false;
  }
  return { waits: true, fixedDelay };
}

const LIMIT_NAME =
  /limit|max|attempt|tries|count$|deadline|time[dr]?out|remaining|exhaust|expire|budget|giveup|retriesLeft|abort/i;

/** Names updated in `nodes`: `i++`, `tries += 1`, `attempt = attempt + 1`, `this.count++`. */
export function counters(nodes: readonly Node[]): Set<string> {
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
      // `const attempt = this.attempt + 1; ...; this.attempt = attempt`: a step through a local.
      if (key && (n.right as Node).type === 'Identifier') {
        const name = (n.right as Node).name as string;
        const step = nodes.some(
          (d) =>
            d.type === 'VariableDeclarator' &&
            (d.id as Node).type === 'Identifier' &&
            (d.id as Node).name === name &&
            (d.init as Node | null)?.type === 'BinaryExpression' &&
            mentions(d.init as Node, {}, (m) => refKey(m) === key),
        );
        if (step) out.add(key);
      }
    }
  }
  return out;
}

/** A test that bounds: it compares (or decrements) a counter, or reads a clock. */
export function bounds(test: Node, names: ReadonlySet<string>, keys: VisitorKeys): boolean {
  if (test.type === 'LogicalExpression') {
    return bounds(test.left as Node, names, keys) || bounds(test.right as Node, names, keys);
  }
  if (mentions(test, keys, isStatusRef)) return false;
  return mentions(test, keys, (n) => {
    if (isClockCall(n) || n.type === 'UpdateExpression') return true;
    // `this.attemptLimitReached`, `deadlineExceeded()`, `retriesLeft`: a bound by its name when its code is out of
    // reach; a member of the file's own class is judged by what is assigned to it (a flag no counter sets is none).
    const key = refKey(n);
    if (key !== undefined && names.has(key) && n.parent?.type !== 'MemberExpression') return true;
    return LIMIT_NAME.test(nameOf(n) ?? '') && limitByName(n, keys);
  });
}

/** A name that says limit: a limit unless the file shows `this.x` set by something that neither compares nor counts. */
function limitByName(n: Node, keys: VisitorKeys): boolean {
  const member = n.parent?.type === 'MemberExpression' && n.parent.property === n ? n.parent : undefined;
  if (!member) {
    // `pastDeadline()`: a call of a function out of reach (a variable named so is in reach, and only named).
    if (n.parent?.type === 'CallExpression' && n.parent.callee === n) noteByName(`${nameOf(n)}() a limit by its name`);
    return true;
  }
  const index = fileIndex(n, keys);
  if (isCounted(member, index)) return true;
  const targets = memberTargets(member, index);
  if (targets.length === 0) {
    noteByName(
      `${refKey(member) ?? nameOf(n)}${member.parent?.type === 'CallExpression' ? '()' : ''} a limit by its name`,
    );
    return true;
  }
  return targets.some((t) =>
    mentions(t, keys, (m) => {
      if (isClockCall(m) || m.type === 'UpdateExpression') return true;
      return m.type === 'BinaryExpression' && ['<', '<=', '>', '>='].includes(m.operator as string);
    }),
  );
}

/**
 * Along a cycle, a bound is a comparison, not a mention: a counter (stepped there, or a field its class steps)
 * compared, a clock read, `--left > 0`, or a name that says limit when its code is out of reach.
 */
function compares(test: Node, names: ReadonlySet<string>, keys: VisitorKeys): boolean {
  if (mentions(test, keys, isStatusRef)) return false;
  return mentions(test, keys, (n) => {
    if (isClockCall(n) || n.type === 'UpdateExpression') return true;
    if (n.type === 'BinaryExpression' && ['<', '<=', '>', '>='].includes(n.operator as string)) {
      const sides = [n.left as Node, n.right as Node];
      // `if (this.nextDelay > 0)` of a delay only ever doubled: it stays above 0, it bounds nothing (@stomp/stompjs).
      const zero = sides.some((side) => side.type === 'Literal' && side.value === 0);
      const counted = (side: Node) =>
        !(zero && isScaledOnly(side, fileIndex(side, keys))) &&
        (names.has(refKey(side) ?? '') || (side.type === 'MemberExpression' && isCounted(side, fileIndex(side, keys))));
      if (sides.some(counted)) return true;
      const named = sides.find((side) =>
        LIMIT_NAME.test(
          side.type === 'MemberExpression' ? (nameOf(side.property as Node) ?? '') : (nameOf(side) ?? ''),
        ),
      );
      if (named) noteByName(`${refKey(named) ?? nameOf(named)} a limit by its name`);
      return named !== undefined;
    }
    return false;
  });
}

/** Whether some condition in `nodes` stops the attempts: a bounded loop test, or a bounded `if` that leaves. */
export function limitedBy(
  loopTests: readonly Node[],
  nodes: readonly Node[],
  names: ReadonlySet<string>,
  keys: VisitorKeys,
) {
  if (loopTests.some((t) => bounds(t, names, keys))) return true;
  for (const n of nodes) {
    // `srv.reconnects++; if (srv.reconnects >= max) servers.remove(srv)`: a counter stepped and compared is a limit,
    // whatever the branch then does to stop.
    if (
      n.type === 'IfStatement' &&
      mentions(
        n.test as Node,
        keys,
        (m) =>
          m.type === 'BinaryExpression' &&
          ['<', '<=', '>', '>='].includes(m.operator as string) &&
          [m.left, m.right].some((side) => names.has(refKey(side as Node) ?? '')),
      )
    ) {
      return true;
    }
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

/**
 * `assertAttempts(n, max, err)`: a local helper handed a counter, that compares its parameter and throws, is the
 * loop's limit kept elsewhere.
 */
export function helperLimits(
  nodes: readonly Node[],
  names: ReadonlySet<string>,
  ctx: Context,
  errorNames: ReadonlySet<string> = new Set(),
): boolean {
  return nodes.some((n) => {
    if (n.type !== 'CallExpression' || (n.callee as Node).type !== 'Identifier') return false;
    const args = n.arguments as Node[];
    const handedError = args.some((a) => mentions(a, ctx.keys, (m) => errorNames.has(refKey(m) ?? '')));
    return ctx.resolve((n.callee as Node).name as string, n).some((f) => {
      if (!FUNCTIONS.has(f.type)) return false;
      const params = new Set(
        (f.params as Node[]).flatMap((p, i) => {
          const name = paramName(p);
          const arg = args[i];
          return name && arg && mentions(arg, ctx.keys, (m) => names.has(refKey(m) ?? '')) ? [name] : [];
        }),
      );
      const body = owned(f.body as Node, ctx.keys, { skipLoops: false, skipCallbacks: true });
      if (
        params.size > 0 &&
        body.some((b) => b.type === 'ThrowStatement') &&
        tests(body).some((t) => bounds(t, params, ctx.keys))
      ) {
        return true;
      }
      // `if (Date.now() < refreshTimeout) { try ... catch { return null } } else { ...; throw }`: the helper the loop
      // calls gives up past a deadline (@azure/core-rest-pipeline).
      if (
        body.some((b) => b.type === 'ThrowStatement') &&
        tests(body).some((t) => mentions(t, ctx.keys, isClockCall) && bounds(t, new Set(), ctx.keys))
      ) {
        return true;
      }
      // `if (!retryAttempts || retries >= retryAttempts) throw err` in the helper the catch hands the error to
      // (graphql-ws's `shouldRetryConnectOrThrow(err)`): a count kept in the closure, compared with a limit, thrown.
      return (
        handedError &&
        body.some(
          (b) =>
            b.type === 'IfStatement' &&
            completions(b.consequent as Node, true).has('throw') &&
            compares(b.test as Node, new Set(), ctx.keys),
        )
      );
    });
  });
}

/**
 * `while (delay !== null) { ...; try { return await this.start(); } catch (e) { delay = this.nextDelay(n, e); } }`:
 * the loop goes on while the answer a call gives after each failure is there, so that call decides the end: a retry
 * policy out of reach (signalr's `IRetryPolicy`), taken as the limit and named in the report, or a function of the
 * file seen to answer `null` or what such a call answers. A function of the file that always answers a number is none.
 */
export function endsByAnswer(test: Node, nodes: readonly Node[], ctx: Context): boolean {
  const absent = (n: Node) =>
    (n.type === 'Literal' && n.value === null) || (n.type === 'Identifier' && n.name === 'undefined');
  const tested =
    test.type === 'Identifier'
      ? test
      : test.type === 'BinaryExpression' &&
          ['!==', '!='].includes(test.operator as string) &&
          absent(test.right as Node)
        ? (test.left as Node)
        : undefined;
  if (tested?.type !== 'Identifier') return false;
  const answers = nodes.flatMap((n) => {
    if (n.type !== 'AssignmentExpression' || refKey(n.left as Node) !== tested.name) return [];
    let right = n.right as Node;
    while (right.type === 'AwaitExpression') right = right.argument as Node;
    return right.type === 'CallExpression' ? [right] : [];
  });
  const outOfReach = (call: Node) => call.type === 'CallExpression' && entered(call, ctx).length === 0;
  const limitOutOfReach = (call: Node) => {
    noteByName(`${callName(call)}() out of reach, its answer taken as the limit`);
    return true;
  };
  return answers.some((call) => {
    const targets = entered(call, ctx);
    if (targets.length === 0) return limitOutOfReach(call);
    return targets.some((f) => {
      const returned = owned(bodyOf(f), ctx.keys, { skipLoops: false, skipCallbacks: true }).flatMap((r) =>
        r.type === 'ReturnStatement' && r.argument ? [r.argument as Node] : [],
      );
      const gives = returned.find(outOfReach);
      return gives ? limitOutOfReach(gives) : returned.some(absent);
    });
  });
}

/**
 * `if (retriesRemaining && shouldRetry) return this.retryRequest(...)` and, on the way back, `this.makeRequest(options,
 * retriesRemaining - 1)`: a count handed back one less each time and tested on the way is the limit (openai).
 */
function countsDown(fn: Node, nodes: readonly Node[], ctx: Context): boolean {
  const params = (fn.params as Node[]).map(paramName);
  const down = new Set<string>();
  for (const n of nodes) {
    if (n.type !== 'CallExpression' || !entered(n, ctx).includes(fn)) continue;
    (n.arguments as Node[]).forEach((a, i) => {
      const param = params[i];
      const left = a.type === 'BinaryExpression' && a.operator === '-' ? refKey(a.left as Node) : undefined;
      if (param !== undefined && left !== undefined) down.add(param).add(left);
    });
  }
  return (
    down.size > 0 &&
    conditions(nodes).some((t) => mentions(t, ctx.keys, (m) => m.type === 'Identifier' && down.has(m.name as string)))
  );
}

/**
 * `const info = { nbRetry: this._retryCount }; return policy.onReadTimeout(info, ...)`: a count the class steps,
 * handed to code out of reach (a retry policy of another file) whose answer decides, is that code's limit to keep; it
 * is taken as one, and the report says so. Handed to logging or an event (`this.emit('retry', { n })`) it is not.
 */
const TELLS = /^(emit|log|warn|info|debug|trace|notify|track|record|report|print|publish|dispatch|trigger)/i;

// The check: the error, a status or a close code looked at before going back.

function countHandedOn(nodes: readonly Node[], ctx: Context): boolean {
  for (const n of nodes) {
    if (n.type !== 'MemberExpression' || (n.object as Node).type !== 'ThisExpression') continue;
    const p = n.parent;
    const handed =
      (p?.type === 'Property' && p.value === n) ||
      (p?.type === 'CallExpression' && (p.arguments as Node[]).includes(n) && entered(p, ctx).length === 0);
    // `setTimeout(f, this.delay)`, `Math.min(this.delay, max)`: a delay handed to the timer that waits it, or to
    // arithmetic, decides nothing; nor does a delay only ever scaled.
    const index = fileIndex(n, ctx.keys);
    const arithmetic =
      p?.type === 'CallExpression' &&
      (isWaitCall(p) || refKey(((p.callee as Node).object as Node | undefined) ?? p) === 'Math');
    if (!handed || !isCounted(n, index) || isScaledOnly(n, index) || arithmetic) continue;
    let told = false;
    for (let q: Node | null | undefined = p, i = 0; q && i < 4 && !FUNCTIONS.has(q.type); q = q.parent, i++) {
      if (q.type === 'CallExpression' && TELLS.test(callName(q))) told = true;
    }
    if (told) continue;
    noteByName(`${refKey(n)} handed to code out of reach, taken as its limit`);
    return true;
  }
  return false;
}

/**
 * `this.curTransientRetryCount++` on the way back, and no code of the file reads that field: what compares it is in
 * another file (tedious's token handler stops marking errors transient past the maximum). Taken as its limit, and the
 * report says so.
 */
function countReadElsewhere(nodes: readonly Node[], ctx: Context): boolean {
  for (const n of nodes) {
    const target =
      n.type === 'UpdateExpression'
        ? (n.argument as Node)
        : n.type === 'AssignmentExpression' && ['+=', '-='].includes(n.operator as string)
          ? (n.left as Node)
          : undefined;
    if (target?.type !== 'MemberExpression' || !isThis(target.object as Node) || target.computed) continue;
    const name = nameOf(target.property as Node);
    let read = false;
    walk(programOf(n), ctx.keys, (m) => {
      if (read) return false;
      if (m.type === 'MemberExpression' && !m.computed && nameOf(m.property as Node) === name) {
        const p = m.parent;
        // `backoff(this.attempts++)` reads it: only a step or an assignment made for itself alone writes.
        const alone = p?.parent?.type === 'ExpressionStatement';
        const written =
          (p?.type === 'UpdateExpression' && p.argument === m && alone) ||
          (p?.type === 'AssignmentExpression' && p.left === m && alone);
        if (!written) read = true;
      }
      return true;
    });
    if (read) continue;
    noteByName(`${refKey(target)} counted here and read in no code of this file, taken as its limit`);
    return true;
  }
  return false;
}

const CLASSIFIER_NAME = /retr|transient|recover|fatal|permanent|should|^is|^can|^assert|classif|check|status/i;

const RELATIONAL = new Set(['<', '<=', '>', '>=', '===', '==', '!==', '!=']);

/** `x.ok` (through `?.` and `!`), the flag a response or a result says success by. */
const isOkRead = (node: Node): boolean => {
  const n = unchained(node);
  return n.type === 'MemberExpression' && !n.computed && (n.property as Node).name === 'ok';
};

/** `res.ok === false`, `true != res.ok`: the `.ok` read compared with a boolean, and whether it asks for true. */
function okComparison(test: Node): { read: Node; asksTrue: boolean } | undefined {
  if (test.type !== 'BinaryExpression' || !['===', '==', '!==', '!='].includes(test.operator as string)) return;
  const isBool = (n: Node) => n.type === 'Literal' && typeof n.value === 'boolean';
  const [read, literal] = isBool(test.right as Node) ? [test.left, test.right] : [test.right, test.left];
  if (!isBool(literal as Node) || !isOkRead(read as Node)) return;
  const equal = test.operator === '===' || test.operator === '==';
  return { read: read as Node, asksTrue: (literal as Node).value === equal };
}

/** Success or failure, as a status test says: `res.ok` is success, `res.status >= 500` failure; else undefined. */
export function statusPolarity(node: Node): 'success' | 'failure' | undefined {
  const test = unchained(node);
  if (test.type === 'UnaryExpression' && test.operator === '!') {
    const inner = statusPolarity(test.argument as Node);
    return inner === undefined ? undefined : inner === 'success' ? 'failure' : 'success';
  }
  if (isOkRead(test)) return 'success';
  // `res.ok === false`, `res.ok !== true`: the `!res.ok` twins (review-adv4 F6: they were not read at all).
  const compared = okComparison(test);
  if (compared) return compared.asksTrue ? 'success' : 'failure';
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
    if (!isStatusRef(unchained(status)) || literal.type !== 'Literal' || typeof literal.value !== 'number')
      return undefined;
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

/**
 * The expression an optional chain or a non-null assertion wraps: `res?.ok` is a ChainExpression around the member
 * `res.ok` (review: `if (!res?.ok)` loops were missed where `if (!res.ok)` ones were found), `res!.ok` a TS one.
 */
function unchained(node: Node): Node {
  let n = node;
  while (n.type === 'ChainExpression' || n.type === 'TSNonNullExpression') n = n.expression as Node;
  return n;
}

const isStatusRef = (node: Node): boolean =>
  (node.type === 'MemberExpression' &&
    !node.computed &&
    // `this.status === 'end'` is the object's own state, not a response's status.
    (node.object as Node).type !== 'ThisExpression' &&
    ['status', 'statusCode'].includes((node.property as Node).name as string)) ||
  (node.type === 'Identifier' && ['status', 'statusCode'].includes(node.name as string));

/** The tests of conditions under `nodes`: if, ?:, && and ||, switch, loop tests. */
export function tests(nodes: readonly Node[]): Node[] {
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

/** The tests of real conditions (if, ?:, loops): not the left of a `||` default (`[1, 2][n] || 10`). */
const conditions = (nodes: readonly Node[]): Node[] =>
  tests(nodes.filter((n) => n.type !== 'LogicalExpression' || n.parent?.type === 'IfStatement'));

/**
 * {@link checksError}, and for a retry that does not check, whether it tells failure by `ok` alone: a status test
 * ({@link statusPolarity}) that names no status code reads `.ok`, and it decides the failure path
 * ({@link decidingOkReads}); a Response's `ok` or any result's.
 */
export function errorCheck(
  nodes: readonly Node[],
  errorNames: ReadonlySet<string>,
  ctx: Context,
): Pick<Properties, 'checksError' | 'readsOk'> {
  if (checksError(nodes, errorNames, ctx)) return { checksError: true };
  const reads = tests(nodes).flatMap((t) => (statusPolarity(t) === undefined ? [] : decidingOkReads(t, ctx)));
  if (reads.length === 0) return { checksError: false };
  const response = reads.some(
    ({ read, calls }) =>
      calls.some((c) => mentions(c, ctx.keys, (n) => n.type === 'CallExpression' && /fetch/i.test(callName(n)))) ||
      readsResponseField(unchained(read).object as Node, nodes),
  );
  return { checksError: false, readsOk: response ? 'response' : 'call' };
}

/** A Response's own fields: `res.status`, `res.headers`, `res.json()` read beside `res.ok` say it is one. */
const RESPONSE_FIELDS = new Set(['status', 'statusText', 'headers', 'json', 'text', 'blob', 'arrayBuffer', 'body']);

function readsResponseField(object: Node, nodes: readonly Node[]): boolean {
  const key = refKey(unchained(object));
  return (
    key !== undefined &&
    nodes.some(
      (n) =>
        n.type === 'MemberExpression' &&
        !n.computed &&
        RESPONSE_FIELDS.has((n.property as Node).name as string) &&
        refKey(unchained(n.object as Node)) === key,
    )
  );
}

/**
 * The `.ok` reads of a test that tells the attempt's failure, each with the calls that gave its object (review-adv4
 * F5: `if (config.ok) log()` in a catch, or `metrics.ok && metrics.count()`, were worded as if `.ok` were the check):
 * a loop's test, or an `if` with a branch that returns, breaks, continues or throws, and an `.ok` in it read on what a
 * call gave (`res` of `res = await fetch()`, `(await f()).ok`).
 */
function decidingOkReads(test: Node, ctx: Context): { read: Node; calls: Node[] }[] {
  const at = test.parent;
  const decides =
    (LOOPS.has(at?.type as string) && at?.test === test) ||
    (at?.type === 'IfStatement' &&
      at.test === test &&
      [at.consequent, at.alternate].some((b) => [...completions(b as Node | null, true)].some((c) => c !== 'normal')));
  if (!decides) return [];
  return okReads(test).flatMap((read) => {
    const calls = producingCalls(unchained(read).object as Node, ctx);
    return calls.length > 0 ? [{ read, calls }] : [];
  });
}

/** The `.ok` reads a status test ({@link statusPolarity}) goes by. */
function okReads(node: Node): Node[] {
  const test = unchained(node);
  if (test.type === 'UnaryExpression' && test.operator === '!') return okReads(test.argument as Node);
  if (test.type === 'LogicalExpression') return [...okReads(test.left as Node), ...okReads(test.right as Node)];
  if (isOkRead(test)) return [test];
  const compared = okComparison(test);
  return compared ? [compared.read] : [];
}

/** The calls whose result `node` is (`await fetch(url)`), or a variable is given (`resp` of `resp.data.ok` too). */
function producingCalls(node: Node, ctx: Context, seen = new Set<Node>()): Node[] {
  let n = unchained(node);
  while (n.type === 'AwaitExpression') n = unchained(n.argument as Node);
  if (n.type === 'CallExpression') return [n];
  while (n.type === 'MemberExpression') n = unchained(n.object as Node);
  // `node = node.next`: each value is looked at once.
  if (n.type !== 'Identifier' || seen.has(n)) return [];
  seen.add(n);
  return ctx.resolve(n.name as string, n).flatMap((v) => producingCalls(v, ctx, seen));
}

/** Whether the failure path looks at the error (`err` in a condition, or passed to a classifier) or a status code. */
function checksError(nodes: readonly Node[], errorNames: ReadonlySet<string>, ctx: Context, depth = 0): boolean {
  const { keys } = ctx;
  const isError = (n: Node) => n.type === 'Identifier' && errorNames.has(n.name as string);
  // `if (err)` in a node-style callback only asks whether it failed: that is the failure path, not a look at why.
  // `if (err && n < 5)`: each side asks whether it failed, or does not look at the error at all.
  const bare = (t: Node): boolean =>
    t.type === 'UnaryExpression' && t.operator === '!'
      ? bare(t.argument as Node)
      : t.type === 'LogicalExpression'
        ? [t.left as Node, t.right as Node].every(
            // `n < 5` beside it looks at nothing; `isRetryable(this.lastError)` or a status does.
            (side) =>
              bare(side) || !mentions(side, keys, (n) => isError(n) || isStatusRef(n) || n.type === 'CallExpression'),
          )
        : isError(t);
  // `err instanceof Error`, `typeof err === 'string'`: the error's type normalised, not why it failed.
  const normalises = (t: Node): boolean =>
    (t.type === 'BinaryExpression' && t.operator === 'instanceof' && refKey(t.right as Node) === 'Error') ||
    (t.type === 'BinaryExpression' &&
      (t.left as Node).type === 'UnaryExpression' &&
      (t.left as Node).operator === 'typeof');
  // `switch (code) { case 1000: ...; case 4004: ... }`: the cases compare the error's value, so a bare discriminant
  // is a look at why it failed (a close code, @discordjs/ws), where a bare `if (err)` is not.
  const compared = (t: Node): boolean =>
    t.parent?.type === 'SwitchStatement' && (t.parent.cases as Node[]).some((c) => c.test !== null);
  // `messages.push(err.message || 'none')`, `this._disconnect(code, err.message === 'TIMEOUT' ? 'timeout' : '')`: a
  // value handed to a call, chosen by the error without calling anything, describes the failure; it decides nothing.
  const handedValue = (t: Node): boolean => {
    const choice = t.parent;
    return (
      (choice?.type === 'LogicalExpression' || choice?.type === 'ConditionalExpression') &&
      choice.parent?.type === 'CallExpression' &&
      (choice.parent.arguments as Node[]).includes(choice) &&
      !mentions(choice, keys, (n) => n.type === 'CallExpression')
    );
  };
  if (
    tests(nodes).some(
      (t) =>
        (compared(t) || !bare(t)) &&
        !normalises(t) &&
        !handedValue(t) &&
        mentions(t, keys, (n) => isError(n) || isStatusRef(n)),
    )
  ) {
    return true;
  }
  return nodes.some((n) => {
    if (n.type !== 'CallExpression') return false;
    const args = n.arguments as Node[];
    const at = args.findIndex((a) => mentions(a, keys, isError));
    if (at < 0) return false;
    // A function of this file is judged by what it does with the error (`this.retryLater(err)` only schedules);
    // one out of reach by its name (`isRetryable(err)`).
    // Found in the file at any depth: `this._abandonRecovery(err)`, two calls in, is not a classifier by its name.
    const inFile = entered(n, ctx);
    // `retryDelay(attempt, error)`: a delay computed from the error, not a look at whether to retry (fetch-retry).
    if (inFile.length === 0 && CLASSIFIER_NAME.test(callName(n)) && !WAIT_NAME.test(callName(n))) return true;
    // `await onFailure(error)`: a local helper that looks at its parameter in a condition.
    let callee = n.callee as Node;
    // `(config.errorFilter || defaultErrorFilter)(event)`: the option out of reach, or the default of the file.
    if (callee.type === 'LogicalExpression' && (callee.right as Node).type === 'Identifier')
      callee = callee.right as Node;
    // Followed four calls deep: a listener hands the error to `this.#onSocketError(err)`, which hands it to
    // `this.#shouldReconnect(0, err)`, to a strategy, to `defaultReconnectStrategy(n, cause)`, which stops on `cause
    // instanceof SocketTimeoutError` (@redis/client).
    if (depth > 3) return false;
    const named =
      callee.type === 'Identifier'
        ? // `const shouldRetryFn = config.shouldRetry || shouldRetryRequest`: the default of the file.
          ctx
            .resolve(callee.name as string, n)
            .flatMap((v) =>
              v.type === 'LogicalExpression' && (v.right as Node).type === 'Identifier'
                ? ctx.resolve((v.right as Node).name as string, v)
                : [v],
            )
        : inFile;
    return named.some((f) => {
      const param = FUNCTIONS.has(f.type) ? (f.params as Node[])[at] : undefined;
      if (param?.type !== 'Identifier') return false;
      return checksError(owned(f, keys, { skipLoops: false }), new Set([param.name as string]), ctx, depth + 1);
    });
  });
}

/**
 * `if (this.reconnect && ...) setTimeout(() => this.connect(), ms)` with, elsewhere in the file, `if
 * (msg.includes('Login authentication failed')) { this.reconnect = false; ... }`: the way back is gated by a flag the
 * file turns off when what the server said shows a failure that will not pass, the check kept in that flag (tmi.js).
 * A flag the user turns off (`disconnect()`, no such test) is not one.
 */
function stopsOnPermanent(nodes: readonly Node[], keys: VisitorKeys): boolean {
  const flags = new Set(
    conditions(nodes).flatMap((t) => {
      const out: string[] = [];
      walk(t, keys, (m) => {
        if (m.type === 'MemberExpression' && isThis(m.object as Node) && !m.computed)
          out.push(nameOf(m.property as Node) ?? '');
        return m.type !== 'BinaryExpression' && m.type !== 'CallExpression';
      });
      return out;
    }),
  );
  if (flags.size === 0) return false;
  let found = false;
  walk(programOf(nodes[0] as Node), keys, (n) => {
    if (found) return false;
    const left = n.type === 'AssignmentExpression' ? (n.left as Node) : undefined;
    if (
      left?.type === 'MemberExpression' &&
      isThis(left.object as Node) &&
      flags.has(nameOf(left.property as Node) ?? '') &&
      (n.right as Node).type === 'Literal' &&
      (n.right as Node).value === false
    ) {
      found = saysPermanent(n, keys);
    }
    return true;
  });
  return found;
}

/** `n` sits in the branch of an `if` (or a `case`) that tells a message or an error code by its text. */
function saysPermanent(n: Node, keys: VisitorKeys): boolean {
  const text = (t: Node) =>
    mentions(t, keys, (m) => m.type === 'Literal' && typeof m.value === 'string' && m.value.length > 0);
  for (let child = n, p = n.parent; p && !FUNCTIONS.has(p.type); child = p, p = p.parent) {
    if (p.type === 'IfStatement' && p.consequent === child && text(p.test as Node)) return true;
    if (p.type === 'SwitchCase' && p.test && text(p.test as Node)) return true;
  }
  return false;
}

const programOf = (node: Node): Node => {
  let top = node;
  while (top.parent) top = top.parent;
  return top;
};

/**
 * The check of a cycle whose failure path goes back by several branches: each must look at the error. A branch that
 * retries every failure beside one that asks an option first (`if (typeof retryOn === 'function') ... else if
 * (attempt < retries) retry()`, fetch-retry) retries every failure by default.
 */
function eachWayChecks(
  nodes: readonly Node[],
  handler: Node,
  along: readonly Node[],
  errorNames: ReadonlySet<string>,
  ctx: Context,
): Pick<Properties, 'checksError' | 'readsOk'> {
  const ways = along.filter((a) => isWithin(a, handler));
  const apart = ways.some((a) => ways.some((b) => offPath(a, handler, [b])));
  if (!apart) return errorCheck(nodes, errorNames, ctx);
  const each = ways.map((way) =>
    errorCheck(
      nodes.filter((n) => !offPath(n, handler, [way])),
      errorNames,
      ctx,
    ),
  );
  return each.find((c) => !c.checksError) ?? { checksError: true };
}

/** `new Event('error', err)`, `err ? new X(err) : y`: an object built around the error itself. */
function wraps(value: Node, errorNames: ReadonlySet<string>): boolean {
  if (value.type === 'ConditionalExpression') {
    return wraps(value.consequent as Node, errorNames) || wraps(value.alternate as Node, errorNames);
  }
  return (
    value.type === 'NewExpression' &&
    (value.arguments as Node[]).some((a) => a.type === 'Identifier' && errorNames.has(a.name as string))
  );
}

export const withAliases = (nodes: readonly Node[], names: Set<string>): Set<string> => {
  aliases(nodes, names);
  return names;
};

/** `lastError = err` and `const ne = err` (what compiled TypeScript emits) carry the error's name on. */
export function aliases(nodes: readonly Node[], errorNames: Set<string>): void {
  for (const n of nodes) {
    const [to, from] =
      n.type === 'AssignmentExpression' && n.operator === '='
        ? [n.left as Node, n.right as Node]
        : n.type === 'VariableDeclarator'
          ? [n.id as Node, n.init as Node | null]
          : [];
    if (to?.type === 'Identifier' && from?.type === 'Identifier' && errorNames.has(from.name as string)) {
      errorNames.add(to.name as string);
    }
    // `const event = error ? new Event('error', error) : new Event('end')`: the error wrapped is the error still.
    if (to?.type === 'Identifier' && from && wraps(from, errorNames)) errorNames.add(to.name as string);
  }
}
