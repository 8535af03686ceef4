import { makeRule } from './rule';

/** `herdless/no-immediate-retry`: a retry with no wait between attempts (`catch { continue }`, recursion at once). */
export const noImmediateRetry = makeRule({
  name: 'no-immediate-retry',
  description: 'Retries must wait between attempts: an immediate retry hits a failing server again at once.',
  lacks: (shape) => !shape.waits,
  message:
    'retries at once, with no wait between attempts; herdless retry(fn) waits a jittered, capped backoff between attempts',
});
