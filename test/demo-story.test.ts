import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import FakeTimers, { type Clock as InstalledClock } from '@sinonjs/fake-timers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ActRun } from '../demo/run-demo';
import { type Act, type DemoFigures, type LaneName, QUICK } from '../demo/settings';
import { type DemoIo, tell } from '../demo/story';

/** A lane's figures as a sound run gives them: every count matched, nothing unexpected. */
const figures = (lane: LaneName): DemoFigures => ({
  lane,
  strategy: lane,
  calls: 100,
  attempts: 120,
  sent: 120,
  received: 120,
  abandonedInFlight: 0,
  lost: 0,
  unexpected: 0,
  failed: 10,
  amplification: 1.2,
  goodput: 0.9,
  goodputDuring: 0.8,
  recoveryMs: 1_000,
  p99Ms: 900,
  refused: 0,
  budgetStops: 2,
  wasted: 3,
  behindMs: 500,
  errors: 0,
  load: [5, 10, 20, 10, 5],
});

/** An act that "runs" for as long as its traffic, on the fake clock, and answers with sound figures. */
const fakeRun = async (act: Act): Promise<ActRun> => {
  await new Promise((resolve) => setTimeout(resolve, act.warmupMs + act.troubleMs + act.afterMs));
  return { act, results: act.lanes.map(figures), delayP99Ms: 1, delayMaxMs: 2 };
};

describe("the demo's story as printed (npm run demo, with the acts answered at once)", () => {
  let clock: InstalledClock;
  let dir: string;
  beforeEach(() => {
    clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    dir = mkdtempSync(join(import.meta.dirname, '.demo-story-'));
  });
  afterEach(() => {
    clock.uninstall();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Tells the --quick story to strings, advancing the fake clock through every act. */
  const told = async (errIsTTY: boolean) => {
    const outs: string[] = [];
    const errs: string[] = [];
    const io: DemoIo = { out: (t) => outs.push(t), err: (t) => errs.push(t), errIsTTY };
    const svgPath = join(dir, 'herdless-demo.svg');
    const code = tell({ options: QUICK, svgPath, signal: new AbortController().signal, io, run: fakeRun });
    await clock.tickAsync(120_000);
    return { code: await code, out: outs.join(''), err: errs.join(''), svgPath };
  };

  it('explains the columns before the first table, and ends by saying which SVG to open', async () => {
    const { code, out, svgPath } = await told(false);
    expect(code).toBe(0);
    const firstTable = out.search(/^\s*lane\s+requests\s+ampl\./m);
    expect(firstTable).toBeGreaterThan(0);
    for (const column of ['ampl.:', 'wasted:', 'behind:', 'refused:', 'goodput:', 'p99 ok:']) {
      expect(out.indexOf(column), column).toBeGreaterThan(-1);
      expect(out.indexOf(column), column).toBeLessThan(firstTable);
    }
    expect(out).toContain(`open ${svgPath}`);
    expect(readFileSync(svgPath, 'utf8')).toMatch(/^<svg/);
    // What the package does, in the present tense (issue 31): no history of versions never released.
    expect(out).not.toMatch(/before 0\.1/);
  });

  it('draws a progress line on a terminal while an act runs, erased before its figures print', async () => {
    const { err, out } = await told(true);
    expect(err).toMatch(/act 1 of 3, overload: \d+ s of \d+ s/);
    expect(err).toMatch(/act 2 of 3, partial failure at 50%/);
    expect(err).toContain('the slowdown');
    expect(err.endsWith('\r\x1b[K')).toBe(true);
    expect(out).not.toContain('\r');
  });

  it('writes no progress line when stderr is not a terminal (a log, a CI job)', async () => {
    const { err } = await told(false);
    expect(err).toBe('');
  });
});
