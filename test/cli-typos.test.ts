import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { audit, usageMessage } from '../src/audit/audit';
import { USAGE } from '../src/cli';
import { runCli as run } from './cli-helpers';

/**
 * Issue 31 (a user's first hour): a misspelt command and a misspelt library option say what was meant, a misspelt flag
 * said only "unknown flag --cels". Now the flag's error names the nearest known flag, for `herdless simulate`, for the
 * bare `herdless`, and for `herdless audit`.
 */

/** Every long flag `herdless simulate --help` lists. */
const FLAGS = [...new Set([...USAGE.matchAll(/--([a-z][a-z-]+)/g)].map((m) => m[1] as string))];

describe('a misspelt flag says which one was meant', () => {
  it.each([
    [
      ['simulate', '--cels', '10'],
      'herdless: unknown flag --cels (did you mean --cells?) (see herdless simulate --help)\n',
    ],
    [['simulate', '--max-atempts', '3'], 'unknown flag --max-atempts (did you mean --max-attempts?)'],
    [['simulate', '--max-atempts=3'], 'unknown flag --max-atempts (did you mean --max-attempts?)'],
    [['simulate', '--scenaro', 'partial'], 'unknown flag --scenaro (did you mean --scenario?)'],
    [['simulate', '--JSON'], 'unknown flag --JSON (did you mean --json?)'],
    [['simulate', '--retryafter', '2s'], 'unknown flag --retryafter (did you mean --retry-after?)'],
    [['--jsn'], 'herdless: unknown flag --jsn (did you mean --json?) (see herdless --help)\n'],
    // The singular of a plural flag, 3 edits away (new-user review, issue 31).
    [['simulate', '--strategy', 'full'], 'unknown flag --strategy (did you mean --strategies?)'],
    [['simulate', '--cell', '5'], 'unknown flag --cell (did you mean --cells?)'],
  ])('%j', (args, message) => {
    const { code, out, err } = run(...args);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(message);
  });

  it.each([
    [['simulate', '--frobnicate'], 'herdless: unknown flag --frobnicate (see herdless simulate --help)\n'],
    [['simulate', '-x'], 'herdless: unknown flag -x (see herdless simulate --help)\n'],
  ])('no guess when nothing is close: %j', (args, message) => {
    const { code, out, err } = run(...args);
    expect({ code, out, err }).toEqual({ code: 2, out: '', err: message });
  });

  it('every flag the help lists, with a letter dropped, is answered with a flag one edit away (often itself)', () => {
    expect(FLAGS.length).toBeGreaterThan(20);
    for (const flag of FLAGS) {
      for (let i = 0; i < flag.length; i++) {
        const typo = flag.slice(0, i) + flag.slice(i + 1);
        if (FLAGS.includes(typo) || typo.length < 3) continue;
        const { err } = run('simulate', `--${typo}`);
        const guess = /did you mean --([a-z-]+)\?/.exec(err)?.[1];
        expect(guess, `--${typo}`).toBeDefined();
        // The guess is the flag itself unless another is as close (--run for --runs, say, is one edit from both).
        if (guess !== flag) expect(`${guess}`.length - typo.length, `--${typo}: ${guess}`).toBeLessThanOrEqual(1);
      }
    }
  });

  it('an unknown flag of any spelling is one line, exit 2, and names only a flag that exists', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zA-Z][a-zA-Z-]{0,15}$/), (name) => {
        fc.pre(!FLAGS.includes(name) && name !== 'help' && name !== 'version');
        const { code, err } = run('simulate', `--${name}`);
        expect(code).toBe(2);
        expect(err.split('\n')).toHaveLength(2);
        const guess = /did you mean --([a-z-]+)\?/.exec(err)?.[1];
        if (guess !== undefined) expect([...FLAGS, 'help', 'version']).toContain(guess);
      }),
    );
  });
});

describe('herdless audit', () => {
  const auditRun = async (args: string[]) => {
    const err: string[] = [];
    const code = await audit(args, { out: () => {}, err: (t) => err.push(t) });
    return { code, err: err.join('') };
  };

  it.each([
    ['--jsn', 'herdless audit: unknown flag --jsn (did you mean --json?) (see herdless audit --help)\n'],
    ['--hepl', 'herdless audit: unknown flag --hepl (did you mean --help?) (see herdless audit --help)\n'],
    ['--frob', 'herdless audit: unknown flag --frob (see herdless audit --help)\n'],
  ])('%s', async (flag, message) => {
    expect(await auditRun([flag])).toEqual({ code: 2, err: message });
  });
});

describe('usageMessage', () => {
  it('keeps the first line of any other parse error, and guesses nothing without flag names', () => {
    expect(usageMessage(new Error("Unknown option '--jsn'"))).toBe('unknown flag --jsn');
    expect(usageMessage(new Error('Unexpected argument\nTo specify...'))).toBe('Unexpected argument');
  });
});
