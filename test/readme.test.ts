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
      const done = example.default();
      await fake.clock.runAllAsync();
      await done;
    } finally {
      vi.unstubAllGlobals();
      vi.restoreAllMocks();
    }
    // As console.log prints them: strings bare, everything else as JSON.
    const printed = logged.map((args) => args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
    const source = code as string;
    if (source.includes('fetch(')) {
      expect(fetch).toHaveBeenCalledTimes(2);
      // The 503's Retry-After: 1 is honoured: the second call waits 1 s plus a full-jitter delay below 100 ms.
      const waited = (calledAt[1] as number) - (calledAt[0] as number);
      expect(waited).toBeGreaterThanOrEqual(1_000);
      expect(waited).toBeLessThan(1_100);
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
