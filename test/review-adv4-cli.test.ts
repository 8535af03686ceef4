/**
 * Adversarial review 4, its CLI and audit findings (`herdless help`, the audit's `.ok` wording): each test here failed
 * on main at 848ce6c, and names the finding it pins.
 */
import { describe, expect, it } from 'vitest';
import { AUDIT_USAGE } from '../src/audit/audit';
import { COMMANDS_USAGE, USAGE } from '../src/cli';
import { runCli as cli, transientCheck } from './cli-helpers';

const OK_WORDS = '.ok says whether a response failed, not whether the failure is transient';
const NO_LOOK_WORDS = 'without looking at the error or the status';

describe('review-adv4: `herdless help` (src/cli.ts)', () => {
  it('`herdless help help` is help, a command the usage lists, not an unknown command', () => {
    // COMMANDS_USAGE lists `help [command]`, but COMMANDS (simulate, audit) does not know it: `help help` exits 2
    // with "unknown command 'help': the commands are simulate and audit".
    expect(COMMANDS_USAGE).toContain('help [command]');
    expect(cli('help', 'help')).toMatchObject({ code: 0, err: '' });
  });

  it('`herdless help simulate extra` is a bad command line that names its extra argument, not an unknown command "help simulate extra"', () => {
    // help is a command (the usage lists it): its error should say what is wrong with its arguments. Today: "unknown
    // command 'help simulate extra': the commands are simulate and audit (see herdless simulate --help)".
    const { code, err } = cli('help', 'simulate', 'extra');
    expect(code).toBe(2);
    expect(err).not.toContain("unknown command 'help");
    expect(err).toContain('extra');
  });

  it('a misspelt help is offered help, and the unknown-command error names every command the usage lists', () => {
    // `herdless hlep` gets no "did you mean help?", and the error says the commands are simulate and audit.
    const { code, err } = cli('hlep');
    expect(code).toBe(2);
    expect(err).toContain('did you mean help?');
    expect(err).toMatch(/the commands are [^(]*\bhelp\b/);
  });

  it("`herdless --help audit` is the audit's help, as `--help simulate`, `help audit` and `audit --help` are", () => {
    // --help simulate prints simulate's usage, but --help audit prints the commands' usage: only `simulate` is looked
    // at after --help.
    expect(cli('--help', 'simulate').out).not.toBe(COMMANDS_USAGE);
    expect(cli('help', 'audit')).toMatchObject({ code: 0, out: AUDIT_USAGE });
    expect(cli('--help', 'audit')).toMatchObject({ code: 0, out: AUDIT_USAGE });
    // And `help simulate --help`, a help asked twice for simulate, prints the commands' usage.
    expect(cli('help', 'simulate', '--help')).toMatchObject({ code: 0, out: USAGE });
  });
});

describe("review-adv4: the audit's `.ok` wording (src/eslint/retry-loop.ts readsOk)", () => {
  it('an `.ok` read that is not the failure check (a flag in the catch) keeps the "without looking" wording', () => {
    // The loop tells failure by the exception alone and retries every one; `config.ok` is a setting it logs by.
    // readsOk is set by any `.ok` test under the loop, so the report says ".ok says whether a response failed".
    const loop = `export async function f(url) {
  for (let i = 0; i < 5; i++) {
    try {
      return await doWork(url);
    } catch (e) {
      if (config.ok) log('failed, retrying');
      await sleep(100 * Math.random());
    }
  }
}`;
    const messages = transientCheck(loop);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(NO_LOOK_WORDS);
    expect(messages[0]).not.toContain(OK_WORDS);
  });

  it('a loop that tests `res.ok === false` is found and worded as its `!res.ok` twin (pre-existing: not found at all)', () => {
    const twin = (test: string) => `export async function f(url) {
  for (let i = 0; i < 5; i++) {
    const res = await fetch(url);
    if (${test}) {
      await sleep(100 * Math.random());
      continue;
    }
    return res;
  }
}`;
    const bang = transientCheck(twin('!res.ok'));
    expect(bang).toHaveLength(1);
    expect(bang[0]).toContain(OK_WORDS);
    expect(transientCheck(twin('res.ok === false'))).toEqual(bang);
    expect(transientCheck(twin('res.ok !== true'))).toEqual(bang);
  });
});
