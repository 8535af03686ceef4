import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { useFakeClock } from './helpers';
import { inTurn, reply, serve } from './http-server';

const JSON_TYPE = { 'content-type': 'application/json' };

/**
 * Every ```ts block in README.md marked `<!-- readme-example -->`, and in the docs site's pages marked
 * `<!-- example -->`, runs here, against the source, as written.
 */
const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
/**
 * The site's pages (docs/**\/*.md), but the generated API reference, the site's own config and the site's tools
 * (docs/node_modules, installed on demand by `npm run docs:build`).
 */
const pages = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
  .filter(
    (f) => f.endsWith('.md') && !f.startsWith('api') && !f.startsWith('.vitepress') && !f.startsWith('node_modules'),
  )
  .sort()
  .map((f) => ({ file: `docs/${f}`, text: readFileSync(join(root, 'docs', f), 'utf8') }));
const examples = [
  ...[...readme.matchAll(/<!-- readme-example -->\n```ts\n([\s\S]*?)```/g)].map((m) => ({
    where: 'README.md',
    code: m[1] as string,
  })),
  ...pages.flatMap(({ file, text }) =>
    [...text.matchAll(/<!-- example -->\n```ts\n([\s\S]*?)```/g)].map((m) => ({ where: file, code: m[1] as string })),
  ),
];
const dir = join(root, 'test', '.readme');
const fake = useFakeClock();

const typesDir = join(root, 'test', '.readme-types');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(typesDir, { recursive: true, force: true });
});

/** An example as a module: its imports on top (herdless from the source), the rest the body of `run()`. */
function asModule(code: string, url?: string): string {
  const lines = code
    .replaceAll("from 'herdless/simulate'", `from '${join(root, 'src', 'simulate', 'index.ts')}'`)
    .replaceAll("from 'herdless/hedge'", `from '${join(root, 'src', 'hedge', 'index.ts')}'`)
    .replaceAll("from 'herdless'", `from '${join(root, 'src', 'index.ts')}'`)
    .replaceAll('https://api.example.com/', url ?? 'https://api.example.com/')
    .split('\n');
  const imports = lines.filter((l) => l.startsWith('import '));
  const body = lines.filter((l) => !l.startsWith('import '));
  return `${imports.join('\n')}\nexport default async function run() {\n${body.join('\n')}\n}\n`;
}

