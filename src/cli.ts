#!/usr/bin/env node
/**
 * The `herdless` command: `herdless simulate [flags]` runs the fleet simulator and prints its figures and a load chart.
 * Node only (it is not part of the library's core entry).
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { audit } from './audit';
import {
  contentionTable,
  outageTable,
  simulateContention,
  simulateOutage,
  svgChart,
  terminalChart,
} from './simulate/index';
import { STRATEGIES, type Strategy } from './simulate/strategies';

export const USAGE = `Usage: herdless simulate [flags]

Simulates many clients retrying against one server, on virtual time, and compares retry strategies.

Flags:
  --scenario outage|contention  outage (default): clients fail together through an outage, then meet a capacity
                                contention: the optimistic-concurrency model of AWS's "Exponential Backoff And Jitter"
  --clients N                   outage: clients (default 1000); contention: a list, e.g. 10,50,100 (default 10..100)
  --outage 4s                   how long the server fails everything (default 4s; ms or s)
  --capacity 100/100ms          requests served per window after the outage (default 100/100ms)
  --max-attempts N              each client's maxAttempts (default 10)
  --strategies a,b,...          of ${Object.keys(STRATEGIES).join(', ')} (default: all)
  --runs N                      contention: runs averaged per point (default 100)
  --seed N                      the same seed gives the same output (default 1)
  --json                        print the result as JSON
  --svg FILE                    write the load chart as a self-contained SVG (outage)
  -h, --help                    show this help
`;

/** A bad command line: its message is printed on one line, and the command exits with code 2. */
class UsageError extends Error {}

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

/** A duration such as 4s, 250ms or 1.5s (a bare number is milliseconds). */
export function parseDuration(flag: string, text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text);
  if (!m) throw new UsageError(`--${flag} must be a duration like 4s or 250ms, got '${text}'`);
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

/** Runs the command; returns the exit code (0, or 2 for a bad command line). */
export function main(args: readonly string[], io: Io): number {
  if (args[0] === 'audit') return audit(args.slice(1), io); // `herdless audit`: see src/audit.ts
  try {
    return run(args, io);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`herdless: ${(error as Error).message.split('\n')[0]} (see herdless --help)\n`);
      return 2;
    }
    throw error;
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
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
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
    if (values.svg !== undefined) throw new UsageError('--svg draws the outage scenario only');
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
      io.out(`herdless simulate: contention (OCC), base 5 ms, cap 2 s, ${runs} runs a point, seed ${seed}\n`);
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
  const result = simulateOutage({
    clients,
    outageMs,
    capacity,
    capacityWindowMs: windowMs,
    maxAttempts,
    seed,
    ...(strategies ? { strategies: strategies as Strategy[] } : {}),
    onProgress: progress,
  });
  endProgress();
  const series = result.results.map((r) => ({ name: r.strategy, load: r.load }));
  const chart = { windowMs, capacity, outageMs };
  if (values.svg !== undefined) {
    io.writeFile(
      values.svg,
      svgChart(series, {
        ...chart,
        title: `${clients} clients, ${outageMs / 1_000} s outage, capacity ${capacity} per ${windowMs} ms`,
      }),
    );
  }
  if (values.json) {
    io.out(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  io.out(
    `outage: ${clients} clients fail for ${outageMs / 1_000} s, then the server serves ${capacity} per ${windowMs} ms\n` +
      `each client: max ${maxAttempts} attempts; seed ${seed}\n\n`,
  );
  io.out(`${outageTable(result.results, capacity)}\n\n${terminalChart(series, chart)}\n`);
  if (values.svg !== undefined) io.out(`\nwrote ${values.svg}\n`);
  return 0;
}

/* c8 ignore start -- the process wiring; main() is what the tests drive */
const invokedDirectly =
  process.argv[1] !== undefined && /(?:^|[\\/])(?:cli\.(?:ts|js|cjs)|herdless)$/.test(process.argv[1]);
if (invokedDirectly) {
  process.exitCode = main(process.argv.slice(2), {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    errIsTTY: Boolean(process.stderr.isTTY),
    writeFile: (path, text) => writeFileSync(path, text),
  });
}
/* c8 ignore stop */
