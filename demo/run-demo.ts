/**
 * One act of the demo on real sockets (`npm run demo` runs them one after the other). The overload: steady traffic at 80% of a real server's
 * capacity, real `fetch` clients with an attempt timeout and 3 attempts, a slowdown to a tenth of the capacity, and
 * whether the service comes back. The partial failure: a server with room to spare that fails half of what it serves
 * with a fast 503 for a while, and how many calls still succeed. In each act every lane (client strategy) runs at once
 * against its own server, on the same arrival times, so that the lanes meet the same machine at the same moments.
 */
import { setMaxListeners } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { laneServer, runLane, warmUp } from './lane';
import type { CapacityServer } from './server';
import { type Act, type DemoFigures, type DemoOptions, demoSettings } from './settings';

export interface RunDemoOptions extends DemoOptions {
  /** Stops the act (Ctrl-C): every lane's calls stop, every server closes, and `runAct` rejects with the reason. */
  readonly signal?: AbortSignal;
}

/** What an act gives: each lane's figures, and how late the thread they shared ran its timers. */
export interface ActRun {
  readonly act: Act;
  /** In the order of the act's `lanes`. */
  readonly results: DemoFigures[];
  /**
   * The event loop's delay while the lanes ran, 99th percentile and worst, in ms. A busy machine shows here: a delay
   * near the attempt timeout makes attempts time out that the server answered in time.
   */
  readonly delayP99Ms: number;
  readonly delayMaxMs: number;
}

/** Runs every lane of `act` at once and resolves with each lane's figures, in the order of its `lanes`. */
export async function runAct(act: Act, options: RunDemoOptions = {}): Promise<ActRun> {
  const { signal, ...rest } = options;
  const settings = demoSettings(rest);
  const stop = new AbortController();
  // Every in-flight call listens to this one signal: hundreds at once is expected, not a leak.
  setMaxListeners(0, stop.signal);
  const onAbort = () => stop.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();
  const servers: CapacityServer[] = act.lanes.map(() => laneServer(settings, act));
  const delay = monitorEventLoopDelay({ resolution: 10 });
  try {
    const urls = await Promise.all(servers.map((server) => server.listen()));
    await Promise.all(urls.map((url) => warmUp(url, stop.signal)));
    stop.signal.throwIfAborted();
    const origin = performance.now() + 50;
    delay.enable();
    // Every lane ends (on an abort too) before the servers close.
    const ended = await Promise.allSettled(
      servers.map((server, index) =>
        runLane(
          settings,
          act,
          act.lanes[index] as Act['lanes'][number],
          server,
          urls[index] as string,
          origin,
          stop.signal,
        ),
      ),
    );
    delay.disable();
    const results = ended.map((lane) => {
      if (lane.status === 'rejected') throw lane.reason;
      return lane.value;
    });
    return { act, results, delayP99Ms: delay.percentile(99) / 1e6, delayMaxMs: delay.max / 1e6 };
  } finally {
    delay.disable();
    signal?.removeEventListener('abort', onAbort);
    await Promise.all(servers.map((server) => server.close()));
  }
}
