/**
 * The one way the four rules are built: each visits loops and functions, asks the shared detector
 * ({@link retryLoop}, {@link retryRecursion}) for the retry's shape, and reports one missing element.
 */
import type { Rule, Scope } from 'eslint';
import { FUNCTIONS, LOOPS, type Node } from './ast';
import type { Files } from './imports';
import { librarySetup } from './libraries';
import { type RetryShape, recursiveCaller, retryCycle, retryLoop, retryOpenCycle, retryRecursion } from './retry-loop';

/** One rule's definition: what it checks, and what it says when the element is missing. */
export interface RuleSpec {
  readonly name: string;
  readonly description: string;
  /** True when this retry lacks the element the rule is about. */
  readonly lacks: (shape: RetryShape) => boolean;
  /** The report: what is missing, and how herdless's `retry()` expresses it; `{{key}}`s are filled by {@link words}. */
  readonly message: string;
  /** The words the message takes from the retry at hand, one for each `{{key}}` in it. */
  readonly words?: (shape: RetryShape) => Readonly<Record<string, string>>;
}

const URL = 'https://github.com/herdless/herdless#find-the-retry-loops-you-already-have';

/** Every value a variable is given (its initialiser and each assignment), or the function it names. */
function resolver(context: Rule.RuleContext) {
  return (name: string, at: Node): readonly Node[] => {
    let scope: Scope.Scope | null = context.sourceCode.getScope(at as never);
    while (scope) {
      const variable = scope.set.get(name);
      if (variable) {
        const out: Node[] = [];
        for (const def of variable.defs) {
          const node = def.node as unknown as Node;
          if (def.type === 'FunctionName') out.push(node);
          else if (def.type === 'Variable' && node.init) out.push(node.init as Node);
        }
        for (const ref of variable.references) {
          const write = ref.writeExpr as unknown as Node | null | undefined;
          if (write && !out.includes(write)) out.push(write);
        }
        return out;
      }
      scope = scope.upper;
    }
    return [];
  };
}

/**
 * This file's name and a parse of another file with the parser and options ESLint uses here, for a function imported
 * from another file of the package (imports.ts); none when ESLint runs on text with no file.
 */
function files(context: Rule.RuleContext): Files | undefined {
  // `herdless audit` lints each file under a stand-in name and gives its path in the settings.
  const given = (context.settings as { herdless?: { filename?: unknown } } | undefined)?.herdless?.filename;
  const name = typeof given === 'string' ? given : context.filename;
  const options = context.languageOptions as {
    parser?: {
      parse?: (code: string, options: object) => unknown;
      parseForESLint?: (code: string, options: object) => { ast: unknown };
    };
    sourceType?: string;
    ecmaVersion?: unknown;
  };
  const parser = options.parser;
  if (!name || name.startsWith('<') || !parser) return undefined;
  const settings = { ecmaVersion: 'latest', sourceType: options.sourceType ?? 'module', range: true, loc: true };
  return {
    name,
    parse: (code) =>
      (parser.parseForESLint ? parser.parseForESLint(code, settings).ast : parser.parse?.(code, settings)) as
        | Node
        | undefined,
  };
}

/** Builds a rule from its spec. */
export function makeRule(spec: RuleSpec): Rule.RuleModule {
  return {
    meta: {
      type: 'problem',
      docs: { description: spec.description, recommended: true, url: URL },
      schema: [],
      messages: { [spec.name]: `${spec.message}{{byName}}` },
    },
    create(context) {
      const ctx = { keys: context.sourceCode.visitorKeys as never, resolve: resolver(context), files: files(context) };
      const reported = new WeakSet<Node>();
      const check = (shape: RetryShape | undefined) => {
        if (shape && spec.lacks(shape) && !reported.has(shape.node)) {
          reported.add(shape.node);
          const loc = (shape.node.loc as { start: { line: number; column: number } }).start;
          const byName = shape.byName ?? [];
          context.report({
            loc: { start: loc, end: { line: loc.line, column: loc.column + 1 } },
            messageId: spec.name,
            data: {
              ...spec.words?.(shape),
              byName: shape.setup
                ? ` (${shape.setup})`
                : byName.length === 0
                  ? ''
                  : ` (assumed, its code out of reach: ${byName.join('; ')})`,
            },
          });
        }
      };
      const visitors: Record<string, (node: never) => void> = {};
      for (const type of LOOPS) visitors[type] = (node: Node) => check(retryLoop(node, ctx));
      // A recursive retry is found from its self-call: only functions that call themselves are looked into.
      visitors.CallExpression = (node: Node) => {
        const fn = recursiveCaller(node, ctx);
        if (fn) check(retryRecursion(fn, ctx));
        // A retry library set up with defaults or options that lack an element (libraries.ts).
        const setup = librarySetup(node, ctx);
        if (setup) check({ node, kind: 'library', ...setup });
      };
      // A retry through other functions of the file (a method that schedules the attempt again) is found from the
      // attempt: each named function or method is followed along its failure paths.
      // A reconnect whose next failure arrives out of reach (an event, another file) is found from its handler.
      for (const type of FUNCTIONS) {
        visitors[type] = (node: Node) => {
          check(retryCycle(node, ctx));
          check(retryOpenCycle(node, ctx));
        };
      }
      return visitors as Rule.RuleListener;
    },
  };
}
