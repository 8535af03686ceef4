import { makeRule } from './rule';

/** `herdless/require-transient-check`: the failure path retries every error without looking at it. */
export const requireTransientCheck = makeRule({
  name: 'require-transient-check',
  description: 'A retry must tell transient failures from permanent ones before trying again.',
  lacks: (shape) => !shape.checksError,
  message:
    'retries every failure{{why}}, so permanent ones (400, 404, a bug) are retried too; herdless retry(fn, { isTransient }) retries only transient ones (network errors, 408/429/5xx by default)',
  // A loop that tests `res.ok` (or `res?.ok`) does look at the response: "without looking at the status" read as if
  // the audit had missed the check (issue 31). What it lacks is the step from "failed" to "worth trying again".
  // An `ok` that may be any result's (`{ ok, value }`), not a Response's, is worded as the call's.
  words: (shape) => ({
    why: shape.readsOk
      ? `: .ok says whether ${shape.readsOk === 'response' ? 'a response' : 'the call'} failed, not whether the failure is transient`
      : ' without looking at the error or the status',
  }),
});
