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
];
