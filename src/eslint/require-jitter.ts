import { makeRule } from './rule';

/** `herdless/require-jitter`: the wait before a retry has no randomness (a constant, or `base * 2 ** n` alone). */
export const requireJitter = makeRule({
  name: 'require-jitter',
  description: 'The wait before a retry must be randomised, or clients that failed together retry together.',
  lacks: (shape) => shape.waits && shape.fixedDelay,
  message:
    "waits a delay with no randomness before retrying (a constant or a plain doubling), so clients that failed together retry together; herdless retry(fn, { jitter: 'full' }) randomises every wait (the default)",
});
