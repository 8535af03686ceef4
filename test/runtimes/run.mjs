// `npm run test:runtimes [-- node bun deno chromium]`: runs test/runtimes/checks.mjs against the built package
// (dist/index.js, and dist/hedge.js: herdless/hedge) in Node, Bun, Deno and headless Chromium, one after the other, and says which runtime failed.
//
// - A small node:http server on 127.0.0.1 serves the build and the checks to the browser page, and the endpoints the
//   checks fetch: /flaky (503 with Retry-After, then 200) and /hang (never answers).
// - Bun and Deno come from the npm registry, installed here on first use into .runtimes/ (`npm i --no-save
//   --ignore-scripts --prefix .runtimes`; Deno's postinstall is not needed, its binary comes in an optional
//   dependency), not as devDependencies: a Linux-x64 package in devDependencies makes `npm ci` fail with
//   EBADPLATFORM on every other platform, and every `npm ci` would download ~200 MB of binaries.
// - Chromium is Debian's (`command -v chromium`), driven by playwright-core.
// - "No timer left behind": Node, Bun and Deno are never exited by force; each must exit on its own within
//   EXIT_BUDGET_MS of printing its last line (a leaked timer from the checks would hold it for 5 s to 60 s).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, extname, join, normalize } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const PREFIX = join(ROOT, '.runtimes');
const BUN = { pkg: '@oven/bun-linux-x64', version: '1.4.4', bin: 'bin/bun' };
const DENO = { pkg: 'deno', version: '2.9.6', binPkg: '@deno/linux-x64-glibc', bin: 'deno' };
/**
 * How soon a runtime must exit after its last line: Node takes 0.2 to 0.5 s here after a fetch (0.8 s with both cores
 * busy), Bun and Deno under 0.1 s. A timer leaked by the checks would hold it 5 s or more.
 */
