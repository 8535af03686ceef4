/**
 * require-transient-check's `.ok` wording (review-adv4 F5, F6): ".ok says whether ... failed" only when an `.ok` test
 * decides the attempt's failure path, on what the attempt's call gave; else the "without looking" wording. "a response"
 * when a `fetch` gave it or its status or body is read, "the call" for any other result's `ok`.
 */
import { describe, expect, it } from 'vitest';
import { transientCheck } from '../cli-helpers';

const RESPONSE = ': .ok says whether a response failed, not whether the failure is transient,';
const CALL = ': .ok says whether the call failed, not whether the failure is transient,';
const NO_LOOK = / without looking at the error or the status,/;

describe('require-transient-check: the `.ok` wording', () => {
  it.each([
    [
      'a loop test on the response',
      RESPONSE,
      `let res = await fetch(url);
  while (!res.ok) {
    await sleep(100 * Math.random());
    res = await fetch(url);
  }
  return res;`,
    ],
    [
      'an `.ok` in the body a client gave (not a Response: no fetch, no status read)',
      CALL,
      `for (let i = 0; i < 5; i++) {
    const resp = await client.get(url);
    if (resp.data?.ok === true) return resp;
    await sleep(100 * Math.random());
  }`,
    ],
    [
      'the awaited call itself',
      CALL,
      `for (let i = 0; i < 5; i++) {
    if ((await ping(url)).ok) return;
    await sleep(100 * Math.random());
  }`,
    ],
    [
      'a `{ ok, value }` result',
      CALL,
      `for (let i = 0; i < 5; i++) {
    const result = await attempt(url);
    if (result.ok === true) return result.value;
    await sleep(100 * Math.random());
  }`,
    ],
    [
      'a response by its status read (no fetch named)',
      RESPONSE,
      `for (let i = 0; i < 5; i++) {
    const res = await client.send(url);
    if (!res.ok) {
      log('HTTP ' + res.status);
      await sleep(100 * Math.random());
      continue;
    }
    return res;
  }`,
    ],
  ])('%s: the .ok wording', (_, words, body) => {
    const messages = transientCheck(`export async function f(url, client) {\n  ${body}\n}`);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(words);
  });

  it.each([
    [
      'an `.ok` flag read by && in the catch',
      `for (let i = 0; i < 5; i++) {
    try {
      return await doWork(url);
    } catch (e) {
      metrics.ok && metrics.count();
      await sleep(100 * Math.random());
    }
  }`,
    ],
    [
      'an `.ok` of a value no call gave, in an if that leaves',
      `const node = { ok: true, next: null };
  let cur = node;
  for (let i = 0; i < 5; i++) {
    try {
      return await doWork(url);
    } catch (e) {
      cur = cur.next;
      if (!cur.ok) throw e;
      await sleep(100 * Math.random());
    }
  }`,
    ],
  ])('%s: the "without looking" wording', (_, body) => {
    const messages = transientCheck(`export async function f(url) {\n  ${body}\n}`);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(NO_LOOK);
  });
});
