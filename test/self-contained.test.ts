import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';

// A user's clone has nothing beside it: tests use data inside the repository (test/fixtures), and
// only the benchmarks read the evaluation sets in ../shared/eval.
it('no test reads data from outside the repository', () => {
  const files = (fs.readdirSync('test', { recursive: true }) as string[])
    .filter((file) => /\.(ts|js|mjs)$/.test(file) && !file.endsWith('self-contained.test.ts'))
    .map((file) => path.join('test', file));
  assert.ok(files.length > 40);
  const offenders = files.filter((file) => /\.\.\/shared\b|shared\/eval/.test(fs.readFileSync(file, 'utf8')));
  assert.deepEqual(offenders, []);
});