const EXIT_BUDGET_MS = 2000;
/** A runtime still alive this long after its last line is killed, and fails. */
const KILL_AFTER_DONE_MS = 5000;
/** A runtime that has not finished its checks by then is killed, and fails. */
const KILL_AFTER_MS = 60_000;
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Keeps the runtimes off the network: no update check, no telemetry. */
const QUIET_ENV = { ...process.env, DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1', DO_NOT_TRACK: '1', NO_COLOR: '1' };

const installedVersion = (pkg) => {
  const file = join(PREFIX, 'node_modules', pkg, 'package.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).version : undefined;
};

/** Installs the pinned Bun and Deno into .runtimes/ unless they are there already; returns their binaries. */
function ensureRuntimes() {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`Bun and Deno are installed for linux-x64 only, this is ${process.platform}-${process.arch}`);
  }
  if (installedVersion(BUN.pkg) !== BUN.version || installedVersion(DENO.binPkg) !== DENO.version) {
    console.log(`installing ${BUN.pkg}@${BUN.version} and ${DENO.pkg}@${DENO.version} into .runtimes/`);
    const specs = [`${BUN.pkg}@${BUN.version}`, `${DENO.pkg}@${DENO.version}`];
    execFileSync(
      'npm',
      ['i', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--prefix', PREFIX, ...specs],
      {
        stdio: 'inherit',
      },
    );
  }
  return {
    bun: join(PREFIX, 'node_modules', BUN.pkg, BUN.bin),
    deno: join(PREFIX, 'node_modules', DENO.binPkg, DENO.bin),
  };
}

/** A local port nothing listens on: listen on a free one, then close it. */
function closedPort() {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>herdless runtime checks</title>
<script type="module">
import * as hedge from '/dist/hedge.js';
import * as herdless from '/dist/index.js';
import { runChecks } from '/test/runtimes/checks.mjs';
const closedPort = Number(new URLSearchParams(location.search).get('closedPort'));
runChecks({ ...herdless, hedge }, { baseUrl: location.origin, closedPort }).then((results) => {
  window.herdlessDone = { results };
});
</script>`;

/** The test server: the page, the build and the checks (read-only, two folders), /flaky and /hang. */
function startServer() {
  const failures = new Map();
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    res.setHeader('connection', 'close');
    if (url.pathname === '/hang') return; // never answers: the client's abort, or the server's close, ends it
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    } else if (url.pathname === '/flaky') {
      // The first `fails` requests for `key` get a 503 asking to wait `ms` ms (retry-after-ms) or `after` s.
      const key = url.searchParams.get('key');
      const seen = failures.get(key) ?? 0;
      failures.set(key, seen + 1);
      if (seen >= Number(url.searchParams.get('fails'))) return res.writeHead(200).end('ok');
      const wait = url.searchParams.has('ms')
        ? { 'retry-after-ms': url.searchParams.get('ms') }
        : { 'retry-after': url.searchParams.get('after') };
      res.writeHead(503, wait).end('busy');
    } else if (url.pathname !== '/hang') {
      const file = normalize(join(ROOT, url.pathname));
      const allowed = [join(ROOT, 'dist'), join(ROOT, 'test', 'runtimes')].some((dir) => file.startsWith(`${dir}/`));
      if (!allowed || !existsSync(file)) return res.writeHead(404).end();
      const type = extname(file) === '.html' ? 'text/html' : 'text/javascript';
      res.writeHead(200, { 'content-type': type }).end(readFileSync(file));
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Parses a runtime's output lines into a result. */
function parse(lines) {
  const results = [];
  let runtime;
  let doneAt;
  for (const line of lines) {
    if (line.startsWith('#runtime ')) runtime = line.slice(9);
    else if (line.startsWith('#done ')) doneAt = Number(line.slice(6));
    else if (line.startsWith('#info ')) results.at(-1).info = JSON.parse(line.slice(6));
    else if (/^(not )?ok - /.test(line)) {
      const ok = line.startsWith('ok');
      const text = line.slice(ok ? 5 : 9);
      const colon = ok ? -1 : text.indexOf(': ');
      results.push(colon < 0 ? { name: text, ok } : { name: text.slice(0, colon), ok, detail: text.slice(colon + 2) });
    }
  }
  return { runtime, results, doneAt };
}

/** Runs main.mjs in a runtime; resolves with its results, exit code and how long it took to exit after its last line. */
function runProcess(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env: QUIET_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let lingering;
    child.stdout.on('data', (chunk) => {
      out += chunk;
      // Done, but still alive long after: something holds it (a leaked timer). Stop waiting for it.
      if (lingering === undefined && out.includes('#done ')) {
        lingering = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_DONE_MS);
      }
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    child.on('error', (error) => {
      clearTimeout(killer);
      clearTimeout(lingering);
      resolve({ results: [], error: error.message });
    });
    child.on('close', (code, signal) => {
      const exitedAt = Date.now();
      clearTimeout(killer);
      clearTimeout(lingering);
      const parsed = parse(out.split('\n'));
      const exitMs = parsed.doneAt === undefined ? undefined : exitedAt - parsed.doneAt;
      const error = code === 0 ? undefined : `exit ${code ?? signal}${err ? `: ${err.trim().slice(-2000)}` : ''}`;
      resolve({ ...parsed, exitMs, error });
    });
  });
}

async function runChromium(base, port) {
  // What `command -v chromium` prints: the first `chromium` on PATH.
  const executablePath = (process.env.PATH ?? '')
    .split(delimiter)
    .map((dir) => join(dir, 'chromium'))
    .find((file) => existsSync(file));
  if (!executablePath) return { results: [], error: 'chromium not found on PATH (apt-get install -y chromium)' };
  const { chromium } = await import('playwright-core');
  const userDataDir = mkdtempSync(join(tmpdir(), 'herdless-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const pageErrors = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const started = performance.now();
    await page.goto(`${base}/?closedPort=${port}`);
    await page.waitForFunction(() => window.herdlessDone !== undefined, undefined, { timeout: KILL_AFTER_MS });
    const { results } = await page.evaluate(() => window.herdlessDone);
    const version = context.browser()?.version() ?? (await page.evaluate(() => navigator.userAgent));
    const pageSeconds = ((performance.now() - started) / 1000).toFixed(1);
    return {
      runtime: `chromium ${version}, headless (page ${pageSeconds} s)`,
      results,
      error: pageErrors.join('; ') || undefined,
    };
  } finally {
    await context.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
}

async function main() {
  const wanted = process.argv.slice(2);
  const names = wanted.length > 0 ? wanted : ['node', 'bun', 'deno', 'chromium'];
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) throw new Error('dist/index.js is missing: run `npm run build`');
  const bins = names.some((n) => n === 'bun' || n === 'deno') ? ensureRuntimes() : {};
  const server = await startServer();
  const base = `http://127.0.0.1:${server.address().port}`;
  const port = await closedPort();
  const main = join('test', 'runtimes', 'main.mjs');
  const runners = {
    node: () => runProcess(process.execPath, [main, base, port]),
    bun: () => runProcess(bins.bun, [main, base, port]),
    deno: () => runProcess(bins.deno, ['run', '--no-config', '--allow-net=127.0.0.1', main, base, port]),
    chromium: () => runChromium(base, port),
  };
  const failed = [];
  let passed = 0;
  let failures = 0;
  try {
    for (const name of names) {
      if (!runners[name]) throw new Error(`unknown runtime '${name}' (known: ${Object.keys(runners).join(', ')})`);
      const started = performance.now();
      let outcome;
      try {
        outcome = await runners[name]();
      } catch (error) {
        outcome = { results: [], error: error instanceof Error ? error.message : String(error) };
      }
      const { runtime = name, results, exitMs, error } = outcome;
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`\n${runtime} (${seconds} s)`);
      for (const r of results) {
        console.log(`  ${r.ok ? 'ok' : 'FAIL'} ${r.name}${r.detail ? `: ${r.detail}` : ''}`);
        if (r.info !== undefined) console.log(`     ${JSON.stringify(r.info)}`);
      }
      const problems = results.filter((r) => !r.ok).map((r) => r.name);
      if (exitMs !== undefined) {
        const ok = exitMs <= EXIT_BUDGET_MS;
        console.log(`  ${ok ? 'ok' : 'FAIL'} exits on its own: ${exitMs} ms after its last line`);
        if (ok) passed++;
        else problems.push(`exit took ${exitMs} ms (budget ${EXIT_BUDGET_MS} ms)`);
      }
      if (results.length === 0 && !error) problems.push('no check ran');
      if (error) problems.push(error);
      passed += results.filter((r) => r.ok).length;
      failures += problems.length;
      if (problems.length > 0) failed.push(`${name} (${problems.join('; ')})`);
    }
  } finally {
    server.closeAllConnections();
    server.close();
  }
  console.log(`\n${failed.length === 0 ? 'every runtime passed' : `FAILED: ${failed.join(', ')}`}`);
  console.log(`runtimes: ${passed} passed, ${failures} failed`);
  if (failed.length > 0) process.exitCode = 1;
}

main().catch((error) => {
  console.error(`test:runtimes: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
});
