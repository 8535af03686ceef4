import { makeRule } from './rule';

/** `herdless/require-transient-check`: the failure path retries every error without looking at it. */
export const requireTransientCheck = makeRule({
  name: 'require-transient-check',
  description: 'A retry must tell transient failures from permanent ones before trying again.',
  lacks: (shape) => !shape.checksError,
  message:
    'retries every failure without looking at the error or the status, so permanent ones (400, 404, a bug) are retried too; herdless retry(fn, { isTransient }) retries only transient ones (network errors, 408/429/5xx by default)',
});
