import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Linter } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { audit } from '../../src/audit/audit';

/** The README's "Find the retry loops you already have": the loop, what the audit prints, and the ESLint config. */
const root = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const block = (mark: string, lang: string) => {
  const m = new RegExp(`<!-- ${mark} -->\\n\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!m) throw new Error(`README has no ${mark} block`);
  return m[1] as string;
};
const dir = join(root, 'test', '.audit-readme');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('README: find the retry loops you already have', { timeout: 60_000 }, () => {
  it('herdless audit prints what the README says it prints', async () => {
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
});
