// `npm run test:docs [-- --no-build]`: builds the docs site (npm run docs:build, no network), serves the build on
// 127.0.0.1, and checks it in headless Chromium (Debian's `chromium`, driven by playwright-core):
// - every internal link and image of every page resolves (the page, and the #anchor on it), every page links its icon,
//   and no page the browser opens asks the server for a file that is not there (a 404);
// - the API reference has a page for each entry point (herdless, /simulate, /eslint, /otel, /testing, /hedge);
// - the live herd page runs herdless/simulate in the browser with settings where the answer is known (fixed delays
//   at 1,000 clients peak over capacity after the outage, full jitter does not) and shows the same figures as
//   `herdless simulate --json` for the same seed, in the outage and the overload scenarios;
// - a default run of the live page draws, and how long it took in the browser is printed;
// - a visitor's run through the form: every field's default is valid in every scenario, and changing settings and
//   pressing run changes the table to `herdless simulate --json`'s figures for them;
// - screenshots go to reports/docs-site/ (the live page's also to docs/herd-live.png with --save-screenshot).
// Exits 0 when every check passed, 1 otherwise, with one line per failure; its last line is
// `docs-site: P passed, F failed`.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { delimiter, extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = join(root, 'docs', '.vitepress', 'dist');
const shots = join(root, 'reports', 'docs-site');
const failures = [];
let passed = 0;
const check = (ok, what) => {
  if (ok) passed++;
  else failures.push(what);
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
};

if (!process.argv.includes('--no-build')) {
  const started = performance.now();
  const { status } = spawnSync('npm', ['run', 'docs:build'], { cwd: root, stdio: 'inherit' });
  if (status !== 0) {
    console.error('docs-site: npm run docs:build failed');
    process.exit(1);
  }
  console.log(`docs-site: built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
if (!existsSync(join(dist, 'index.html'))) {
  console.error('docs-site: no build in docs/.vitepress/dist (run without --no-build)');
  process.exit(1);
}

// The build, served as a static host serves it: /guide/policy and /guide/policy.html are the same page.
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };
const fileFor = (pathname) => {
  const path = join(dist, decodeURIComponent(pathname));
  if (!path.startsWith(dist)) return undefined;
  for (const candidate of [path, `${path}.html`, join(path, 'index.html')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
};
// Every request the browser made that found nothing (a favicon the pages do not link, a chunk the build lacks).
const notFound = new Set();
const server = createServer((req, res) => {
  const file = fileFor(new URL(req.url ?? '/', 'http://x').pathname);
  if (!file) {
    notFound.add(req.url);
    res.writeHead(404).end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
  res.end(readFileSync(file));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

// Every internal href and src in every built page, with its #anchor checked against the ids of the page it names.
const pages = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.html'));
const ids = new Map();
const idsOf = (file) => {
  if (!ids.has(file)) {
    const html = readFileSync(file, 'utf8');
    ids.set(file, new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1])));
  }
  return ids.get(file);
};
let links = 0;
const broken = [];
for (const page of pages) {
  const html = readFileSync(join(dist, page), 'utf8');
  const from = new URL(`/${page}`, 'http://x');
  for (const [, attr, value] of html.matchAll(/\s(href|src)="([^"]*)"/g)) {
    if (/^(?:[a-z]+:|\/\/)/i.test(value) || value === '') continue; // another site, mailto:, data:
    const target = new URL(value.replaceAll('&amp;', '&'), from);
    const file = fileFor(target.pathname);
    links++;
    if (!file) {
      broken.push(`${page}: ${attr}="${value}" (no such file)`);
      continue;
    }
    const hash = decodeURIComponent(target.hash.slice(1));
    if (hash && file.endsWith('.html') && !idsOf(file).has(hash)) broken.push(`${page}: ${value} (no #${hash} there)`);
  }
}
check(broken.length === 0, `every internal link resolves (${links} links in ${pages.length} pages)`);
for (const b of broken) console.log(`     ${b}`);
// A page that links no icon makes the browser ask for /favicon.ico, a 404 on every page; the link's target is one of
// the links checked above.
const iconless = pages.filter(
  (page) => !/<link rel="icon"[^>]*href="[^"]+"/.test(readFileSync(join(dist, page), 'utf8')),
);
check(
  iconless.length === 0,
  `every page links its icon${iconless.length ? `; not: ${iconless.slice(0, 5).join(', ')}` : ''}`,
);
// The API reference has a page per entry point of the package (package.json's exports).
const entries = [
  'herdless',
  'herdless/simulate',
  'herdless/eslint',
  'herdless/otel',
  'herdless/testing',
  'herdless/hedge',
];
const apiIndex = existsSync(join(dist, 'api', 'index.html'))
  ? readFileSync(join(dist, 'api', 'index.html'), 'utf8')
  : '';
