#!/usr/bin/env node
/**
 * The `herdless` command: `herdless simulate [flags]` runs the fleet simulator and prints its figures and a load chart.
 * Node only (it is not part of the library's core entry).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  contentionTable,
  formatMs,
  outageTable,
  simulateContention,
  simulateOutage,
  svgChart,
  terminalChart,
} from './simulate/index';
import { STRATEGIES, type Strategy, type StrategyName } from './simulate/strategies';

/** A built-in strategy, then the same policy under the old Retry-After rule, starred, side by side. */
const withOldRule = (name: StrategyName): Strategy[] => [
  name,
  { name: `${name}*`, policy: STRATEGIES[name], retryAfter: 'floor-plus-backoff' },
];

export const USAGE = `Usage: herdless simulate [flags]
       herdless --version | --help

Simulates many clients retrying against one server, on virtual time, and compares retry strategies.
Durations take a unit: ms or s (250ms, 4s, 1.5s).

Flags:
  --scenario outage|contention  outage (default): clients fail together through an outage, then meet a capacity
                                contention: the optimistic-concurrency model of AWS's "Exponential Backoff And Jitter"
  --clients N                   outage: clients (default 1000); contention: a list, e.g. 10,50,100 (default 10..100)
  --strategies a,b,...          of ${Object.keys(STRATEGIES).join(', ')} (default: all):
                                immediate retries at once; fixed waits 500 ms between attempts; none is exponential
                                backoff without jitter (outage: 100 ms doubling to 10 s); full, equal and decorrelated
                                are herdless's jitters (outage: the defaults, base 100 ms, cap 10 s)
  --seed N                      the same seed gives the same output (default 1)
  --json                        print the result as JSON

Outage only:
  --outage 4s                   how long the server fails everything (default 4s)
  --capacity 100/100ms          requests served per window after the outage (default 100/100ms)
  --max-attempts N              each client's maxAttempts (default 10)
  --timeout 30s                 each client's deadline, its timeoutMs (default: none)
  --retry-after 2s              the server answers 429 with this Retry-After during the outage; each strategy
                                also runs, starred (full*), under the old rule: the server's wait plus the
                                attempt's backoff (a simulator-only reference; herdless spreads over the wait)
  --svg FILE                    write the load chart as a self-contained SVG

Contention only (the post's base 5 ms and cap 2 s):
  --runs N                      runs averaged per point (default 100)

  -h, --help                    show this help
  -v, --version                 print the version

Exit codes: 0 done, 1 the SVG could not be written, 2 a bad command line.
`;

/** The scenario each scenario-specific flag belongs to; any other flag applies to both. */
const SCENARIO_OF_FLAG = {
  outage: 'outage',
  capacity: 'outage',
  'max-attempts': 'outage',
  timeout: 'outage',
  'retry-after': 'outage',
  svg: 'outage',
  runs: 'contention',
} as const;

/** The version in the package.json one directory up: the same from `dist/cli.js` and from `src/cli.ts`. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** A bad command line: its message is printed on one line, and the command exits with code 2. */
class UsageError extends Error {}

/** An output the command could not write: its message is printed on one line, and the command exits with code 1. */
class OutputError extends Error {}

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

const positiveInteger = (flag: string, text: string | undefined, fallback: number): number => {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`--${flag} must be a positive integer, got '${text}'`);
  }
  return Number(text);
};

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
  const [count, window = '100ms', extra] = text.split('/');
  if (extra !== undefined || !/^\d+$/.test(count ?? '') || Number(count) < 1) {
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

/** Runs the command; returns the exit code: 0, 1 when the SVG could not be written, 2 for a bad command line. */
export function main(args: readonly string[], io: Io): number {
  try {
    return run(args, io);
  } catch (error) {
    if (error instanceof OutputError) {
      io.err(`herdless: ${error.message}\n`);
      return 1;
    }
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`herdless: ${(error as Error).message.split('\n')[0]} (see herdless --help)\n`);
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
    throw new OutputError(`cannot write ${path}: ${String((error as Error)?.message ?? error).split('\n')[0]}`);
  }
}

