#!/usr/bin/env node
/**
 * The `herdless` command: `herdless simulate [flags]` runs the fleet simulator and prints its figures and a load chart.
 * Node only (it is not part of the library's core entry).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { AUDIT_USAGE, audit, usageMessage } from './audit/audit';
import { nearest } from './nearest';
import {
  contentionTable,
  EXPLORE_STRATEGIES,
  exploreSummary,
  formatMs,
  HEDGE_STRATEGIES,
  type HedgeStrategy,
  MATRIX_STRATEGIES,
  matrixSvg,
  matrixTable,
  OVERLOAD_STRATEGIES,
  type OverloadResult,
  outageTable,
  overloadTable,
  PRESETS,
  resolveStrategy,
  simulateContention,
  simulateExplore,
  simulateHedge,
  simulateMatrix,
  simulateOutage,
  simulateOverload,
  simulatePartial,
  svgChart,
  terminalChart,
} from './simulate/index';
import { MAX_CALLS, MAX_WINDOWS, SimulationLimitError, windowsIn } from './simulate/limits';
import { outageRefusals, share, table } from './simulate/report';
import { STRATEGIES, type Strategy, type StrategyName } from './simulate/strategies';

/** A built-in strategy, then the same policy under the old Retry-After rule, starred, side by side. */
const withOldRule = (name: StrategyName): Strategy[] => [
  name,
  { name: `${name}*`, policy: STRATEGIES[name], retryAfter: 'floor-plus-backoff' },
];

/**
 * `herdless --help` and `herdless help` (on stdout, exit 0), and `herdless` alone (on stderr, exit 2: a bad command
 * line): the commands first, each command's flags under its own --help.
 */
export const COMMANDS_USAGE = `Usage: herdless <command> [flags]

Commands:
  simulate                      many clients retrying against one server, on virtual time: compare retry
                                strategies through an outage, an overload or a partial failure, and hedges
                                on a server with a long tail (flags: herdless simulate --help)
  audit [paths...]              find hand-written retry loops in your code (flags: herdless audit --help)
  help [command]                show this help, or a command's

  -h, --help                    show this help
  -v, --version                 print the version

Exit codes: 0 done, 2 a bad command line (no command is one); each command's own in its --help.
`;

/** The commands {@link COMMANDS_USAGE} lists, help among them, for an unknown one's "did you mean". */
const COMMANDS = ['simulate', 'audit', 'help'] as const;

/** `herdless simulate --help`: the simulator's flags. */
export const USAGE = `Usage: herdless simulate [flags]

Simulates many clients retrying against one server, on virtual time, and compares retry strategies.
Durations take a unit: ms or s (250ms, 4s, 1.5s). Each flag is given once.

Flags:
  --scenario outage|contention|overload|partial|matrix|explore|hedge
                                outage (default): clients fail together through an outage, then meet a capacity
                                contention: the optimistic-concurrency model of AWS's "Exponential Backoff And Jitter"
                                overload: steady traffic at 80% of a FIFO server's capacity, a 4 s slowdown to 10%,
                                then 60 s: does the service recover, or do retries hold it in overload?
                                partial: the same traffic; for 30 s the server fails half of what it serves with a
                                fast 503 while it still has room: do retries keep what they are for?
                                matrix: every strategy in every kind of trouble (overloads, an outage, partial
                                failures of 2%, 20%, 50% at load 0.5 and 0.8) at 1 to 10,000 instances
                                explore: cells drawn by seed from a space of troubles (outages, hangs, slowdowns,
                                shedding, partial failures, latency, flapping, a metastable server, demand spikes),
                                demand, clients and fleet sizes: is each strategy safe and beneficial off the matrix?
                                hedge: a server with a long tail (1% of attempts 25x slower), and a slowdown with
                                --slowdown: what herdless/hedge cuts from the tail, and what load it adds
  --clients N                   outage: clients (default 1000); contention: a list, e.g. 10,50,100 (default 10..100)
  --strategies a,b,...          of ${Object.keys(STRATEGIES).join(', ')}, each optionally with +budget and/or +breaker,
                                then +hedge (a createHedge() per instance, given its budget), or no-retries
                                (maxAttempts 1), plain (full jitter), recommended (full jitter with the README's
                                budget, the library's defaults) and recommended+hedge
                                (default: outage and contention, all without; overload, ${OVERLOAD_STRATEGIES.join(', ')}):
                                immediate retries at once; fixed waits 500 ms between attempts; none is exponential
                                backoff without jitter (100 ms doubling to 10 s); full, equal and decorrelated are
                                herdless's jitters (the defaults, base 100 ms, cap 10 s); +budget shares one
                                createRetryBudget() and +breaker one createCircuitBreaker() (defaults) per instance
  --instances N                 outage, overload, partial, hedge: client instances (processes) the clients or the
                                demand are split over, each with its own budget, breaker and hedge (default 1);
                                matrix: a list (default 1,10,100,1000,10000)
  --seed N                      the same seed gives the same output (default 1)
  --json                        print the result as JSON

Outage and overload:
  --outage 4s                   outage: how long the server fails everything (default 4s); overload: answer fast
                                503s for this long instead of the slowdown
  --capacity 100/100ms          requests served per window (outage: after the outage, default 100/100ms; overload:
                                default 1000/1s)
  --max-attempts N              each client's maxAttempts (outage: default 10; overload: default 3)
  --budget                      add +budget to every strategy compared
  --breaker                     add +breaker to every strategy compared
  --svg FILE                    write the load chart as a self-contained SVG (a panel per strategy)

Outage only:
  --timeout 30s                 each client's deadline, its timeoutMs (default: none)
  --retry-after 2s              the server answers 429 with this Retry-After during the outage; each strategy
                                also runs, starred (full*), under the old rule: the server's wait plus the
                                attempt's backoff (a simulator-only reference; herdless spreads over the wait)

Overload and partial:
  --queue-limit none|1s         none (default): an unbounded queue; a duration (1s): the server sheds work beyond it
                                with a fast 503
  --shed 503|429                what the server sheds with: a bare 503 (default), or a 429 (it says it is
                                saturated; herdless's budget reads that as a timeout)
  --load 0.8                    the demand as a share of capacity (default 0.8; hedge: 0.4)

Overload (and hedge):
  --slowdown 4s                 how long the server runs at 10% of its capacity (default 4s); hedge: how long every
                                worker is 3.3x slower, from 5 s (default none)

Partial only:
  --failure-rate 0.5            the share of served requests that fail (default 0.5)
  --duration 30s                how long the partial failure lasts (default 30s)

Matrix: --instances (a list), --shed, --strategies (default ${MATRIX_STRATEGIES.join(', ')}; it needs no-retries and
plain, the references every cell is judged against), --seed, --json, --svg (a heat map).

Explore: --cells N (default 200, at most 10000: about 0.1-0.2 s of CPU a cell), --range development|evaluation
(default development: seeds 1 to 1000000; the evaluation range, seeds 1000001 to 2000000, is for reporting, never
tuning), --from N (the first cell's index in the range; --from + --cells at most 1000000),
--strategies (default ${EXPLORE_STRATEGIES.join(', ')}; it needs no-retries and plain), --json.

Hedge: --instances N (client processes, each with its own hedge; default 1), --load (default 0.4 of the server's
capacity), --tail 0.01 (the share of attempts in the slow mode, 25x longer; default 0.01), --slowdown 10s (every worker
3.3x slower for this long from 5 s; default none), --strategies (${HEDGE_STRATEGIES.join(', ')}: the default, all of
them), --seed, --json. No timeouts and no retries: the hedge alone, calls arriving over 30 s.

Contention only (the post's base 5 ms and cap 2 s):
  --runs N                      runs averaged per point (default 100)

  -h, --help                    show this help
  -v, --version                 print the version

Exit codes: 0 done, 1 the SVG could not be written, 2 a bad command line, 4 standard output could not be written
(a full disk; a reader that stops early, as head does, is not an error). Audit: 1 retry loops found, 2 also nothing
could be checked, 3 an internal error, 4 as here; see herdless audit --help.
`;