describe('README examples run', () => {
  it('finds the examples', () => {
    expect(examples.filter((e) => e.where === 'README.md').length).toBeGreaterThanOrEqual(4);
    expect(examples.filter((e) => e.where !== 'README.md').length).toBeGreaterThanOrEqual(13);
  });

  it('type-checks every example with the repository compiler options (strict)', { timeout: 180_000 }, () => {
    mkdirSync(typesDir, { recursive: true });
    const files = examples.map(({ code }, i) => {
      const file = join(typesDir, `example-${i + 1}.ts`);
      writeFileSync(file, asModule(code));
      return file;
    });
    const config = ts.getParsedCommandLineOfConfigFile(
      join(root, 'tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
        },
      },
    );
    const options = { ...config?.options, noEmit: true, allowImportingTsExtensions: true };
    const program = ts.createProgram(files, options);
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file?.fileName.startsWith(typesDir))
      .map((d) => {
        const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
        const where = `${relative(root, d.file?.fileName ?? '')}:${(at?.line ?? 0) + 1}`;
        return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    expect(problems).toEqual([]);
    // It can fail: a wrong option name is a type error.
    writeFileSync(
      files[0] as string,
      asModule("import { retry } from 'herdless';\nawait retry(() => 1, { maxAttemps: 2 });"),
    );
    const wrong = ts.createProgram([files[0] as string], options);
    expect(ts.getPreEmitDiagnostics(wrong).some((d) => d.file?.fileName === files[0])).toBe(true);
  });

  it('every code block on the site runs somewhere: marked as an example, a file of the suite, or a checked block', () => {
    // `<!-- example -->` runs here; `<!-- example-file: path -->` is that test file (below); the audit and ESLint
    // blocks run in test/eslint/readme.test.ts. A shell or text block is output or a command, not code.
    const unmarked = pages.flatMap(({ file, text }) =>
      [...text.matchAll(/(?:<!-- ([^\n]*?) -->\n)?```(ts|js|typescript|javascript|vue)\n/g)]
        .filter(
          (m) =>
            !/^(example|example-file: \S+|herd-example|audit-example|eslint-config-example|eslint-config-ts-example)$/.test(
              m[1] ?? '',
            ),
        )
        .map(() => file),
    );
    expect(unmarked).toEqual([]);
  });

  it.each(
    [{ file: 'README.md', text: readme }, ...pages].flatMap(({ file, text }) =>
      [...text.matchAll(/<!-- example-file: (\S+) -->\n```ts\n([\s\S]*?)```/g)].map((m) => [file, m[1], m[2]]),
    ),
  )('%s shows %s as it is in the suite', (_, path, code) => {
    const source = readFileSync(join(root, path as string), 'utf8')
      .replaceAll(/from '(\.\.\/)+src\/index'/g, "from 'herdless'")
      .replaceAll(/from '(\.\.\/)+src\/testing\/index'/g, "from 'herdless/testing'")
      .replaceAll(/from '(\.\.\/)+src\/otel\/index'/g, "from 'herdless/otel'")
      .replaceAll(/from '(\.\.\/)+src\/hedge\/index'/g, "from 'herdless/hedge'");
    expect(code).toBe(source);
  });

  it.each(examples.map(({ where, code }, i) => [i + 1, where, code]))('example %i (%s)', async (i, _where, code) => {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `example-${i}.ts`);
    // The HTTP clients that do not use fetch (axios, got) meet a real server on 127.0.0.1: a 503, then the items.
    const real = /from '(axios|got)'/.test(code as string);
    const server = real
      ? await serve(inTurn(reply(503, { 'retry-after-ms': '5' }, 'busy'), reply(200, JSON_TYPE, '[{"id":1}]')))
      : undefined;
    // Imports stay on top; the rest becomes a function, so the test can run the fake clock while it waits.
    writeFileSync(file, asModule(code as string, server?.url));
    // The network is a stub: a 503 with Retry-After: 1, then the items.
    const responses = [
      new Response('busy', { status: 503, headers: { 'Retry-After': '1' } }),
      Response.json([{ id: 1 }]),
    ];
    const calledAt: number[] = [];
    const fetch = vi.fn(async () => {
      calledAt.push(Date.now());
      return responses.shift() as Response;
    });
    vi.stubGlobal('fetch', fetch);
    const logged: unknown[][] = [];
    vi.spyOn(console, 'log').mockImplementation((...args) => void logged.push(args));
    try {
      const example = (await import(file)) as { default: () => Promise<void> };
      let finished = false;
      const done = example.default().finally(() => {
        finished = true;
      });
      // Run the fake clock until the example is done. With a real server, the fake clock follows real time instead
      // of jumping: a jump would pass the deadline while the request is on the wire.
      let last = process.hrtime.bigint();
      while (!finished) {
        await new Promise((resolve) => setImmediate(resolve));
        if (server) {
          const now = process.hrtime.bigint();
          await fake.clock.tickAsync(Number(now - last) / 1e6);
          last = now;
        } else {
          await fake.clock.runAllAsync();
        }
      }
      await done;
    } finally {
      vi.unstubAllGlobals();
      vi.restoreAllMocks();
    }
    // As console.log prints them: strings bare, everything else as JSON.
    const printed = logged.map((args) => args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
    const source = code as string;
    if (source.includes('https://api.example.com/')) {
      expect(server ? server.seen.length : fetch.mock.calls.length).toBe(2);
      if (!server) {
        // The 503's Retry-After: 1 is honoured: the second call waits 1 s plus a spread below 1 s (as wide as the
        // server's wait, see README "Retry-After").
        const waited = (calledAt[1] as number) - (calledAt[0] as number);
        expect(waited).toBeGreaterThanOrEqual(1_000);
        expect(waited).toBeLessThan(2_000);
      }
      expect(printed).toEqual(['[{"id":1}]']);
    } else if (source.includes('simulateOutage(')) {
      // It prints what the simulator returns for the same options (seeded by default, so the same figures).
      const { simulateOutage } = await import('../src/simulate/index');
      const { results } = simulateOutage({
        clients: 500,
        strategies: ['fixed', 'full', { name: 'mine', policy: { jitter: 'equal', baseMs: 250 } }],
      });
      expect(source).toContain(
        "strategies: ['fixed', 'full', { name: 'mine', policy: { jitter: 'equal', baseMs: 250 } }]",
      );
      expect(printed).toEqual(results.map((r) => `${r.strategy} ${r.peakAfterOutage} ${r.gaveUp}`));
      expect(printed.map((line) => line.split(' ')[0])).toEqual(['fixed', 'full', 'mine']);
    } else {
      // Every other example states what each console.log prints in a `// expected` comment (an explanation in
      // parentheses after it is not part of it), and prints exactly that, line for line.
      const calls = [...source.matchAll(/console\.log\(.*\);(?: \/\/ (.*?))?(?: \(.*\))?$/gm)];
      const stated = calls.map((m) => m[1]);
      expect(stated.length).toBeGreaterThan(0);
      expect(stated).not.toContain(undefined);
      expect(printed).toEqual(stated);
    }
  });
});
