import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { REPO_ROOT } from '../helpers/server-process.ts';

const run = () => spawnSync(process.execPath, ['scripts/build-if-changed.js'], { cwd: REPO_ROOT, encoding: 'utf8' });

it('npm start builds LocalIQ only when its sources changed, with no chunk-size warning and no deprecation', { timeout: 180_000 }, () => {
  const first = run();
  assert.equal(first.status, 0, first.stderr);
  const unchanged = run();
  assert.equal(unchanged.status, 0, unchanged.stderr);
  assert.equal(unchanged.stdout + unchanged.stderr, '', 'nothing changed: no build, nothing printed');

  // A source file touched (same content, newer time) is a change: the dashboard's, the server's,
  // or code both share.
  for (const file of ['renderer/index.html', 'server/cli/cli.ts', 'common/contract/jobs.ts']) {
    const source = path.join(REPO_ROOT, file);
    const { atime, mtime } = fs.statSync(source);
    try {
      fs.utimesSync(source, new Date(), new Date(Date.now() + 5_000));
      const rebuilt = run();
      assert.equal(rebuilt.status, 0, rebuilt.stderr);
      assert.match(rebuilt.stdout, /Building LocalIQ/, file);
      assert.doesNotMatch(rebuilt.stdout + rebuilt.stderr, /larger than 500 kB/);
      // A fresh clone's `npm start` prints no warning (a deprecated Vite option said one).
      assert.doesNotMatch(rebuilt.stdout + rebuilt.stderr, /deprecated|\bwarn(ing)?\b/i);
    } finally {
      fs.utimesSync(source, atime, mtime);
    }
  }
  assert.match(run().stdout, /Building LocalIQ/, 'the times put back are a change too');

  // A build with the command line missing is built again.
  fs.rmSync(path.join(REPO_ROOT, 'out/server/cli.js'));
  const restored = run();
  assert.match(restored.stdout, /Building LocalIQ/);
  assert.ok(fs.existsSync(path.join(REPO_ROOT, 'out/server/cli.js')));
  const assets = fs.readdirSync(path.join(REPO_ROOT, 'out/renderer/assets')).filter((f) => f.endsWith('.js'));
  for (const file of assets) assert.ok(fs.statSync(path.join(REPO_ROOT, 'out/renderer/assets', file)).size < 500_000, file);
  assert.ok(assets.some((f) => f.startsWith('usage-')), 'the Usage screen is a chunk of its own');
});