const noPage = entries.filter((e) => !existsSync(join(dist, 'api', e, 'index.html')) || !apiIndex.includes(`>${e}<`));
check(
  noPage.length === 0,
  `the API reference has a page for each entry point${noPage.length ? `; none for ${noPage.join(', ')}` : ''}`,
);

// What `herdless simulate --json` prints for the same settings.
const cli = (...args) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'src/cli.ts', 'simulate', ...args, '--json'],
      {
        cwd: root,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      },
    ),
  );

const executablePath = (process.env.PATH ?? '')
  .split(delimiter)
  .map((dir) => join(dir, 'chromium'))
  .find((file) => existsSync(file));
if (!executablePath) {
  console.error('docs-site: chromium not found on PATH (apt-get install -y chromium)');
  server.close();
  process.exit(1);
}
const { chromium } = await import('playwright-core');
const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'],
});
mkdirSync(shots, { recursive: true });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));

  /** Opens the live page with these settings, waits for the run and the animation, and reads the table. */
  const live = async (query, shot) => {
    await page.goto(`${base}/herd.html?${new URLSearchParams(query)}`);
    await page.waitForSelector('.herd[data-done="yes"]', { timeout: 120_000 });
    await page.waitForTimeout(3_300); // the animation runs 3 s
    const rows = await page.$$eval('table.figures tbody tr', (trs) =>
      trs.map((tr) => ({
        strategy: tr.getAttribute('data-strategy'),
        cells: Object.fromEntries(
          [...tr.querySelectorAll('td[data-label]')].map((td) => [
            td.getAttribute('data-label'),
            td.getAttribute('data-value'),
          ]),
        ),
      })),
    );
    const elapsed = await page.$eval('[data-testid="elapsed"]', (p) =>
      Number(/simulated in (\d+) ms/.exec(p.textContent)?.[1]),
    );
    const panels = await page.$$eval('.panel canvas', (cs) => cs.map((c) => c.getAttribute('data-strategy')));
    await page.screenshot({ path: join(shots, shot), fullPage: true });
    return { rows, elapsed, panels };
  };
  const num = (v) => (v === '' || v === null ? null : Number(v));

  // The outage: fixed delays at 1,000 clients come back as a wave over capacity; full jitter does not.
  const outage = await live(
    { scenario: 'outage', clients: '1000', outage: '4', maxAttempts: '10', seed: '1', strategies: 'fixed,full' },
    'herd-outage.png',
  );
  const expected = cli('--strategies', 'fixed,full', '--clients', '1000', '--outage', '4s', '--seed', '1').results;
  check(outage.panels.join(',') === 'fixed,full', `outage: a panel per strategy (${outage.panels.join(', ')})`);
  for (const want of expected) {
    const got = outage.rows.find((r) => r.strategy === want.strategy)?.cells ?? {};
    const same =
      num(got.requests) === want.requests &&
      num(got['peak/100 after']) === want.peakAfterOutage &&
      num(got['gave up']) === want.gaveUp &&
      num(got['last done']) === want.lastFinishMs;
    check(
      same,
      `outage ${want.strategy}: the page shows simulate --json's figures (requests ${got.requests}/${want.requests}, peak ${got['peak/100 after']}/${want.peakAfterOutage}, gave up ${got['gave up']}/${want.gaveUp})`,
    );
  }
  const peak = (s) => num(outage.rows.find((r) => r.strategy === s)?.cells['peak/100 after']);
  check(peak('fixed') > 100, `outage: fixed peaks over capacity after the outage (${peak('fixed')} > 100)`);
  check(peak('full') <= 100, `outage: full jitter does not (${peak('full')} <= 100)`);

  // The overload, with the CLI's 60 s after the slowdown.
  const strategies = ['full', 'full+budget', 'full+breaker'];
  const overload = await live(
    {
      scenario: 'overload',
      load: '0.8',
      outage: '4',
      after: '60',
      maxAttempts: '3',
      seed: '1',
      strategies: strategies.join(','),
    },
    'herd-overload.png',
  );
  const expectedOverload = cli('--scenario', 'overload', '--strategies', strategies.join(','), '--seed', '1').results;
  for (const want of expectedOverload) {
    const got = overload.rows.find((r) => r.strategy === want.strategy)?.cells ?? {};
    const same =
      num(got.requests) === want.requests &&
      num(got.goodput) === want.goodput &&
      num(got.recovery) === want.recoveryMs &&
      num(got.refused) === want.refused + want.budgetStops &&
      num(got.wasted) === want.wasted;
    check(
      same,
      `overload ${want.strategy}: the page shows simulate --json's figures (requests ${got.requests}/${want.requests}, goodput ${got.goodput}/${want.goodput}, recovery ${got.recovery}/${want.recoveryMs})`,
    );
  }

  // The partial failure, when this build of herdless/simulate has it (issue 19): the same figures as the CLI's.
  await page.goto(`${base}/herd.html`);
  await page.waitForSelector('.herd[data-done="yes"]', { timeout: 120_000 });
  const hasPartial = await page.$$eval('select[name="scenario"] option', (os) => os.some((o) => o.value === 'partial'));
  if (hasPartial) {
    const names = ['no-retries', 'plain', 'recommended'];
    const partial = await live(
      {
        scenario: 'partial',
        load: '0.5',
        outage: '30',
        failureRate: '0.5',
        after: '60',
        maxAttempts: '3',
        seed: '1',
        strategies: names.join(','),
      },
      'herd-partial.png',
    );
    const want = cli('--scenario', 'partial', '--load', '0.5', '--strategies', names.join(','), '--seed', '1').results;
    for (const w of want) {
      const got = partial.rows.find((r) => r.strategy === w.strategy)?.cells ?? {};
      check(
        num(got.requests) === w.requests && num(got.goodput) === w.goodput,
        `partial ${w.strategy}: the page shows simulate --json's figures (requests ${got.requests}/${w.requests}, goodput ${got.goodput}/${w.goodput})`,
      );
    }
  } else {
    console.log('docs-site: this herdless/simulate has no partial-failure scenario; not checked');
  }

  // The default run: what a visitor sees first.
  const first = await live({}, 'herd-default.png');
  check(first.rows.length === 5, `the default run draws 5 panels (${first.panels.join(', ')})`);
  console.log(`docs-site: the default run simulated in ${first.elapsed} ms in headless Chromium`);
  // A hang guard, not a speed check: on a loaded 2-core machine it took 0.8 to 4.1 s (load average 8 to 18).
  check(first.elapsed < 15_000, `the default run simulates in under 15 s here (${first.elapsed} ms)`);
  if (process.argv.includes('--save-screenshot'))
    copyFileSync(join(shots, 'herd-default.png'), join(root, 'docs', 'herd-live.png'));

  // A visitor, through the form: every field's default is one the browser accepts, in every scenario; then change
  // settings, press run, and the table changes to what `herdless simulate --json` gives for them.
  await page.goto(`${base}/herd.html`);
  await page.waitForSelector('.herd[data-done="yes"]', { timeout: 120_000 });
  for (const scenario of await page.$$eval('select[name="scenario"] option', (os) => os.map((o) => o.value))) {
    await page.selectOption('select[name="scenario"]', scenario);
    const invalid = await page.$$eval('.controls input', (inputs) =>
      inputs.filter((i) => !i.validity.valid).map((i) => `${i.name}=${i.value} (${i.validationMessage})`),
    );
    check(invalid.length === 0, `${scenario}: every field's default is valid${invalid.length ? `: ${invalid}` : ''}`);
  }
  /** Sets the fields as a visitor types them, ticks exactly these strategies, presses run, and reads the new table. */
  const runForm = async (fields, strategies) => {
    for (const [name, value] of Object.entries(fields)) await page.fill(`.controls input[name="${name}"]`, value);
    for (const box of await page.$$('.controls input[name="strategy"]')) {
      await box.setChecked(strategies.includes(await box.getAttribute('value')));
    }
    await page.$eval('table.figures', (t) => t.setAttribute('data-stale', 'yes'));
    await page.click('.controls button[type="submit"]');
    try {
      await page.waitForSelector('.herd[data-done="yes"] table.figures:not([data-stale])', { timeout: 120_000 });
    } catch {
      const alert = await page.$eval('.herd', (h) => h.querySelector('[role="alert"]')?.textContent ?? '');
      return { rows: [], note: `pressing run left the old table${alert ? ` (the page says: ${alert})` : ''}` };
    }
    const rows = await page.$$eval('table.figures tbody tr', (trs) =>
      trs.map((tr) => ({
        strategy: tr.getAttribute('data-strategy'),
        cells: Object.fromEntries(
          [...tr.querySelectorAll('td[data-label]')].map((td) => [
            td.getAttribute('data-label'),
            td.getAttribute('data-value'),
          ]),
        ),
      })),
    );
    return { rows, note: '' };
  };
  /**
   * Whether a form's table has, for each strategy of simulate --json's `want`, a row whose figure in each column equals
   * the result's field (`columns`: the table's column to the field of the JSON result).
   */
  const shows = (form, want, columns) =>
    want.every((w) => {
      const got = form.rows.find((r) => r.strategy === w.strategy)?.cells ?? {};
      return Object.entries(columns).every(([column, field]) => num(got[column]) === w[field]);
    });
  await page.selectOption('select[name="scenario"]', 'outage');
  const typed = await runForm({ clients: '400', outage: '2.5', maxAttempts: '6', seed: '7' }, [
    'fixed',
    'decorrelated',
  ]);
  const typedWant = cli(
    ...['--strategies', 'fixed,decorrelated', '--clients', '400', '--outage', '2.5s', '--max-attempts', '6'],
    ...['--seed', '7'],
  ).results;
  check(
    typed.rows.length === 2 &&
      shows(typed, typedWant, {
        requests: 'requests',
        'peak/100 after': 'peakAfterOutage',
        'gave up': 'gaveUp',
        'last done': 'lastFinishMs',
      }),
    `outage through the form (400 clients, 2.5 s, 6 attempts, seed 7): the table shows simulate --json's figures ${typed.note || JSON.stringify(typed.rows.map((r) => [r.strategy, r.cells.requests]))}`,
  );
  await page.selectOption('select[name="scenario"]', 'overload');
  const overloadForm = await runForm({ load: '0.6', outage: '2.5', after: '60', seed: '3' }, ['none', 'full+budget']);
  const overloadWant = cli(
    ...['--scenario', 'overload', '--strategies', 'none,full+budget', '--load', '0.6', '--slowdown', '2.5s'],
    ...['--seed', '3'],
  ).results;
  check(
    overloadForm.rows.length === 2 &&
      shows(overloadForm, overloadWant, { requests: 'requests', goodput: 'goodput', wasted: 'wasted' }),
    `overload through the form (load 0.6, 2.5 s slowdown, seed 3): the table shows simulate --json's figures ${overloadForm.note || JSON.stringify(overloadForm.rows.map((r) => [r.strategy, r.cells.requests]))}`,
  );

  // A value the simulator cannot take is named on the page, and the table stays as it was.
  await page.fill('.controls input[name="load"]', '0');
  await page.click('.controls button[type="submit"]');
  const said = await page
    .locator('.herd [role="alert"]')
    .textContent({ timeout: 10_000 })
    .catch(() => '');
  check(
    /^load: give a number from 0\.05 to 3 \(got 0\)/.test(said ?? ''),
    `a load of 0 is named on the page (${said})`,
  );

  // The home page and a guide page render, for the eye; the API pages of the entry points open.
  for (const e of ['herdless/otel', 'herdless/testing']) await page.goto(`${base}/api/${e}/index.html`);
  await page.goto(`${base}/`);
  await page.screenshot({ path: join(shots, 'home.png') });
  await page.goto(`${base}/guide/getting-started.html`);
  check((await page.locator('h1').first().textContent())?.includes('Getting started'), 'the guide renders');
  await page.screenshot({ path: join(shots, 'getting-started.png'), fullPage: false });
  check(errors.length === 0, `no page errors or failed requests${errors.length ? `: ${errors.join('; ')}` : ''}`);
  check(
    notFound.size === 0,
    `no page requested a file that is not there${notFound.size ? `: ${[...notFound].join(', ')}` : ''}`,
  );
} finally {
  await browser.close();
  server.close();
}
console.log(`docs-site: screenshots in ${relative(root, shots)}/`);
// The summary line .ci/run counts into its closing `tests:` line (and checks against .ci/test-floor).
console.log(`docs-site: ${passed} passed, ${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);
