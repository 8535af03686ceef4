import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Linter } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { audit } from '../../src/audit/audit';

/**
 * The docs' page on the CLI (docs/guide/cli.md), "Find the retry loops you have": the loop, what the audit prints,
 * and the ESLint configs, as written there.
 */
const root = join(import.meta.dirname, '..', '..');
const page = readFileSync(join(root, 'docs', 'guide', 'cli.md'), 'utf8');
const block = (mark: string, lang: string) => {
  const m = new RegExp(`<!-- ${mark} -->\\n\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(page);
  if (!m) throw new Error(`docs/guide/cli.md has no ${mark} block`);
  return m[1] as string;
};
const dir = join(root, 'test', '.audit-readme');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/guide/cli.md: find the retry loops you already have', { timeout: 60_000 }, () => {
  it('herdless audit prints what the page says it prints', async () => {
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'src', 'get-user.js'), block('audit-example', 'js'));
    const out: string[] = [];
    expect(await audit([], { out: (t) => out.push(t), err: (t) => out.push(t) }, dir)).toBe(1);
    expect(out.join('').replace(/ in \d+\.\d s\n/, ' in 0.1 s\n')).toBe(block('audit-output', 'text'));
  });

  it('the flat config as written reports the same loop through ESLint', async () => {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'eslint.config.mjs');
    const config = block('eslint-config-example', 'js').replace(
      "from 'herdless/eslint'",
      `from '${join(root, 'src', 'eslint', 'index.ts')}'`,
    );
    writeFileSync(file, config);
    const flat = (await import(file)).default;
    const messages = new Linter({ configType: 'flat' }).verify(block('audit-example', 'js'), flat, 'get-user.js');
    expect(messages.map((m) => `${m.line}:${m.column} ${m.ruleId}`)).toEqual([
      '2:3 herdless/require-jitter',
      '2:3 herdless/require-transient-check',
    ]);
  });

  it('the README shows the same flat config', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain(`<!-- eslint-config-example -->\n\`\`\`js\n${block('eslint-config-example', 'js')}\`\`\``);
  });

  it('the TypeScript flat config as written reports the same loop in a .ts file', async () => {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'eslint.ts.config.mjs');
    const config = block('eslint-config-ts-example', 'js')
      .replace("from 'herdless/eslint'", `from '${join(root, 'src', 'eslint', 'index.ts')}'`)
      .replace(
        "from 'typescript-eslint'",
        `from '${join(root, 'node_modules', 'typescript-eslint', 'dist', 'index.js')}'`,
      );
    writeFileSync(file, config);
    const flat = (await import(file)).default;
    const typed = block('audit-example', 'js').replace('getUser(id)', 'getUser(id: string): Promise<unknown>');
    const messages = new Linter({ configType: 'flat' }).verify(typed, flat, 'get-user.ts');
    expect(messages.map((m) => `${m.line}:${m.column} ${m.ruleId}`)).toEqual([
      '2:3 herdless/require-jitter',
      '2:3 herdless/require-transient-check',
    ]);
  });
});
