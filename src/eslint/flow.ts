/**
 * How a statement can end, seen from the loop that holds it: a small control-flow summary, enough to tell a path
 * that leads back to the next attempt from one that leaves.
 */
import { calleeName, isWithin, LOOPS, type Node } from './ast';

export type Completion = 'normal' | 'continue' | 'exit' | 'throw';

/** How a statement can end, seen from the loop that contains it (a tiny control-flow summary). */
export function completions(node: Node | undefined | null, inLoop: boolean): Set<Completion> {
  if (!node) return new Set(['normal']);
  switch (node.type) {
    case 'ReturnStatement':
      return new Set(['exit']);
    case 'ThrowStatement':
      return new Set(['throw']);
    case 'BreakStatement':
      return new Set([inLoop || node.label ? 'exit' : 'normal']);
    case 'ContinueStatement':
      return new Set([inLoop || node.label ? 'continue' : 'normal']);
    case 'BlockStatement':
    case 'StaticBlock':
      return sequence(node.body as Node[], inLoop);
    case 'IfStatement':
      return union(completions(node.consequent as Node, inLoop), completions(node.alternate as Node, inLoop));
    case 'ExpressionStatement': {
      // `throwWithCause(err)`, `fail(err)`: a call named for throwing ends the path like `throw`.
      const call = node.expression as Node;
      const name = call.type === 'CallExpression' ? calleeName(call) : undefined;
      return new Set([name && /^(throw|fail$|raise|bail)/i.test(name) ? 'throw' : 'normal']);
    }
    case 'LabeledStatement':
      return completions(node.body as Node, inLoop);
    case 'TryStatement': {
      const block = completions(node.block as Node, inLoop);
      let result = block;
      if (node.handler) {
        block.delete('throw');
        result = union(block, completions((node.handler as Node).body as Node, inLoop));
      }
      const finalizer = node.finalizer ? completions(node.finalizer as Node, inLoop) : undefined;
      return finalizer && !finalizer.has('normal') ? finalizer : result;
    }
    case 'SwitchStatement': {
      const result = new Set<Completion>();
      let hasDefault = false;
      for (const c of node.cases as Node[]) {
        if (!c.test) hasDefault = true;
        for (const k of sequence(c.consequent as Node[], false)) result.add(k);
      }
      if (!hasDefault) result.add('normal');
      return result;
    }
    default:
      if (LOOPS.has(node.type) || node.type.startsWith('ForO') || node.type === 'ForInStatement') {
        const inner = completions(node.body as Node, false);
        inner.add('normal');
        return inner;
      }
      return new Set(['normal']);
  }
}

export function union(a: Set<Completion>, b: Set<Completion>): Set<Completion> {
  for (const k of b) a.add(k);
  return a;
}

export function sequence(statements: readonly Node[], inLoop: boolean): Set<Completion> {
  const result = new Set<Completion>();
  for (const s of statements) {
    const c = completions(s, inLoop);
    const goesOn = c.delete('normal');
    union(result, c);
    if (!goesOn) return result;
  }
  result.add('normal');
  return result;
}

/** The statements after `node` in its enclosing block, up to the loop body (ignored higher up). */
export function after(node: Node, body: Node): Node[] {
  const parent = node.parent;
  if (!parent || parent === body.parent) return [];
  if (parent.type === 'BlockStatement' || parent.type === 'SwitchCase') {
    const list = (parent.type === 'BlockStatement' ? parent.body : parent.consequent) as Node[];
    return list.slice(list.indexOf(node) + 1);
  }
  return [];
}

/** The path can reach the next attempt. */
export const leadsBack = (c: Set<Completion>): boolean => c.has('normal') || c.has('continue');
/** The path can leave the loop (return or break). */
export const leaves = (c: Set<Completion>): boolean => c.has('exit');

/** `node` sits in a branch (of an if, a ?:, a switch, a try) that holds none of `along`, below `top`. */
export function offPath(node: Node, top: Node, along: readonly Node[]): boolean {
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