/** The scenarios each scenario-specific flag belongs to; any other flag applies to all. */
const SCENARIO_OF_FLAG: Readonly<Record<string, readonly string[]>> = {
  outage: ['outage', 'overload'],
  capacity: ['outage', 'overload', 'partial'],
  'max-attempts': ['outage', 'overload', 'partial'],
  budget: ['outage', 'overload', 'partial'],
  breaker: ['outage', 'overload', 'partial'],
  svg: ['outage', 'overload', 'partial', 'matrix'],
  timeout: ['outage'],
  'retry-after': ['outage'],
  runs: ['contention'],
  'queue-limit': ['overload', 'partial'],
  shed: ['overload', 'partial', 'matrix'],
  clients: ['outage', 'contention'],
  slowdown: ['overload', 'hedge'],
  load: ['overload', 'partial', 'hedge'],
  instances: ['outage', 'overload', 'partial', 'matrix', 'hedge'],
  'failure-rate': ['partial'],
  duration: ['partial'],
  seed: ['outage', 'contention', 'overload', 'partial', 'matrix', 'hedge'],
  tail: ['hedge'],
  cells: ['explore'],
  range: ['explore'],
  from: ['explore'],
};

/** The version in the package.json one directory up: the same from `dist/cli.js` and from `src/cli.ts`. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** A bad command line: its message is printed on one line, and the command exits with code 2. */
class UsageError extends Error {}

/** An output the command could not write: its message is printed on one line, and the command exits with code 1. */
class OutputError extends Error {}

/**
 * The exit code when standard output cannot be written (ENOSPC on a full disk, EIO), for both commands: 1 is the SVG
 * for simulate and "retry loops found" for audit, 2 a bad command line, 3 audit's internal error.
 */
const STDOUT_FAILED = 4;

/** The first line of an error's message. */
const firstLine = (error: unknown): string => String((error as Error)?.message ?? error).split('\n')[0] as string;

/**
 * What a failed write to standard output ends the command with: undefined for EPIPE (the reader went away, as
 * `| head -3` does: not an error, so nothing is said and the command's own code stands), else one line on stderr
 * and {@link STDOUT_FAILED}.
 */
function stdoutFailed(error: unknown, err: (text: string) => void): number | undefined {
  if ((error as { code?: unknown })?.code === 'EPIPE') return undefined;
  err(`herdless: cannot write to standard output: ${firstLine(error)}\n`);
  return STDOUT_FAILED;
}

/** Where the command writes; a test passes its own. */
export interface Io {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Whether stderr is a terminal (progress lines are only for terminals). */
  readonly errIsTTY: boolean;
  readonly writeFile: (path: string, text: string) => void;
  /** The clock for the progress line. Default `Date.now`. */
  readonly now?: () => number;
}

const positiveInteger = (flag: string, text: string | undefined, fallback: number, max = Infinity): number => {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
    const list = /^\d+(,\d+)+$/.test(text) ? ' (a list is for the matrix, or --clients in contention)' : '';
    throw new UsageError(`--${flag} must be a positive integer${list}, got '${text}'`);
  }
  if (Number(text) > max) throw new UsageError(`--${flag} must be at most ${max}, got '${text}'`);
  return Number(text);
};

