import { readFileSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AUDIT_USAGE } from '../src/audit/audit';
import { COMMANDS_USAGE, main, packageVersion, parseCapacity, parseDuration, start, USAGE } from '../src/cli';
import { formatMs } from '../src/simulate/chart';
import { runCli as run } from './cli-helpers';

describe('herdless simulate', () => {
  it('prints the figures table and the load chart, within 80 columns', () => {
    const { code, out, err } = run('simulate', '--clients', '200', '--strategies', 'fixed,full');
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).toMatch(/^outage: 200 clients fail for 4 s/);
    expect(out).toMatch(/strategy\s+requests\s+ampl\./);
    // Seed 1 is the default, so the figures are pinned, not only the table's shape.
    expect(out.split('\n').slice(5, 8)).toEqual([
      'strategy  requests  ampl.    peak/100  last done  gave up  p50 ok  p99 ok',
      'fixed         1830   9.15  130 (1.3x)      4.8 s        0   4.2 s   4.7 s',
      'full          1564   7.82   12 (0.1x)       13 s        0   5.4 s    12 s',
    ]);
    expect(out).toMatch(/\nfull\s+\|/);
    for (const line of out.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
  });

  it('is reproducible with --seed and prints JSON with --json', () => {
    const a = run('simulate', '--clients', '50', '--seed', '9', '--json');
    const b = run('simulate', '--clients', '50', '--seed', '9', '--json');
    expect(a.out).toBe(b.out);
    const parsed = JSON.parse(a.out);
    expect(parsed.scenario).toBe('outage');
    expect(parsed.settings).toMatchObject({ clients: 50, seed: 9 });
    expect(parsed.results).toHaveLength(6);
  });

  it('reads --outage, --capacity and --max-attempts', () => {
    const { out } = run(
      'simulate',
      '--clients',
      '20',
      '--outage',
      '1.5s',
      '--capacity',
      '5/50ms',
      '--max-attempts',
      '4',
      '--json',
    );
    const parsed = JSON.parse(out);
    expect(parsed.settings).toMatchObject({ outageMs: 1_500, capacity: 5, capacityWindowMs: 50, maxAttempts: 4 });
  });

  it('writes a self-contained SVG with --svg', () => {
    const { code, out, files } = run('simulate', '--clients', '40', '--svg', 'chart.svg');
    expect(code).toBe(0);
    expect(out).toContain('wrote chart.svg');
    expect(files.get('chart.svg')).toMatch(/^<svg xmlns/);
  });

  it('runs the contention scenario', () => {
    const { code, out } = run(
      'simulate',
      '--scenario',
      'contention',
      '--clients',
      '10,20',
      '--runs',
      '3',
      '--strategies',
      'full,none',
    );
    expect(code).toBe(0);
    expect(out).toMatch(/work: mean calls.*\nclients\s+full\s+none\n/);
    expect(out).toMatch(/time: mean time.*\nclients\s+full\s+none\n/);
    expect(out).toMatch(/\n10\s+\d+/);
    expect(out).toMatch(/\n20\s+\d+/);
    const json = JSON.parse(
      run('simulate', '--scenario', 'contention', '--clients', '10', '--runs', '2', '--json').out,
    );
    expect(json.results).toHaveLength(5);
  });

  it('prints help: the commands first, each command its flags under its own --help', () => {
    expect(run('--help')).toMatchObject({ code: 0, out: COMMANDS_USAGE, err: '' });
    expect(run('-h')).toMatchObject({ code: 0, out: COMMANDS_USAGE });
    expect(COMMANDS_USAGE).toMatch(
      /^Usage: herdless <command> \[flags\]\n\nCommands:\n {2}simulate .*\n(?: .*\n)* {2}audit /,
    );
    expect(COMMANDS_USAGE).not.toContain('--scenario');
    expect(run('simulate', '-h')).toMatchObject({ code: 0, out: USAGE });
    expect(run('simulate', '--help').out).toMatch(/^Usage: herdless simulate \[flags\]\n/);
    expect(USAGE).toContain('--scenario outage|contention');
  });

  it('run with no command, it prints the usage to stderr and exits 2, a bad command line (issue 31)', () => {
    // A script that runs `herdless` with its command left out must fail, not pass on a help text it never asked for.
    expect(run()).toEqual({ code: 2, out: '', err: COMMANDS_USAGE, files: new Map() });
    expect(readFileSync(new URL('../docs/guide/cli.md', import.meta.url), 'utf8')).toMatch(
      /`herdless` with no command is a bad command line: it prints\s+the same usage to stderr and exits 2/,
    );
  });

  it("`herdless help` is --help: the usage on stdout, exit 0; `help <command>` is that command's --help", () => {
    expect(run('help')).toMatchObject({ code: 0, out: COMMANDS_USAGE, err: '' });
    expect(run('help', 'simulate')).toMatchObject({ code: 0, out: USAGE, err: '' });
    expect(run('help', 'audit')).toMatchObject({ code: 0, out: AUDIT_USAGE, err: '' });
    expect(run('help', 'audt')).toMatchObject({
      code: 2,
      out: '',
      err: "herdless: unknown command 'audt' (did you mean audit?): the commands are simulate, audit and help (see herdless --help)\n",
    });
    expect(COMMANDS_USAGE).toMatch(/\n {2}help \[command\] +show this help, or a command's\n/);
  });

  it.each([
    [
      'simulat',
      "herdless: unknown command 'simulat' (did you mean simulate?): the commands are simulate, audit and help (see herdless --help)\n",
    ],
    [
      'audt',
      "herdless: unknown command 'audt' (did you mean audit?): the commands are simulate, audit and help (see herdless --help)\n",
    ],
    [
      'frobnicate',
      "herdless: unknown command 'frobnicate': the commands are simulate, audit and help (see herdless --help)\n",
    ],
  ])('an unknown command %j names the nearest one, if any, on one line', (command, message) => {
    expect(run(command)).toMatchObject({ code: 2, out: '', err: message });
  });

  it('the outage with a breaker shows refused, and what failing fast bought and cost', () => {
    // A budget holds the retries of a dependency that fails fast (it refuses none here); a breaker fails fast.
    const { code, out } = run('simulate', '--clients', '200', '--strategies', 'full,full+breaker');
    expect(code).toBe(0);
    const json = JSON.parse(run('simulate', '--clients', '200', '--strategies', 'full,full+breaker', '--json').out);
    const [full, breaker] = json.results;
    expect(breaker.refused).toBeGreaterThan(0);
    expect(full.refused).toBe(0);
    expect(out).toMatch(/strategy +requests +ampl\. +peak\/100 +last done +gave up +refused +p50 ok/);
    expect(out).toMatch(new RegExp(`\\nfull\\+breaker +${breaker.requests} .* ${breaker.gaveUp} +${breaker.refused} `));
    expect(out).toContain(
      `full+breaker: ${breaker.refused} of ${breaker.gaveUp} calls that gave up were refused (fail-fast):\n` +
        `  bought: the server got ${breaker.requests} requests instead of ${full.requests} (full);`,
    );
    expect(out).toContain(`  cost: ${breaker.succeeded} calls succeeded, against ${full.succeeded} for full,`);
    // Without a protection: no column, no note.
    expect(run('simulate', '--clients', '200', '--strategies', 'full').out).not.toContain('refused');
  });

  it("the overload SVG's panels give each strategy's goodput, recovery and refusals beside its requests", () => {
    const args = ['simulate', '--scenario', 'overload', '--strategies', 'full,full+breaker'];
    const { files } = run(...args, '--svg', 'o.svg');
    const json = JSON.parse(run(...args, '--json').out);
    const svg = files.get('o.svg') as string;
    expect(json.results.some((r: { refused: number }) => r.refused > 0)).toBe(true);
    for (const r of json.results) {
      const refused = r.refused + r.budgetStops;
      const recovery = r.recoveryMs === null ? 'never' : formatMs(r.recoveryMs);
      const note = `goodput ${(r.goodput * 100).toFixed(1)}%, recovery ${recovery}${refused > 0 ? `, ${refused} refused` : ''}<`;
      expect(svg).toContain(`>${r.strategy}: peak `);
      expect(svg).toContain(note);
    }
  }, 60_000);

  it('says in the help what each strategy is, that durations need a unit, and that a flag is given once', () => {
    expect(USAGE).toMatch(/Each flag is given once\./);
    expect(readFileSync(new URL('../docs/guide/cli.md', import.meta.url), 'utf8')).toMatch(
      /a flag the chosen scenario does not use is an error that names it, and so is a flag given twice or\s+without its value/,
    );
    expect(USAGE).toMatch(/fixed waits 500 ms between attempts/);
    expect(USAGE).toMatch(/none is exponential\s+backoff without jitter/);
    expect(USAGE).toMatch(/Durations take a unit: ms or s/);
    expect(USAGE).toMatch(/--timeout 30s\s+each client's deadline/);
  });

  it('prints the version from package.json with --version and -v', () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(run('--version')).toMatchObject({ code: 0, out: `${version}\n`, err: '' });
    expect(run('-v')).toMatchObject({ code: 0, out: `${version}\n`, err: '' });
    expect(packageVersion()).toBe(version);
  });

  it('gives each client a deadline with --timeout', () => {
    const { code, out } = run('simulate', '--clients', '100', '--strategies', 'fixed', '--timeout', '1s');
    expect(code).toBe(0);
    expect(out).toContain('each client: max 10 attempts, deadline 1.0 s; seed 1');
    const json = JSON.parse(run('simulate', '--clients', '100', '--timeout', '1.5s', '--json').out);
    expect(json.settings.timeoutMs).toBe(1_500);
    const fixed = json.results.find((r: { strategy: string }) => r.strategy === 'fixed');
    expect(fixed.gaveUp).toBe(100); // the 4 s outage outlasts every deadline
    expect(fixed.lastFinishMs).toBeLessThan(1_700);
  });

  it('answers 429 with --retry-after during the outage, and runs each strategy beside its old-rule reference', () => {
    const { code, out } = run('simulate', '--retry-after', '2s', '--strategies', 'fixed,full');
    expect(code).toBe(0);
    expect(out).toContain('during the outage it answers 429 with Retry-After 2.0 s\n* the old rule, for comparison:');
    expect(out).toMatch(/\nfixed {2,}\d+.*\nfixed\* +\d+.*\nfull {2,}\d+.*\nfull\* +\d+/);
    for (const line of out.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
    const all = run('simulate', '--retry-after', '2s', '--clients', '100');
    for (const line of all.out.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
    const json = JSON.parse(run('simulate', '--clients', '50', '--retry-after', '1.5s', '--json').out);
    expect(json.settings.retryAfterMs).toBe(1_500);
    expect(json.results.map((r: { strategy: string }) => r.strategy)).toHaveLength(12);
    expect(run('simulate', '--clients', '50', '--json').out).toContain('"retryAfterMs": 0');
    const { files } = run('simulate', '--clients', '50', '--retry-after', '2s', '--svg', 'h.svg');
    expect(files.get('h.svg')).toContain('50 clients, 4 s outage (429, Retry-After 2.0 s), capacity 100 per 100 ms');
  });

  it('an SVG it cannot write is one line on stderr and exit code 1, not a stack', () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = main(['simulate', '--clients', '20', '--svg', '/no/such/dir/x.svg'], {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
      errIsTTY: false,
      writeFile: (path, text) => writeFileSync(path, text),
    });
    expect(code).toBe(1);
    expect(err.join('')).toBe(
      "herdless: cannot write /no/such/dir/x.svg: ENOENT: no such file or directory, open '/no/such/dir/x.svg'\n",
    );
  });

  it.each([
    [['simulate', '--clients', '-3'], "--clients must be a positive integer, got '-3'"],
    [['simulate', '--clients', 'many'], "--clients must be a positive integer, got 'many'"],
    [['simulate', '--clients', '0'], "--clients must be a positive integer, got '0'"],
    [['simulate', '--clients', '100000000'], "--clients must be at most 100000, got '100000000'"], // review: heap overflow
    [
      ['simulate', '--scenario', 'contention', '--clients', '10,100001'],
      "--clients must be at most 100000, got '100001'",
    ],
    [['simulate', '--outage', 'soon'], "--outage must be a duration like 4s or 250ms, got 'soon'"],
    [['simulate', '--capacity', 'lots'], "--capacity must be like 100/100ms (requests per window), got 'lots'"],
    [['simulate', '--capacity', '10/0ms'], "--capacity needs a window longer than 0, got '10/0ms'"],
    [
      ['simulate', '--strategies', 'full,wild'],
      "--strategies takes immediate, fixed, none, full, equal, decorrelated, each optionally with +budget and/or +breaker then +hedge, or no-retries, plain, recommended, recommended+hedge; got 'wild'",
    ],
    [
      ['simulate', '--scenario', 'storm'],
      "--scenario must be outage, contention, overload, partial, matrix, explore or hedge, got 'storm'",
    ],
    [['simulate', '--strategies', 'full+budget+budget'], "got 'full+budget+budget'"],
    [
      ['simulate', '--scenario', 'overload', '--timeout', '1s'],
      '--timeout is for the outage scenario only, not overload',
    ],
    [['simulate', '--queue-limit', '1s'], '--queue-limit is for the overload and partial scenarios only, not outage'],
    [['simulate', '--scenario', 'overload', '--queue-limit', '1'], '--queue-limit must be a duration like 4s or 250ms'],
    [['simulate', '--scenario', 'overload', '--shed', '500'], "--shed must be 503 or 429, got '500'"],
    [['simulate', '--scenario', 'matrix', '--shed', 'x'], "--shed must be 503 or 429, got 'x'"],
    [['simulate', '--shed', '429'], '--shed is for the overload, partial and matrix scenarios only, not outage'],
    [
      ['simulate', '--scenario', 'partial', '--shed', '429'],
      '--shed needs a --queue-limit: without one the server never sheds',
    ],
    [
      ['simulate', '--instances', '1,10'],
      "--instances must be a positive integer (a list is for the matrix, or --clients in contention), got '1,10'",
    ],
    [
      ['simulate', '--scenario', 'overload', '--load', 'lots'],
      "--load must be a share of capacity above 0, like 0.8, got 'lots'",
    ],
    [
      ['simulate', '--scenario', 'overload', '--outage', '2s', '--slowdown', '2s'],
      '--outage and --slowdown are two kinds',
    ],
    [
      ['simulate', '--scenario', 'contention', '--budget'],
      '--budget is for the outage, overload and partial scenarios only',
    ],
    [
      ['simulate', '--scenario', 'contention', '--svg', 'x.svg'],
      '--svg is for the outage, overload, partial and matrix scenarios only, not contention',
    ],
    [['simulate', '--runs', '5'], '--runs is for the contention scenario only, not outage'],
    [
      ['simulate', '--scenario', 'contention', '--max-attempts', '3'],
      '--max-attempts is for the outage, overload and partial scenarios only, not contention',
    ],
    [['simulate', '--scenario', 'contention', '--timeout', '1s'], '--timeout is for the outage scenario only'],
    [
      ['simulate', '--scenario', 'contention', '--outage', '1s'],
      '--outage is for the outage and overload scenarios only',
    ],
    [
      ['simulate', '--scenario', 'contention', '--capacity', '5/1s'],
      '--capacity is for the outage, overload and partial scenarios only',
    ],
    [
      ['simulate', '--outage', '4'],
      "--outage must be a duration like 4s or 250ms, got '4' (a unit is required: 4ms or 4s)",
    ],
    [['simulate', '--capacity', '100/100'], "--capacity must be a duration like 4s or 250ms, got '100'"],
    [['simulate', '--timeout', '30'], "--timeout must be a duration like 4s or 250ms, got '30' (a unit is required"],
    [['simulate', '--timeout', '0s'], "--timeout must be longer than 0, got '0s'"],
    [
      ['simulate', '--retry-after', '2'],
      "--retry-after must be a duration like 4s or 250ms, got '2' (a unit is required",
    ],
    [['simulate', '--retry-after', '0ms'], "--retry-after must be longer than 0, got '0ms'"],
    [['simulate', '--scenario', 'contention', '--retry-after', '2s'], '--retry-after is for the outage scenario only'],
    [['simulate', '--bogus'], 'herdless: unknown flag --bogus (see herdless simulate --help)\n'],
    [['simulate', '--failure-rate', '0.5'], '--failure-rate is for the partial scenario only, not outage'],
    [['simulate', '--scenario', 'overload', '--duration', '5s'], '--duration is for the partial scenario only'],
    [['simulate', '--scenario', 'contention', '--instances', '5'], '--instances is for the outage, overload, partial'],
    [['simulate', '--scenario', 'partial', '--failure-rate', '1.5'], '--failure-rate must be a share from 0 to 1'],
    [['simulate', '--scenario', 'partial', '--failure-rate', '-1'], '--failure-rate must be a share from 0 to 1'],
    [['simulate', '--scenario', 'partial', '--duration', '0s'], "--duration must be longer than 0, got '0s'"],
    [['simulate', '--scenario', 'partial', '--duration', '30'], '--duration must be a duration like 4s or 250ms'],
    [['simulate', '--instances', '0'], "--instances must be a positive integer, got '0'"],
    [['simulate', '--instances', '100001'], "--instances must be at most 100000, got '100001'"],
    [['simulate', '--scenario', 'matrix', '--instances', '1,x'], "--instances must be a positive integer, got 'x'"],
    [
      ['simulate', '--scenario', 'matrix', '--strategies', 'plain,full'],
      '--strategies for the matrix must include no-retries',
    ],
    [['simulate', '--scenario', 'matrix', '--strategies', 'no-retries,full'], 'must include plain'],
    [['simulate', '--strategies', 'full,full'], "--strategies names 'full' twice: give each once"],
    [
      ['simulate', '--scenario', 'matrix', '--budget'],
      '--budget is for the outage, overload and partial scenarios only',
    ],
    [
      ['simulate', '--scenario', 'overload', '--clients', '10'],
      '--clients is for the outage and contention scenarios only',
    ],
    [['simulate', '--capacity', '100'], "--capacity must be like 100/100ms (requests per window), got '100'"],
    [['--bogus'], 'herdless: unknown flag --bogus (see herdless --help)\n'],
    // New-user review: this said "unknown command 'simulate extra'", for a known command with a stray argument.
    [
      ['simulate', 'extra'],
      "simulate takes no arguments, got 'extra': its settings are flags (see herdless simulate --help)\n",
    ],
    [['simulate', '--seed', '1.5'], "--seed must be a positive integer, got '1.5'"],
    [['--json'], 'missing command: simulate'],
    // New-user review: Node's parseArgs wording ("Option '--outage <value>' argument missing", "... is ambiguous")
    [
      ['simulate', '--outage'],
      'herdless: --outage needs a value: a duration like 4s or 250ms (see herdless simulate --help)\n',
    ],
    [
      ['simulate', '--outage', '--clients', '5'],
      'herdless: --outage needs a value before --clients: a duration like 4s or 250ms (see herdless simulate --help)\n',
    ],
    [
      ['simulate', '--scenario', '--json'],
      '--scenario needs a value before --json: outage, contention, overload, partial, matrix, explore or hedge',
    ],
    [['simulate', '--clients'], '--clients needs a value: a positive integer (contention: a list, e.g. 10,50,100)'],
    [['simulate', '--json=yes'], "--json takes no value, got '--json=yes'"],
    // New-user review: a flag given twice silently took the last value
    [
      ['simulate', '--clients', '10', '--clients', '20'],
      "herdless: --clients given twice ('10', then '20'): give it once (see herdless simulate --help)\n",
    ],
    [
      ['simulate', '--clients=10', '--strategies', 'full', '--clients', '10'],
      "--clients given twice ('10', then '10')",
    ],
    [['simulate', '--json', '--json'], 'herdless: --json given twice: give it once (see herdless simulate --help)\n'],
    [['simulate', '-h', '--help'], '--help given twice'],
  ])('%j is one clear line on stderr and exit code 2', (args, message) => {
    const { code, out, err } = run(...args);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err.split('\n').filter(Boolean)).toHaveLength(1);
    expect(err).toContain(message);
    expect(err).toMatch(/^herdless: /);
  });

  it('every flag the help lists with a value, given without one, says what value it wants', () => {
    const flags = [...USAGE.matchAll(/^ {2}(?:-\w, )?--([\w-]+) \S/gm)].map((m) => m[1] as string);
    expect(flags).toHaveLength(18); // of the 23: --json, --budget, --breaker, --help and --version take none
    for (const flag of flags) {
      const { code, err } = run('simulate', `--${flag}`);
      expect(code, flag).toBe(2);
      expect(err, flag).toMatch(
        new RegExp(`^herdless: --${flag} needs a value: \\S[^\n]*\\(see herdless simulate --help\\)\n$`),
      );
    }
  });

  it('parses durations and capacities', () => {
    expect(parseDuration('outage', '250ms')).toBe(250);
    expect(parseDuration('outage', '4s')).toBe(4_000);
    expect(parseDuration('outage', '1.5s')).toBe(1_500);
    expect(() => parseDuration('outage', '900')).toThrow("got '900' (a unit is required: 900ms or 900s)");
    expect(() => parseCapacity('100')).toThrow("--capacity must be like 100/100ms (requests per window), got '100'");
    expect(parseCapacity('20/1s')).toEqual({ capacity: 20, windowMs: 1_000 });
    expect(() => parseCapacity('1/2/3')).toThrow(/--capacity must be like/);
  });

  it('shows a progress line on a terminal once a run takes over a second, and clears it', () => {
    const runWith = (errIsTTY: boolean, times: number[]) => {
      const err: string[] = [];
      const clock = [...times];
      main(['simulate', '--clients', '10', '--strategies', 'fixed,full,equal'], {
        out: () => {},
        err: (t) => err.push(t),
        errIsTTY,
        writeFile: () => {},
        now: () => clock.shift() ?? 5_000,
      });
      return err;
    };
    // started at 0; after the first strategy 500 ms (no line yet), then 1.5 s and on
    expect(runWith(true, [0, 500, 1_500, 2_500])).toEqual([
      '\rsimulating: 2 of 3 done',
      '\rsimulating: 3 of 3 done',
      '\r\x1b[K',
    ]);
    expect(runWith(true, [0, 100, 200, 300])).toEqual([]); // fast: no line
    expect(runWith(false, [0, 1_500, 2_500, 3_500])).toEqual([]); // not a terminal: no line
  });
});

/** An error as Node's stream gives it for a failed write (`ENOSPC` is /dev/full's, `EPIPE` a reader gone). */
const writeError = (code: string, text: string) =>
  Object.assign(new Error(`${code}: ${text}, write`), { code, syscall: 'write' });
const ENOSPC = () => writeError('ENOSPC', 'no space left on device');
const EPIPE = () => writeError('EPIPE', 'broken pipe');
const noSpace = 'herdless: cannot write to standard output: ENOSPC: no space left on device, write\n';

describe('standard output that cannot be written (new-user review: > /dev/full printed a stack, exit 1)', () => {
  /** main() with an out that throws this error on every write. */
  const failingOut = (args: string[], error: () => Error) => {
    const err: string[] = [];
    let writes = 0;
    const code = main(args, {
      out: () => {
        writes++;
        throw error();
      },
      err: (t) => err.push(t),
      errIsTTY: false,
      writeFile: () => {},
    });
    return { code, err, writes };
  };

  it('an out that throws is one line on stderr and exit code 4, for simulate and for audit', async () => {
    for (const args of [['simulate', '--clients', '20'], ['--help'], ['audit', '--help']]) {
      const { code, err } = failingOut(args, ENOSPC);
      expect(await code, args.join(' ')).toBe(4);
      expect(err).toEqual([noSpace]);
    }
  });

  it("a reader that went away (EPIPE) is quiet: no message, and the exit code is the command's own", async () => {
    const simulate = failingOut(['simulate', '--clients', '20'], EPIPE);
    expect(simulate).toMatchObject({ code: 0, err: [], writes: 1 }); // nothing more is written once it failed
    expect(await failingOut(['audit', '--help'], EPIPE).code).toBe(0);
  });

  /** A stream whose writes fail as a full disk's or a closed pipe's do: the error comes after write() returns. */
  const failingStream = (error: () => Error) =>
    new Writable({
      write(_chunk, _encoding, done) {
        done(error());
      },
    });
  const collecting = (into: string[]) =>
    new Writable({
      write(chunk, _encoding, done) {
        into.push(String(chunk));
        done();
      },
    });
  /** start() on streams: the command's own code (`done`), and the code it ended the process with early, if it did. */
  const started = async (args: string[], stdout: Writable, stderr: Writable = collecting([])) => {
    let exited: { code: number | undefined } | undefined;
    const done = await start(args, {
      stdout,
      stderr,
      writeFile: () => {},
      exit: (code) => {
        exited ??= { code };
      },
    });
    await new Promise(setImmediate); // a stream's 'error' event comes on the next tick
    return { done, exited };
  };

  it('start(): a stdout that fails with ENOSPC after the write returned ends the process with exit code 4', async () => {
    for (const args of [
      ['simulate', '--clients', '20'],
      ['audit', '--help'],
    ]) {
      const err: string[] = [];
      const { exited } = await started(args, failingStream(ENOSPC), collecting(err));
      expect(exited, args.join(' ')).toEqual({ code: 4 });
      expect(err).toEqual([noSpace]);
    }
  });

  it('start(): EPIPE ends it quietly, with the code the command has set (as before)', async () => {
    const err: string[] = [];
    const { done, exited } = await started(['simulate', '--clients', '20'], failingStream(EPIPE), collecting(err));
    expect(done).toBe(0);
    expect(exited).toEqual({ code: undefined });
    expect(err).toEqual([]);
  });

  it('start(): a stderr that fails too is not a crash; a usage error is still exit code 2', async () => {
    const bogus = await started(['simulate', '--bogus'], collecting([]), failingStream(ENOSPC));
    expect(bogus).toEqual({ done: 2, exited: undefined });
    const help = await started(['--help'], failingStream(ENOSPC), failingStream(ENOSPC));
    expect(help).toEqual({ done: 0, exited: { code: 4 } });
  });

  it("start(): output that can be written is written, and the command's code returned", async () => {
    const out: string[] = [];
    expect(await started(['--help'], collecting(out))).toEqual({ done: 0, exited: undefined });
    expect(out.join('')).toBe(COMMANDS_USAGE);
  });

  it('the help and the docs give exit code 4, for both commands', () => {
    expect(USAGE).toMatch(/\b4 standard output could not be written\b/);
    expect(AUDIT_USAGE).toMatch(/\n {2}4 {2}standard output could not be written/);
    const cliPage = readFileSync(new URL('../docs/guide/cli.md', import.meta.url), 'utf8');
    expect(cliPage).toMatch(/\| +4 \| standard output could not be written/);
    expect(cliPage).toMatch(/`herdless simulate` exits 0.*4 when\s+standard output cannot\s+be written/s);
  });
});

describe('package.json', () => {
  it('names its repository, home page and issue tracker', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(pkg.repository).toEqual({ type: 'git', url: 'git+https://github.com/herdless/herdless.git' });
    expect(pkg.homepage).toBe('https://github.com/herdless/herdless#readme');
    expect(pkg.bugs).toEqual({ url: 'https://github.com/herdless/herdless/issues' });
  });
});

