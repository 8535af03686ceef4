/**
 * The second stage of reading a file for retries (design.md, "An analysis shows its steps"): in the file's model
 * (model.ts), the cycles that leave a call through a failure and come back to it.
 *
 * A failure leaves a function in one of two ways: inside it, on a failure path (a catch clause, a failure branch such
 * as `if (!res.ok)` or a node-style `if (err)`), whose calls, timers and promises go on to other functions; or through
 * a callback it registers to be run on a failure (`.catch(f)`, `.then(ok, f)`, `on('close', f)`, `ws.onerror = f`,
 * `{ onWebSocketClose: f }`). From there the way back is followed through calls, handed callbacks, timers, intervals,
 * promise continuations and the other events of what it opens again (not through other failures), a few functions
 * deep, each step further from the failure. The attempt it comes back to is the function the failure leaves (`_open()` that sets `ws.onerror`, called
 * again through `connect()`), or for a callback the nearest named function it is written in. What is read along the
 * way back (the wait, the jitter, the limit, the check) is the next stage's (properties.ts).
 *
 * One attempt can have two retries: its call failing (a catch, a rejection) and, once it succeeded, what it opened
 * failing later (a close or error event). Both are reported: the first on the attempt, the second on its listener.
 * Calls failing at several places of one loop that come back through the same timer are one retry, reported once.
 */
import type { Node } from './ast';
import { type Edge, type EdgeKind, enclosingFunction, type FileModel, functionName } from './model';

/** A failure path: the error's name there, and the clause, callback or branch it is. */
export interface FailurePath {
  readonly errorName?: string;
  readonly handler: Node;
}

export interface FailureCycle {
  /** The function the failure path enters again: the attempt. */
  readonly attempt: Node;
  /** Where the failure leaves: a catch clause, a failure branch, or the callback run on the failure. */
  readonly path: FailurePath;
  /** The functions on the way back, between the failure path and the attempt (the callback run on it excluded). */
  readonly route: readonly Node[];
  /** The calls (or functions handed on) on the failure path that start the way back. */
  readonly along: readonly Node[];
  /** The functions of the way back that a timer or an interval runs: where it waits. */
  readonly timers: readonly Node[];
  /** A call's failure (a catch, a rejection, a failure branch), or a failure event (close, error). */
  readonly kind: 'call' | 'event';
  /** Where the report goes: the attempt, or the listener of a second retry of it. */
  readonly at: Node;
}

/** What the last stage decides about failure paths, handed in so this stage holds only the search. */
export interface Judge {
  /** The failure path a site sits on inside `fn`'s own code, or undefined (not on one, or it repairs first). */
  readonly within: (site: Node, fn: Node) => FailurePath | undefined;
  /**
   * A callback run on a failure, as a failure path; undefined when it repairs the cause first (`along` lead back to
   * `attempt`, whose code says which of the state the callback sets it reads).
   */
  readonly handler: (fn: Node, along: readonly Node[], attempt: Node) => FailurePath | undefined;
  /** The call enters the attempt with the same input, not the next host, item or page. */
  readonly sameCall: (site: Node) => boolean;
}

/** How deep the way back is followed, in edges. */
const DEPTH = 8;
/**
 * The ways back: run by the failure path, at once or later, or by an event of what it opens again (a stream's
 * `status`, whose handler is where the next failure is told: @google-cloud/pubsub).
 */
const ROUTE = new Set<EdgeKind>(['call', 'handed', 'later', 'repeat', 'then', 'event']);
/** The ways an attempt reaches the code that registers its failure: calls, callbacks, promise continuations. */
const ANCESTRY = new Set<EdgeKind>(['call', 'handed', 'then']);

interface Start {
  /** The function in which the failure leaves. */
  readonly origin: Node;
  /** The failure path found inside `origin`, or the callback registered there. */
  readonly path?: FailurePath;
  readonly callback?: Node;
  readonly first: readonly Edge[];
  readonly kind: 'call' | 'event';
}

const found = new WeakMap<FileModel, readonly FailureCycle[]>();

/** Every failure cycle of the file, in the order their failures are written. */
export function failureCycles(model: FileModel, judge: Judge): readonly FailureCycle[] {
  const known = found.get(model);
  if (known) return known;
  const cycles: FailureCycle[] = [];
  const ancestry = new Map<Node, Set<Node>>();
  for (const start of starts(model, judge)) {
    const cycle = follow(model, judge, start, ancestry);
    if (cycle && !cycles.some((c) => c.attempt === cycle.attempt && c.path.handler === cycle.path.handler)) {
      cycles.push(cycle);
    }
  }
  // Calls failing at several places of one loop that come back through the same timer (a subscribe, its token, its
  // reply: centrifuge's resubscribe) are one retry, reported once, on the first of their attempts in the file.
  const one = cycles.filter(
    (c) =>
      !cycles.some(
        (o) =>
          o.kind === c.kind &&
          o.attempt !== c.attempt &&
          position(o.attempt) < position(c.attempt) &&
          o.timers.some((t) => c.timers.includes(t)),
      ),
  );
  // A second retry of an attempt (a dropped connection beside a failed one) is reported on its listener.
  const placed = one.map((c) => {
    const second =
      c.kind === 'event' &&
      functionName(c.attempt) !== undefined &&
      one.some((o) => o.attempt === c.attempt && o.kind === 'call');
    return second ? { ...c, at: c.path.handler } : c;
  });
  found.set(model, placed);
  return placed;
}

