/**
 * Reconnect cycles that run through methods the file defines in other ways than a class (issue 29, the shapes of the
 * dev half of bench/audit-unseen.json): methods on `X.prototype`, on a plain object (`$.open = function`), reached
 * through `self = this`, a close handler passed in an options object, a failure listener registered by a method the
 * attempt calls, a second cycle of the same attempt (a dropped connection beside a failed one). Written as small
 * samples of those shapes, not copies. Marks as in cycles.ts: `// <-` where the report goes.
 */
import type { Sample } from './samples';

export const methods: readonly Sample[] = [
  {
    name: 'model: a close handler passed in an options object schedules the attempt again (@stomp/stompjs)',
    lang: 'ts',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
export class Client {
  private nextDelay = 0;
  private handler?: Handler;
  activate(): void {
    this.nextDelay = this.reconnectDelay;
    void this.open();
  }
  private async open(): Promise<void> { // <-
    if (this.handler) return;
    if (this.connectionTimeout > 0) {
      this.watcher = setTimeout(() => this.forceDisconnect(), this.connectionTimeout);
    }
    const ws = new WebSocket(this.url);
    this.handler = new Handler(ws, {
      onConnect: () => {
        this.nextDelay = this.reconnectDelay;
      },
      onWebSocketClose: (evt) => {
        this.handler = undefined;
        if (this.active) this.scheduleReconnect();
      },
    });
    this.handler.start();
  }
  private scheduleReconnect(): void {
    if (this.nextDelay > 0) {
      this.timer = setTimeout(() => {
        this.nextDelay = this.nextDelay * 2;
        this.nextDelay = Math.min(this.nextDelay, this.maxDelay);
        void this.open();
      }, this.nextDelay);
    }
  }
}`,
  },
  {
    name: 'model: prototype methods, the error handler bound by a method the attempt calls (tmi.js)',
    lang: 'cjs',
    finds: ['require-jitter', 'require-transient-check'],
    code: `
var Client = function Client(opts) {
  this.opts = opts;
  this.reconnections = 0;
};
Client.prototype.connect = function connect() {
  this.delay = Math.min(this.delay * 1.5, 60000);
  this._open();
};
Client.prototype._open = function _open() { // <-
  this.ws = new WebSocket(this.url);
  this.ws.onerror = this._onError.bind(this);
};
Client.prototype._onError = function _onError() {
  if (this.reconnections < this.maxReconnections) {
    this.reconnections = this.reconnections + 1;
    setTimeout(() => this.connect(), this.delay);
  }
};
module.exports = Client;`,
  },
  {
    name: 'model: a compiled class, _this = this, a close handler that closes and then tries to reconnect (subscriptions-transport-ws)',
    lang: 'cjs',
    finds: ['require-transient-check'],
    code: `
var SubscriptionClient = (function () {
  function SubscriptionClient(url) {
    this.url = url;
    this.backoff = new Backoff({ jitter: 0.5 });
    this.connect();
  }
  SubscriptionClient.prototype.close = function (isForced) {
    if (this.client !== null) {
      this.client.close();
      this.client = null;
      if (!isForced) this.tryReconnect();
    }
  };
  SubscriptionClient.prototype.tryReconnect = function () {
    var _this = this;
    if (this.backoff.attempts >= this.reconnectionAttempts) return;
    var delay = this.backoff.duration();
    this.timeoutId = setTimeout(function () {
      _this.connect();
    }, delay);
  };
  SubscriptionClient.prototype.connect = function () { // <-
    var _this = this;
    this.client = new WebSocket(this.url);
    this.client.onclose = function () {
      if (!_this.closedByUser) _this.close(false);
    };
  };
  return SubscriptionClient;
}());
module.exports = SubscriptionClient;`,
  },
  {
    name: 'model: methods of a plain object ($.open, $.reconnect), a limit and a close code checked (sockette)',
    lang: 'cjs',
    finds: ['require-jitter'],
    code: `
module.exports = function (url, opts) {
  var ws, num = 0, $ = {};
  var max = opts.maxAttempts || Infinity;
  $.open = function () { // <-
    ws = new WebSocket(url);
    ws.onclose = function (e) {
      e.code === 1000 || e.code === 1001 || $.reconnect(e);
    };
  };
  $.reconnect = function (e) {
    if (num++ < max) {
      setTimeout(function () {
        $.open();
      }, opts.timeout || 1000);
    }
  };
  $.open();
  return $;
};`,
  },
  {
    name: 'model: a dropped connection is a second cycle of the attempt, reported at its close listener (amqp-connection-manager)',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
export class Manager {
  _connect() { // <-
    return amqpConnect(this.url)
      .then((connection) => {
        this.connection = connection;
        connection.on('close', (err) => { // <-
          this.connection = undefined;
          this._unbindConnection();
          this.emit('disconnect', { err });
          const handle = wait(this.reconnectMs);
          this.cancelRetries = handle.cancel;
          handle.promise.then(() => this._connect());
        });
      })
      .catch((err) => {
        this.emit('connectFailed', { err });
        const handle = wait(this.reconnectMs);
        this.cancelRetries = handle.cancel;
        return handle.promise.then(() => this._connect());
      });
  }
}`,
  },
  {
    name: 'model: a repair in another branch of the catch does not make the retry branch a repair (graphile-worker)',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
export function makeWorker(getJob, pollInterval, deferred, release) {
  let active = true;
  let errors = 0;
  const doNext = async () => { // <-
    let job;
    try {
      job = await getJob();
    } catch (err) {
      (0, lib.safeEmit)(ctx, 'worker:getJob:error', { err });
      if (active) {
        errors++;
        setTimeout(() => doNext(), pollInterval);
      } else {
        deferred.reject(err);
        release();
      }
      return;
    }
    await run(job);
  };
  return doNext;
}`,
  },
  {
    name: 'model: the rejection handler retries in one branch and rejects in the others (fetch-retry)',
    lang: 'cjs',
    finds: ['require-jitter', 'require-transient-check'],
    code: `
module.exports = function fetchRetry(input, init, retries, retryOn, resolve, reject) {
  var wrappedFetch = function (attempt) { // <-
    fetch(input, init)
      .then(function (response) {
        resolve(response);
      })
      .catch(function (error) {
        if (typeof retryOn === 'function') {
          try {
            Promise.resolve(retryOn(attempt, error))
              .then(function (again) {
                if (again) retry(attempt, error);
                else reject(error);
              })
              .catch(reject);
          } catch (e) {
            reject(e);
          }
        } else if (attempt < retries) {
          retry(attempt, error);
        } else {
          reject(error);
        }
      });
  };
  function retry(attempt, error) {
    setTimeout(function () {
      wrappedFetch(++attempt);
    }, 1000);
  }
  wrappedFetch(0);
};`,
  },
  {
    name: 'model: a failure told by a null result, tried again until a deadline the helper keeps (@azure/core-rest-pipeline)',
    finds: ['require-jitter', 'require-transient-check'],
    code: `
export async function beginRefresh(getAccessToken, retryIntervalInMs, refreshTimeout) {
  async function tryGetAccessToken() {
    if (Date.now() < refreshTimeout) {
      try {
        return await getAccessToken();
      } catch {
        return null;
      }
    } else {
      const finalToken = await getAccessToken();
      if (finalToken === null) throw new Error('Failed to refresh access token.');
      return finalToken;
    }
  }
  let token = await tryGetAccessToken();
  while (token === null) { // <-
    await delay(retryIntervalInMs);
    token = await tryGetAccessToken();
  }
  return token;
}`,
  },
  {
    name: 'model: the reconnect is gated by a flag the file turns off when the server says the login failed (tmi.js)',
    lang: 'cjs',
    finds: ['require-jitter'],
    code: `
function Client(opts) {
  this.reconnect = true;
  this.reconnections = 0;
}
Client.prototype.connect = function () { // <-
  this.ws = new WebSocket(this.url);
  this.ws.onclose = this._onClose.bind(this);
  this.ws.onmessage = this._onMessage.bind(this);
};
Client.prototype._onMessage = function (event) {
  var msg = event.data;
  if (msg.includes('Login authentication failed') || msg.includes('Improperly formatted auth')) {
    this.reconnect = false;
    this.ws.close();
  }
};
Client.prototype._onClose = function () {
  if (this.reconnect && this.reconnections < this.maxReconnections) {
    this.reconnections++;
    setTimeout(() => this.connect(), this.reconnectTimer);
  }
};
module.exports = Client;`,
  },
  {
    name: 'model: a flag the user turns off (disconnect) is no check of the failure',
    lang: 'cjs',
    finds: ['require-jitter', 'require-transient-check'],
    code: `
function Client(opts) {
  this.reconnect = true;
  this.reconnections = 0;
}
Client.prototype.connect = function () { // <-
  this.ws = new WebSocket(this.url);
  this.ws.onclose = this._onClose.bind(this);
};
Client.prototype.disconnect = function () {
  this.reconnect = false;
  this.ws.close();
};
Client.prototype._onClose = function () {
  if (this.reconnect && this.reconnections < this.maxReconnections) {
    this.reconnections++;
    setTimeout(() => this.connect(), this.reconnectTimer);
  }
};
module.exports = Client;`,
  },
  {
    name: 'model: the failed item put back on the queue the retry timer takes it from is the same call again (@sentry/core offline)',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
export function makeOfflineTransport(transport, store) {
  let retryDelay = 5000;
  let flushTimer;
  function flushIn(delay) {
    flushTimer = safeUnref(
      setTimeout(async () => {
        flushTimer = undefined;
        const found = await store.shift();
        if (found) send(found, true).catch(() => {});
      }, delay),
    );
  }
  function flushWithBackOff() {
    if (flushTimer) return;
    flushIn(retryDelay);
    retryDelay = Math.min(retryDelay * 2, 3600000);
  }
  async function send(envelope, isRetry = false) { // <-
    try {
      const result = await transport.send(envelope);
      retryDelay = 5000;
      return result;
    } catch (e) {
      if (isRetry) await store.unshift(envelope);
      else await store.push(envelope);
      flushWithBackOff();
      return {};
    }
  }
  return { send };
}`,
  },
  {
    name: 'model: a delay computed from the error (retryDelay(attempt, error)) is no look at whether to retry (fetch-retry)',
    lang: 'cjs',
    finds: ['require-transient-check'],
    code: `
module.exports = function fetchRetry(input, retries, retryDelay) {
  function wrappedFetch(attempt) { // <-
    fetch(input).catch(function (error) {
      if (attempt < retries) retry(attempt, error);
    });
  }
  function retry(attempt, error) {
    var delay = retryDelay(attempt, error);
    setTimeout(function () {
      wrappedFetch(++attempt);
    }, delay);
  }
  wrappedFetch(0);
};`,
  },
  {
    name: 'model: three calls of one subscribe loop fail back through the same timer: one retry, reported once (centrifuge)',
    finds: ['require-retry-limit'],
    code: `
export class Subscription {
  _subscribe() { // <-
    this._getToken().catch((e) => this._handleTokenError(e));
    this._sendSubscribe(this._token);
  }
  _sendSubscribe(token) {
    this._client.call({ subscribe: token }).then(
      (reply) => this._onSubscribed(reply),
      (err) => this._handleSubscribeError(err),
    );
  }
  _handleTokenError(e) {
    if (e.code === 109) this._scheduleResubscribe();
  }
  _handleSubscribeError(err) {
    if (err.temporary) this._scheduleResubscribe();
  }
  _scheduleResubscribe() {
    const delay = backoff(this._resubscribeAttempts++, this._minDelay, this._maxDelay) * (0.5 + Math.random());
    this._resubscribeTimeout = setTimeout(() => this._subscribe(), delay);
  }
}`,
  },
  {
    name: 'model: a count handed back one less each time and tested on the way is the limit (openai)',
    lang: 'ts',
    finds: [],
    code: `
export class Client {
  private async makeRequest(options: Options, retriesRemaining: number): Promise<Response> {
    const response = await fetch(options.url);
    if (!response.ok) {
      const shouldRetry = await this.shouldRetry(response);
      if (retriesRemaining && shouldRetry) {
        return this.retryRequest(options, retriesRemaining);
      }
      throw new Error(String(response.status));
    }
    return response;
  }
  private async shouldRetry(response: Response): Promise<boolean> {
    return response.status === 429 || response.status >= 500;
  }
  private async retryRequest(options: Options, retriesRemaining: number): Promise<Response> {
    await sleep(Math.random() * 1000);
    return this.makeRequest(options, retriesRemaining - 1);
  }
}`,
  },
  {
    name: 'model: a close handler that closes, tells its listeners and reconnects; a timeout that fails into the error handler is a loop of its own (reconnecting-websocket)',
    lang: 'ts',
    finds: ['require-transient-check'],
    code: `
export class ReconnectingWebSocket {
  private _connect(): void {
    if (this._retryCount >= this._maxRetries) return;
    this._retryCount++;
    this._wait().then(() => {
      this._ws = new WebSocket(this._url);
      this._addListeners();
      this._connectTimeout = setTimeout(() => this._handleTimeout(), this._connectionTimeout);
    });
  }
  private _handleTimeout(): void {
    this._handleError(new ErrorEvent(Error('TIMEOUT'), this));
  }
  private _handleError = (event: ErrorEvent): void => {
    this._disconnect(undefined, event.message === 'TIMEOUT' ? 'timeout' : undefined);
    if (this.onerror) this.onerror(event);
    this._listeners.error.forEach((listener) => this._callEventListener(event, listener));
    this._connect();
  };
  private _handleClose = (event: CloseEvent): void => {
    this._clearTimeouts();
    if (this._shouldReconnect) this._connect();
    if (this.onclose) this.onclose(event);
  };
  private _addListeners(): void { // <-
    this._ws.addEventListener('close', this._handleClose);
    this._ws.addEventListener('error', this._handleError);
  }
}`,
  },
  {
    name: 'model: a way back six calls long, through a stream the attempt replaces (@google-cloud/pubsub)',
    finds: ['require-retry-limit'],
    code: `
export class MessageStream {
  async _fillOne(index) {
    const client = await this._getClient();
    this._replaceStream(index, client.streamingPull());
  }
  _replaceStream(index, stream) {
    stream.once('status', (status) => this._onStatus(index, status));
  }
  _onStatus(index, status) { // <-
    if (this.destroyed) return;
    this._streams[index].stream.once('end', () => this._onEnd(index, status));
  }
  _onEnd(index, status) {
    if (PullRetry.retry(status)) this._retrier.retryLater(this._streams[index], () => this._fillOne(index));
  }
}`,
  },
  // Look-alikes, in the same shapes.
  {
    name: 'model look-alike: a MOVED redirect points the attempt at another slot, a different call (ioredis cluster)',
    finds: [],
    code: `
export function sendCommand(cluster, command) {
  let targetSlot = command.getSlot();
  command.reject = function (err) {
    cluster.handleError(err, {
      moved(slot) {
        targetSlot = Number(slot);
        tryConnection();
      },
    });
  };
  tryConnection();
  function tryConnection() {
    const redis = cluster.nodeFor(targetSlot);
    redis.sendCommand(command).then(null, (error) => command.reject(error));
  }
}`,
  },
  {
    name: 'model look-alike: a heartbeat on an interval; a missed pong closes, the reconnect is the close handler of the file',
    lang: 'cjs',
    finds: [],
    code: `
function Client() {}
Client.prototype.connect = function () {
  this.ws = new WebSocket(this.url);
  this.ws.onopen = this._onOpen.bind(this);
};
Client.prototype._onOpen = function () {
  this.pingLoop = setInterval(this._ping.bind(this), 60000);
};
Client.prototype._ping = function () {
  var self = this;
  this.ws.send('PING');
  this.pingTimeout = setTimeout(function () {
    self.ws.close();
  }, 5000);
};
module.exports = Client;`,
  },
  {
    name: 'model look-alike: an error handler on a prototype that only reports the failure as an event',
    lang: 'cjs',
    finds: [],
    code: `
function Conn() {}
Conn.prototype.open = function () {
  this.socket = net.connect(this.port);
  this.socket.on('error', this._onError.bind(this));
};
Conn.prototype._onError = function (err) {
  this.socket = null;
  this.emit('error', err);
};
module.exports = Conn;`,
  },
  {
    name: 'model look-alike: a close handler of a plain object falls back to the next host of a list',
    lang: 'cjs',
    finds: [],
    code: `
module.exports = function (hosts) {
  var $ = {}, i = 0;
  $.open = function (host) {
    var ws = new WebSocket(host);
    ws.onclose = function () {
      $.next();
    };
  };
  $.next = function () {
    i++;
    if (i < hosts.length) setTimeout(function () { $.open(hosts[i]); }, 100);
  };
  $.open(hosts[0]);
  return $;
};`,
  },
  {
    name: 'model look-alike: a poll that schedules itself again on success and on failure alike, a report its only answer',
    finds: [],
    code: `
export class Poller {
  poll() {
    this.fetch()
      .then((items) => this.emit('items', items))
      .catch((err) => this.emit('error', err))
      .finally(() => this.schedule());
  }
  schedule() {
    this.timer = setTimeout(() => this.poll(), this.interval);
  }
}`,
  },
  {
    name: 'loop: a worker that keeps its pace through failures tries a failed fetch again at that pace (pg-boss)',
    lang: 'cjs',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
const { delay } = require('./tools');
class Worker {
  async start() {
    while (!this.stopping) { // <-
      const started = Date.now();
      try {
        const jobs = await this.fetch();
        if (jobs) await this.onFetch(jobs);
      } catch (err) {
        this.lastErrorOn = Date.now();
        this.lastError = err;
        this.onError(err);
      }
      const elapsed = Date.now() - started;
      if (!this.stopping && this.interval - elapsed > 100) await delay(this.interval - elapsed);
    }
  }
}
module.exports = Worker;`,
  },
  {
    name: 'look-alike: a paced worker whose catch waits and goes round on its own, or that takes the next item off a queue',
    finds: [],
    code: `
export async function work(queue, interval) {
  for (;;) {
    try {
      const item = await queue.shift();
      if (item) await handle(item);
    } catch (err) {
      report(err);
    }
    await sleep(interval);
  }
}
export async function watch(fn) {
  while (true) {
    try {
      const r = await fn();
      show(r);
    } catch (e) {
      await sleep(1000);
      continue;
    }
    await sleep(5000);
  }
}`,
  },
  {
    name: 'model: a poll that reschedules itself after a try whose catch only reports retries a failed fetch at its pace',
    lang: 'ts',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
export class Poller {
  private timer?: ReturnType<typeof setTimeout>;
  async poll(): Promise<void> { // <-
    try {
      const jobs = await this.fetchJobs();
      for (const job of jobs) await this.run(job);
    } catch (err) {
      this.lastError = err;
      this.emit('error', err);
    }
    this.timer = setTimeout(() => this.poll(), this.interval);
  }
}`,
  },
  {
    name: 'model look-alike: a heartbeat that reschedules itself after a ping nothing reads, or after a catch that reconnects',
    finds: [],
    code: `
export class Beat {
  async beat() {
    try {
      await this.ping();
    } catch (err) {
      this.emit('error', err);
    }
    this.timer = setTimeout(() => this.beat(), 30000);
  }
  async sync() {
    try {
      const state = await this.fetchState();
      this.apply(state);
    } catch (err) {
      this.reconnect();
    }
    setTimeout(() => this.sync(), 5000);
  }
}`,
  },
  {
    name: "model: a client's failure interceptor that sends the failed request again through the client, at once (axios-retry)",
    finds: ['no-immediate-retry', 'require-transient-check'],
    code: `
export function attach(client) {
  client.interceptors.response.use(undefined, async (error) => { // <-
    const { config } = error;
    if (!config || config.retries >= 3) throw error;
    return resend(client, config);
  });
}
function resend(instance, config) {
  config.retries = (config.retries || 0) + 1;
  return instance.request(config);
}`,
  },
  {
    name: 'model look-alike: an interceptor that refreshes the token before sending the request again repairs first',
    lang: 'ts',
    finds: [],
    code: `
export function auth(client: Client, store: Store): void {
  client.interceptors.response.use(
    (r) => r,
    async (error) => {
      if (error.response?.status === 401) {
        await store.refreshToken();
        return client(error.config);
      }
      throw error;
    },
  );
}`,
  },
  {
    name: 'a delay from a function taken out of the options (const { retryDelay } = options) is out of reach, not fixed',
    finds: [],
    code: `
export async function send(fn, options) {
  const { retries, retryDelay } = options;
  for (let i = 0; i < retries; i++) {
    try {
      return await fn();
    } catch (err) {
      if (!isTransient(err)) throw err;
      await sleep(retryDelay(i));
    }
  }
}`,
  },
  {
    name: 'model: a method whose catch returns null, its caller rescheduling itself on the missing result (a token cycler)',
    lang: 'ts',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
export class Cycler {
  private async tryGet(): Promise<Token | null> {
    try {
      return await this.credential.getToken(this.scopes);
    } catch {
      return null;
    }
  }
  async refresh(): Promise<void> { // <-
    const token = await this.tryGet();
    if (!token) {
      this.timer = setTimeout(() => this.refresh(), 3000);
      return;
    }
    this.token = token;
  }
}`,
  },
  {
    name: 'a recursion on a null result from a function whose catch returns null',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
async function load(url) {
  try {
    return await fetch(url);
  } catch {
    return null;
  }
}
export async function get(url) { // <-
  const res = await load(url);
  if (res === null) {
    await sleep(1000);
    return get(url);
  }
  return res;
}`,
  },
  {
    name: 'model look-alike: a null result that means "not there yet", not a failure, polled on a timer',
    finds: [],
    code: `
export class Watcher {
  async read() {
    if (!existsSync(this.path)) return null;
    return readFileSync(this.path, 'utf8');
  }
  async watch() {
    const text = await this.read();
    if (!text) {
      this.timer = setTimeout(() => this.watch(), 1000);
      return;
    }
    this.emit('ready', text);
  }
}`,
  },
  {
    name: "a method that hands itself bound (this.subscribe.bind(this)) to a timer from its callback's if (err)",
    lang: 'cjs',
    finds: ['require-jitter', 'require-retry-limit', 'require-transient-check'],
    code: `
class Subscriber {
  subscribe() { // <-
    this.client.subscribe(this.topic, (err) => {
      if (err) {
        this.timer = setTimeout(this.subscribe.bind(this), 1000);
        return;
      }
      this.ready = true;
    });
  }
  flush() {
    this.client.send(this.queue.splice(0), (err) => {
      if (!err) this.timer = setTimeout(this.flush.bind(this), 1000);
    });
  }
}
module.exports = Subscriber;`,
  },
  {
    name: "an error-first callback's if (err && n < 5) is a failure path, and asks nothing of why it failed",
    finds: ['require-jitter', 'require-transient-check'],
    code: `
export function retry(fn, cb, n = 0) { // <-
  fn((err, value) => {
    if (err && n < 5) return setTimeout(() => retry(fn, cb, n + 1), 100 * 2 ** n);
    cb(err, value);
  });
}`,
  },
];
