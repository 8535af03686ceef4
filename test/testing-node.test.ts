import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

describe('herdless/testing under node:test', () => {
  it('assertNoHerd fails the naive loop with the chart in the output, and passes herdless', () => {
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-reporter=tap', join(root, 'test', 'fixtures', 'herd.node-test.ts')],
      { cwd: root, encoding: 'utf8', timeout: 60_000 },
    );
    const out = child.stdout;
    expect(child.status).toBe(1);
    expect(out).toMatch(/^not ok 1 - naive loop$/m);
    expect(out).toMatch(/^ok 2 - herdless$/m);
    expect(out).toContain('naive: 200 requests in one 100 ms window after the outage, 10.0x capacity 20');
    expect(out).toMatch(/naive +\|█ +█ +█/);
  });
});
