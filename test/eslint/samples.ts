/**
 * Retry loops and look-alikes, each with the rules that must report it. A line ending in `// <-` is where the report
 * goes (the loop statement or the recursive function); samples without one are not retries and nothing reports them.
 */
import type { RuleName } from '../../src/eslint/plugin';

export interface Sample {
  readonly name: string;
  readonly code: string;
  readonly finds: readonly RuleName[];
  /** 'ts' and 'tsx' parse with typescript-eslint; 'cjs' as CommonJS script; default an ES module. */
  readonly lang?: 'ts' | 'tsx' | 'cjs' | 'jsx';
}

export const samples: readonly Sample[] = [
  // The seeds' own loops.
  {
    name: 'seed: the fixed 500 ms x 3 loop',
    finds: ['require-jitter', 'require-transient-check'],
    code: `
async function getUser(id) {
  for (let attempt = 1; attempt <= 3; attempt++) { // <-
    try {
      return await fetch('/users/' + id).then((r) => r.json());
    } catch (err) {
      if (attempt === 3) throw err;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}`,
  },
  {
    name: 'seed: the immediate catch { continue }',
    lang: 'ts',
    finds: ['no-immediate-retry', 'require-transient-check'],
    code: `
export async function send(body: string): Promise<Response> {
  let tries = 0;
  while (tries < 5) { // <-
    tries++;
    try {
      return await fetch('/send', { method: 'POST', body });
    } catch {
      continue;
    }
  }
  throw new Error('gave up');
}`,
  },
  {
    name: 'seed: the infinite loop',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export async function connect(n = 0) {
  while (true) { // <-
    try {
      return await db.connect();
    } catch (e) {
      console.error('retrying', e);
      await sleep(100 * 2 ** n++);
    }
  }
}`,
  },
  {
    name: 'seed: full jitter and a limit, but every error retried',
    lang: 'ts',
    finds: ['require-transient-check'],
    code: `
async function call<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) { // <-
    try {
      return await fn();
    } catch (error) {
      if (attempt >= 4) throw error;
      const delay = Math.random() * Math.min(10_000, 100 * 2 ** attempt);
      await new Promise<void>((r) => setTimeout(r, delay));
    }
  }
}`,
  },
  {
    name: "the demo's naive loop (TypeScript, a fixed delay from options)",
    lang: 'ts',
    finds: ['require-jitter', 'require-transient-check'],
    code: `
