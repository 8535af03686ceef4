/**
 * The demo's command line (`npm run demo -- [flags]`): read into options, or a {@link DemoUsageError} whose message is
 * one line, printed as the CLI prints its own (no stack trace), with exit code 2.
 */
import { parseArgs } from 'node:util';
import { nearest } from '../src/nearest';

export const DEMO_USAGE = `Usage: npm run demo -- [--quick] [--svg FILE]

Runs the retry policies against a real HTTP server on 127.0.0.1 with real fetch clients: an overload, then a partial
failure at 50% and at 80% load (about a minute; Ctrl-C stops it). Prints what each server saw and each client got,
a load chart per act, and writes an SVG per act.

  --quick                       the same story with less traffic and shorter failures (about 50 s, for CI)
  --svg FILE                    where to write the first act's chart (default herdless-demo.svg; the other acts'
                                beside it, as FILE-partial-50.svg and FILE-partial-80.svg)
  -h, --help                    show this help

Exit codes: 0 done, 1 a request was lost or a call failed unexpectedly, 2 a bad command line, 130 interrupted.
`;

/** A bad command line for the demo. */
export class DemoUsageError extends Error {}

export interface DemoArgs {
  readonly quick: boolean;
  readonly svg?: string;
  readonly help: boolean;
}

const OPTIONS = {
  quick: { type: 'boolean' },
  svg: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Reads the demo's flags; throws a {@link DemoUsageError} that says what is wrong, on one line. */
export function parseDemoArgs(args: readonly string[]): DemoArgs {
  const { tokens } = parseArgs({
    args: [...args],
    options: OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind === 'positional') {
      throw new DemoUsageError(`unexpected argument '${token.value}': the demo takes only flags`);
    }
    if (token.kind !== 'option') continue;
    const flag = token.rawName.startsWith('--') ? `--${token.name}` : token.rawName;
    if (!Object.hasOwn(OPTIONS, token.name)) {
      const guess = nearest(token.name, Object.keys(OPTIONS));
      throw new DemoUsageError(`unknown flag ${flag}${guess ? ` (did you mean --${guess}?)` : ''}`);
    }
    const wantsValue = OPTIONS[token.name as keyof typeof OPTIONS].type === 'string';
    if (!wantsValue && token.value !== undefined) {
      throw new DemoUsageError(`${flag} takes no value, got '${flag}=${token.value}'`);
    }
    if (wantsValue && (token.value === undefined || (!token.inlineValue && token.value.startsWith('-')))) {
      throw new DemoUsageError(`${flag} needs a value: a file to write, like chart.svg`);
    }
    if (seen.has(token.name)) throw new DemoUsageError(`--${token.name} given twice: give it once`);
    seen.add(token.name);
  }
  const { values } = parseArgs({ args: [...args], options: OPTIONS, strict: true });
  return { quick: values.quick === true, help: values.help === true, ...(values.svg ? { svg: values.svg } : {}) };
}
