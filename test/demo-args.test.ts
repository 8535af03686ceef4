import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEMO_USAGE, DemoUsageError, parseDemoArgs } from '../demo/args';

const root = fileURLToPath(new URL('..', import.meta.url));

describe("the demo's command line", () => {
  it('reads --quick, --svg and --help', () => {
    expect(parseDemoArgs([])).toEqual({ quick: false, help: false });
    expect(parseDemoArgs(['--quick', '--svg', 'out.svg'])).toEqual({ quick: true, help: false, svg: 'out.svg' });
    expect(parseDemoArgs(['--svg=out.svg'])).toEqual({ quick: false, help: false, svg: 'out.svg' });
    expect(parseDemoArgs(['-h']).help).toBe(true);
    expect(parseDemoArgs(['--help']).help).toBe(true);
  });

  it.each([
    [['--quik'], 'unknown flag --quik (did you mean --quick?)'],
    [['--frobnicate'], 'unknown flag --frobnicate'],
    [['-x'], 'unknown flag -x'],
    [['quick'], "unexpected argument 'quick': the demo takes only flags"],
    [['--svg'], '--svg needs a value: a file to write, like chart.svg'],
    [['--svg', '--quick'], '--svg needs a value: a file to write, like chart.svg'],
    [['--quick=yes'], "--quick takes no value, got '--quick=yes'"],
    [['--quick', '--quick'], '--quick given twice: give it once'],
    [['--svg', 'a.svg', '--svg', 'b.svg'], '--svg given twice: give it once'],
  ])('%j is a DemoUsageError that says what is wrong', (args, message) => {
    let thrown: unknown;
    try {
      parseDemoArgs(args);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DemoUsageError);
    expect((thrown as Error).message).toBe(message);
  });

  /** `npm run demo -- ARGS` as a process: tsx demo/herd.ts, as package.json's script runs it. */
  const demo = (...args: string[]) =>
    spawnSync(process.execPath, [fileURLToPath(import.meta.resolve('tsx/cli')), 'demo/herd.ts', ...args], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });

  it('prints its help, and a bad flag as one line and exit code 2, not a stack trace', () => {
    const help = demo('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toBe(DEMO_USAGE);
    const bad = demo('--quik');
    expect(bad.status).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toBe('demo: unknown flag --quik (did you mean --quick?) (see npm run demo -- --help)\n');
  }, 60_000);
});