const naive = async (url: string, signal: AbortSignal, o: { maxAttempts: number; fixedDelayMs: number }) => {
  for (let attempt = 1; ; attempt++) { // <-
    try {
      return await get(url, signal);
    } catch (error) {
      if (attempt >= o.maxAttempts || signal.aborted) throw error;
      await sleep(o.fixedDelayMs, signal);
    }
  }
};`,
  },
  {
    name: 'a status check that leads back: if (!res.ok) { wait; continue }',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
import { setTimeout as delay } from 'node:timers/promises';
export async function load(url) {
  while (true) { // <-
    const res = await fetch(url);
    if (!res.ok) {
      await delay(1000);
      continue;
    }
    return res.json();
  }
}`,
  },
  {
    name: 'a status check through optional chaining that leads back: if (!res?.ok) { wait; continue } (review)',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
import { setTimeout as delay } from 'node:timers/promises';
export async function load(url) {
  while (true) { // <-
    const res = await fetch(url).catch(() => undefined);
    if (!res?.ok) {
      await delay(1000);
      continue;
    }
    return res.json();
  }
}`,
  },
  {
    name: 'a loop while the status, read through ?. or !, says failure: while (res?.status ... res!.status >= 500) (review)',
    lang: 'ts',
    finds: ['no-immediate-retry', 'require-retry-limit'],
    code: `
export async function load(url: string): Promise<Response | undefined> {
  let res = await fetch(url).catch(() => undefined);
  while (res?.status === undefined || res!.status >= 500) { // <-
    res = await fetch(url).catch(() => undefined);
  }
  return res;
}`,
  },
  {
    name: 'a value from .catch() tested by the loop, a counter never compared',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
async function firstAnswer(url) {
  let res;
  let tries = 0;
  while (!res) { // <-
    res = await fetch(url).catch(() => undefined);
    tries++;
    await wait(250);
  }
  return res;
}`,
  },
  {
    name: 'a counter that is never compared',
    finds: ['require-retry-limit'],
    code: `
async function save(doc) {
  let attempts = 0;
  for (;;) { // <-
    try {
      return await store.put(doc);
    } catch (e) {
      attempts++;
      if (e.code !== 'ECONNRESET') throw e;
      await sleep(Math.random() * 1000);
    }
  }
}`,
  },
  {
    name: 'do-while with a success flag and a bound in its test, backoff without jitter',
    finds: ['require-jitter'],
    code: `
async function push(item) {
  let done = false;
  let tries = 0;
  do { // <-
    try {
      await queue.push(item);
      done = true;
    } catch (err) {
      if (!isRetryable(err)) throw err;
      await sleep(200 * 2 ** tries++);
    }
  } while (!done && tries < 5);
}`,
  },
  {
    name: 'recursion at once from .catch()',
    finds: ['no-immediate-retry', 'require-retry-limit', 'require-transient-check'],
    code: `
function fetchForever(url) { // <-
  return fetch(url).catch(() => fetchForever(url));
}`,
  },
  {
    name: 'recursion through setTimeout from .then(ok, fail), a counter passed down but never compared',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
function ping(host, n) { // <-
  probe(host).then(report, () => setTimeout(() => ping(host, n - 1), 1000));
}`,
  },
  {
    name: 'CommonJS: a retry exported through module.exports',
    lang: 'cjs',
    finds: ['require-jitter', 'require-transient-check'],
    code: `
const axios = require('axios');
module.exports = async function getJson(url) {
  let i = 0;
  while (true) { // <-
    try {
      return (await axios.get(url)).data;
    } catch (err) {
      if (++i > 3) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
};`,
  },
  {
    name: 'TSX: a retry inside a component effect',
    lang: 'tsx',
    finds: ['require-jitter', 'require-transient-check'],
    code: `
export function User({ id }: { id: string }) {
  const [user, setUser] = useState<User | null>(null);
  useEffect(() => {
    (async () => {
      for (let i = 0; i < 3; i++) { // <-
        try {
          const r = await fetch(\`/users/\${id}\`);
          setUser((await r.json()) as User);
          break;
        } catch (e: unknown) {
          await wait(300);
        }
      }
    })();
  }, [id]);
  return <p>{user?.name}</p>;
}`,
  },
  {
    name: 'JSX file: the same shape in plain JavaScript',
    lang: 'jsx',
    finds: ['no-immediate-retry', 'require-transient-check'],
    code: `
export function Avatar({ src }) {
  const load = async () => {
    for (let i = 0; i < 3; i++) { // <-
      try { return await fetch(src); } catch { /* try again */ }
    }
  };
  return <img src={src} onLoad={load} />;
}`,
  },
  // Retries that have everything: no rule reports them.
  {
    name: 'good: status classified, full jitter, a bounded counter',
    finds: [],
    code: `
async function get(url) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const res = await fetch(url);
    if (res.ok) return res;
    if (res.status < 500 && res.status !== 429) throw new Error('permanent: ' + res.status);
    await sleep(Math.random() * Math.min(5000, 100 * 2 ** attempt));
  }
  throw new Error('gave up');
}`,
  },
  {
    name: 'good: a deadline, a classifier, a jitter helper',
    lang: 'ts',
    finds: [],
    code: `
async function withDeadline<T>(fn: () => Promise<T>, deadline: number): Promise<T> {
  let n = 0;
  while (true) {
    try {
      return await fn();
    } catch (err) {
      if (!isTransient(err) || Date.now() > deadline) throw err;
      await sleep(jitter(100 * 2 ** n++));
    }
  }
}`,
  },
  {
    name: 'good: recursion with a counter, a check and random wait from a local helper',
    finds: [],
    code: `
const pause = (ms) => new Promise((r) => setTimeout(r, ms * (0.5 + Math.random())));
async function attempt(fn, retries = 3) {
  try {
    return await fn();
  } catch (e) {
    if (retries <= 0 || e.status === 404) throw e;
    await pause(200);
    return attempt(fn, retries - 1);
  }
}`,
  },
  {
    name: 'good: the delay comes from a function that cannot be seen (not called fixed)',
    finds: [],
    code: `
import { nextDelay } from './backoff.js';
async function go(task) {
  for (let i = 0; i < 4; i++) {
    try { return await task(); } catch (e) { if (e.name === 'AbortError') throw e; await sleep(nextDelay(i)); }
  }
}`,
  },
  // Not retries: nothing reports them.
  {
    name: 'not a retry: polling that repeats on success',
    finds: [],
    code: `
async function heartbeat() {
  while (true) {
    try { await fetch('/ping'); } catch (e) { console.warn(e); }
    await sleep(1000);
  }
}`,
  },
  {
    name: 'not a retry: polling a job until it is done',
    lang: 'ts',
    finds: [],
    code: `
async function waitForJob(id: string) {
  for (;;) {
    const job = await getJob(id);
    if (job.state === 'done') return job;
    await new Promise((r) => setTimeout(r, 2000));
  }
}`,
  },
  {
    name: 'not a retry: pagination',
    finds: [],
    code: `
async function all(url) {
  const items = [];
  while (url) {
    const res = await fetch(url);
    if (!res.ok) throw new Error('HTTP ' + res.status);
    const page = await res.json();
    items.push(...page.items);
    url = page.next;
  }
  return items;
}`,
  },
  {
    name: 'not a retry: reading a stream',
    lang: 'ts',
    finds: [],
    code: `
async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>) {
  const chunks: Uint8Array[] = [];
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return chunks;
}`,
  },
  {
    name: 'not a retry: a loop over a list of items, failures logged',
    finds: [],
    code: `
async function sendAll(items) {
  for (let i = 0; i < items.length; i++) {
    try { await send(items[i]); } catch (e) { log(e); }
  }
  for (const item of items) {
    try { await send(item); } catch { continue; }
  }
}`,
  },
  {
    name: 'not a retry: trying mirrors in turn (for-of over a list)',
    finds: [],
    code: `
async function fromMirrors(mirrors) {
  for (const m of mirrors) {
    try { return await fetch(m); } catch { continue; }
  }
}`,
  },
  {
    name: 'not a retry: a worker loop that survives errors',
    lang: 'cjs',
    finds: [],
    code: `
async function work(queue) {
  while (queue.open) {
    try { await handle(await queue.pop()); } catch (e) { report(e); }
  }
}
module.exports = work;`,
  },
  {
    name: 'not a retry: recursion over a tree, and a self-call outside any failure path',
    finds: [],
    code: `
function visit(node) {
  try { check(node); } catch (e) { errors.push(e); }
  for (const c of node.children) visit(c);
}
function tick() { render(); setTimeout(tick, 1000); }`,
  },
  // Found in real code (the audit of node_modules): look-alikes that are not retries, and retries written otherwise.
  {
    name: 'not a retry: trying candidates by index',
    finds: [],
    code: `
function load(libs) {
  for (let i = 0; i < libs.length; i++) {
    try { return require(libs[i]); } catch (e) {}
  }
  return null;
}`,
  },
  {
    name: 'not a retry: walking up directories',
    finds: [],
    code: `
async function findPackage(dir) {
  while (true) {
    try { return JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')); } catch {}
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
}`,
  },
  {
    name: 'not a retry: following a redirect, and trying the next parser of a list',
    finds: [],
    code: `
function get(url) {
  return new Promise((resolve, reject) => https.get(url, (res) => {
    if (res.statusCode === 301 || res.statusCode === 302) return get(res.headers.location).then(resolve, reject);
    resolve(res);
  }));
}
function parse(text, parsers, index = 0) {
  return parsers[index](text).catch((err) => {
    if (index + 1 === parsers.length) throw err;
    return parse(text, parsers, index + 1);
  });
}`,
  },
  {
    name: 'not a retry: a timer loop that records an error and goes on to the next timer',
    finds: [],
    code: `
function tick(state) {
  while (state.timer && state.from <= state.to) {
    try { run(state.timer); } catch (e) { state.error ||= e; }
    if (state.isAsync) return true;
    nextTimer(state);
  }
  return false;
}`,
  },
  {
    name: 'not a retry: polling until the value is stable, errors recorded',
    finds: [],
    code: `
async function poll(read, interval) {
  let last;
  let error;
  while (true) {
    try {
      const value = await read();
      if (value === last) break;
      last = value;
    } catch (e) {
      error = e;
    }
    await sleep(interval);
  }
  return { last, error };
}`,
  },
  {
    name: 'good: a limit named as such, a wait inside a local helper, a classifier',
    lang: 'ts',
    finds: [],
    code: `
class Backoff {
  async execute<T>(request: () => Promise<T>): Promise<T> {
    while (!this.attemptLimitReached) {
      try {
        await this.applyDelay();
        return await request();
      } catch (e) {
        this.attemptNumber++;
        if (!(await this.options.retry(e, this.attemptNumber))) throw e;
      }
    }
    throw new Error('unreachable');
  }
}
async function pRetry(input, options) {
  let attemptNumber = 0;
  const onFailure = async (error) => {
    if (!options.shouldRetry(error)) throw error;
    await setTimeout(options.minTimeout * Math.random());
  };
  while (attemptNumber < options.retries) {
    attemptNumber++;
    try {
      return await input(attemptNumber);
    } catch (error) {
      await onFailure(error);
    }
  }
}`,
  },
  {
    name: 'a result tested after the attempt, no wait, no limit',
    finds: ['no-immediate-retry', 'require-retry-limit', 'require-transient-check'],
    code: `
async function connect() {
  let socket;
  for (;;) { // <-
    try {
      socket = await open();
    } catch (e) {
      console.log(e);
    }
    if (socket) return socket;
  }
}`,
  },
  {
    name: 'not a retry: driving a generator, an error handed back to it',
    finds: [],
    code: `
function drive(generator) {
  let current = generator.next();
  while (!current.done) {
    try {
      current = generator.next(step(current.value));
    } catch (err) {
      current = generator.throw(err);
    }
  }
  return current.value;
}`,
  },
  {
    name: 'not a retry: a compiled generator state machine (tslib __generator)',
    finds: [],
    code: `
function step(op) {
  while (_) try {
    if (f = 1, y && (t = y.next) && !(t = t.call(y, op[1])).done) return t;
    switch (op[0]) {
      case 4: _.label++; return { value: op[1], done: false };
      default: if (!t) { _ = 0; continue; }
    }
    op = body.call(thisArg, _);
  } catch (e) { op = [6, e]; y = 0; } finally { f = t = 0; }
}`,
  },
  {
    name: 'not a retry: walking nested frames',
    finds: [],
    code: `
function activeFrame() {
  for (var w = window, el = active(); el instanceof w.HTMLIFrameElement; ) {
    try { var ok = typeof el.contentWindow.location.href === 'string'; } catch (e) { ok = false; }
    if (!ok) break;
    el = active((w = el.contentWindow).document);
  }
  return el;
}`,
  },
  {
    name: 'a poll that stops on a timed-out flag (a limit by its name), every error retried',
    finds: ['require-transient-check'],
    code: `
async function poll(fn, interval) {
  let hasTimedOut = false;
  setTimeout(() => { hasTimedOut = true; }, 1000);
  while (true) { // <-
    const isLastAttempt = hasTimedOut;
    try {
      return await fn();
    } catch (err) {
      if (isLastAttempt) throwWithCause(err);
      await sleep(interval * (0.5 + Math.random()));
    }
  }
}`,
  },
  {
    name: 'recursion through a private method, a counter compared, the delay from elsewhere (ky)',
    finds: [],
    code: `
class Client {
  #retryCount = 2;
  async #calculateRetryDelay(error) {
    if (error.name !== 'HTTPError') throw error;
    return 1000 * Math.random() * 2 ** --this.#retryCount;
  }
  async #retry(fn) {
    try {
      return await fn();
    } catch (error) {
      const ms = await this.#calculateRetryDelay(error);
      if (this.#retryCount < 1) throw error;
      await delay(ms);
      return this.#retry(fn);
    }
  }
}`,
  },
  {
    name: 'classified and bounded, but backoff without jitter (corepack renameUnderWindows)',
    lang: 'cjs',
    finds: ['require-jitter'],
    code: `
async function renameUnderWindows(oldPath, newPath) {
  const retries = 5;
  for (let i = 0; i < retries; i++) { // <-
    try {
      await fs.promises.rename(oldPath, newPath);
      break;
    } catch (err) {
      if (isNodeError(err) && (err.code === 'ENOENT' || err.code === 'EPERM') && i < retries - 1) {
        await (0, timers.setTimeout)(100 * 2 ** i);
        continue;
      } else {
        throw err;
      }
    }
  }
}`,
  },
  {
    name: 'a busy loop on EAGAIN, bounded by the branch that continues (graceful-fs readSync)',
    lang: 'cjs',
    finds: ['no-immediate-retry'],
    code: `
function readSync(fd, buffer, offset, length, position) {
  let eagCounter = 0;
  while (true) { // <-
    try {
      return fs.readSync(fd, buffer, offset, length, position);
    } catch (er) {
      if (er.code === 'EAGAIN' && eagCounter < 10) {
        eagCounter++;
        continue;
      }
      throw er;
    }
  }
}`,
  },
  {
    name: 'do-while on a failure status, bounded in its test, no wait',
    lang: 'ts',
    finds: ['no-immediate-retry'],
    code: `
async function put(url: string, body: string) {
  let res: Response;
  let tries = 0;
  do { // <-
    res = await fetch(url, { method: 'PUT', body });
  } while (res.status >= 500 && tries++ < 3);
  return res;
}`,
  },
  {
    name: 'an if/else on the status, timers/promises setTimeout with a fixed delay',
    finds: ['require-jitter', 'require-retry-limit'],
    code: `
import { setTimeout } from 'node:timers/promises';
export async function get(url) {
  for (;;) { // <-
    const res = await fetch(url);
    if (res.status === 503) {
      await setTimeout(250);
    } else {
      return res;
    }
  }
}`,
  },
  {
    name: 'good: recursion limited in a conditional, waits named for jitter or not seen',
    finds: [],
    code: `
function go(n) {
  return call().catch((e) => (n > 0 && isTransient(e) ? sleepWithJitter(100).then(() => go(n - 1)) : Promise.reject(e)));
}
async function again(n) {
  try { return await call(); } catch (e) {
    if (n <= 0 || e.status === 400) throw e;
    await backoff();
    return again(n - 1);
  }
}`,
  },
  {
    name: 'a delay doubled in place, a classified error: fixed backoff',
    finds: ['require-jitter'],
    code: `
async function withBackoff(f) {
  let d = 100;
  for (let i = 0; i < 5; i++) { // <-
    try {
      return await f();
    } catch (e) {
      if (e.code === 'EINVAL') throw e;
      d = d * 2;
      await sleep(d);
    }
  }
}`,
  },
  {
    name: 'a .catch(() => null) result tested, jittered, bounded: every error retried',
    finds: ['require-transient-check'],
    code: `
async function get(u) {
  for (let i = 0; i < 3; i++) { // <-
    const res = await fetch(u).catch(() => null);
    if (!res) {
      await sleep(Math.random() * 100);
      continue;
    }
    return res;
  }
}`,
  },
  {
    name: 'good: a class-field arrow that recurses through this, error class checked',
    lang: 'ts',
    finds: [],
    code: `
class Loader {
  load = async (n: number): Promise<string> => {
    try {
      return await read();
    } catch (err) {
      if (n < 1 || !(err instanceof NetError)) throw err;
      await wait(Math.random() * 50);
      return this.load(n - 1);
    }
  };
}`,
  },
  {
    name: 'a switch on the error code is a check; fixed wait',
    finds: ['require-jitter'],
    code: `
async function open(path) {
  let tries = 0;
  while (tries++ < 5) { // <-
    try {
      return await fs.open(path);
    } catch (e) {
      switch (e.code) {
        case 'EACCES':
          throw e;
        default:
          await sleep(100);
      }
    }
  }
}`,
  },
  {
    name: 'a result compared with undefined after the attempt; no wait, no bound',
    finds: ['no-immediate-retry', 'require-retry-limit'],
    code: `
async function first(f) {
  let result;
  while (true) { // <-
    try {
      result = await f();
    } catch (e) {
      if (e.fatal) throw e;
    }
    if (result !== undefined) break;
  }
  return result;
}`,
  },
  {
    name: 'not a retry: recovery first (create the parent, switch to full metadata), then the call again',
    finds: [],
    code: `
function mkdirp(p) {
  try {
    fs.mkdirSync(p);
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
    mkdirp(path.dirname(p));
    mkdirp(p);
  }
}
class Registry {
  async packument() {
    try {
      return await this.fetch();
    } catch (err) {
      if (err.code !== 'E404' || this.fullMetadata) throw err;
      this.fullMetadata = true;
      return this.packument();
    }
  }
}`,
  },
  {
    name: 'not a retry: a work loop that hands each error to its handler (React)',
    finds: [],
    code: `
function renderRoot(root) {
  for (;;) {
    try {
      workLoop();
      break;
    } catch (thrown) {
      handleError(root, thrown);
    }
  }
}`,
  },
  {
    name: 'recursion from a failure status branch, a destructured option, a fixed wait',
    finds: ['require-jitter', 'require-transient-check'],
    code: `
async function get({ url }, n = 3) { // <-
  const res = await fetch(url);
  if (!res.ok) {
    if (n <= 0) throw new Error('gave up');
    await sleep(500);
    return get({ url }, n - 1);
  }
  return res;
}`,
  },
  {
    name: 'recursion from the else of a success status, a bound, a jittered wait: every status retried',
    finds: ['require-transient-check'],
    code: `
async function load(url, left) { // <-
  const res = await fetch(url);
  if (res.ok) return res;
  else {
    if (left === 0) throw new Error('gave up');
    await sleep(100 + Math.random() * 100);
    return load(url, left - 1);
  }
}`,
  },
  {
    name: 'a result checked against null inside the attempt, a helper value that is not a function',
    finds: ['no-immediate-retry', 'require-retry-limit'],
    code: `
const onFailure = makeHandler();
async function firstValue(read) {
  while (true) { // <-
    try {
      const value = await read();
      if (null !== value) return value;
    } catch (e) {
      onFailure(e);
      if (e.fatal) throw e;
    }
  }
}`,
  },

  // From the audit of real code (node_modules): look-alikes that are not retries, minimised.
  {
    name: 'not a retry: disposing a stack, a rejected disposal handed on (tslib __disposeResources)',
    finds: [],
    code: `
function disposeAll(stack, fail) {
  let item;
  function next() {
    while ((item = stack.pop())) {
      try {
        const result = item.dispose();
        if (item.async) return Promise.resolve(result).then(next, (e) => { fail(e); return next(); });
      } catch (e) {
        fail(e);
      }
    }
  }
  return next();
}`,
  },
  {
    name: 'not a retry: a minified generator state machine, the caught error stored in the op it switches on',
    finds: [],
    code: `
function step(s) {
  for (; o && ((o = 0), s[0] && (n = 0)), n; )
    try {
      if (((r = 1), i && (a = s[0] & 2 ? i.return : i.next) && !(a = a.call(i, s[1])).done)) return a;
      switch (((i = 0), a && (s = [s[0] & 2, a.value]), s[0])) {
        case 4:
          return n.label++, { value: s[1], done: !1 };
        default:
          if (!(a = n.trys)) { n = 0; continue; }
      }
      s = t.call(e, n);
    } catch (c) {
      (s = [6, c]), (i = 0);
    } finally {
      r = a = 0;
    }
}`,
  },
  {
    name: 'not a retry: listening again after an error event (execa)',
    finds: [],
    code: `
const waitForExit = async (child) => {
  try {
    return await once(child, 'exit');
  } catch {
    return waitForExit(child);
  }
};`,
  },
  {
    name: 'not a retry: a work loop that hands the caught value to its next pass (minified React)',
    finds: [],
    code: `
function work(root, thrown) {
  for (;;) {
    try {
      if (thrown !== null) handle(root, thrown);
      perform(root);
    } catch (e) {
      thrown = e;
      continue;
    }
    break;
  }
}`,
  },
  {
    name: 'not a retry: resolving a path through its parent (recursion on another argument)',
    finds: [],
    code: `
async function realPath(p) {
  try {
    return await fs.realpath(p);
  } catch (e) {
    const parent = path.dirname(p);
    if (e.code !== 'ENOENT' || parent === p) throw e;
    return path.join(await realPath(parent), path.basename(p));
  }
}`,
  },
  {
    name: 'not a retry: a fallback implementation swapped in on failure',
    finds: [],
    code: `
function alloc(size) {
  alloc = modern;
  try {
    return alloc(size);
  } catch (e) {
    alloc = legacy;
    return alloc(size);
  }
}`,
  },
  {
    name: 'not a retry: the call again without the headers (a CORS fallback)',
    finds: [],
    code: `
async function fetchWithFallback(url, headers) {
  try {
    return await fetch(url, { headers });
  } catch (error) {
    if (error instanceof TypeError && headers) return fetchWithFallback(url, undefined);
    throw error;
  }
}`,
  },
  {
    name: 'not a retry: authorize on a 401, then send again (a repair on the failure status)',
    finds: [],
    code: `
class Transport {
  async send(message) {
    const res = await fetch(this.url, { method: 'POST', body: JSON.stringify(message) });
    if (!res.ok) {
      if (res.status === 401 && this.auth) {
        const result = await authorize(this.auth);
        if (result !== 'AUTHORIZED') throw new Error('unauthorized');
        return this.send(message);
      }
      throw new Error('HTTP ' + res.status);
    }
  }
}`,
  },
  {
    name: 'not a retry: restart the worker process, then run again (a recover step first)',
    lang: 'ts',
    finds: [],
    code: `
class RetryRejected {
  async run<T>(act: () => Promise<T>, attemptsLeft = 2, lastError?: unknown): Promise<T | string> {
    if (attemptsLeft > 0) {
      try {
        return await act();
      } catch (error) {
        await this.recover();
        return this.run(act, attemptsLeft - 1, error);
      }
    }
    return String(lastError);
  }
}`,
  },
  {
    name: 'not a retry: reading messages until the buffer is empty, errors reported',
    finds: [],
    code: `
function drain(buffer, onMessage, onError) {
  while (true) {
    try {
      const message = buffer.readMessage();
      if (message === null) break;
      onMessage(message);
    } catch (error) {
      onError(error);
    }
  }
}`,
  },
  {
    name: 'not a retry: reading a stream, waiting once for a slow chunk',
    finds: [],
    code: `
async function readSome(reader, values) {
  let max = 2;
  for (let i = 0; i < max; i++) {
    const chunk = await reader.read().catch(() => undefined);
    if (!chunk) {
      if (i === 1) {
        await new Promise((r) => setTimeout(r));
        max = 3;
        continue;
      }
      break;
    }
    values.push(chunk.value);
    if (chunk.done) break;
  }
}`,
  },
  {
    name: 'not a retry: subscribing to the next source after an error (rxjs onErrorResumeNext)',
    finds: [],
    code: `
function resumeNext(sources, subscriber) {
  let index = 0;
  const subscribeNext = () => {
    if (index < sources.length) {
      let source;
      try {
        source = from(sources[index++]);
      } catch (err) {
        subscribeNext();
        return;
      }
      source.subscribe({ complete: subscribeNext, error: subscribeNext });
    } else subscriber.complete();
  };
  subscribeNext();
}`,
  },
  {
    name: "a socket loop with a fixed wait, bounded by the caller's abort (playwright android)",
    finds: ['require-jitter'],
    code: `
async function connectSocket(device, name, progress) {
  let socket;
  while (!socket) { // <-
    try {
      socket = await device.open(name);
    } catch (e) {
      if (isAbortError(e)) throw e;
      await progress.wait(250);
    }
  }
  return socket;
}`,
  },
  {
    name: 'not a retry: a scheduler that defers the rest of its queue and rethrows (React scheduler)',
    finds: [],
    code: `
let pending = null;
const flush = function () {
  if (pending !== null) {
    try {
      pending(true, now());
      pending = null;
    } catch (e) {
      throw (setTimeout(flush, 0), e);
    }
  }
};`,
  },
  // Shapes the first audit missed.
  {
    name: 'a reset retried with a doubling backoff, the error reworded first (playwright fetch)',
    finds: ['require-jitter'],
    code: `
async function sendWithRetries(send, maxRetries) {
  let backoff = 250;
  for (let i = 0; i <= maxRetries; i++) { // <-
    try {
      return await send();
    } catch (e) {
      e = reword(e);
      if (i === maxRetries || e.code !== 'ECONNRESET') throw e;
      await wait(backoff);
      backoff *= 2;
    }
  }
}`,
  },
  {
    name: 'a reconnect: the promise chain schedules itself again after a failure',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
function start(client) { // <-
  client
    .connect()
    .then(onReady)
    .catch(() => new Promise((r) => setTimeout(r, 2000)).then(() => start(client)));
}`,
  },
  {
    name: 'a reconnect: setTimeout handed the function itself, from .catch() and from a close event',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
function listen() { // <-
  const ws = new WebSocket(url);
  ws.on('close', () => setTimeout(listen, 1000));
}
function subscribe() { // <-
  stream.open().catch(() => setTimeout(subscribe, 5000));
}`,
  },
  {
    name: 'a labelled continue from a catch restarts the whole batch',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
async function uploadAll(parts) {
  outer: for (;;) { // <-
    for (const part of parts) {
      try {
        await upload(part);
      } catch (err) {
        await sleep(1000);
        continue outer;
      }
    }
    return;
  }
}`,
  },
  {
    name: 'recursion through the object that holds the method (K.f()), and through this.f()',
    lang: 'ts',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
const client = {
  async get(url: string): Promise<Response> { // <-
    try {
      return await fetch(url);
    } catch {
      await sleep(500);
      return client.get(url);
    }
  },
};
class Api {
  static async load(id: string): Promise<unknown> { // <-
    try {
      return await fetch('/items/' + id);
    } catch {
      await sleep(500);
      return Api.load(id);
    }
  }
  async fetchData(): Promise<unknown> { // <-
    try {
      return await fetch('/data');
    } catch {
      await sleep(1000);
      return this.fetchData();
    }
  }
}`,
  },
  {
    name: 'a reconnect from the onclose and onerror handler properties, in a function and in a class',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
function connect() { // <-
  const ws = new WebSocket(url);
  ws.onclose = () => setTimeout(connect, 1000);
}
class Feed {
  connect() { // <-
    this.ws = new WebSocket(this.url);
    this.ws.onerror = () => setTimeout(() => this.connect(), 1000);
  }
}`,
  },
  {
    name: 'a reconnect from onclose with jitter and a limit',
    finds: ['require-transient-check'],
    code: `
let attempts = 0;
function connect() { // <-
  const ws = new WebSocket(url);
  ws.onopen = () => { attempts = 0; };
  ws.onclose = () => {
    if (attempts++ < 5) setTimeout(connect, 1000 * 2 ** attempts * Math.random());
  };
}`,
  },
  {
    name: 'handler properties that are not a failure (onmessage, onopen) do not make a retry',
    finds: [],
    code: `
function poll() {
  const ws = new WebSocket(url);
  ws.onmessage = () => setTimeout(poll, 1000);
  ws.onopen = () => setTimeout(poll, 1000);
}`,
  },
  {
    name: 'a continue on the success path (drain while r.more, then return) does not hide the catch retry (review)',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
async function drain(fn) {
  while (true) { // <-
    let r;
    try { r = await fn(); } catch (e) { await sleep(1000); continue; }
    if (r.more) continue;
    return r;
  }
}`,
  },
  {
    name: 'look-alike: a poller whose success goes round again and never leaves is not a retry',
    finds: [],
    code: `
async function watch(fn) {
  while (true) {
    let r;
    try { r = await fn(); } catch (e) { await sleep(1000); continue; }
    if (r.more) continue;
    await sleep(5000);
  }
}`,
  },
  {
    name: 'await makeTimeoutError() as a statement of the catch, a function of the file that only builds an Error, is no repair (review)',
    finds: ['no-immediate-retry'],
    code: `
function makeTimeoutError() { return new Error('timeout'); }
async function send(fn) {
  for (let i = 0; i < 5; i++) { // <-
    try { return await fn(); }
    catch (err) {
      if (err.code !== 'ETIMEDOUT') throw err;
      await makeTimeoutError();
    }
  }
  throw makeTimeoutError();
}`,
  },
  {
    name: 'a builder of the file called on its own in a forever catch: every rule (review)',
    finds: ['no-immediate-retry', 'require-retry-limit', 'require-transient-check'],
    code: `
const makeTimeoutError = () => new Error('timeout');
async function send(fn) {
  while (true) { // <-
    try { return await fn(); }
    catch (err) { await makeTimeoutError(); }
  }
}`,
  },
];
