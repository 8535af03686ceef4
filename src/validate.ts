/**
 * Shared checks for options: one wording for every message, `herdless: <name> must be <rule>, got <value>`. Helpers
 * are function declarations, not arrow functions in consts: nothing here is decided when the module loads.
 */

/**
 * `String(value)`, or a tag such as `[object Object]` when that throws (a null-prototype object, a throwing
 * `toString` or `Symbol.toPrimitive`, a revoked Proxy). Never throws: describing a hostile value must not lose the
 * error being described.
 */
export function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    try {
      return Object.prototype.toString.call(value);
    } catch {
      return `[${typeof value}]`;
    }
  }
}

/** The errors this module made: the retry loop may attach the failure it was handling as their `cause`. */
const own = /* @__PURE__ */ new WeakSet<object>();

/**
 * A broken `random`, `retryAfter` or clock (the policy's, the budget's or the breaker's) is found after a failure:
 * keeps that failure reachable as the herdless error's `cause` (only an error made here, by {@link fail}, is ours to
 * annotate).
 */
export function withCause(error: unknown, failure: unknown): unknown {
  if (own.has(error as object)) {
    Object.defineProperty(error, 'cause', { value: failure, configurable: true });
  }
  return error;
}

/**
 * Rethrows what reading an options bag threw: herdless's own errors as they are; anything else (a getter that throws,
 * a revoked Proxy) as a TypeError naming the bag and, where one can be found, the option, with the error as `cause`.
 */
export function unreadable(what: string, options: unknown, error: unknown): never {
  if (own.has(error as object)) throw error;
  let key = '';
  try {
    for (const k of Reflect.ownKeys(options as object)) {
      try {
        Reflect.get(options as object, k);
      } catch {
        key = ` (reading ${String(k)} threw)`;
        break;
      }
    }
  } catch {
    // a revoked Proxy has no keys to read: the bag is named alone
  }
  const wrapped = new TypeError(`herdless: the ${what} options could not be read${key}: ${safeString(error)}`, {
    cause: error,
  });
  own.add(wrapped);
  throw wrapped;
}

/** Throws `Kind` (TypeError for a wrong type, RangeError for a wrong value) naming the option and the rule. */
export function fail(Kind: ErrorConstructor, name: string, rule: string, value: unknown): never {
  // The bad value: a string quoted, everything else as `String()` would render it (never throwing, see safeString).
  const error = new Kind(
    `herdless: ${name} must be ${rule}, got ${typeof value === 'string' ? `'${value}'` : Object.is(value, -0) ? '-0' : safeString(value)}`,
  );
  own.add(error);
  throw error;
}

/**
 * Throws for a value that broke `rule`: TypeError when it is not a number (the rule then reads "a number (rule)"),
 * RangeError when it is one (NaN included).
 */
export function notNumber(name: string, value: unknown, rule: string): never {
  const isNumber = typeof value === 'number';
  return fail(isNumber ? RangeError : TypeError, name, isNumber ? rule : `a number (${rule})`, value);
}

/**
 * Returns `value` if it is a number that passes `ok`, else throws: TypeError when it is not a number,
 * RangeError when it is one but breaks the rule (NaN always does, as no comparison holds for it).
 */
export function num(name: string, value: unknown, rule: string, ok: (n: number) => boolean): number {
  return typeof value === 'number' && ok(value) ? value : notNumber(name, value, rule);
}

/**
 * Returns `value` if it is a finite number >= `min`, else throws as {@link num} does. The valid case allocates
 * nothing: it runs for every option of every per-call policy.
 */
export function finite(name: string, value: unknown, min: number, rule?: string): number {
  return typeof value === 'number' && value >= min && value < Infinity
    ? value
    : notNumber(name, value, rule ?? `a finite number >= ${min}`);
}

/**
 * Returns `value` if it is a number > 0 (Infinity allowed), `fallback` if it is undefined (the option not given),
 * else throws as {@link num} does.
 */
export function positive(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  return typeof value === 'number' && value > 0 ? value : notNumber(name, value, 'a number > 0, or Infinity for none');
}

/** Returns `value` if it is a function or undefined, else throws a TypeError naming the option. */
export function optionalFn<F>(name: string, value: F | undefined): F | undefined {
  if (value !== undefined && typeof value !== 'function') fail(TypeError, name, 'a function', value);
  return value;
}

/** The option's value, or `fallback` when it is absent or `undefined` (but not `null`, which is a wrong type). */
export function or<T>(value: T | undefined, fallback: T): T {
  return value === undefined ? fallback : value;
}

/**
 * Throws a TypeError naming the first key of `options` that is not in `known` (`what`: whose options these are, or
 * '' for retry()'s own), with what was probably meant when `suggest` knows.
 */
export function onlyKnown(
  options: object,
  known: ReadonlySet<string>,
  what: string,
  suggest?: (key: string) => string | undefined,
): void {
  // Object.keys(), not for-in: for-in would also walk the prototype chain (its length, and a Proxy's traps there).
  // An indexed loop, not for-of: V8 kept the array iterator, 360 instructions of a per-call policy's 1,420 (callgrind,
  // Node 20, createPolicy({ maxAttempts: 3 }): 1,422 with for-of, 1,062 indexed, 834 with no check at all).
  const keys = Object.keys(options);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (!known.has(key)) unknown(key, known, what, suggest);
  }
}

function unknown(
  key: string,
  known: ReadonlySet<string>,
  what: string,
  suggest?: (key: string) => string | undefined,
): never {
  const meant = suggest?.(key);
  const error = new TypeError(
    `herdless: unknown ${what && `${what} `}option '${key}'${meant ? `; did you mean ${meant}?` : ''} (known: ${[...known].join(', ')})`,
  );
  own.add(error);
  throw error;
}

/**
 * `value` when it is undefined or has a method named `method`, else a TypeError naming the option: how an object
 * made elsewhere (an AbortSignal, a retry budget, a circuit breaker) is told from a wrong value, by its shape.
 */
export function having<V>(name: string, value: V, method: string, rule: string): V {
  if (value !== undefined && typeof (value as Record<string, unknown> | null)?.[method] !== 'function') {
    fail(TypeError, name, rule, value);
  }
  return value;
}
