import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { openRecords } from '../../../../../server/cli/import/readers.ts';

describe('readers at scale', () => {
  it('JSON: a large file streams with bounded memory', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-import-big-')), 'big.json');
    const out = fs.openSync(file, 'w');
    const count = 200_000;
    fs.writeSync(out, '[');
    const filler = 'x'.repeat(400);
    for (let i = 0; i < count; i += 1000) {
      const part: string[] = [];
      for (let j = i; j < i + 1000; j++) part.push(JSON.stringify({ id: `p${j}`, text: filler }));
      fs.writeSync(out, (i ? ',' : '') + part.join(','));
    }
    fs.writeSync(out, ']');
    fs.closeSync(out);
    const size = fs.statSync(file).size;
    // Live heap after a forced collection: what the reader holds, whatever the collector's timing.
    v8.setFlagsFromString('--expose-gc');
    const collectGarbage = vm.runInNewContext('gc') as () => void;
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    let n = 0;
    let peak = 0;
    for await (const r of openRecords(file, 'json').records) {
      assert.ok('record' in r);
      n++;
      if (n % 20_000 === 0) {
        collectGarbage();
        peak = Math.max(peak, process.memoryUsage().heapUsed - before);
      }
    }
    assert.equal(n, count);
    assert.ok(size > 80_000_000, `file is ${size} bytes`);
    // Holding the file (or its records) would keep more than 80 MB alive.
    assert.ok(peak < size / 8, `live heap grew ${peak} bytes while reading ${size}`);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });
});
