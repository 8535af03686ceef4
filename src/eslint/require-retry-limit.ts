import { makeRule } from './rule';

/** `herdless/require-retry-limit`: nothing bounds the attempts or the time (`while (true)`, unbounded recursion). */
export const requireRetryLimit = makeRule({
  name: 'require-retry-limit',
  description: 'A retry must stop: bound the attempts or the time it may take.',
  lacks: (shape) => !shape.limited,
  message:
    'nothing bounds the attempts or the time (no counter compared, no deadline), so it retries forever; herdless retry(fn, { maxAttempts: 3, timeoutMs }) stops',
});
