// `npm ci` in a clone runs this (package.json's `prepare`): npm links the bins of the dependencies into
// node_modules/.bin, never the project's own, so `npx herdless` in a clone found no command ("herdless: not found").
// This links it: bin/herdless.js runs the build, or says to build first. Not run by a user's install of the package.
import { existsSync, lstatSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../node_modules/.bin/', import.meta.url));
if (existsSync(fileURLToPath(new URL('../node_modules/', import.meta.url)))) {
  mkdirSync(bin, { recursive: true });
  const link = `${bin}herdless`;
  try {
    if (lstatSync(link)) rmSync(link);
  } catch {}
  try {
    symlinkSync('../../bin/herdless.js', link);
  } catch (error) {
    // A file system without symlinks: the clone still works through `npm run simulate`; never fail the install.
    console.warn(`herdless: could not link node_modules/.bin/herdless (${error.message}); use npm run simulate`);
  }
}
