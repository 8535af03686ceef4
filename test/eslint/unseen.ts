/**
 * Shapes of the grown dev half of bench/audit-unseen.json (extraDev, session audit30): written as small samples of
 * those shapes, not copies, each failing before its change. Marks as in cycles.ts: `// <-` where the report goes.
 */
import type { Sample } from './samples';

export const unseen: readonly Sample[] = [
  {
    name: "edges of this session's shapes: a count stepped by += or 1 + n, a field counted with += and read nowhere, an option || a default function, an error wrapped in a conditional",
    lang: 'cjs',
    finds: ['require-jitter'],
    code: `
class Poller {
  constructor(options) {
    this.delayFor = options.delayFor || function () {
      return 1000;
    };
  }
  async run(url) {
    let left = 3;
    let tries = 0;
    while (left > 0) { // <-
      try {
        return await fetch(url);
      } catch (err) {
        left -= 1;
        tries = 1 + tries;
        this.failures += 1;
        const wrapped = err ? new Failure(err) : new Failure('unknown');
        if (isTransient(wrapped) && left > 0) {
          await new Promise((resolve) => setTimeout(resolve, this.delayFor(tries)));
        } else {
          throw wrapped;
        }
      }
    }
  }
}
module.exports = Poller;`,
  },
  {
    name: "look-alikes of this session's shapes: a wrapper of itself, a parameter call with nothing handed, a strategy answer not handed the error, a local failure handler nobody hands on",
    lang: 'cjs',
    finds: [],
    code: `
function once(cb) {
  let called = false;
  return (...a) => {
    if (!called) {
      called = true;
      cb(...a);
    }
  };
}
const loop = once(loop);
function Vhost() {
  this.init = function (next) {
    open((err) => {
      if (err) return next(err);
      return next();
    });
  };
  this.ping = function () {
    self.init();
  };
  const self = this;
}
function fetchAll(urls, done) {
  get(urls[0], (err, res) => {
    const again = res && res.status >= 500;
    if (again) return setTimeout(() => fetchAll(urls.slice(1), done), 100);
    done(err, res);
  });
}
function attempt(f) {
  const onError = (e) => attempt(f);
  return f();
}
module.exports = { loop, Vhost, fetchAll, attempt };`,
  },
  {
    name: "recursion: the self-call in the attempt's own error handler, a local function handed to .catch() (@lifeomic/attempt)",
    finds: ['require-transient-check'],
    code: `
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export async function retry(attemptFunc, options) {
  const context = { attemptNum: 0, attemptsRemaining: options.maxAttempts };
  async function makeAttempt() { // <-
    const onError = async (err) => {
      if (options.handleError) await options.handleError(err, context);
      if (context.attemptsRemaining === 0) throw err;
      context.attemptNum++;
      await sleep(options.delay * (0.5 + Math.random()));
      return makeAttempt();
    };
    context.attemptsRemaining--;
    return attemptFunc(context).catch(onError);
  }
  return makeAttempt();
}`,
  },
  {
    name: "model: a bound callback's retry decided by a strategy handed the error, its delay an option whose default is the file's fixed function (requestretry)",
    lang: 'cjs',
    finds: ['require-jitter'],
    code: `
function Request(options, config) {
  this.maxAttempts = config.maxAttempts;
  this.retryDelay = config.retryDelay;
  this.retryStrategy = isFunction(options.retryStrategy) ? options.retryStrategy : strategies.HTTPOrNetworkError;
  this.delayStrategy = isFunction(options.delayStrategy)
    ? options.delayStrategy
    : function () {
        return this.retryDelay;
      };
}
Request.prototype._tryUntilFail = function () { // <-
  this.maxAttempts--;
  this._req = send(this.options, async function (err, response) {
    var mustRetry = await Promise.resolve(this.retryStrategy(err, response));
    if (isObject(mustRetry) && has(mustRetry, 'mustRetry')) {
      mustRetry = mustRetry.mustRetry;
    }
    if (mustRetry && this.maxAttempts > 0) {
      this._timeout = setTimeout(this._tryUntilFail.bind(this), this.delayStrategy.call(this, err, response));
      return;
    }
    this.reply(err, response);
  }.bind(this));
};
module.exports = Request;`,
  },
  {
    name: 'look-alike: the same retry with a delay strategy the caller must give (no default of the file) is not called fixed',
    lang: 'cjs',
    finds: [],
    code: `
function Request(options, config) {
  this.maxAttempts = config.maxAttempts;
  this.retryStrategy = options.retryStrategy;
  this.delayStrategy = options.delayStrategy;
}
Request.prototype._tryUntilFail = function () {
  this.maxAttempts--;
  this._req = send(this.options, async function (err, response) {
    var mustRetry = await this.retryStrategy(err, response);
    if (mustRetry && this.maxAttempts > 0) {
      this._timeout = setTimeout(this._tryUntilFail.bind(this), this.delayStrategy.call(this, err, response));
      return;
    }
    this.reply(err, response);
  }.bind(this));
};
module.exports = Request;`,
  },
  {
    name: "model: an observer's error handler retries through a timer, its delay a parameter the file hands from a function out of reach (apollo RetryLink)",
    finds: ['require-transient-check'],
    code: `
export class RetryableOperation {
  retryCount = 0;
  constructor(observer, operation, forward, delayFor, retryIf) {
    this.observer = observer;
    this.operation = operation;
    this.forward = forward;
    this.delayFor = delayFor;
    this.retryIf = retryIf;
    this.try();
  }
  try() { // <-
    this.subscription = this.forward(this.operation).subscribe({
      next: (result) => this.observer.next(result),
      error: (error) => this.onError(error, () => this.observer.error(error)),
      complete: () => this.observer.complete(),
    });
  }
  onError = async (error, onContinue) => {
    this.retryCount += 1;
    const shouldRetry = await this.retryIf(this.retryCount, this.operation);
    if (shouldRetry) {
      this.scheduleRetry(this.delayFor(this.retryCount, this.operation));
      return;
    }
    onContinue();
  };
  scheduleRetry(delay) {
    this.timerId = setTimeout(() => {
      this.timerId = undefined;
      this.try();
    }, delay);
  }
}`,
  },
  {
    name: 'model: a close listener named by an events object (WebsocketEvent.close), the retry set only under a compared count in a helper (websocket-ts)',
    lang: 'cjs',
    finds: ['require-transient-check'],
    code: `
const events = require('./events');
class Websocket {
  constructor(url, options) {
    this.url = url;
    this.options = options;
    this.handleClose = (event) => this.handleEvent(events.WebsocketEvent.close, event);
    this.handleOpen = (event) => this.handleEvent(events.WebsocketEvent.open, event);
  }
  tryConnect() { // <-
    this.ws = new WebSocket(this.url);
    this.ws.addEventListener(events.WebsocketEvent.open, this.handleOpen);
    this.ws.addEventListener(events.WebsocketEvent.close, this.handleClose);
  }
  handleEvent(type, event) {
    switch (type) {
      case events.WebsocketEvent.close:
        this.scheduleRetry();
        break;
      case events.WebsocketEvent.retry:
        this.tryConnect();
        break;
    }
  }
  scheduleRetry() {
    const detail = { backoff: this.backoff.next(), retries: this.backoff.retries };
    if (this.options.maxRetries === undefined || detail.retries <= this.options.maxRetries) {
      this.timer = setTimeout(() => this.handleEvent(events.WebsocketEvent.retry, detail), detail.backoff);
    }
  }
}
module.exports = Websocket;`,
  },
  {
    name: 'model: a failure handler wrapped by a once() of the file, its failure described in an object and judged by a default filter (launchdarkly-eventsource)',
    lang: 'cjs',
    finds: ['require-retry-limit'],
    code: `
function once(cb) {
  let called = false;
  return (...params) => {
    if (!called) {
      called = true;
      cb(...params);
    }
  };
}
function EventSource(url, config) {
  let timer;
  function defaultErrorFilter(error) {
    if (error.status) return error.status === 503 || error.status === 504;
    return true;
  }
  function failed(error) {
    const event = error ? new Event('error', error) : new Event('end');
    const shouldRetry = (config.errorFilter || defaultErrorFilter)(event);
    if (shouldRetry) scheduleReconnect();
  }
  function scheduleReconnect() {
    timer = setTimeout(() => connect(), 1000 * (0.5 + Math.random()));
  }
  function connect() { // <-
    const failOnce = once(failed);
    const req = http.request(url, (res) => {
      if (res.statusCode !== 200) return failOnce({ status: res.statusCode });
      res.on('data', (chunk) => this.emit('data', chunk));
    });
    req.on('error', (err) => failOnce({ message: err.message })); // <-
    req.end();
  }
  connect();
}
module.exports = EventSource;`,
  },
  {
    name: 'model look-alike: a heartbeat whose callback goes on whether the check failed or not (mongodb monitor)',
    lang: 'cjs',
    finds: [],
    code: `
function checkServer(monitor, callback) {
  monitor.connection.command('hello').then(
    (reply) => callback(undefined, reply),
    (err) => {
      monitor.connection = null;
      callback(err);
    },
  );
}
function monitorServer(monitor) {
  return (callback) => {
    checkServer(monitor, (err, hello) => {
      if (err) {
        if (monitor.unknown) return callback();
      }
      monitor.last = hello;
      callback();
    });
  };
}
class MonitorInterval {
  constructor(fn, ms) {
    this.fn = fn;
    this.ms = ms;
  }
  run() {
    this.fn(() => {
      this.timer = setTimeout(() => this.run(), this.ms);
    });
  }
}
module.exports = { monitorServer, MonitorInterval };`,
  },
  {
    name: 'model look-alike: an error-first callback that tries the next node of a list (tryNode(index + 1), ioredis cluster)',
    lang: 'cjs',
    finds: [],
    code: `
class Cluster {
  getInfo(node, callback) {
    node.command('CLUSTER SLOTS', (err, result) => {
      if (err) return callback(err);
      this.slots = result;
      callback();
    });
  }
  refresh(done) {
    const nodes = this.pool.getNodes();
    const self = this;
    function tryNode(index) {
      if (index === nodes.length) return done(new Error('all failed'));
      const node = nodes[index];
      self.getInfo(node, function (err) {
        if (!err) return done();
        self.emit('node error', err);
        tryNode(index + 1);
      });
    }
    tryNode(0);
  }
}
module.exports = Cluster;`,
  },
  {
    name: 'model: a constructor function that gives its instance methods (this.init = function), reached through self, its callback parameter called with the error (rascal)',
    lang: 'cjs',
    finds: ['require-retry-limit', 'require-transient-check'],
    code: `
const setTimeoutUnref = require('./set-timeout-unref');
function Vhost(config) {
  const self = this;
  let connection;
  this.init = function (next) { // <-
    open(config, (err, conn) => {
      if (err) return next(err);
      connection = conn;
      connection.on('error', (e) => handleError(e)); // <-
      return next(null, self);
    });
    return self;
  };
  function handleError(err) {
    connection = undefined;
    self.emit('error', err);
    retryConnection();
  }
  function retryConnection() {
    self.init((err) => {
      if (!err) return;
      setTimeoutUnref(handleError.bind(null, err), 1000 + Math.random() * 1000);
    });
  }
}
module.exports = Vhost;`,
  },
  {
    name: 'model look-alike: a callback parameter called with the result of a walk over a list, not the same call again',
    lang: 'cjs',
    finds: [],
    code: `
function Loader(files) {
  const self = this;
  this.load = function (i, next) {
    read(files[i], (err, text) => {
      if (err) return next(err);
      return next(null, text);
    });
  };
  this.all = function (done) {
    let i = 0;
    const each = (err, text) => {
      if (err) return done(err);
      i += 1;
      if (i < files.length) self.load(i, each);
      else done(null);
    };
    self.load(0, each);
  };
}
module.exports = Loader;`,
  },
  {
    name: 'a state change the attempt makes anyway is no repair in its catch, and a count read in no code of the file is a limit out of reach (tedious)',
    lang: 'cjs',
    finds: ['require-jitter'],
    code: `
class Connection {
  async initialise() { // <-
    this.transitionTo(this.STATE.CONNECTING);
    try {
      this.routing = await this.login();
    } catch (err) {
      if (isTransient(err)) {
        this.transitionTo(this.STATE.RETRY);
        return await this.retryAfterFailure();
      }
      throw err;
    }
    this.transitionTo(this.STATE.LOGGED_IN);
  }
  async retryAfterFailure() {
    this.transientRetries++;
    this.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, this.config.retryInterval));
    await this.initialise();
  }
  transitionTo(state) {
    this.state = state;
  }
}
function isTransient(error) {
  return error instanceof ConnectionError && !!error.isTransient;
}
module.exports = Connection;`,
  },
  {
    name: 'a catch that first calls what the attempt does not (this.refreshToken()) still repairs',
    lang: 'cjs',
    finds: [],
    code: `
class Client {
  async request() {
    this.transitionTo('sending');
    try {
      return await this.send();
    } catch (err) {
      if (isTransient(err)) {
        await this.refreshToken();
        return await this.retryLater();
      }
      throw err;
    }
  }
  async retryLater() {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return this.request();
  }
}
module.exports = Client;`,
  },
  {
    name: 'a check in the strategy a field holds, made by a method that returns it, four calls from the listener (@redis/client)',
    finds: ['no-immediate-retry', 'require-retry-limit'],
    code: `
export class Socket {
  #strategy;
  constructor(options) {
    this.#strategy = this.#createStrategy(options);
  }
  #createStrategy(options) {
    const strategy = options?.strategy;
    if (typeof strategy === 'number') return () => ({ retryIn: strategy });
    return (n, cause) => ({ retryIn: this.defaultStrategy(n, cause) });
  }
  #should(n, cause) {
    const { retryIn } = this.#strategy(n, cause);
    if (retryIn === false) return { retryIn: cause };
    return { retryIn };
  }
  async #connect(n = 0) { // <-
    this.socket = await this.open();
    this.socket.once('error', (err) => this.#onError(err));
  }
  #onError(err) {
    this.socket = undefined;
    const { retryIn } = this.#should(0, err);
    if (typeof retryIn !== 'number') return;
    this.#connect(1).catch(() => {});
  }
  defaultStrategy(n, cause) {
    if (cause instanceof TimeoutError) return false;
    return Math.min(2 ** n * 50, 2000) + Math.random() * 200;
  }
}`,
  },
  {
    name: 'a count stepped as retry = retry - 1 in the catch is the limit, not a move of what the loop tests (node-fetch-retry)',
    lang: 'cjs',
    finds: ['require-jitter', 'require-transient-check'],
    code: `
module.exports = async (url, opts) => {
  let retry = (opts && opts.retry) || 3;
  while (retry > 0) { // <-
    try {
      return await fetch(url, opts);
    } catch (e) {
      retry = retry - 1;
      if (retry === 0) throw e;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
};`,
  },
  {
    name: 'a hook called only when the caller gave it (if (opts && opts.callback)) repairs nothing (node-fetch-retry)',
    finds: ['no-immediate-retry', 'require-transient-check'],
    code: `
export async function get(url, opts) {
  for (let left = 3; left > 0; left--) { // <-
    try {
      return await fetch(url, opts);
    } catch (e) {
      if (opts && opts.callback) {
        opts.callback(left);
      }
      opts.onFail?.(e);
      opts.log && opts.log(left);
      if (left === 1) throw e;
    }
  }
}`,
  },
  {
    name: 'a catch that moves what the loop tests to another value (current = next) still goes on, not back',
    finds: [],
    code: `
export async function first(hosts) {
  let host = hosts[0];
  let i = 0;
  while (host) {
    try {
      return await fetch(host);
    } catch (e) {
      i = i + 1;
      host = hosts[i];
    }
  }
}`,
  },
  {
    name: 'a wait on one way back does not hold back another: a 5xx continues at once while a connection error backs off (an independent labelling: @elastic/transport)',
    lang: 'cjs',
    finds: ['no-immediate-retry'],
    code: `
async function run(conn, maxRetries) {
  let attempts = 0;
  while (attempts <= maxRetries) { // <-
    try {
      const { statusCode } = await conn.request();
      if (statusCode === 502 || statusCode === 503 || statusCode === 504) {
        if (attempts < maxRetries) { attempts++; continue; }
      }
      return statusCode;
    } catch (error) {
      if (error.name === 'ConnectionError' && attempts < maxRetries) {
        attempts++;
        await new Promise((r) => setTimeout(r, Math.random() * 1000 * 2 ** attempts));
        continue;
      }
      throw error;
    }
  }
}
module.exports = run;
`,
  },
  {
    name: 'look-alikes of that: every way back waits, on its own or at the top of each pass',
    lang: 'cjs',
    finds: [],
    code: `
async function each(conn, maxRetries) {
  let attempts = 0;
  while (attempts <= maxRetries) {
    try {
      const { statusCode } = await conn.request();
      if (statusCode === 503 && attempts < maxRetries) {
        attempts++;
        await new Promise((r) => setTimeout(r, Math.random() * 1000 * 2 ** attempts));
        continue;
      }
      return statusCode;
    } catch (error) {
      if (error.name === 'ConnectionError' && attempts < maxRetries) {
        attempts++;
        await new Promise((r) => setTimeout(r, Math.random() * 1000 * 2 ** attempts));
        continue;
      }
      throw error;
    }
  }
}
async function top(conn, maxRetries) {
  for (let attempts = 0; attempts <= maxRetries; attempts++) {
    if (attempts > 0) await new Promise((r) => setTimeout(r, Math.random() * 1000 * 2 ** attempts));
    try {
      const { statusCode } = await conn.request();
      if (statusCode === 503) continue;
      return statusCode;
    } catch (error) {
      if (error.name === 'ConnectionError') continue;
      throw error;
    }
  }
}
module.exports = { each, top };
`,
  },
];
