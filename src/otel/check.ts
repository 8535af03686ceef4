/**
 * The wing's own checks, in the core's words ("herdless: name must be ..., got ..."): the wing imports only the
 * core's public entry (`../index`), which the build keeps external (dist/otel.js imports ./index.js), so that the
 * wing and the core are one module instance and `{ retry }`'s bundle is unchanged.
 */
function shown(value: unknown): string {
  try {
    return typeof value === 'string' ? `'${value}'` : String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** Throws `Kind` with the core's wording. */
export function fail(Kind: ErrorConstructor, name: string, rule: string, value: unknown): never {
  throw new Kind(`herdless: ${name} must be ${rule}, got ${shown(value)}`);
}

/** `value`, if it is undefined or a function. */
export function optionalFn<F>(name: string, value: F | undefined): F | undefined {
  if (value !== undefined && typeof value !== 'function') fail(TypeError, name, 'a function', value);
  return value;
}

/** A TypeError for the first key of `options` that is not `known`. */
export function onlyKnown(options: object, known: readonly string[], what: string): void {
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new TypeError(`herdless: unknown ${what} option '${key}' (known: ${known.join(', ')})`);
    }
  }
}
