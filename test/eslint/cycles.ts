/**
 * Retries written across functions of one file, the shapes that SDKs and drivers ship (issue 22): a method that
 * schedules another method, a timer or backoff helper class, a handler passed by reference, a limit kept in a
 * helper, an alias of the error. Hand-labelled: a line ending in `// <-` is the attempt the cycle goes back to, where
 * the report goes; `finds` lists what the cycle lacks. Look-alikes at the end have no mark and no report.
 */
import type { Sample } from './samples';

export const cycles: readonly Sample[] = [
  {
    name: 'cycle: the error listener calls this.retryLater(), whose timer calls this.connect() again',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
class Client {
  connect() { // <-
    this.socket = net.connect(this.port);
    this.socket.on('error', (err) => this.retryLater(err));
  }
  retryLater(err) {
    this.socket = undefined;
    this.timer = setTimeout(() => this.connect(), 1000);
  }
}`,
  },
  {
    name: 'cycle: limit, classifier and a jittered delay, each in another method of the class',
    finds: [],
    code: `
class Consumer {
  async start() {
    try {
      await this.subscribe();
      this.attempts = 0;
    } catch (err) {
      if (!isRetryable(err)) throw err;
      this.scheduleRestart();
    }
  }
  scheduleRestart() {
    if (this.attempts >= this.maxAttempts) {
      this.emit('give-up');
      return;
    }
    this.attempts++;
    setTimeout(() => this.start(), this.nextDelay());
  }
  nextDelay() {
    return Math.random() * Math.min(30000, 100 * 2 ** this.attempts);
  }
}`,
  },
  {
    name: 'cycle: the delay computed by a method of the class is read, and it has no randomness',
    lang: 'ts',
    finds: ['require-jitter'],
    code: `
class Consumer {
  private attempts = 0;
  async start(): Promise<void> { // <-
    try {
      await this.subscribe();
      this.attempts = 0;
    } catch (err) {
      if (!isRetryable(err)) throw err;
      this.scheduleRestart();
    }
  }
  private scheduleRestart(): void {
    if (this.attempts >= 8) return;
    this.attempts++;
    setTimeout(() => this.start(), this.nextDelay());
  }
  private nextDelay(): number {
    return Math.min(30_000, 100 * 2 ** this.attempts);
  }
}`,
  },
  {
    name: 'cycle: a Timer class of the file reconnects forever in steps of 1, 2, 5, 10 s',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
class Timer {
  constructor(callback, timerCalc) {
    this.callback = callback;
    this.timerCalc = timerCalc;
    this.timer = null;
    this.tries = 0;
  }
  reset() {
    this.tries = 0;
    clearTimeout(this.timer);
  }
  scheduleTimeout() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.tries = this.tries + 1;
      this.callback();
    }, this.timerCalc(this.tries + 1));
  }
}
export class Socket {
  constructor(url) {
    this.url = url;
    this.reconnectTimer = new Timer(() => this.connect(), (tries) => [1000, 2000, 5000][tries - 1] || 10000);
  }
  connect() { // <-
    this.conn = new WebSocket(this.url);
    this.conn.onopen = () => this.reconnectTimer.reset();
    this.conn.onclose = () => {
      this.conn = null;
      this.reconnectTimer.scheduleTimeout();
    };
  }
}`,
  },
  {
    name: 'cycle: an imported Timer (out of reach) is taken as a wait by its name, its delay unknown',
    finds: ['require-retry-limit', 'require-transient-check'],
    code: `
import Timer from './timer';
export class Channel {
  constructor(socket) {
    this.socket = socket;
    this.rejoinTimer = new Timer(() => this.rejoin(), this.socket.rejoinAfterMs);
  }
  rejoin() { // <-
    this.joinPush = this.socket.push('phx_join');
    this.joinPush.receive('error', () => this.rejoinTimer.scheduleTimeout());
    this.joinPush.receive('timeout', () => this.rejoinTimer.scheduleTimeout());
  }
}`,
  },
  {
    name: 'recursion: state reset on this before calling again is not a repair',
    finds: ['no-immediate-retry', 'require-retry-limit', 'require-transient-check'],
    code: `
class Pool {
  async query(sql) { // <-
    try {
      return await this.conn.query(sql);
    } catch (err) {
      this.conn = undefined;
      return this.query(sql);
    }
  }
}`,
  },
  {
    name: 'loop: the error copied to another name (compiled TypeScript: const ne = err) is still checked',
    finds: [],
    code: `
async function call(fn) {
  for (let i = 0; i < 5; i++) {
    try {
      return await fn();
    } catch (err) {
      const ne = err;
      if (ne.code !== 'ECONNRESET') throw ne;
      await sleep(100 * Math.random());
    }
  }
}`,
  },
  {
    name: 'recursion: .catch(load) is the same immediate retry as .catch(() => load())',
    finds: ['no-immediate-retry', 'require-retry-limit', 'require-transient-check'],
    code: `
export function load() { // <-
  return fetch('/config').then((r) => r.json()).catch(load);
}`,
  },
  {
    name: 'recursion: .then(null, load) retries on the rejection',
    finds: ['no-immediate-retry', 'require-retry-limit', 'require-transient-check'],
    code: `
function load() { // <-
  return fetch('/config').then(null, load);
}`,
  },
  {
    name: "recursion: s.on('error', connect) reconnects at once, forever",
    lang: 'cjs',
    finds: ['no-immediate-retry', 'require-retry-limit', 'require-transient-check'],
    code: `
function connect() { // <-
  const s = net.connect(6379);
  s.on('error', connect);
  return s;
}`,
  },
  {
    name: 'cycle: a module function passed to .catch() schedules the attempt again',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
function connect() { // <-
  db.open().then(serve).catch(onError);
}
function onError(err) {
  console.error('db down', err);
  setTimeout(connect, 2000);
}`,
  },
  {
    name: 'loop: a limit kept in a local helper that throws',
    finds: [],
    code: `
function assertAttempts(n, max, err) {
  if (n >= max) throw err;
}
async function get(url) {
  for (let n = 0; ; n++) {
    try {
      return await fetch(url);
    } catch (err) {
      if (!isTransient(err)) throw err;
      assertAttempts(n, 5, err);
      await sleep(Math.random() * 1000);
    }
  }
}`,
  },
  {
    name: 'loop: makeTimeoutError() and clearTimeout() are not waits',
    finds: ['no-immediate-retry'],
    code: `
async function send(req) {
  let lastError;
  for (let i = 0; i < 3; i++) { // <-
    const timer = setTimeout(() => req.abort(), 5000);
    try {
      return await transport(req);
    } catch (err) {
      lastError = makeTimeoutError(err);
      if (!retryable(err)) throw lastError;
    } finally {
      clearTimeout(timer);
    }
  }
  throw lastError;
}`,
  },
  {
    name: 'loop: a flag named like a limit that no counter or clock sets is not a limit',
    finds: ['require-retry-limit'],
    code: `
class Sender {
  async send(m) {
    while (!this.rateLimited) { // <-
      try {
        return await this.http.post(m);
      } catch (err) {
        if (err.status !== 503) throw err;
        await sleep(1000 * Math.random());
      }
    }
  }
  onHeaders(h) {
    this.rateLimited = h['x-ratelimit-remaining'] === '0';
  }
}`,
  },
  {
    name: 'recursion: a node-style callback (err) => { if (err) this.reconnect() } behind a backoff class of the file',
    finds: ['require-transient-check'],
    code: `
class Backoff {
  constructor(opts) {
    this.ms = opts.min || 100;
    this.max = opts.max || 10000;
    this.attempts = 0;
  }
  duration() {
    const ms = this.ms * 2 ** this.attempts++;
    return Math.min(ms * (1 + Math.random()), this.max) | 0;
  }
}
class Manager {
  constructor(opts) {
    this.backoff = new Backoff(opts);
  }
  reconnect() { // <-
    if (this.backoff.attempts >= this.reconnectionAttempts) {
      this.emit('reconnect_failed');
      return;
    }
    const delay = this.backoff.duration();
    this.timer = setTimeout(() => {
      this.open((err) => {
        if (err) {
          this.reconnecting = false;
          this.reconnect();
        }
      });
    }, delay);
  }
}`,
  },
  {
    name: 'cycle: #private methods, a bound counter and a classifier, a delay with no randomness',
    lang: 'ts',
    finds: ['require-jitter'],
    code: `
class Stream {
  #attempt = 0;
  async #open(): Promise<void> { // <-
    try {
      await this.#dial();
      this.#attempt = 0;
    } catch (err) {
      this.#backoff(err);
    }
  }
  #backoff(err: { code?: string }): void {
    if (++this.#attempt > 10) throw err;
    if (err.code === 'EAUTH') throw err;
    setTimeout(() => this.#open(), 500 * this.#attempt);
  }
}`,
  },
  {
    name: 'cycle: a close listener bound by reference (this.onClose.bind(this)) reconnects through a timer',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
class Feed {
  open() { // <-
    this.ws = new WebSocket(this.url);
    this.ws.addEventListener('close', this.onClose.bind(this));
  }
  onClose() {
    this.ws = undefined;
    setTimeout(() => this.open(), this.reconnectInterval);
  }
}`,
  },
  {
    name: 'recursion: self.reconnect() through const self = this (socket.io-client), with a limit and jitter',
    finds: ['require-transient-check'],
    code: `
class Manager {
  reconnect() { // <-
    const self = this;
    if (this.backoff.attempts >= this.maxAttempts) return;
    const delay = Math.random() * this.backoff.duration();
    this.timer = setTimeout(() => {
      self.open((err) => {
        if (err) self.reconnect();
      });
    }, delay);
  }
}`,
  },
  {
    name: 'loop: the response kept from a fresh const each pass is not a step (elasticsearch scroll on 429)',
    finds: ['require-jitter'],
    code: `
async function next(client, scrollId, maxRetries, wait) {
  let response;
  for (let i = 0; i <= maxRetries; i++) { // <-
    const r = await client.scroll({ scroll_id: scrollId });
    response = r;
    if (response.statusCode !== 429) break;
    await sleep(wait);
  }
  return response;
}`,
  },
  // Open cycles: the handler of the next failure is run from out of reach (the transport, another file, an emit).
  {
    name: 'open cycle: a close handler method schedules connect() through an imported Timer (phoenix socket)',
    finds: ['require-retry-limit', 'require-transient-check'],
    code: `
import Timer from './timer';
export class Socket {
  constructor(opts) {
    this.reconnectTimer = new Timer(() => this.teardownAndReconnect(() => this.connect()), opts.reconnectAfterMs);
  }
  connect() { // <-
    this.conn = new this.transport(this.url);
  }
  teardownAndReconnect(callback) {
    this.conn = null;
    callback();
  }
  onConnClose(event) {
    this.log('close', event);
    if (!this.closeWasClean) this.reconnectTimer.scheduleTimeout();
  }
}`,
  },
  {
    name: "open cycle: the push's error listener, in the constructor, rejoins through an imported Timer (phoenix channel)",
    finds: ['require-retry-limit', 'require-transient-check'],
    code: `
import Timer from './timer';
export class Channel {
  constructor(topic, socket) {
    this.joinPush = new Push(this, 'phx_join');
    this.rejoinTimer = new Timer(() => {
      if (this.socket.isConnected()) this.rejoin();
    }, this.rejoinAfterMs);
    this.joinPush.receive('error', () => {
      this.state = 'errored';
      if (this.socket.isConnected()) this.rejoinTimer.scheduleTimeout();
    });
  }
  rejoin() { // <-
    this.state = 'joining';
    this.joinPush.resend(this.timeout);
  }
}`,
  },
  {
    name: 'open cycle: retryIn(ms) hands connect() to an imported Timer; its callers judged the failure (pusher)',
    lang: 'ts',
    finds: ['require-retry-limit'],
    code: `
import { OneOffTimer as Timer } from '../utils/timers';
export class ConnectionManager {
  private retryTimer: Timer | null = null;
  connect(): void { // <-
    if (this.runner) return;
    this.runner = this.strategy.connect(0, this.callbacks);
  }
  private retryIn(delay: number): void {
    this.retryTimer = new Timer(delay || 0, () => {
      this.disconnectInternally();
      this.connect();
    });
  }
}`,
  },
  {
    name: "open cycle: the class's own 'close' listener sets an interval that reconnects (mqtt)",
    lang: 'cjs',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
class Client extends EventEmitter {
  constructor(options) {
    super();
    this.options = options;
    this.on('close', () => {
      this.connected = false;
      this._setupReconnect();
    });
  }
  connect() {
    this.stream = net.connect(this.options);
    this.stream.on('close', () => this.emit('close'));
  }
  _setupReconnect() {
    if (!this.reconnectTimer && this.options.reconnectPeriod > 0) {
      this.reconnectTimer = setInterval(() => this._reconnect(), this.options.reconnectPeriod);
    }
  }
  _reconnect() { // <-
    this.emit('reconnect');
    this.connect();
  }
}
module.exports = Client;`,
  },
  {
    name: 'open cycle: a close listener that reconnects at most maxReconnects times, jittered, on a retryable code',
    finds: [],
    code: `
export class Client {
  constructor() {
    this.attempts = 0;
    this.on('close', (event) => {
      if (!RETRYABLE.has(event.code) || this.attempts >= this.maxReconnects) return;
      this.attempts++;
      setTimeout(() => this.connect(), Math.random() * 1000 * 2 ** this.attempts);
    });
  }
  connect() {
    this.ws = new WebSocket(this.url);
  }
}`,
  },
  {
    name: 'look-alike: an error listener that schedules a cleanup, not an attempt',
    finds: [],
    code: `
export class Cache {
  constructor(db) {
    this.db = db;
    this.db.on('error', (err) => {
      log(err);
      setTimeout(() => this.clear(), 1000);
    });
  }
  clear() {
    this.entries = new Map();
  }
}`,
  },
  {
    name: 'look-alike: a close handler that opens another resource with new arguments',
    finds: [],
    code: `
export class Pool {
  onConnClose(conn) {
    this.remove(conn);
    setTimeout(() => this.open({ host: this.next() }), 100);
  }
  open(options) {
    this.conns.push(net.connect(options));
  }
}`,
  },
  {
    name: 'look-alike: an error listener calls the error handler of the subscription, named subscribe-something',
    finds: [],
    code: `
export class Subscription {
  constructor(transport) {
    transport.on('error', (err) => this._subscribeError(err));
  }
  _subscribeError(err) {
    this.failed = true;
    this.emit('error', err);
  }
}`,
  },
  {
    name: 'cycle: the count the class steps is handed to a retry policy out of reach, whose answer decides (cassandra)',
    finds: ['no-immediate-retry'],
    code: `
export class RequestExecution {
  send() { // <-
    this.connection.send(this.request, (err, res) => {
      if (err) return this.handleError(err);
      this.done(res);
    });
  }
  handleError(err) {
    if (isFatal(err)) return this.fail(err);
    const decision = this.policy.onRequestError({ nbRetry: this.retryCount }, err);
    if (decision.retry) this.retry();
    else this.fail(err);
  }
  retry() {
    this.retryCount++;
    this.send();
  }
}`,
  },
  {
    name: 'cycle: the count is only told to listeners, nothing out of reach decides with it: no limit',
    finds: ['no-immediate-retry', 'require-retry-limit'],
    code: `
export class RequestExecution {
  send() { // <-
    this.connection.send(this.request, (err, res) => {
      if (err) return this.handleError(err);
      this.done(res);
    });
  }
  handleError(err) {
    if (isFatal(err)) return this.fail(err);
    this.emit('retry', { attempt: this.retryCount });
    this.retry();
  }
  retry() {
    this.retryCount++;
    this.send();
  }
}`,
  },
  // Through a callback parameter: the retry hands itself to the attempt, which calls it back with what failed.
  {
    name: 'recursion through a callback parameter: retrySearch hands itself to tryMsearch, which calls it back with the 429s (elasticsearch msearch)',
    finds: ['require-jitter'],
    code: `
export function msearchOperation(client, body, retries, wait, done) {
  let retryCount = retries;
  tryMsearch(body, retrySearch);
  function retrySearch(body) { // <-
    if (body.length > 0 && retryCount > 0) {
      retryCount -= 1;
      setTimeout(tryMsearch, wait, body, retrySearch);
      return;
    }
    done();
  }
  function tryMsearch(body, done) {
    client.msearch({ body }).then((results) => {
      const retryBody = [];
      for (const response of results.responses) {
        if (response.status === 429) retryBody.push(response.request);
      }
      done(retryBody);
    });
  }
}`,
  },
  {
    name: 'recursion through a callback parameter, the exhausted items dropped in a loop of their own (elasticsearch bulk)',
    lang: 'cjs',
    finds: ['require-jitter'],
    code: `
function bulkOperation(client, bulkBody, retries, wait, onDrop, callback) {
  let retryCount = retries;
  tryBulk(bulkBody, retryDocuments);
  function retryDocuments(err, bulkBody) { // <-
    if (err != null) return callback(err);
    if (bulkBody.length > 0) {
      if (retryCount > 0) {
        retryCount -= 1;
        setTimeout(tryBulk, wait, bulkBody, retryDocuments);
        return;
      }
      for (let i = 0, len = bulkBody.length; i < len; i = i + 2) onDrop(bulkBody[i]);
    }
    callback();
  }
  function tryBulk(bulkBody, callback) {
    client.bulk({ body: bulkBody }, (err, result) => {
      if (err) return callback(err, []);
      const retry = [];
      for (const item of result.items) if (item.status === 429) retry.push(item);
      callback(null, retry);
    });
  }
}
module.exports = bulkOperation;`,
  },
  {
    name: 'look-alike: a function hands itself to a pager that calls it back with the next page (no failure in it)',
    finds: [],
    code: `
export function readAll(client, cursor, out, done) {
  fetchPage(cursor, onPage);
  function onPage(items, next) {
    out.push(...items);
    if (next) setTimeout(fetchPage, 0, next, onPage);
    else done(out);
  }
  function fetchPage(cursor, cb) {
    client.list({ cursor }).then((page) => cb(page.items, page.next));
  }
}`,
  },
  {
    name: 'cycle: a timer helper written as a class expression (compiled output), its callback a parameter with a default',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
const Timer = class {
  static {
    this.created = 0;
  }
  [Symbol.toStringTag] = 'Timer';
  constructor(callback = () => {}, ms = 1000) {
    this.callback = callback;
    this.ms = ms;
  }
  schedule() {
    this.handle = setTimeout(() => this.callback(), this.ms);
  }
};
export class Client {
  constructor() {
    this.timer = new Timer(() => this.connect(), 1000);
  }
  connect() { // <-
    this.socket = net.connect(this.port);
    this.socket.on('error', () => this.timer.schedule());
  }
}`,
  },
  {
    name: 'cycle: a counter kept under a symbol key, stepped and compared, is the limit (compiled private state)',
    finds: ['require-jitter'],
    code: `
const kAttempts = Symbol('attempts');
export class Client {
  constructor() {
    this[kAttempts] = 0;
  }
  connect() { // <-
    this.socket = net.connect(this.port);
    this.socket.on('error', (err) => this.retryLater(err));
  }
  retryLater(err) {
    if (err.code !== 'ECONNREFUSED') throw err;
    this[kAttempts]++;
    if (this[kAttempts] > 5) return;
    setTimeout(() => this.connect(), 1000);
  }
}`,
  },
  // Look-alikes read in node_modules (issue 22): each was reported as a retry.
  {
    name: "look-alike: an async generator's resume hands the error into the generator (babel's helper)",
    lang: 'cjs',
    finds: [],
    code: `
function AsyncGenerator(gen) {
  var front;
  function resume(key, arg) {
    try {
      var result = gen[key](arg);
      Promise.resolve(result.value).then(function (arg) {
        settle(!!result.done, arg);
      }, function (err) {
        resume("throw", err);
      });
    } catch (err) {
      settle(2, err);
    }
  }
  function settle(type, value) {
    if (type === 2) front.reject(value);
    else front.resolve({ value: value, done: type });
    front = front.next;
    if (front) resume(front.key, front.arg);
  }
}
module.exports = AsyncGenerator;`,
  },
  {
    name: "look-alike: the error handed to the app's error handler through the same wrapper, with other arguments (vue)",
    finds: [],
    code: `
export function callWithErrorHandling(fn, instance, type, args) {
  try {
    return args ? fn(...args) : fn();
  } catch (err) {
    handleError(err, instance, type);
  }
}
function handleError(err, instance, type) {
  const appErrorHandler = instance && instance.appContext.config.errorHandler;
  if (appErrorHandler) {
    callWithErrorHandling(appErrorHandler, null, 10, [err, instance, type]);
    return;
  }
  logError(err, type);
}`,
  },
  {
    name: 'look-alike: on a clean close, recursion into each child found (tree-kill)',
    lang: 'cjs',
    finds: [],
    code: `
function buildProcessTree(parentPid, tree, pidsToProcess, cb) {
  var ps = spawn('ps', ['-o', 'pid', '--no-headers', '--ppid', parentPid]);
  var allData = '';
  ps.stdout.on('data', function (data) { allData += data; });
  var onClose = function (code) {
    delete pidsToProcess[parentPid];
    if (code != 0) {
      if (Object.keys(pidsToProcess).length == 0) cb();
      return;
    }
    allData.match(/\\d+/g).forEach(function (pid) {
      pid = parseInt(pid, 10);
      tree[parentPid].push(pid);
      pidsToProcess[pid] = 1;
      buildProcessTree(pid, tree, pidsToProcess, cb);
    });
  };
  ps.on('close', onClose);
}
module.exports = buildProcessTree;`,
  },
  // Names that count because their code is out of reach (each fails if the word is dropped from the detector).
  {
    name: 'loop: a deadline helper out of reach is a limit by its name',
    finds: [],
    code: `
async function call(f) {
  for (;;) {
    try {
      return await f();
    } catch (e) {
      if (!transient(e)) throw e;
      if (pastDeadline()) throw e;
      await sleep(Math.random() * 100);
    }
  }
}`,
  },
  {
    name: 'loop: an awaited backoff() out of reach is a wait by its name (its delay read from the counter: fixed)',
    finds: ['require-jitter'],
    code: `
async function call(f) {
  for (let n = 0; n < 5; n++) { // <-
    try {
      return await f();
    } catch (e) {
      if (!transient(e)) throw e;
      await backoff(n);
    }
  }
}`,
  },
  // Look-alikes: the success path schedules, or the failure path does not lead back.
  {
    name: 'look-alike: a heartbeat that schedules the next ping on success is polling',
    finds: [],
    code: `
class Heartbeat {
  start() {
    this.ws.send('ping');
    this.timer = setTimeout(() => this.start(), 30000);
  }
  stop() {
    clearTimeout(this.timer);
  }
}`,
  },
  {
    name: 'look-alike: the error listener cleans up and reports; nothing calls the attempt again',
    finds: [],
    code: `
class Conn {
  connect() {
    this.socket = net.connect(this.port);
    this.socket.on('error', (err) => this.destroy(err));
  }
  destroy(err) {
    this.socket = undefined;
    clearTimeout(this.timer);
    this.emit('error', err);
  }
}`,
  },
  {
    name: 'look-alike: the failure falls back to another host, a different call',
    finds: [],
    code: `
class Dialer {
  dial(host) {
    net.connect(host).on('error', () => this.next(host));
  }
  next(host) {
    const i = this.hosts.indexOf(host);
    if (i + 1 < this.hosts.length) setTimeout(() => this.dial(this.hosts[i + 1]), 100);
  }
}`,
  },
  {
    name: 'look-alike: a flush scheduled after each batch, errors or not, walks a queue',
    finds: [],
    code: `
class Batcher {
  flush() {
    const batch = this.queue.shift();
    if (!batch) return;
    send(batch).catch((err) => this.emit('error', err)).finally(() => this.scheduleFlush());
  }
  scheduleFlush() {
    this.timer = setTimeout(() => this.flush(), 100);
  }
}`,
  },
  {
    name: 'cycle: the limit kept in a yes/no helper of the class, if (this.exhausted()) return (review)',
    finds: ['require-transient-check'],
    code: `
class Client {
  constructor(port) { this.port = port; this.attempts = 0; this.max = 7; }
  open() { // <-
    const s = net.connect(this.port);
    s.on('connect', () => { this.attempts = 0; });
    s.on('close', (hadError) => this.onClose(hadError));
  }
  onClose(hadError) {
    if (!hadError) return;
    if (this.exhausted()) return;
    setTimeout(() => this.open(), Math.random() * 1000);
  }
  exhausted() { return ++this.attempts > this.max; }
}`,
  },
  {
    name: 'cycle: complete, the check in an arrow class field handed by reference, the limit in a helper (review)',
    finds: [],
    lang: 'ts',
    code: `
const RETRYABLE = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE']);
function isRetryable(err: NodeJS.ErrnoException | undefined): boolean { return !!err?.code && RETRYABLE.has(err.code); }
export class Client {
  #attempts = 0;
  #lastError?: NodeJS.ErrnoException;
  readonly #max = 7;
  constructor(private readonly port: number) {}
  #open(): void {
    const s = connect(this.port);
    s.on('connect', () => { this.#attempts = 0; });
    s.on('error', (e: NodeJS.ErrnoException) => { this.#lastError = e; });
    s.on('close', this.#onClose);
  }
  #onClose = (hadError: boolean): void => {
    if (!hadError || !isRetryable(this.#lastError)) return;
    if (this.#exhausted()) return;
    setTimeout(() => this.#open(), Math.floor(Math.random() * 1000));
  };
  #exhausted(): boolean { return ++this.#attempts > this.#max; }
}`,
  },
  {
    name: 'cycle: the error handed on to a method of the file named like recovery (_abandonRecovery) is no check (amqplib)',
    finds: ['require-transient-check'],
    code: `
class Recovery {
  _connect() { // <-
    open().then((model) => this._bindModel(model), (err) => this._scheduleReconnect(err));
  }
  _bindModel(model) { // <-
    const onClose = (maybeErr) => {
      const err = maybeErr || new Error('closed');
      this._scheduleReconnect(err);
    };
    model.on('close', onClose);
  }
  _scheduleReconnect(err) {
    if (this._attempt >= this.maxRetries) {
      this._abandonRecovery(err);
      return;
    }
    this._attempt++;
    this._timer = setTimeout(() => this._connect(), Math.random() * 1000 * 2 ** this._attempt);
  }
  _abandonRecovery(err) {
    this._failure = err;
    this.emit('reconnect-failed', err);
  }
}`,
  },
  {
    name: 'not a retry: an error handler that shifts a list of transports and opens the next one (engine.io-client)',
    finds: [],
    code: `
class Socket {
  _open() {
    const transport = this.createTransport(this.transports[0]);
    transport.open();
    transport.on('error', (err) => this._onError(err));
  }
  _onError(err) {
    if (this.opts.tryAllTransports && this.transports.length > 1 && this.readyState === 'opening') {
      this.transports.shift();
      return this._open();
    }
    this.emit('error', err);
    this._onClose('transport error', err);
  }
}`,
  },
  {
    name: 'cycle: a close code checked with switch is a check: fatal codes end it, others reconnect (@discordjs/ws)',
    finds: ['require-jitter', 'require-retry-limit'],
    code: `
class Shard {
  async internalConnect() { // <-
    const connection = new WebSocket(this.url);
    connection.onclose = (event) => {
      void this.onClose(event.code);
    };
    this.connection = connection;
  }
  async destroy(options = {}) {
    if (this.connection) this.connection.close(options.code);
    if (options.recover !== undefined) {
      await sleep(500);
      return this.internalConnect();
    }
  }
  async onClose(code) {
    switch (code) {
      case 1000:
        return this.destroy({ code, recover: 0 });
      case 4004:
        this.emit('error', new Error('Authentication failed'));
        return this.destroy({ code });
      default:
        return this.destroy({ code, recover: 1 });
    }
  }
}`,
  },
  {
    name: 'loop: the limit lives in the helper the catch hands the error to, which throws past retryAttempts (graphql-ws)',
    finds: [],
    code: `
export function createClient(options) {
  const { retryAttempts = 5, retryWait = randomisedExponentialBackoff, shouldRetry = isLikeCloseEvent } = options;
  let retries = 0;
  let retrying = false;
  async function connect() {
    if (retrying) {
      await retryWait(retries);
      retries++;
    }
    const socket = new WebSocket(options.url);
    return await opened(socket);
  }
  function shouldRetryConnectOrThrow(errOrCloseEvent) {
    if (isFatalCloseCode(errOrCloseEvent.code)) throw errOrCloseEvent;
    if (!retryAttempts || retries >= retryAttempts) throw errOrCloseEvent;
    if (!shouldRetry(errOrCloseEvent)) throw errOrCloseEvent;
    return (retrying = true);
  }
  return {
    subscribe(payload, sink) {
      (async () => {
        for (;;) {
          try {
            const socket = await connect();
            await socket.done;
            return;
          } catch (errOrCloseEvent) {
            if (!shouldRetryConnectOrThrow(errOrCloseEvent)) return;
          }
        }
      })().catch(sink.error);
    },
  };
}
async function randomisedExponentialBackoff(retries) {
  await new Promise((resolve) => setTimeout(resolve, 2 ** retries * 1000 + Math.floor(Math.random() * 2700 + 300)));
}`,
  },
];
