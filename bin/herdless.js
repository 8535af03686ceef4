#!/usr/bin/env node
// The `herdless` command as package.json's `bin` names it: the built command line (dist/cli.js), or, in a clone that
// has not been built yet (`npx herdless` right after `npm ci`), one line that says what to run instead.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (existsSync(cli)) await import(cli.href);
else {
  console.error(
    'herdless: not built yet: run `npm run build` first (or, without building, `npm run simulate -- --help`)',
  );
  process.exitCode = 1;
}
