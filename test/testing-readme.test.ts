import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The herd example of docs/testing-herd.md (the README links to it), run as written against
 * the source: its first test must fail with exactly the message the docs print, its second must pass.
 */
const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const docs = readFileSync(join(root, 'docs', 'testing-herd.md'), 'utf8');
const fromDocs = docs.match(/<!-- herd-example -->\n```ts\n([\s\S]*?)```/)?.[1];
const printed = docs.match(/The first test fails with:\n\n```\n([\s\S]*?)```/)?.[1];
const dir = join(root, 'test', '.herd-readme');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the herd example in docs/testing-herd.md', () => {
  it('the README points to the page, whose example is the one run here', () => {
    expect(readme).toContain('[test your retries under a herd](docs/testing-herd.md)');
    expect(fromDocs).toMatch(/assertNoHerd\(await herd/);
  });

  it('runs: the naive test fails with the message the docs print, the herdless test passes', async () => {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'example.ts');
    const code = (fromDocs as string)
      .replace("from 'herdless/testing'", `from '${join(root, 'src', 'testing', 'index.ts')}'`)
      .replace("from 'herdless'", `from '${join(root, 'src', 'index.ts')}'`)
      .replace(
        "import { test } from 'vitest';",
        'export const tests: [string, () => Promise<void>][] = [];\nconst test = (name: string, f: () => Promise<void>) => void tests.push([name, f]);',
      );
    writeFileSync(file, code);
    const { tests } = (await import(file)) as { tests: [string, () => Promise<void>][] };
    expect(tests.map(([name]) => name)).toEqual([
      'naive: fails, printing the chart (200 requests in one window, 10x capacity)',
      'herdless: passes',
    ]);
    const [[, naive], [, herdless]] = tests as [[string, () => Promise<void>], [string, () => Promise<void>]];
    const error = await naive().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.name).toBe('AssertionError');
    expect(`${error?.name}: ${error?.message}\n`).toBe(printed);
    await expect(herdless()).resolves.toBeUndefined();
  });
});
