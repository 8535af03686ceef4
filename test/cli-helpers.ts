/**
 * Helpers for the tests of the command and the lint rules: the command run in-process with its output captured, and
 * one rule's messages on a snippet.
 */
import { Linter } from 'eslint';
import { expect } from 'vitest';
import { main } from '../src/cli';
import herdless from '../src/eslint/index';

/** `herdless ...args` run in-process: its exit code, stdout, stderr, and the files it wrote (path to text). */
export function runCli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const files = new Map<string, string>();
  const code = main(args, {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    errIsTTY: false,
    writeFile: (path, text) => files.set(path, text),
  });
  return { code, out: out.join(''), err: err.join(''), files };
}

/** The require-transient-check reports for `code` (a module), as ESLint gives them; a parse error fails the test. */
export function transientCheck(code: string): string[] {
  const flat = [
    {
      files: ['**/*.js'],
      plugins: { herdless: herdless as never },
      rules: { 'herdless/require-transient-check': 'error' as const },
      languageOptions: { sourceType: 'module' as const },
    },
  ];
  const messages = new Linter({ configType: 'flat' }).verify(code, flat, 'loop.js');
  expect(messages.filter((m) => m.fatal)).toEqual([]);
  return messages.map((m) => m.message);
}