const position = (node: Node): number => (node.range as [number, number])[0];

function starts(model: FileModel, judge: Judge): Start[] {
  const out: Start[] = [];
  for (const origin of model.functions) {
    for (const edge of model.from(origin)) {
      if (edge.kind === 'rejection' || edge.kind === 'failure-event') {
        out.push({ origin, callback: edge.to, first: [edge], kind: edge.kind === 'rejection' ? 'call' : 'event' });
      } else if (ROUTE.has(edge.kind)) {
        const path = judge.within(edge.site, origin);
        if (path) out.push({ origin, path, first: [edge], kind: 'call' });
      }
    }
  }
  return out;
}

/** The functions that reach `fn` through calls, callbacks and continuations (`DEPTH` edges deep), `fn` included. */
function ancestorsOf(model: FileModel, fn: Node, memo: Map<Node, Set<Node>>): Set<Node> {
  const known = memo.get(fn);
  if (known) return known;
  const above = new Set<Node>([fn]);
  let level = [fn];
  for (let depth = 1; depth <= DEPTH && level.length > 0; depth++) {
    const next: Node[] = [];
    for (const g of level) {
      for (const e of model.into(g)) {
        if (!ANCESTRY.has(e.kind) || above.has(e.from)) continue;
        above.add(e.from);
        next.push(e.from);
      }
    }
    level = next;
  }
  memo.set(fn, above);
  return above;
}

/**
 * The functions the way back can run from the failure, `DEPTH` edges deep, not going on past `stop`, each with how
 * many edges from the failure it is first reached.
 */
function forward(model: FileModel, first: readonly Edge[], stop: Node | undefined): Map<Node, number> {
  const reached = new Map<Node, number>();
  let level = first.map((e) => e.to);
  for (const f of level) reached.set(f, 0);
  for (let depth = 1; depth < DEPTH && level.length > 0; depth++) {
    const next: Node[] = [];
    for (const g of level) {
      if (g === stop) continue;
      for (const e of model.from(g)) {
        if (!ROUTE.has(e.kind) || reached.has(e.to)) continue;
        reached.set(e.to, depth);
        next.push(e.to);
      }
    }
    level = next;
  }
  return reached;
}

function follow(
  model: FileModel,
  judge: Judge,
  start: Start,
  ancestry: Map<Node, Set<Node>>,
): FailureCycle | undefined {
  // Forward from the failure, breadth first: every function the way back can run.
  const reached = forward(model, start.first, undefined);
  // The attempt: the function the failure leaves, or the nearest named function it is written in (a callback's), that
  // reaches it and that the way back reaches; the callback itself, with no name (a promise continuation), when none is.
  const above = ancestorsOf(model, start.origin, ancestry);
  let attempt: Node | undefined;
  for (let f: Node | undefined = start.origin; f && !attempt; f = enclosingFunction(f)) {
    if (reached.has(f) && above.has(f) && functionName(f) !== undefined) attempt = f;
  }
  attempt ??= reached.has(start.origin) ? start.origin : undefined;
  if (!attempt) return undefined;
  // The way back: the functions reached before the attempt (not through it) that lead on to it.
  // Each step of it goes further from the failure: a side loop that comes back to a function already passed (a
  // connect timeout that fails into the error handler that calls connect again) is another cycle, not this one's way.
  const before = forward(model, start.first, attempt);
  const onWay = new Set<Node>();
  let back = [attempt];
  while (back.length > 0) {
    const next: Node[] = [];
    for (const g of back) {
      for (const e of model.into(g)) {
        const from = before.get(e.from);
        const to = g === attempt ? Number.POSITIVE_INFINITY : (before.get(g) as number);
        if (!ROUTE.has(e.kind) || from === undefined || from >= to || onWay.has(e.from) || e.from === attempt) continue;
        onWay.add(e.from);
        next.push(e.from);
      }
    }
    back = next;
  }
  const firstBack = start.first.filter((e) => e.to === attempt || onWay.has(e.to));
  // The calls that enter the attempt again, from the way back (or straight from the failure path).
  const entries = [
    ...[...onWay].flatMap((g) => model.from(g).filter((e) => e.to === attempt && ROUTE.has(e.kind))),
    ...firstBack.filter((e) => e.to === attempt),
  ];
  if (firstBack.length === 0 || !entries.some((e) => judge.sameCall(e.site))) return undefined;
  // The sites on the failure path that start the way back: in the callback run on the failure, or in the clause.
  const along = (
    start.callback
      ? model.from(start.callback).filter((e) => ROUTE.has(e.kind) && (e.to === attempt || onWay.has(e.to)))
      : firstBack
  ).map((e) => e.site);
  const path = start.callback ? judge.handler(start.callback, along, attempt) : start.path;
  if (!path) return undefined;
  const route = [...onWay].filter((f) => f !== start.callback);
  // The timers of the way back: the functions on it that a timer or an interval runs.
  const runs = (e: Edge) => onWay.has(e.from) || e.from === start.callback || e.from === start.origin;
  const timers = route.filter((f) => model.into(f).some((e) => (e.kind === 'later' || e.kind === 'repeat') && runs(e)));
  return { attempt, path, route, along, timers, kind: start.kind, at: attempt };
}