describe('herdless simulate --scenario overload', () => {
  it('--json prints the scenario, its settings and a row per strategy with the figures the issue names', () => {
    const { code, out } = run(
      'simulate',
      '--scenario',
      'overload',
      '--capacity',
      '50/250ms',
      '--strategies',
      'full',
      '--budget',
      '--queue-limit',
      '1s',
      '--json',
    );
    expect(code).toBe(0);
    const result = JSON.parse(out);
    expect(result.scenario).toBe('overload');
    expect(result.settings).toMatchObject({ capacity: 200, queueLimitMs: 1_000, maxAttempts: 3, load: 0.8 });
    expect(result.results.map((r: { strategy: string }) => r.strategy)).toEqual(['full+budget']);
    expect(Object.keys(result.results[0])).toEqual(
      expect.arrayContaining(['strategy', 'amplification', 'goodput', 'recoveryMs', 'p99Ms', 'load']),
    );
  });

  it('--breaker adds a breaker to the outage scenario too', () => {
    const { out } = run('simulate', '--clients', '50', '--strategies', 'fixed', '--breaker', '--json');
    expect(JSON.parse(out).results[0].strategy).toBe('fixed+breaker');
  });
});

describe('the figures in docs/, and the docs pages that paste them, are what the code prints', () => {
  const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

  it('docs/outage.txt and docs/outage.svg are `herdless simulate` (--svg), and the simulator page pastes the text', () => {
    const { code, out, files } = run('simulate', '--svg', 'docs/outage.svg');
    expect(code).toBe(0);
    expect(out).toBe(`${read('docs/outage.txt')}\nwrote docs/outage.svg\n`);
    expect(files.get('docs/outage.svg')).toBe(read('docs/outage.svg'));
    expect(read('docs/guide/simulate.md')).toContain(
      `# in a clone: npm run simulate\n${read('docs/outage.txt')}\`\`\``,
    );
  });

  it('docs/overload.txt, docs/overload-1s.txt and their SVGs are `herdless simulate --scenario overload`', () => {
    for (const [limit, name] of [
      ['none', 'overload'],
      ['1s', 'overload-1s'],
    ] as const) {
      const { code, out, files } = run(
        'simulate',
        '--scenario',
        'overload',
        '--queue-limit',
        limit,
        '--svg',
        `docs/${name}.svg`,
      );
      expect(code).toBe(0);
      expect(out).toBe(`${read(`docs/${name}.txt`)}\nwrote docs/${name}.svg\n`);
      expect(files.get(`docs/${name}.svg`)).toBe(read(`docs/${name}.svg`));
      expect(read('docs/protection.md')).toContain(read(`docs/${name}.txt`));
    }
  }, 60_000); // two full default runs: well under 5 s each alone, slower on a loaded machine

  it('docs/retry-after.txt is `herdless simulate --retry-after 2s --strategies full,equal,decorrelated`, pasted', () => {
    const doc = read('docs/retry-after.txt');
    expect(run('simulate', '--retry-after', '2s', '--strategies', 'full,equal,decorrelated').out).toBe(doc);
    expect(read('docs/guide/retry-after.md')).toContain(`--strategies full,equal,decorrelated\n${doc}\`\`\``);
  });

  // Heavy on CPU (a simulation of 10 and 100 clients, 100 runs each): a hang guard, not a speed check.
  it('docs/contention.txt is `herdless simulate --scenario contention`, and the simulator page pastes it', {
    timeout: 60_000,
  }, () => {
    const doc = read('docs/contention.txt');
    expect(read('docs/guide/simulate.md')).toContain(`-- --scenario contention\n${doc}\`\`\``);
    // A point depends only on its own N and the seed: check two rows of each table against a run of those two.
    const { out } = run('simulate', '--scenario', 'contention', '--clients', '10,100');
    const rows = (text: string) => text.split('\n').filter((l) => /^(?:10|100) /.test(l));
    expect(rows(out)).toHaveLength(4);
    expect(rows(doc)).toEqual(rows(out));
    expect(doc.split('\n')[0]).toBe(out.split('\n')[0]);
  });
});
