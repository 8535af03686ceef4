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
  LOOPS,
  mentions,
  type Node,
  nameOf,
  owned,
  refKey,
  type VisitorKeys,
  walk,
} from './ast';
import { type FailureCycle, type FailurePath, failureCycles, type Judge } from './cycles';
import { fileIndex, foreignConstructions, isCounted, isScaledOnly, isThisAlias, memberTargets } from './file-index';
import { after, completions, leadsBack, leaves, sequence } from './flow';
import {
  bodyOf,
  enclosingFunction,
  FAILURE_EVENTS,
  type FileModel,
  fileModel,
  functionName,
  LISTENS,
  type Resolve,
} from './model';

export type { Resolve };

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

/** Where the analysis of the shape being read notes what it accepts by name (see {@link RetryShape.byName}). */
let notes: Set<string> | undefined;
const noteByName = (what: string): void => void notes?.add(what);

/** Runs `analyse` collecting its notes into the shape it returns. */
function withNotes(analyse: () => RetryShape | undefined): RetryShape | undefined {
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
const CLASSIFIER_NAME = /retr|transient|recover|fatal|permanent|should|^is|^can|^assert|classif|check|status/i;
const LIMIT_NAME =
  /limit|max|attempt|tries|count$|deadline|time[dr]?out|remaining|exhaust|expire|budget|giveup|retriesLeft|abort/i;
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

/** `setTimeout(f, this.nextDelay())`, `base + delay(n)`: a call whose result is a number handed on computes a delay. */
const usedAsValue = (node: Node): boolean =>
  (node.parent?.type === 'CallExpression' && (node.parent.arguments as Node[]).includes(node)) ||
  node.parent?.type === 'BinaryExpression';

/** A wait: a call named like sleep/delay/wait/backoff/setTimeout, or `new Promise(r => setTimeout(r, ms))`. */
const isWaitCall = (node: Node): boolean =>
  node.type === 'CallExpression' &&
  ((WAIT_NAME.test(callName(node)) && !NOT_A_WAIT.test(callName(node)) && !usedAsValue(node)) ||
    // `safeUnref(setTimeout(f, ms))`: a timer handed on still waits.
    /^set(Timeout|Interval)$/.test(callName(node)) ||
    // `await guard(delayMs, signal)`: an awaited call handed a delay waits it.
    (node.parent?.type === 'AwaitExpression' &&
      (node.arguments as Node[]).some((a) => WAIT_NAME.test(refKey(a)?.split('.').pop() ?? ''))));

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

/** The tests of real conditions (if, ?:, loops): not the left of a `||` default (`[1, 2][n] || 10`). */
const conditions = (nodes: readonly Node[]): Node[] =>
  tests(nodes.filter((n) => n.type !== 'LogicalExpression' || n.parent?.type === 'IfStatement'));

interface Context {
  readonly keys: VisitorKeys;
  readonly resolve: Resolve;
}

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
    // `interval - (Date.now() - started)`: the clock is no randomness; clients that failed together read the same one.
    if (isClockCall(n)) return false;
    if (n.type === 'CallExpression') {
      const callee = n.callee as Node;
      if (!(callee.type === 'MemberExpression' && refKey(callee.object as Node) === 'Math')) {
        // `this.nextDelay()`, `this.backoff.duration()`: a method of the file is read, not taken as unknown.
        const targets =
          callee.type === 'Identifier'
            ? ctx.resolve(callee.name as string, n)
            : memberTargets(callee, fileIndex(n, ctx.keys));
        if (targets.length === 0 && verdict === 'fixed') verdict = 'unknown';
        see(targets);
      }
    }
    return true;
  });
  return verdict;
}

