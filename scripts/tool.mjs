// `node scripts/tool.mjs DIR [BIN ARGS...]`: installs the tools of DIR (docs/ or mutation/: their own package.json and
// lockfile, kept out of the project's default install) when DIR/node_modules is missing or older than DIR's lockfile,
// then runs DIR/node_modules/.bin/BIN with ARGS from the project's root. Their peers (TypeScript, vitest) are the
// project's own (legacy-peer-deps: not installed twice). Exits with the tool's code; a failed install is one line.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [dir, bin, ...args] = process.argv.slice(2);
if (dir !== 'docs' && dir !== 'mutation') {
  console.error(`tool: the first argument must be docs or mutation, got '${dir ?? ''}'`);
  process.exit(2);
}
const tools = join(root, dir);
const installed = join(tools, 'node_modules', '.package-lock.json');
const lock = join(tools, 'package-lock.json');
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) {
  console.error(`tool: installing ${dir}/'s tools (npm ci in ${dir}/, once)`);
  const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--legacy-peer-deps'], {
    cwd: tools,
    stdio: ['ignore', 'inherit', 'inherit'],
    shell: process.platform === 'win32',
  });
  if (npm.status !== 0) {
    console.error(`tool: npm ci in ${dir}/ failed (exit ${npm.status ?? npm.signal})`);
    process.exit(1);
  }
}
if (bin === undefined) process.exit(0);
const run = spawnSync(join(tools, 'node_modules', '.bin', bin), args, {
  cwd: root,
  stdio: 'inherit',
  shell: process.platform === 'win32',
});
if (run.error) {
  console.error(`tool: cannot run ${dir}/node_modules/.bin/${bin}: ${run.error.message}`);
  process.exit(1);
}
process.exit(run.status ?? 1);
