import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';

/** The parts of npm's own version-range rules used here (the package ships no types). */
type Semver = {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
  major(version: string): number;
  minor(version: string): number;
};
const semver = createRequire(import.meta.url)('semver') as Semver;

/**
 * `npm install` on the oldest Node LocalIQ supports prints no EBADENGINE warning: every package
 * the lock file installs declares that Node version. A dependency that moves on to a newer Node
 * fails here, to be held back by `overrides` in package.json (docs/desktop.md says which and why),
 * or met by raising LocalIQ's own Node requirement and the README with it.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

describe('package-lock.json on the oldest supported Node', () => {
  const oldest = semver.minVersion(manifest.engines.node)!.version;

  it('the README asks for the Node version package.json declares', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    assert.ok(readme.includes(`Node.js ${semver.major(oldest)} (${semver.major(oldest)}.${semver.minor(oldest)} or later`), `README names Node ${oldest}`);
  });

  it('holds no package that declares a newer Node', () => {
    const unsupported = Object.entries(lock.packages).flatMap(([where, entry]) => {
      const range = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
      if (!where || !range || semver.satisfies(oldest, range)) return [];
      return [`${where.replace(/^.*node_modules\//, '')}@${entry.version} wants Node ${range}`];
    });
    assert.deepEqual(unsupported, [], `Node ${oldest}`);
  });
});
