import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { useFakeClock } from './helpers';
import { inTurn, reply, serve } from './http-server';

const JSON_TYPE = { 'content-type': 'application/json' };

/** Every ```ts block in README.md marked `<!-- readme-example -->` runs here, against the source, as written. */
const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const examples = [...readme.matchAll(/<!-- readme-example -->\n```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
const dir = join(root, 'test', '.readme');
const fake = useFakeClock();

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('README examples run', () => {
  it('finds the examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(4);
  });

  it.each(examples.map((code, i) => [i + 1, code]))('example %i', async (i, code) => {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `example-${i}.ts`);
    // The HTTP clients that do not use fetch (axios, got) meet a real server on 127.0.0.1: a 503, then the items.
    const real = /from '(axios|got)'/.test(code as string);
    const server = real
      ? await serve(inTurn(reply(503, { 'retry-after-ms': '5' }, 'busy'), reply(200, JSON_TYPE, '[{"id":1}]')))
      : undefined;
    // Imports stay on top; the rest becomes a function, so the test can run the fake clock while it waits.
    const lines = (code as string)
      .replaceAll("from 'herdless/simulate'", `from '${join(root, 'src', 'simulate', 'index.ts')}'`)
      .replaceAll("from 'herdless'", `from '${join(root, 'src', 'index.ts')}'`)
      .replaceAll('https://api.example.com/', server?.url ?? 'https://api.example.com/')
      .split('\n');
    const imports = lines.filter((l) => l.startsWith('import '));
    const body = lines.filter((l) => !l.startsWith('import '));
    writeFileSync(file, `${imports.join('\n')}\nexport default async function run() {\n${body.join('\n')}\n}\n`);
    // The network is a stub: a 503 with Retry-After: 1, then the items.
    const responses = [
      new Response('busy', { status: 503, headers: { 'Retry-After': '1' } }),
      Response.json([{ id: 1 }]),
    ];
    const fetch = vi.fn(async () => responses.shift() as Response);
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
    expect(logged.length).toBeGreaterThan(0);
    const printed = logged.map((args) => args.map((a) => JSON.stringify(a)).join(' '));
    if ((code as string).includes('https://api.example.com/')) {
      expect(server ? server.seen.length : fetch.mock.calls.length).toBe(2);
      expect(printed).toEqual(['[{"id":1}]']);
    }
    // Each `console.log(...) // expected` comment in the example states what it prints.
    const stated = [...(code as string).matchAll(/console\.log\(.*\); \/\/ (\S+)/g)].map((m) => m[1]);
    for (const [k, text] of stated.entries()) expect(printed[k]).toMatch(new RegExp(`^"?${text}`));
  });
});