/** Every client is simulated in memory: 100 million took 4.7 GB and ended in a heap overflow (review). */
const MAX_CLIENTS = 100_000;

/** A duration such as 4s, 250ms or 1.5s. The unit is required: a bare `4` could mean either. */
export function parseDuration(flag: string, text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(text);
  if (!m) {
    const hint = /^\d+(?:\.\d+)?$/.test(text) ? ` (a unit is required: ${text}ms or ${text}s)` : '';
    throw new UsageError(`--${flag} must be a duration like 4s or 250ms, got '${text}'${hint}`);
  }
  return Number(m[1]) * (m[2] === 's' ? 1_000 : 1);
}

/** A capacity such as 100/100ms: requests per window. */
export function parseCapacity(text: string): { capacity: number; windowMs: number } {
  const [count, window, extra] = text.split('/');
  // The window is required, as every duration's unit is: `--capacity 100` could mean per 100 ms or per second.
  if (window === undefined || extra !== undefined || !/^\d+$/.test(count ?? '') || Number(count) < 1) {
    throw new UsageError(`--capacity must be like 100/100ms (requests per window), got '${text}'`);
  }
  const windowMs = parseDuration('capacity', window);
  if (windowMs <= 0) throw new UsageError(`--capacity needs a window longer than 0, got '${text}'`);
  return { capacity: Number(count), windowMs };
}