function run(args: readonly string[], io: Io): number {
  const { values, positionals } = parseArgs({
    args: joinNegativeValues(args),
    allowPositionals: true,
    strict: true,
    options: {
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
      'retry-after': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.version) {
    io.out(`${packageVersion()}\n`);
    return 0;
  }
  if (values.help || args.length === 0) {
    io.out(USAGE);
    return 0;
  }
  if (positionals[0] !== 'simulate' || positionals.length > 1) {
    throw new UsageError(
      positionals.length === 0 ? 'missing command: simulate' : `unknown command '${positionals.join(' ')}'`,
    );
  }
  const scenario = values.scenario ?? 'outage';
  if (scenario !== 'outage' && scenario !== 'contention') {
    throw new UsageError(`--scenario must be outage or contention, got '${scenario}'`);
  }
  for (const [flag, only] of Object.entries(SCENARIO_OF_FLAG)) {
    if (values[flag as keyof typeof SCENARIO_OF_FLAG] !== undefined && only !== scenario) {
      throw new UsageError(`--${flag} is for the ${only} scenario only, not ${scenario}`);
    }
  }
  const strategies = values.strategies?.split(',').map((s) => s.trim());
  for (const s of strategies ?? []) {
    if (!(s in STRATEGIES)) {
      throw new UsageError(`--strategies takes ${Object.keys(STRATEGIES).join(', ')}; got '${s}'`);
    }
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
    const clients = values.clients?.split(',').map((c) => positiveInteger('clients', c, 0));
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

  const clients = positiveInteger('clients', values.clients, 1_000);
  const outageMs = values.outage === undefined ? 4_000 : parseDuration('outage', values.outage);
  const { capacity, windowMs } =
    values.capacity === undefined ? { capacity: 100, windowMs: 100 } : parseCapacity(values.capacity);
  const maxAttempts = positiveInteger('max-attempts', values['max-attempts'], 10);
  const timeoutMs = values.timeout === undefined ? Infinity : parseDuration('timeout', values.timeout);
  if (timeoutMs <= 0) throw new UsageError(`--timeout must be longer than 0, got '${values.timeout}'`);
  const hint = values['retry-after'];
  const retryAfterMs = hint === undefined ? 0 : parseDuration('retry-after', hint);
  if (hint !== undefined && retryAfterMs <= 0)
    throw new UsageError(`--retry-after must be longer than 0, got '${hint}'`);
  const names = (strategies ?? Object.keys(STRATEGIES)) as StrategyName[];
  const result = simulateOutage({
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
    `outage: ${clients} clients fail for ${outageMs / 1_000} s, then the server serves ${capacity} per ${windowMs} ms\n` +
      told +
      `each client: max ${maxAttempts} attempts${timeoutMs === Infinity ? '' : `, deadline ${formatMs(timeoutMs)}`}; seed ${seed}\n\n`,
  );
  io.out(`${outageTable(result.results, capacity)}\n\n${terminalChart(series, chart)}\n`);
  if (values.svg !== undefined) io.out(`\nwrote ${values.svg}\n`);
  return 0;
}

/* c8 ignore start -- the process wiring; main() is what the tests drive */
const invokedDirectly =
  process.argv[1] !== undefined && /(?:^|[\\/])(?:cli\.(?:ts|js|cjs)|herdless)$/.test(process.argv[1]);
if (invokedDirectly) {
  // A reader that went away (`herdless simulate | head -3`) is not an error: stop quietly, as other tools do.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit();
    });
  }
  process.exitCode = main(process.argv.slice(2), {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    errIsTTY: Boolean(process.stderr.isTTY),
    writeFile: (path, text) => writeFileSync(path, text),
  });
}
/* c8 ignore stop */
