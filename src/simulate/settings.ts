/**
 * A scenario's options with every default filled in: each field present and defined. `Required<T>` is not enough:
 * the options allow an explicit `undefined` (`readonly x?: T | undefined`, so that `{ seed }` with a
 * `number | undefined` compiles under `exactOptionalPropertyTypes`), and under that flag `Required` keeps the
 * `undefined`, which would make every setting in a result read as possibly missing.
 */
export type Filled<T> = { readonly [K in keyof T]-?: Exclude<T[K], undefined> };