/** parseArgs in Node 20 reads `--clients -3` as a missing value; joining the pair lets the check name the value. */
function joinNegativeValues(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const next = args[i + 1];
    if (a.startsWith('--') && !a.includes('=') && next !== undefined && /^-\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/**
 * Runs the command; returns the exit code: 0, 1 when the SVG could not be written, 2 for a bad command line, 4 when
 * `io.out` throws (other than EPIPE: then nothing more is written, quietly, and the code is the command's own).
 * `audit` returns it as a promise (it lints in worker threads).
 */
export function main(args: readonly string[], io: Io): number | Promise<number> {
  let failure: { error: unknown } | undefined;
  const guarded: Io = {
    ...io,
    out: (text) => {
      if (failure) return;
      try {
        io.out(text);
      } catch (error) {
        failure = { error };
      }
    },
  };
  const finish = (code: number) => (failure ? (stdoutFailed(failure.error, io.err) ?? code) : code);
  if (args[0] === 'audit') return audit(args.slice(1), guarded).then(finish); // `herdless audit`: see src/audit.ts
  return finish(runOrExplain(args, guarded));
}

function runOrExplain(args: readonly string[], io: Io): number {
  try {
    return run(args, io);
  } catch (error) {
    if (error instanceof OutputError) {
      io.err(`herdless: ${error.message}\n`);
      return 1;
    }
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      // `herdless help simulate extra` is help's bad command line, not simulate's.
      const help = args[0] !== 'help' && args.includes('simulate') ? 'herdless simulate --help' : 'herdless --help';
      io.err(`herdless: ${usageMessage(error as Error, Object.keys(OPTIONS))} (see ${help})\n`);
      return 2;
    }
    // What the checks before the run cannot foresee: a run that outgrew the simulator's memory limits as it went (a
    // long tail of retries in tiny windows), or a result too large for one JSON string (V8's ~512 MB).
    if (error instanceof SimulationLimitError) {
      io.err(`${firstLine(error)}\n`);
      return 2;
    }
    if (error instanceof RangeError && error.message === 'Invalid string length') {
      io.err(
        'herdless: the result is too large to print (over 512 MB of text): fewer load windows (a wider --capacity window, a shorter --outage) or fewer strategies\n',
      );
      return 2;
    }
    throw error;
  }
}

/** Writes a file, or throws an {@link OutputError} that says which and why on one line. */
function writeOutput(io: Io, path: string, text: string): void {
  try {
    io.writeFile(path, text);
  } catch (error) {
    throw new OutputError(`cannot write ${path}: ${firstLine(error)}`);
  }
}

/** The command's flags, as parseArgs reads them. */
const OPTIONS = {
  scenario: { type: 'string' },
  clients: { type: 'string' },
  outage: { type: 'string' },
  capacity: { type: 'string' },
  'max-attempts': { type: 'string' },
  strategies: { type: 'string' },
  runs: { type: 'string' },
  seed: { type: 'string' },
  json: { type: 'boolean' },
  svg: { type: 'string' },
  timeout: { type: 'string' },
  budget: { type: 'boolean' },
  breaker: { type: 'boolean' },
  'queue-limit': { type: 'string' },
  shed: { type: 'string' },
  slowdown: { type: 'string' },
  load: { type: 'string' },
  'retry-after': { type: 'string' },
  instances: { type: 'string' },
  'failure-rate': { type: 'string' },
  duration: { type: 'string' },
  cells: { type: 'string' },
  range: { type: 'string' },
  from: { type: 'string' },
  tail: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

type ValueFlag = {
  [K in keyof typeof OPTIONS]: (typeof OPTIONS)[K]['type'] extends 'string' ? K : never;
}[keyof typeof OPTIONS];

/** What each flag that takes a value wants, for the error when it has none. */
const WANTS: Readonly<Record<ValueFlag, string>> = {
  scenario: 'outage, contention, overload, partial, matrix, explore or hedge',
  clients: 'a positive integer (contention: a list, e.g. 10,50,100)',
  outage: 'a duration like 4s or 250ms',
  capacity: 'requests per window, like 100/100ms',
  'max-attempts': 'a positive integer',
  strategies: 'a list of strategies, like full,decorrelated',
  runs: 'a positive integer',
  seed: 'a positive integer',
  svg: 'a file to write, like chart.svg',
  timeout: 'a duration like 30s',
  'queue-limit': 'none or a duration like 1s',
  shed: '503 or 429',
  slowdown: 'a duration like 4s',
  load: 'a share of capacity above 0, like 0.8',
  'retry-after': 'a duration like 2s',
  instances: 'a positive integer (matrix: a list, e.g. 1,100,10000)',
  'failure-rate': 'a share from 0 to 1, like 0.5',
  duration: 'a duration like 30s',
  cells: 'a positive integer up to 10000, like 200',
  range: 'development or evaluation',
  from: 'an integer >= 0, like 200',
  tail: 'a share of attempts from 0 to 1, like 0.01',
};

/**
 * Node's parseArgs words a flag without its value in its own terms ("Option '--outage <value>' argument missing", or
 * "ambiguous" when the next flag was taken for it), and keeps the last of a flag given twice: this says which flag
 * wants what, or was given twice, in herdless's. Run before the strict parse, which still names an unknown flag.
 */
function checkFlags(args: string[]): void {
  const { tokens } = parseArgs({ args, options: OPTIONS, strict: false, allowPositionals: true, tokens: true });
  const given = new Map<string, string | undefined>();
  for (const token of tokens) {
    if (token.kind !== 'option' || !Object.hasOwn(OPTIONS, token.name)) continue;
    const flag = `--${token.name}`;
    const wants = WANTS[token.name as ValueFlag] as string | undefined;
    if (wants === undefined) {
      if (token.value !== undefined) throw new UsageError(`${flag} takes no value, got '${flag}=${token.value}'`);
    } else if (token.value === undefined) throw new UsageError(`${flag} needs a value: ${wants}`);
    else if (!token.inlineValue && token.value.startsWith('-')) {
      throw new UsageError(`${flag} needs a value before ${token.value}: ${wants}`);
    }
    if (given.has(token.name)) {
      const values = wants === undefined ? '' : ` ('${given.get(token.name)}', then '${token.value}')`;
      throw new UsageError(`${flag} given twice${values}: give it once`);
    }
    given.set(token.name, token.value);
  }
}

/** A command line whose command is none of {@link COMMANDS}: the nearest one, if any, named. */
function unknownCommand(positionals: readonly string[]): UsageError {
  const guess = positionals.length === 1 ? nearest(positionals[0] as string, COMMANDS) : undefined;
  return new UsageError(
    `unknown command '${positionals.join(' ')}'${guess ? ` (did you mean ${guess}?)` : ''}: the commands are simulate, audit and help`,
  );
}

/**
 * `herdless help [command]`, as git and npm have it: the usage of `command` (`help help` and no command: the commands'
 * usage). `--help` asks the same, its topic from the positionals (so `--help audit` is `help audit`).
 */
function helpFor(topic: readonly string[]): string {
  const [command, extra] = topic;
  if (command !== undefined && !(COMMANDS as readonly string[]).includes(command)) throw unknownCommand([command]);
  if (extra !== undefined) {
    throw new UsageError(`unexpected argument '${extra}' after help ${command}: help takes one command`);
  }
  return command === 'simulate' ? USAGE : command === 'audit' ? AUDIT_USAGE : COMMANDS_USAGE;
}

function run(args: readonly string[], io: Io): number {
  if (args.length === 0) {
    // `herdless` alone is a bad command line: a script that left its command out fails, and the usage it did not ask
    // for goes to stderr, not into the output it pipes on. `herdless --help` and `herdless help` ask: stdout, exit 0.
    io.err(COMMANDS_USAGE);
    return 2;
  }
  const joined = joinNegativeValues(args);
  checkFlags(joined);
  const { values, positionals } = parseArgs({ args: joined, allowPositionals: true, strict: true, options: OPTIONS });
  if (values.version) {
    io.out(`${packageVersion()}\n`);
    return 0;
  }
  if (values.help) {
    // --help on any command line is the help of the command it names (`herdless --help audit`, `herdless help simulate
    // --help`): its first positional, past a leading `help`; what follows it is the command's, not help's, so unread.
    io.out(helpFor(positionals.slice(positionals[0] === 'help' ? 1 : 0).slice(0, 1)));
    return 0;
  }
  if (positionals[0] === 'help') {
    // The help asked for, on stdout.
    io.out(helpFor(positionals.slice(1)));
    return 0;
  }
  if (positionals[0] !== 'simulate' || positionals.length > 1) {
    if (positionals.length === 0) throw new UsageError('missing command: simulate, audit or help');
    // `simulate extra`: a known command with a stray argument, not an unknown command.
    if (positionals[0] === 'simulate') {
      throw new UsageError(
        `simulate takes no arguments, got '${positionals.slice(1).join(' ')}': its settings are flags`,
      );
    }
    throw unknownCommand(positionals);
  }
  const scenario = values.scenario ?? 'outage';
  if (!SCENARIOS.includes(scenario)) {
    throw new UsageError(
      `--scenario must be outage, contention, overload, partial, matrix, explore or hedge, got '${scenario}'`,
    );
  }
  for (const [flag, only] of Object.entries(SCENARIO_OF_FLAG)) {
    if (values[flag as keyof typeof values] !== undefined && !only.includes(scenario)) {
      const names = only.length > 1 ? `${only.slice(0, -1).join(', ')} and ${only.at(-1)}` : only[0];
      throw new UsageError(`--${flag} is for the ${names} scenario${only.length > 1 ? 's' : ''} only, not ${scenario}`);
    }
  }
  const extras = `${values.budget ? '+budget' : ''}${values.breaker ? '+breaker' : ''}`;
  const given = values.strategies?.split(',').map((s) => s.trim());
  const strategies = (
    given ??
    (extras === ''
      ? undefined
      : scenario === 'overload' || scenario === 'partial'
        ? ['fixed', 'none', 'full']
        : Object.keys(STRATEGIES))
  )?.map((s) => (Object.hasOwn(PRESETS, s) ? s : withExtras(s, extras)));
  for (const s of scenario === 'hedge' ? [] : (strategies ?? [])) {
    try {
      resolveStrategy(s as Strategy);
    } catch {
      throw new UsageError(
        `--strategies takes ${Object.keys(STRATEGIES).join(', ')}, each optionally with +budget and/or +breaker then +hedge, or ${Object.keys(PRESETS).join(', ')}; got '${s}'`,
      );
    }
  }
  if ((scenario === 'outage' || scenario === 'contention') && strategies?.some((s) => s.endsWith('+hedge'))) {
    const hedged = strategies.find((s) => s.endsWith('+hedge'));
    throw new UsageError(
      `--strategies for ${scenario} takes no hedge ('${hedged}'): hedging runs in the overload, partial, matrix, explore and hedge scenarios`,
    );
  }
  if (strategies !== undefined && new Set(strategies).size < strategies.length) {
    const twice = strategies.find((s, i) => strategies.indexOf(s) !== i);
    throw new UsageError(`--strategies names '${twice}' twice: give each once`);
  }
  const seed = positiveInteger('seed', values.seed, 1);
  const now = io.now ?? (() => Date.now());
  const started = now();
  let drawn = false;
  const progress = (done: number, total: number) => {
    if (io.errIsTTY && now() - started > 1_000) {
      io.err(`\rsimulating: ${done} of ${total} done`);
      drawn = true;
    }
  };
  const endProgress = () => {
    if (drawn) io.err('\r\x1b[K');
  };

  if (scenario === 'contention') {
    const clients = values.clients?.split(',').map((c) => positiveInteger('clients', c, 0, MAX_CLIENTS));
    const runs = positiveInteger('runs', values.runs, 100);
    const result = simulateContention({
      ...(clients ? { clients } : {}),
      ...(strategies ? { strategies: strategies as Strategy[] } : {}),
      runs,
      seed,
      onProgress: progress,
    });
    endProgress();
    if (values.json) io.out(`${JSON.stringify(result, null, 2)}\n`);
    else {
      io.out(
        `herdless simulate: contention (OCC), the post's base 5 ms and cap 2 s, ${runs} runs a point, seed ${seed}\n`,
      );
      io.out('\n');
      io.out(`${contentionTable(result)}\n`);
    }
    return 0;
  }

  const common: SimulateRun = {
    values,
    strategies: strategies as Strategy[] | undefined,
    seed,
    io,
    progress,
    endProgress,
  };
  if (scenario === 'overload' || scenario === 'partial') return runOverload(scenario, common);
  if (scenario === 'matrix') return runMatrix(common);
  if (scenario === 'explore') return runExplore(common);
  if (scenario === 'hedge') return runHedge(common);

  const clients = positiveInteger('clients', values.clients, 1_000, MAX_CLIENTS);
  const outageMs = values.outage === undefined ? 4_000 : parseDuration('outage', values.outage);
  const { capacity, windowMs } =
    values.capacity === undefined ? { capacity: 100, windowMs: 100 } : parseCapacity(values.capacity);
  const windows = windowsIn(outageMs, windowMs);
  if (windows > MAX_WINDOWS) {
    throw new UsageError(
      `--capacity's window (${windowMs} ms) cuts the ${outageMs / 1_000} s --outage into ${windows} load windows, more than ${MAX_WINDOWS}: use a wider window or a shorter outage`,
    );
  }
  const maxAttempts = positiveInteger('max-attempts', values['max-attempts'], 10);
  const timeoutMs = values.timeout === undefined ? Infinity : parseDuration('timeout', values.timeout);
  if (timeoutMs <= 0) throw new UsageError(`--timeout must be longer than 0, got '${values.timeout}'`);
  const hint = values['retry-after'];
  const retryAfterMs = hint === undefined ? 0 : parseDuration('retry-after', hint);
  if (hint !== undefined && retryAfterMs <= 0)
    throw new UsageError(`--retry-after must be longer than 0, got '${hint}'`);
  const names = (strategies ?? Object.keys(STRATEGIES)) as StrategyName[];
  const instances = positiveInteger('instances', values.instances, 1, MAX_INSTANCES);
  const result = simulateOutage({
    instances,
    clients,
    outageMs,
    capacity,
    capacityWindowMs: windowMs,
    maxAttempts,
    timeoutMs,
    retryAfterMs,
    seed,
    strategies: retryAfterMs > 0 ? names.flatMap(withOldRule) : names,
    onProgress: progress,
  });
  endProgress();
  const series = result.results.map((r) => ({ name: r.strategy, load: r.load }));
  const chart = { windowMs, capacity, outageMs };
  if (values.svg !== undefined) {
    writeOutput(
      io,
      values.svg,
      svgChart(series, {
        ...chart,
        title:
          `${clients} clients, ${outageMs / 1_000} s outage` +
          (retryAfterMs > 0 ? ` (429, Retry-After ${formatMs(retryAfterMs)})` : '') +
          `, capacity ${capacity} per ${windowMs} ms`,
      }),
    );
  }
  if (values.json) {
    io.out(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  const told =
    retryAfterMs > 0
      ? `during the outage it answers 429 with Retry-After ${formatMs(retryAfterMs)}\n` +
        `* the old rule, for comparison: that wait plus the attempt's backoff\n`
      : '';
  io.out(
    `outage: ${clients} clients${fleet(instances)} fail for ${outageMs / 1_000} s, then the server serves ${capacity} per ${windowMs} ms\n` +
      told +
      `each client: max ${maxAttempts} attempt${maxAttempts === 1 ? '' : 's'}${timeoutMs === Infinity ? '' : `, deadline ${formatMs(timeoutMs)}`}; seed ${seed}\n` +
      `ampl.: requests per client; peak/${capacity}: busiest ${windowMs} ms after it (x capacity);\n` +
      `last done: when the last call ended; p50/p99 ok: time to succeed\n\n`,
  );
  const refusals = outageRefusals(result.results);
  io.out(
    `${outageTable(result.results, capacity)}\n${refusals ? `\n${refusals}\n` : ''}\n${terminalChart(series, chart)}\n`,
  );
  if (values.svg !== undefined) io.out(`\nwrote ${values.svg}\n`);
  return 0;
}

/** A strategy with `+budget`/`+breaker` added, unless it has them already, before its `+hedge` if it has one. */
function withExtras(strategy: string, extras: string): string {
  const hedge = strategy.endsWith('+hedge') ? '+hedge' : '';
  let out = hedge ? strategy.slice(0, -hedge.length) : strategy;
  for (const extra of extras.match(/\+\w+/g) ?? []) if (!out.split('+').includes(extra.slice(1))) out += extra;
  return out + hedge;
}

/** What every scenario's run takes from the command line: the flags, the strategies, the seed, and the progress line. */
interface SimulateRun {
  readonly values: Record<string, string | boolean | undefined>;
  readonly strategies: Strategy[] | undefined;
  readonly seed: number;
  readonly io: Io;
  readonly progress: (done: number, total: number) => void;
  readonly endProgress: () => void;
}

/** `herdless simulate --scenario overload` and `--scenario partial`. */
function runOverload(scenario: 'overload' | 'partial', command: SimulateRun): number {
  const { values, strategies, seed, io, progress, endProgress } = command;
  const text = (flag: string) => values[flag] as string | undefined;
  const { capacity, windowMs } =
    text('capacity') === undefined ? { capacity: 1_000, windowMs: 1_000 } : parseCapacity(text('capacity') as string);
  const perSecond = (capacity * 1_000) / windowMs;
  const outage = text('outage');
  if (outage !== undefined && text('slowdown') !== undefined) {
    throw new UsageError('--outage and --slowdown are two kinds of blip: give one');
  }
  const slowdownMs = parseDuration(outage === undefined ? 'slowdown' : 'outage', outage ?? text('slowdown') ?? '4s');
  const limit = text('queue-limit') ?? 'none';
  const queueLimitMs = limit === 'none' ? Infinity : parseDuration('queue-limit', limit);
  const shedStatus = parseShed(text('shed'));
  if (text('shed') !== undefined && queueLimitMs === Infinity) {
    throw new UsageError('--shed needs a --queue-limit: without one the server never sheds');
  }
  const loadText = text('load') ?? '0.8';
  if (!/^\d+(?:\.\d+)?$/.test(loadText) || !(Number(loadText) > 0)) {
    throw new UsageError(`--load must be a share of capacity above 0, like 0.8, got '${loadText}'`);
  }
  /** The run against the simulator's memory limits, before it starts: errors that name the flags. */
  const checkRun = (blipMs: number, blipFlag: string) => {
    const runMs = 5_000 + blipMs + 60_000; // simulateOverload's 5 s of warm-up and 60 s after the blip
    const calls = (Number(loadText) * perSecond * runMs) / 1_000;
    if (calls > MAX_CALLS) {
      throw new UsageError(
        `--capacity ${text('capacity') ?? '1000/1s'} at --load ${loadText} over the ${runMs / 1_000} s run is ${Math.round(calls)} requests, more than ${MAX_CALLS}: lower the capacity or the load, or shorten the --${blipFlag}`,
      );
    }
    if (windowsIn(runMs, 1_000) > MAX_WINDOWS) {
      throw new UsageError(
        `--${blipFlag} makes a run of ${runMs / 1_000} s, more than ${MAX_WINDOWS} s (one load window a second): shorten it`,
      );
    }
  };
  const common = {
    capacity: perSecond,
    load: Number(loadText),
    queueLimitMs,
    shedStatus,
    maxAttempts: positiveInteger('max-attempts', text('max-attempts'), 3),
    instances: positiveInteger('instances', text('instances'), 1, MAX_INSTANCES),
    seed,
    ...(strategies ? { strategies } : {}),
    onProgress: progress,
  };
  let result: OverloadResult;
  if (scenario === 'partial') {
    const rate = parseShare('failure-rate', text('failure-rate'), '0.5');
    const durationMs = parseDuration('duration', text('duration') ?? '30s');
    if (!(durationMs > 0)) throw new UsageError(`--duration must be longer than 0, got '${text('duration')}'`);
    checkRun(durationMs, 'duration');
    result = simulatePartial({ ...common, failureRate: rate, durationMs });
  } else {
    checkRun(slowdownMs, outage === undefined ? 'slowdown' : 'outage');
    result = simulateOverload({ ...common, slowdownMs, outage: outage !== undefined });
  }
  endProgress();
  const s = result.settings;
  const series = result.results.map((r) => ({ name: r.strategy, load: r.load }));
  // The SVG's panels say what the calls got, beside the requests drawn: an empty span (a breaker's break) is refusals.
  const panels = result.results.map((r) => ({
    name: r.strategy,
    load: r.load,
    note:
      `goodput ${(r.goodput * 100).toFixed(1)}%, recovery ${r.recoveryMs === null ? 'never' : formatMs(r.recoveryMs)}` +
      (r.refused + r.budgetStops > 0 ? `, ${r.refused + r.budgetStops} refused` : ''),
  }));
  const blip =
    scenario === 'partial'
      ? `${s.slowdownMs / 1_000} s of ${+(s.failureRate * 100).toFixed(2)}% of what it serves failing (fast 503s)`
      : s.outage
        ? `${s.slowdownMs / 1_000} s of 503s`
        : `a ${s.slowdownMs / 1_000} s slowdown to ${s.slowdownCapacity * 100}%`;
  const chart = {
    windowMs: s.windowMs,
    capacity: (s.capacity * s.windowMs) / 1_000,
    outageFromMs: s.warmupMs,
    outageMs: s.warmupMs + s.slowdownMs,
    outageLabel: scenario === 'partial' ? 'failure' : s.outage ? 'outage' : 'slowdown',
    viewMs: s.warmupMs + s.slowdownMs + s.afterMs,
  };
  if (values.svg !== undefined) {
    writeOutput(
      io,
      values.svg as string,
      svgChart(panels, {
        ...chart,
        title: `${scenario === 'partial' ? 'Partial failure' : 'Overload'}: ${s.load * 100}% of ${s.capacity}/s${fleet(s.instances)}, ${blip}, queue limit ${s.queueLimitMs === Infinity ? 'none' : formatMs(s.queueLimitMs)}`,
      }),
    );
  }
  if (values.json) {
    io.out(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  io.out(
    `${scenario}: demand ${s.load * 100}% of ${s.capacity}/s${fleet(s.instances)} (FIFO, queue limit ${s.queueLimitMs === Infinity ? 'none' : formatMs(s.queueLimitMs)}${s.shedStatus === 429 && s.queueLimitMs !== Infinity ? ', shed with a 429' : ''}), ${blip} after ${s.warmupMs / 1_000} s, then ${s.afterMs / 1_000} s\n` +
      `each request: attempt timeout ${formatMs(s.attemptTimeoutMs)}, max ${s.maxAttempts} attempt${s.maxAttempts === 1 ? '' : 's'}; seed ${seed}\n\n`,
  );
  io.out(`${overloadTable(result.results)}\n\n${terminalChart(series, chart)}\n`);
  if (values.svg !== undefined) io.out(`\nwrote ${values.svg}\n`);
  return 0;
}

/** `--shed`: the status a server over its queue limit answers with. */
function parseShed(value: string | undefined): 503 | 429 {
  if (value === undefined || value === '503') return 503;
  if (value === '429') return 429;
  throw new UsageError(`--shed must be 503 or 429, got '${value}'`);
}

/** `herdless simulate --scenario matrix`. */
function runMatrix(command: SimulateRun): number {
  const { values, strategies, seed, io, progress, endProgress } = command;
  const list = values.instances as string | undefined;
  const instances = list?.split(',').map((n) => positiveInteger('instances', n.trim(), 0, MAX_INSTANCES));
  const names = strategies ?? [...MATRIX_STRATEGIES];
  for (const reference of ['no-retries', 'plain']) {
    if (!names.includes(reference as Strategy)) {
      throw new UsageError(`--strategies for the matrix must include ${reference}: every cell is judged against it`);
    }
  }
  const result = simulateMatrix({
    ...(instances ? { instances } : {}),
    strategies: names,
    seed,
    shedStatus: parseShed(values.shed as string | undefined),
    onProgress: progress,
  });
  endProgress();
  if (values.svg !== undefined) writeOutput(io, values.svg as string, matrixSvg(result));
  if (values.json) {
    io.out(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  io.out(
    `matrix: each kind of trouble at each fleet size (the demand split over the instances, each with its own budget\n` +
      `and breaker); capacity 1000/s, attempt timeout 1 s, 3 attempts; ${result.shedStatus === 429 ? 'shed with a 429; ' : ''}seed ${seed}\n\n`,
  );
  io.out(`${matrixTable(result)}\n`);
  if (values.svg !== undefined) io.out(`\nwrote ${values.svg}\n`);
  return 0;
}

/** ", over N instances" for a fleet, nothing for one. */
const fleet = (instances: number) => (instances > 1 ? ` over ${instances} instances` : '');

/** Each instance holds its own budget and breaker (about a kilobyte): a million would take a gigabyte. */
const MAX_INSTANCES = 100_000;

const SCENARIOS: readonly string[] = ['outage', 'contention', 'overload', 'partial', 'matrix', 'explore', 'hedge'];

/** A share from 0 to 1 given to `--flag` (default `fallback`), else a UsageError naming it. */
function parseShare(flag: string, text: string | undefined, fallback: string, above = false): number {
  const given = text ?? fallback;
  const value = Number(given);
  if (!/^\d+(?:\.\d+)?$/.test(given) || value > 1 || (above && value === 0)) {
    throw new UsageError(
      `--${flag} must be a share ${above ? 'above 0 and up to 1' : 'from 0 to 1'}, like ${fallback}, got '${given}'`,
    );
  }
  return value;
}

/** `herdless simulate --scenario hedge`. */
function runHedge(command: SimulateRun): number {
  const { values, strategies, seed, io, progress, endProgress } = command;
  const text = (flag: string) => values[flag] as string | undefined;
  for (const s of strategies ?? []) {
    if (!(HEDGE_STRATEGIES as readonly string[]).includes(s as string)) {
      throw new UsageError(`--strategies for hedge takes ${HEDGE_STRATEGIES.join(', ')}; got '${String(s)}'`);
    }
  }
  const slowdown = text('slowdown');
  const result = simulateHedge({
    instances: positiveInteger('instances', text('instances'), 1, MAX_INSTANCES),
    load: parseShare('load', text('load'), '0.4', true),
    slowShare: parseShare('tail', text('tail'), '0.01'),
    slowdownMs: slowdown === undefined ? 0 : parseDuration('slowdown', slowdown),
    seed,
    ...(strategies ? { strategies: strategies as unknown as HedgeStrategy[] } : {}),
    onProgress: progress,
  });
  endProgress();
  if (values.json) {
    io.out(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  const s = result.settings;
  const ms = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(0));
  io.out(
    `hedge: ${s.workers} workers (capacity ${Math.round(s.capacity)}/s) at load ${s.load}, ${share(s.slowShare, 1)} of attempts ${s.slowFactor}x slower${s.slowdownMs > 0 ? `, every worker ${s.slowdownFactor}x slower for ${formatMs(s.slowdownMs)} from ${formatMs(s.warmupMs)}` : ''}${fleet(s.instances)}; unbounded hedges at the healthy p95, ${ms(s.healthyP95Ms)} ms; seed ${s.seed}\n\n`,
  );
  const rows = [
    ['strategy', 'p50 ms', 'p99 ms', 'p99.9 ms', 'extra load', ...(s.slowdownMs > 0 ? ['in the slowdown'] : [])],
  ];
  for (const r of result.results) {
    rows.push([
      r.strategy,
      ms(r.p50Ms),
      ms(r.p99Ms),
      ms(r.p999Ms),
      share(r.extraLoad, 1),
      ...(s.slowdownMs > 0 ? [share(r.extraInSlowdown, 1)] : []),
    ]);
  }
  io.out(`${table(rows)}\n`);
  return 0;
}

/** The most cells a run draws: about 0.1-0.2 s of CPU a cell, so up to an hour on two cores. */
const MAX_CELLS = 10_000;

/** `herdless simulate --scenario explore`. */
function runExplore(command: SimulateRun): number {
  const { values, strategies, io, progress, endProgress } = command;
  const names = strategies ?? [...EXPLORE_STRATEGIES];
  for (const reference of ['no-retries', 'plain']) {
    if (!names.includes(reference as Strategy)) {
      throw new UsageError(`--strategies for explore must include ${reference}: every cell is judged against it`);
    }
  }
  const range = (values.range as string | undefined) ?? 'development';
  if (range !== 'development' && range !== 'evaluation') {
    throw new UsageError(`--range must be development or evaluation, got '${range}'`);
  }
  const cells = positiveInteger('cells', values.cells as string | undefined, 200, MAX_CELLS);
  const fromText = values.from as string | undefined;
  if (fromText !== undefined && !/^\d+$/.test(fromText))
    throw new UsageError(`--from must be an integer >= 0, got '${fromText}'`);
  const from = fromText === undefined ? 0 : Number(fromText);
  if (from + cells > 1_000_000) {
    throw new UsageError(
      `--from + --cells must be at most 1000000 (a range's size), got ${from} + ${cells}: the development range would run into the evaluation range`,
    );
  }
  const result = simulateExplore({ cells, range, from, strategies: names, onProgress: progress });
  endProgress();
  io.out(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${exploreSummary(result)}\n`);
  return 0;
}

/** The process the command runs in, as {@link start} uses it; a test passes its own. */
export interface Std {
  readonly stdout: Writable;
  readonly stderr: Writable & { readonly isTTY?: boolean };
  readonly writeFile: Io['writeFile'];
  /** Ends the process now, with this code; undefined: with the code the command has set, if any (`process.exit()`). */
  readonly exit: (code?: number) => void;
}

/**
 * Runs the command on a process's streams; resolves to its exit code. A stream reports a failed write after
 * `write()` returned, often after the command is done: a failed stdout then ends the process at once through
 * `std.exit`, quietly for EPIPE (`herdless simulate | head -3`), else with one line on stderr and exit code 4. A
 * failed stderr is ignored: there is nowhere left to say so, and stdout's output still counts.
 */
export function start(args: readonly string[], std: Std): Promise<number> {
  const err = (text: string) => void std.stderr.write(text);
  // A stream emits 'error' once: it is destroyed then, and later writes fail without another event.
  std.stdout.on('error', (error) => std.exit(stdoutFailed(error, err)));
  std.stderr.on('error', () => {});
  return Promise.resolve(
    main(args, {
      out: (text) => void std.stdout.write(text),
      err,
      errIsTTY: Boolean(std.stderr.isTTY),
      writeFile: std.writeFile,
    }),
  );
}

/* c8 ignore start -- the process wiring; start() and main() are what the tests drive */
const invokedDirectly =
  process.argv[1] !== undefined && /(?:^|[\\/])(?:cli\.(?:ts|js|cjs)|herdless(?:\.js)?)$/.test(process.argv[1]);
if (invokedDirectly) {
  void start(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    writeFile: (path, text) => writeFileSync(path, text),
    exit: (code) => process.exit(code),
  }).then((exit) => {
    process.exitCode = exit;
  });
}
/* c8 ignore stop */