/** What the waits among `nodes` say: present, and visibly fixed. */
function waitsIn(nodes: readonly Node[], ctx: Context, cycle = false): { waits: boolean; fixedDelay: boolean } {
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
function bounds(test: Node, names: ReadonlySet<string>, keys: VisitorKeys): boolean {
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
function limitedBy(loopTests: readonly Node[], nodes: readonly Node[], names: ReadonlySet<string>, keys: VisitorKeys) {
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
function helperLimits(
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
 * {@link checksError}, and for a retry that does not check, whether it tells failure by `ok` alone: a status test
 * ({@link statusPolarity}) that names no status code reads `.ok`, and it decides the failure path
 * ({@link decidingOkReads}); a Response's `ok` or any result's.
 */
function errorCheck(
  nodes: readonly Node[],
  errorNames: ReadonlySet<string>,
  ctx: Context,
): Pick<RetryShape, 'checksError' | 'readsOk'> {
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
  const bare = (t: Node): boolean =>
    t.type === 'UnaryExpression' && t.operator === '!' ? bare(t.argument as Node) : isError(t);
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
  if (
    tests(nodes).some(
      (t) => (compared(t) || !bare(t)) && !normalises(t) && mentions(t, keys, (n) => isError(n) || isStatusRef(n)),
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
    const callee = n.callee as Node;
    if (depth > 0) return false;
    return (callee.type === 'Identifier' ? ctx.resolve(callee.name as string, n) : inFile).some((f) => {
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
  const handlerBody = (tryStatement.handler as Node).body as Node;
  const block = completions(tryStatement.block as Node, true);
  block.delete('throw');
  const caught = completions(handlerBody, true);
  const tail = after(tryStatement, body);
  const only = (c: Set<string>) => c.size === 1 && c.has('normal');
  if (tryStatement.parent !== body || !only(block) || !only(caught) || !only(sequence(tail, true))) return false;
  const attempt = owned(tryStatement.block as Node, keys, { skipLoops: true, skipCallbacks: true });
  // The attempt's result is used: `const jobs = await this.fetch(); if (jobs) ...`.
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
  const paced = tail.some((st) => mentions(st, keys, (m) => isWaitCall(m) && !/^setInterval$/.test(callName(m))));
  if (!used || consumes || !paced) return false;
  // What the loop reads of `this`; the catch's bookkeeping of other fields (`this.lastError = err`) repairs nothing.
  const reads = new Set(
    owned(body, keys, { skipLoops: true, skipCallbacks: true }).flatMap((n) =>
      n.type === 'MemberExpression' &&
      isThis(n.object as Node) &&
      !(n.parent?.type === 'AssignmentExpression' && n.parent.left === n)
        ? [nameOf(n.property as Node) ?? '']
        : [],
    ),
  );
  return !remedies(handlerBody, keys, '', undefined, [], reads) && !handsOnError(tryStatement, keys);
}

const withAliases = (nodes: readonly Node[], names: Set<string>): Set<string> => {
  aliases(nodes, names);
  return names;
};

/** `lastError = err` and `const ne = err` (what compiled TypeScript emits) carry the error's name on. */
function aliases(nodes: readonly Node[], errorNames: Set<string>): void {
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
  }
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

/** `node` sits in a branch (of an if, a ?:, a switch, a try) that holds none of `along`, below `top`. */
function offPath(node: Node, top: Node, along: readonly Node[]): boolean {
  if (!isWithin(node, top)) return false;
  let child = node;
  for (let p = node.parent; p && child !== top; child = p, p = p.parent) {
    const branches =
      p.type === 'IfStatement' || p.type === 'ConditionalExpression'
        ? [p.consequent, p.alternate]
        : p.type === 'SwitchStatement'
          ? (p.cases as Node[])
          : p.type === 'TryStatement'
            ? [p.block, p.handler]
            : [];
    if (branches.includes(child) && !along.some((a) => isWithin(a, child))) return true;
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

const paramName = (p: Node | undefined): string | undefined => {
  const target = p?.type === 'AssignmentPattern' ? (p.left as Node) : p;
  return target?.type === 'Identifier' ? (target.name as string) : undefined;
};

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

/** A helper out of reach whose name says it waits: `new Timer(cb, ms)`, `this.backoff.schedule()`. */
const WAITS_BY_NAME = /timer|schedule|backoff|retry|delay|wait|sleep/i;

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
function entered(n: Node, ctx: Context): Node[] {
  const ref = reference(n);
  if (!ref || (ref.type !== 'Identifier' && ref.type !== 'MemberExpression')) return [];
  const targets = modelOf(ref, ctx).valueTargets(ref);
  if (targets.length > 0 || n.type !== 'CallExpression' || ref.type !== 'MemberExpression') return targets;
  return foreignConstructions(ref.object as Node, fileIndex(ref, ctx.keys)).flatMap((c) =>
    (c.arguments as Node[]).filter((a) => FUNCTIONS.has(a.type)),
  );
}

const modelOf = (node: Node, ctx: Context): FileModel => fileModel(node, ctx.keys, ctx.resolve);

const isThis = (node: Node): boolean => node.type === 'ThisExpression' || isThisAlias(node);

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
    within: (site, fn) => onFailurePath(site, fn, keys, functionName(fn) ?? '', exemptFor([site]), [site]),
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
      if ([c.path.handler, ...c.route].every((g) => isWithin(g, fn))) continue;
    }
    const spans = [c.attempt, ...c.route].flatMap((g) => owned(bodyOf(g), keys, { skipLoops: false }));
    if ((walksList(spans, keys) && !requeues(c, keys)) || pointsElsewhere(c, keys)) continue;
    return cycleShape(c.attempt, c.path, c.route, ctx, c.at, c.along);
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

const isWithin = (node: Node, ancestor: Node): boolean => {
  for (let p: Node | null | undefined = node; p; p = p.parent) if (p === ancestor) return true;
  return false;
};

function cycleShape(
  fn: Node,
  path: FailurePath,
  chain: readonly Node[],
  ctx: Context,
  at: Node = fn,
  along: readonly Node[] = [],
): RetryShape {
  const { keys } = ctx;
  const handler = path.handler.type === 'CatchClause' ? (path.handler.body as Node) : path.handler;
  const pathNodes = [
    // Of the failure path, what is on the way back: not a branch that rejects or hands the error to an option.
    ...owned(handler, keys, { skipLoops: false }).filter((n) => along.length === 0 || !offPath(n, handler, along)),
    ...chain.flatMap((g) => owned(bodyOf(g), keys, { skipLoops: false })),
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
    const at = (m.arguments as Node[]).findIndex((a) => a.type === 'Identifier' && errorNames.has(a.name as string));
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
  const waits = waitsIn([...pathNodes, ...helperNodes], ctx, true);
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
    node: at,
    kind: 'recursion',
    waits: waits.waits || assumedWait || handedOn,
    fixedDelay: waits.waits && waits.fixedDelay,
    limited:
      conditions([...guards, ...pathNodes].filter((n) => !LOOPS.has(n.type))).some(
        (t) => compares(t, names, keys) || asksHelper(t),
      ) ||
      countHandedOn(all, ctx) ||
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
): Pick<RetryShape, 'checksError' | 'readsOk'> {
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
  const shape = cycleShape(attempt, path, chain, ctx);
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
 * `const info = { nbRetry: this._retryCount }; return policy.onReadTimeout(info, ...)`: a count the class steps,
 * handed to code out of reach (a retry policy of another file) whose answer decides, is that code's limit to keep; it
 * is taken as one, and the report says so. Handed to logging or an event (`this.emit('retry', { n })`) it is not.
 */
const TELLS = /^(emit|log|warn|info|debug|trace|notify|track|record|report|print|publish|dispatch|trigger)/i;

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
