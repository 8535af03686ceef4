import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { useFakeClock } from './helpers';

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
    // Imports stay on top; the rest becomes a function, so the test can run the fake clock while it waits.
    const lines = (code as string)
      .replaceAll("from 'herdless/simulate'", `from '${join(root, 'src', 'simulate', 'index.ts')}'`)
      .replaceAll("from 'herdless'", `from '${join(root, 'src', 'index.ts')}'`)
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
      const done = example.default();
      await fake.clock.runAllAsync();
      await done;
    } finally {
      vi.unstubAllGlobals();
      vi.restoreAllMocks();
    }
    expect(logged.length).toBeGreaterThan(0);
    const printed = logged.map((args) => args.map((a) => JSON.stringify(a)).join(' '));
    if ((code as string).includes('fetch(')) {
      expect(fetch).toHaveBeenCalledTimes(2);
      expect(printed).toEqual(['[{"id":1}]']);
    }
    // Each `console.log(...) // expected` comment in the example states what it prints.
    const stated = [...(code as string).matchAll(/console\.log\(.*\); \/\/ (\S+)/g)].map((m) => m[1]);
    for (const [k, text] of stated.entries()) expect(printed[k]).toMatch(new RegExp(`^"?${text}`));
  });
});
