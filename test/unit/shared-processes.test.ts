/**
 * The unit group's files share processes (scripts/run-tests.js, test/README.md): a hook at the
 * top of a file would run around the tests of every file imported after it, and an environment
 * variable a file sets would hold for them too.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const UNIT = path.dirname(fileURLToPath(import.meta.url));

function unitFiles(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return unitFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** Lines of the unit files matching `pattern`, as "file:line: text". */
function linesMatching(pattern: RegExp): string[] {
  return unitFiles(UNIT).flatMap((file) =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, index) => (pattern.test(line) ? [`${path.relative(UNIT, file)}:${index + 1}: ${line.trim()}`] : [])),
  );
}

describe('unit files that share a process', () => {
  it('finds the unit files', () => {
    assert.ok(unitFiles(UNIT).length > 50);
  });

  it('call no node:test hook at the top of a file, only inside a describe', () => {
    assert.deepEqual(linesMatching(/^(before|after|beforeEach|afterEach)\(/), []);
  });

  it('set no environment variable', () => {
    assert.deepEqual(linesMatching(/process\.env(\.\w+|\[[^\]]+\])\s*=[^=]|delete process\.env/), []);
  });
});
