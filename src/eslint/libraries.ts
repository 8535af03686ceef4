/**
 * Retries run by a retry library set up into a herd (issue 29): a call of p-retry, promise-retry, async-retry,
 * exponential-backoff or axios-retry whose options, written where it is called, leave the library's defaults in
 * place where they lack an element (p-retry and promise-retry do not randomise their waits, exponential-backoff adds no
 * jitter, axios-retry does not wait) or ask for no end (`retries: Infinity`, `forever: true`).
 *
 * The library is known by the module the callee is imported or required from, not by the callee's name. Only options
 * the call shows are read: an options object built elsewhere (a variable, a spread) says nothing here, and nothing is
 * reported for what it could set. The check of the failure is left out: each of these retries what the caller's
 * function throws, and a caller can throw a permanent error past it (p-retry's AbortError, `bail`).
 */
import { type Node, nameOf } from './ast';
import { importOf } from './imports';
import type { Context } from './model';
import type { Properties } from './properties';

/** What a library does by default, and where its options are. */
interface Library {
  /** The export that runs the retry: the module itself (`default`) or a named one. */
  readonly exported: string;
  /** Which argument holds the options (promise-retry takes them first or second). */
  readonly options: (args: readonly Node[]) => Node | undefined;
  /** The element lacking by default, and the option that supplies it. */
  readonly read: (options: Options) => Partial<Pick<Properties, 'waits' | 'fixedDelay' | 'limited'>> & {
    readonly why: readonly string[];
  };
}

/** The options written at the call: each key's value, or unknown when the object is not all in sight. */
interface Options {
  readonly known: boolean;
  readonly get: (key: string) => Node | undefined;
}

const literal = (n: Node | undefined, value: unknown): boolean => n?.type === 'Literal' && n.value === value;
const isInfinity = (n: Node | undefined): boolean =>
  (n?.type === 'Identifier' && n.name === 'Infinity') ||
  (n?.type === 'MemberExpression' && nameOf(n.property as Node) === 'POSITIVE_INFINITY');

/** `retries: Infinity` or `forever: true` (the retry package's options, under p-retry, promise-retry, async-retry). */
function endless(options: Options, count: string): string | undefined {
  if (isInfinity(options.get(count))) return `${count}: Infinity`;
  if (literal(options.get('forever'), true)) return 'forever: true';
  return undefined;
}

/** The retry package's options (p-retry, promise-retry, async-retry): `randomize` and the count. */
function retryPackage(name: string, randomizeByDefault: boolean): Library['read'] {
  return (options) => {
    const why: string[] = [];
    const randomize = options.get('randomize');
    let fixedDelay: boolean | undefined;
    if (randomize === undefined && !randomizeByDefault) {
      fixedDelay = true;
      why.push(`${name} waits without randomize unless it is set (its default is false)`);
    } else if (literal(randomize, false)) {
      fixedDelay = true;
      why.push(`${name} set up with randomize: false`);
    }
    const end = endless(options, 'retries');
    if (end) why.push(`${name} set up with ${end}`);
    return { ...(fixedDelay ? { waits: true, fixedDelay } : {}), ...(end ? { limited: false } : {}), why };
  };
}

const second = (args: readonly Node[]) => args[1];

const LIBRARIES: Readonly<Record<string, Library>> = {
  'p-retry': { exported: 'default', options: second, read: retryPackage('p-retry', false) },
  'async-retry': { exported: 'default', options: second, read: retryPackage('async-retry', true) },
  // promiseRetry(fn, options) or promiseRetry(options, fn)
  'promise-retry': {
    exported: 'default',
    options: (args) => (args[0] && args[0].type !== 'ObjectExpression' ? args[1] : args[0]),
    read: retryPackage('promise-retry', false),
  },
  'exponential-backoff': {
    exported: 'backOff',
    options: second,
    read: (options) => {
      const why: string[] = [];
      const jitter = options.get('jitter');
      const fixed = jitter === undefined || literal(jitter, 'none');
      if (fixed) why.push(`exponential-backoff adds no jitter unless jitter: 'full' is set (its default is 'none')`);
      const end = isInfinity(options.get('numOfAttempts')) ? 'numOfAttempts: Infinity' : undefined;
      if (end) why.push(`exponential-backoff set up with ${end}`);
      return { ...(fixed ? { waits: true, fixedDelay: true } : {}), ...(end ? { limited: false } : {}), why };
    },
  },
  'axios-retry': {
    exported: 'default',
    options: second,
    read: (options) => {
      const why: string[] = [];
      const noDelay = options.get('retryDelay') === undefined;
      if (noDelay) why.push('axios-retry retries at once unless retryDelay is set (its default is no delay)');
      const end = isInfinity(options.get('retries')) ? 'retries: Infinity' : undefined;
      if (end) why.push(`axios-retry set up with ${end}`);
      return { ...(noDelay ? { waits: false } : {}), ...(end ? { limited: false } : {}), why };
    },
  },
};

/** Which library a call runs, and its export's name there; undefined for any other call. */
function libraryOf(call: Node): Library | undefined {
  const found = importOf(call);
  const library = found ? LIBRARIES[found.module] : undefined;
  return library && found?.exported === library.exported ? library : undefined;
}

/** The options as written at the call: absent (all defaults), an object literal of plain keys, or unknown. */
const nothing = (): undefined => undefined;

function optionsAt(node: Node | undefined): Options {
  if (node === undefined) return { known: true, get: nothing };
  if (node.type !== 'ObjectExpression') return { known: false, get: nothing };
  const props = node.properties as Node[];
  if (props.some((p) => p.type !== 'Property' || p.computed)) return { known: false, get: nothing };
  return {
    known: true,
    get: (key) => props.find((p) => nameOf(p.key as Node) === key || (p.key as Node).value === key)?.value as Node,
  };
}

/**
 * The retry a library call sets up, as what it has and lacks: an element is lacking only where the call shows it (its
 * options written there leave the default or ask for no end); everything else counts as there.
 */
export function librarySetup(call: Node, _ctx: Context): (Properties & { readonly setup: string }) | undefined {
  const library = libraryOf(call);
  if (!library) return undefined;
  const options = optionsAt(library.options(call.arguments as Node[]));
  if (!options.known) return undefined;
  const { why, ...read } = library.read(options);
  if (why.length === 0) return undefined;
  return {
    waits: read.waits ?? true,
    fixedDelay: read.fixedDelay ?? false,
    limited: read.limited ?? true,
    checksError: true,
    setup: why.join('; '),
  };
}
