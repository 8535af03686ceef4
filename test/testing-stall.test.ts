import FakeTimers from '@sinonjs/fake-timers';
import { describe, expect, it } from 'vitest';
import { drive } from '../src/testing/clock';
import { herd } from '../src/testing/herd';

describe('a caller that never settles among callers that do (review)', () => {
  it('is reported as unfinished, with every other caller figured: the report is not lost', async () => {
    const report = await herd(
      ({ url, client, fetch: reach }) => (client === 0 ? new Promise<Response>(() => {}) : reach(url)),
      {
        clients: 3,
        outageMs: 0,
        intercept: false,
      } as never,
    ).catch((e: unknown) => e);
    expect(report).not.toBeInstanceOf(Error);
    const [figures] = (report as { results: { gaveUpWith: Record<string, number>; succeeded: number }[] }).results;
    expect(figures?.gaveUpWith.unfinished).toBe(1);
    expect(figures?.succeeded).toBe(2);
  });

  it('drive: a stall after some progress ends the run as stalled, not as an error', async () => {
    const clock = FakeTimers.withGlobal(globalThis).install({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      await expect(
        drive(
          clock,
          () => false,
          () => 3,
          1_000,
          50,
        ),
      ).resolves.toBe('stalled');
    } finally {
      clock.uninstall();
    }
  });
});
