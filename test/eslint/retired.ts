/**
 * Shapes of the split's eval half (bench/audit-unseen.json), retired to development in session 34 after five scored
 * runs: written as small samples of those shapes, not copies, each failing before its change, each beside look-alikes
 * that stay silent. Marks as in cycles.ts: `// <-` where the report goes.
 */
import type { Sample } from './samples';

export const retired: readonly Sample[] = [
  {
    name: "a catch that sets what the loop tests with the next delay, a value the attempt never reads, goes back; the policy's answer out of reach is the limit, and the close handler defers to the loop",
    lang: 'cjs',
    finds: ['require-transient-check'],
    code: `
class Hub {
  constructor(connection) {
    connection.onclose = (error) => this.closed(error);
  }
  closed(error) {
    if (this.policy) this.reconnect(error);
  }
  nextDelay(count, error) {
    try {
      return this.policy.nextRetryDelay({ count, error });
    } catch (e) {
      return null;
    }
  }
  async reconnect(error) {
    let count = 0;
    let delay = this.nextDelay(count, error);
    while (delay !== null) { // <-
      await new Promise((resolve) => {
        this.handle = setTimeout(resolve, delay);
      });
      try {
        await this.connect();
        return;
      } catch (e) {
        count++;
        const err = e instanceof Error ? e : new Error(String(e));
        delay = this.nextDelay(count, err);
      }
    }
  }
}
module.exports = Hub;`,
  },
  {
    name: 'look-alikes: a catch that moves the loop to the next host the attempt reads; an answer of the file that is always a number is no limit',
    lang: 'cjs',
    finds: [],
    code: `
async function firstHost(hosts) {
  let host = hosts.shift();
  while (host !== undefined) {
    try {
      return await connect(host);
    } catch (e) {
      host = hosts.shift();
    }
  }
}
module.exports = { firstHost };`,
  },
  {
    name: 'edge: a delay of the file that never answers null bounds nothing',
    lang: 'cjs',
    finds: ['require-retry-limit', 'require-jitter', 'require-transient-check'],
    code: `
function nextDelay(n) {
  return 1000 * 2 ** n;
}
async function reconnect() {
  let n = 0;
  let delay = nextDelay(n);
  while (delay !== null) { // <-
    await new Promise((resolve) => setTimeout(resolve, delay));
    try {
      return await open();
    } catch (e) {
      n++;
      delay = nextDelay(n);
    }
  }
}
module.exports = { reconnect };`,
  },
  {
    name: 'the attempt waits first (`this._wait().then(...)`, a method of the file), so every way back waits; a logging call in the delay method is no part of the delay',
    lang: 'cjs',
    finds: ['require-jitter', 'require-transient-check'],
    code: `
class Socket {
  _nextDelay() {
    let delay = 0;
    if (this._count > 0) delay = 1000 * 1.3 ** (this._count - 1);
    this._debug('next delay', delay);
    return delay;
  }
  _debug(...args) {
    if (this.options.debug) this.options.logger('socket', ...args);
  }
  _wait() {
    return new Promise((resolve) => {
      setTimeout(resolve, this._nextDelay());
    });
  }
  _connect() { // <-
    if (this._count >= this.max) return;
    this._count++;
    this._wait()
      .then(() => open(this.url))
      .then((ws) => {
        this.ws = ws;
      })
      .catch((err) => {
        this._handleError(err);
      });
  }
  _handleError(err) {
    if (this.onerror) this.onerror(err);
    this._connect();
  }
}
module.exports = Socket;`,
  },
  {
    name: 'edge: a wait only under a branch of the attempt holds back not every entry',
    lang: 'cjs',
    finds: ['no-immediate-retry', 'require-transient-check'],
    code: `
class Socket {
  _connect() { // <-
    if (this._count >= this.max) return;
    this._count++;
    if (this.slow) {
      this._wait().then(() => this._open());
      return;
    }
    open(this.url)
      .then((ws) => {
        this.ws = ws;
      })
      .catch((err) => {
        this._handleError(err);
      });
  }
  _wait() {
    return new Promise((resolve) => setTimeout(resolve, 1000));
  }
  _handleError(err) {
    this._connect();
  }
}
module.exports = Socket;`,
  },
  {
    name: 'look-alike: a method named like a reconnect, handed to a library as a hook, that calls connect itself, schedules nothing',
    lang: 'cjs',
    finds: [],
    code: `
class Client {
  constructor(options) {
    options.beforeReconnect = this._reconnectAuth.bind(this);
  }
  connect() {
    if (this.connected) return;
    this.socket.connect();
  }
  async _reconnectAuth() {
    await this._waitForAuth();
    if (!this.connected) this.connect();
  }
  _setAuthSafely() {
    this.setAuth().catch((e) => this.log('error', e));
  }
  async _waitForAuth() {
    if (this.authPromise) await this.authPromise;
  }
}
module.exports = Client;`,
  },
  {
    name: 'a long poll whose success goes round at once and whose catch waits before going back retries its failures; a branch of the catch that leaves does not repair the way back',
    lang: 'cjs',
    finds: ['require-jitter', 'require-retry-limit'],
    code: `
class Polling {
  async *updates() {
    do { // <-
      try {
        const updates = await this.api.call('getUpdates', { offset: this.offset });
        const last = updates[updates.length - 1];
        if (last !== undefined) this.offset = last.id + 1;
        yield updates;
      } catch (err) {
        if (err.name === 'FetchError' || err.code >= 500) {
          await wait(5000);
          continue;
        }
        if (err.code === 401) {
          this.skipSync = true;
        }
        throw err;
      }
    } while (this.running);
  }
}
module.exports = Polling;`,
  },
  {
    name: 'look-alikes of a long poll: a poll whose success waits too, a heartbeat whose answer nothing reads, a list walked',
    lang: 'cjs',
    finds: [],
    code: `
async function poll(state) {
  while (state.running) {
    try {
      const status = await fetchStatus();
      state.status = status;
    } catch (err) {
      await sleep(1000);
      continue;
    }
    await sleep(state.interval);
  }
}
async function beat(conn) {
  while (conn.open) {
    try {
      await conn.ping();
    } catch (err) {
      await sleep(1000);
      continue;
    }
  }
}
async function sendAll(items) {
  for (let i = 0; i < items.length; i++) {
    try {
      const res = await send(items[i]);
      log(res);
    } catch (err) {
      await sleep(100);
      continue;
    }
  }
}
module.exports = { poll, beat, sendAll };`,
  },
  {
    name: 'a method that hands itself from its catch to a scheduler of the file (a wait, then the handed function applied) retries itself; the scheduler is read for the wait and the limit',
    lang: 'cjs',
    finds: ['require-jitter', 'require-retry-limit'],
    code: `
class Client {
  delayReconnect(cb) {
    this.failures += 1;
    const ms = this.pingTimeout * this.failures;
    return new Promise((resolve) => {
      this.timer = setTimeout(() => {
        if (!this.stopped) cb.apply(this).then(resolve);
      }, ms);
    });
  }
  async fetchUrl() { // <-
    try {
      const resp = await this.web.open({});
      this.failures = 0;
      return resp.url;
    } catch (error) {
      if (error instanceof PlatformError) throw error;
      return await this.delayReconnect(this.fetchUrl);
    }
  }
}
module.exports = Client;`,
  },
  {
    name: 'look-alike of a scheduler of the file: one handed the function on success (a poll)',
    lang: 'cjs',
    finds: [],
    code: `
class Poller {
  later(cb) {
    setTimeout(() => cb.call(this), 1000);
  }
  async refresh() {
    try {
      this.state = await this.api.state();
      this.later(this.refresh);
    } catch (error) {
      this.emit('error', error);
    }
  }
}
module.exports = Poller;`,
  },
  {
    name: 'a failed item handed on and put back, in an object, on the queue an interval drains into the same send is the same call again',
    lang: 'cjs',
    finds: ['require-jitter'],
    code: `
class Queue {
  send(item, callback) { // <-
    this.api.post(item, (err, resp) => {
      if (err) {
        this.maybeRetry(err, item, callback);
      } else {
        callback(null, resp);
      }
    });
  }
  maybeRetry(err, entry, callback) {
    if (!isTransient(err)) return callback(err);
    entry.retries = (entry.retries || 0) + 1;
    if (entry.retries > this.options.maxRetries) return callback(err);
    this.retryLater(entry, callback);
  }
  retryLater(entry, callback) {
    this.retryQueue.push({ entry, callback });
    if (!this.handle) {
      this.handle = setInterval(() => {
        while (this.retryQueue.length) {
          const next = this.retryQueue.shift();
          this.send(next.entry, next.callback);
        }
      }, this.options.retryInterval);
    }
  }
}
module.exports = Queue;`,
  },
  {
    name: 'look-alike: a queue drained into the same send, whose failure puts something else on it (the error), walks the queue',
    lang: 'cjs',
    finds: [],
    code: `
class Outbox {
  send(item) {
    this.api.post(item, (err) => {
      if (err) this.failed(err);
    });
  }
  failed(err) {
    this.pending.push({ error: err });
    if (!this.handle) {
      this.handle = setInterval(() => {
        while (this.pending.length) {
          const next = this.pending.shift();
          this.send(next.error);
        }
      }, 1000);
    }
  }
}
module.exports = Outbox;`,
  },
  {
    name: "an error listener that ends the socket that failed and reconnects on a timer retries (ending what failed repairs nothing); a stream's pause() is no wait",
    lang: 'cjs',
    finds: ['require-jitter', 'require-retry-limit'],
    code: `
function tunnel(remote, opts) {
  const connect = () => { // <-
    remote.pause();
    const local = net.connect({ host: opts.host, port: opts.port });
    local.once('error', (err) => {
      local.end();
      if (err.code !== 'ECONNREFUSED') return remote.end();
      setTimeout(connect, 1000);
    });
    local.once('connect', () => {
      remote.resume();
      remote.pipe(local).pipe(remote);
    });
  };
  connect();
}
module.exports = { tunnel };`,
  },
  {
    name: 'look-alike: an error listener that changes something else first (the next host) repairs before it reconnects',
    lang: 'cjs',
    finds: [],
    code: `
function tunnel(remote, opts) {
  const connect = () => {
    const local = net.connect({ host: opts.host, port: opts.port });
    local.once('error', (err) => {
      local.end();
      opts.rotateHost();
      setTimeout(connect, 1000);
    });
  };
  connect();
}
module.exports = { tunnel };`,
  },
  {
    name: 'a status looked at in the success handler of .then, where no way back starts, is no check of the catch that retries any error',
    lang: 'cjs',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
function open(uri, cb) {
  (function getUrl() { // <-
    axios
      .get(uri)
      .then((res) => {
        if (res.status !== 200) return cb(new Error('server error'));
        cb(null, res.data);
      })
      .catch((err) => {
        debug('offline: ' + err.message);
        return setTimeout(getUrl, 1000);
      });
  })();
}
module.exports = { open };`,
  },
  {
    name: 'edge: the same recursion whose catch looks at the error keeps its check',
    lang: 'cjs',
    finds: ['require-jitter', 'require-retry-limit'],
    code: `
function open(uri, cb) {
  (function getUrl() { // <-
    axios
      .get(uri)
      .then((res) => {
        if (res.status !== 200) return cb(new Error('server error'));
        cb(null, res.data);
      })
      .catch((err) => {
        if (err.code !== 'ECONNREFUSED') return cb(err);
        return setTimeout(getUrl, 1000);
      });
  })();
}
module.exports = { open };`,
  },
  {
    name: "the error's message handed to a call as a value (`messages.push(err.message || 'none')`) describes the failure, it is no check",
    lang: 'cjs',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
function IssueLog(args) {
  this.host = args.host;
  this.reconnect = args.reconnect;
}
const issues = IssueLog.prototype;
issues.attemptReconnect = function attemptReconnect() { // <-
  const issue = this;
  ping(this.host, function pingpong(err) { // <-
    if (err) {
      issue.messages.push(err.message || 'No message specified');
      return setTimeout(issue.attemptReconnect.bind(issue), issue.reconnect);
    }
    issue.failed = false;
  });
};
module.exports = IssueLog;`,
  },
  {
    name: 'edge: a choice by the error that decides (a test of the way back) stays a check',
    lang: 'cjs',
    finds: ['require-jitter', 'require-retry-limit'],
    code: `
function IssueLog(args) {
  this.host = args.host;
  this.reconnect = args.reconnect;
}
const issues = IssueLog.prototype;
issues.attemptReconnect = function attemptReconnect() { // <-
  const issue = this;
  ping(this.host, function pingpong(err) { // <-
    if (err) {
      if (err.code === 'EACCES') return issue.fail(err);
      return setTimeout(issue.attemptReconnect.bind(issue), issue.reconnect);
    }
    issue.failed = false;
  });
};
module.exports = IssueLog;`,
  },
  {
    name: 'a close listener that hands a method, whatever its name, to a scheduler of the file, when that method makes a socket handed the client (which emits close on it), reconnects',
    lang: 'cjs',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
class Client extends EventEmitter {
  constructor() {
    super();
    this.on('close', () => {
      if (this.reconnectTimer) return;
      if (!this.shuttingDown) this.delayReconnect(this.start);
    });
  }
  async start() { // <-
    this.socket = new Socket({ url: this.url, client: this });
    this.socket.connect();
  }
  delayReconnect(cb) {
    this.failures += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      cb.apply(this);
    }, this.pingTimeout * this.failures);
  }
}
module.exports = Client;`,
  },
  {
    name: 'look-alike: a close listener that schedules a method that only sends what is left (no socket made, no failure listened for)',
    lang: 'cjs',
    finds: [],
    code: `
class Client extends EventEmitter {
  constructor() {
    super();
    this.on('close', () => {
      setTimeout(this.flush, 1000);
    });
  }
  flush() {
    this.transport.send(this.buffer);
    this.buffer = [];
  }
}
module.exports = Client;`,
  },
  {
    name: "edge: the next delay awaited from a policy out of reach, the loop going on while it answers, is that policy's limit",
    lang: 'cjs',
    finds: ['require-transient-check'],
    code: `
class Link {
  async reconnect() {
    let delay = await this.policy.next(0);
    while (delay !== undefined) { // <-
      await sleep(delay);
      try {
        return await this.open();
      } catch (e) {
        delay = await this.policy.next(e);
      }
    }
  }
}
module.exports = Link;`,
  },
];
