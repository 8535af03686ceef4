/**
 * Retry libraries set up into a herd (issue 29, src/eslint/libraries.ts): a call of p-retry, promise-retry,
 * async-retry, exponential-backoff or axios-retry whose options, written at the call, leave a default that lacks an
 * element or ask for no end. Marks as in cycles.ts: `// <-` where the report goes.
 */
import type { Sample } from './samples';

export const libraries: readonly Sample[] = [
  {
    name: 'library: p-retry without randomize waits the same for every client (its default is false)',
    finds: ['require-jitter'],
    code: `
import pRetry from 'p-retry';
export async function getUser(id) {
  return pRetry(() => fetch('/users/' + id), { retries: 5 }); // <-
}`,
  },
  {
    name: 'library look-alike: p-retry with randomize: true, or its options built elsewhere, or a function of that name of the file',
    finds: [],
    code: `
import pRetry from 'p-retry';
export async function a(id) {
  return pRetry(() => fetch('/a/' + id), { retries: 5, randomize: true });
}
export async function b(id, options) {
  return pRetry(() => fetch('/b/' + id), options);
}
export async function c(id, options) {
  return pRetry(() => fetch('/c/' + id), { ...options, retries: 3 });
}
function localRetry(f) {
  return f();
}
export const d = () => localRetry(() => fetch('/d'));`,
  },
  {
    name: 'library: promise-retry required, set up forever and without randomize',
    lang: 'cjs',
    finds: ['require-jitter', 'require-retry-limit'],
    code: `
const promiseRetry = require('promise-retry');
module.exports = function connect(url) {
  return promiseRetry({ forever: true, minTimeout: 500 }, (retry) => open(url).catch(retry)); // <-
};`,
  },
  {
    name: 'library: async-retry randomises by default; with retries: Infinity it never ends',
    finds: ['require-retry-limit'],
    code: `
import retry from 'async-retry';
export const ok = (url) => retry(() => fetch(url), { retries: 5 });
export const endless = (url) => retry(() => fetch(url), { retries: Infinity }); // <-`,
  },
  {
    name: "library: exponential-backoff's backOff adds no jitter unless asked; jitter: 'full' does",
    lang: 'ts',
    finds: ['require-jitter'],
    code: `
import { backOff } from 'exponential-backoff';
export const plain = (url: string) => backOff(() => fetch(url)); // <-
export const jittered = (url: string) => backOff(() => fetch(url), { jitter: 'full' });`,
  },
  {
    name: 'library: axios-retry without retryDelay retries at once; a retryDelay given waits',
    finds: ['no-immediate-retry'],
    code: `
import axios from 'axios';
import axiosRetry from 'axios-retry';
const client = axios.create();
axiosRetry(client, { retries: 3 }); // <-
const other = axios.create();
axiosRetry(other, { retries: 3, retryDelay: axiosRetry.exponentialDelay });`,
  },
  {
    name: "library: compiled TypeScript's (0, p_retry_1.default)(fn, {}) of __importDefault(require('p-retry'))",
    lang: 'cjs',
    finds: ['require-jitter'],
    code: `
const p_retry_1 = __importDefault(require('p-retry'));
const exponential_backoff_1 = require('exponential-backoff');
async function send(body) {
  return (0, p_retry_1.default)(() => post(body), { retries: 3 }); // <-
}
const other = (0, exponential_backoff_1.backOff)(() => post({}), { jitter: 'full' });
module.exports = { send, other };`,
  },
  {
    name: 'library: a namespace import, a destructured require, randomize: false and an infinite count spelt another way',
    lang: 'cjs',
    finds: ['require-retry-limit'],
    code: `
const { backOff } = require('exponential-backoff');
const axiosRetry = require('axios-retry');
module.exports.poll = () => backOff(() => check(), { numOfAttempts: Infinity, jitter: 'full' }); // <-
module.exports.setup = (client) => axiosRetry(client, { retryDelay: () => 1000, retries: Number.POSITIVE_INFINITY }); // <-
module.exports.computed = (client, key) => axiosRetry(client, { [key]: 1 });`,
  },
  {
    name: 'library: async-retry set up with randomize: false, through a namespace import',
    lang: 'ts',
    finds: ['require-jitter'],
    code: `
import * as asyncRetry from 'async-retry';
import * as other from 'somewhere-else';
export const send = (body: string) => asyncRetry.default(() => post(body), { randomize: false }); // <-
export const fine = (body: string) => other.default(() => post(body), { randomize: false });`,
  },
];
