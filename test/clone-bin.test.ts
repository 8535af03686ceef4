import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Issue 31: package.json's `prepare` linked node_modules/.bin/herdless in a clone, and npm 11 warned about it on every
 * user's install of the tarball. npx finds a project's own bin without the link: `npx herdless` in a clone runs
 * bin/herdless.js, which runs the build or says to build first. Slow by nature (a real npm): `npm run test:slow`.
 */
describe('npx herdless in a clone', () => {
  it("runs the project's own bin with no link in node_modules/.bin", async () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const { code, out, err } = await new Promise<{ code: number; out: string; err: string }>((resolve) => {
      execFile('npm', ['exec', '--offline', '--', 'herdless', '--version'], { cwd: root }, (error, out, err) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, out, err }),
      );
    });
    // Built (CI builds before the tests): the version. Not built: the bin's one line saying to build first.
    if (code === 0) expect(out).toMatch(/^\d+\.\d+\.\d+/);
    else expect(err).toContain('herdless: not built yet: run `npm run build` first');
  });
});
