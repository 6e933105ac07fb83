import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { skippedSummary, walkFiles } from '../../../../../server/cli/import/files-walk.ts';
import { tempDataDir } from '../../../../helpers/temp-data.ts';

describe('walkFiles', () => {
  it('names files by their path under the folder given, skipping hidden, unsupported, empty and too large ones', () => {
    const root = tempDataDir();
    const write = (name: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
      fs.writeFileSync(path.join(root, name), text);
    };
    write('a/index.md', '# A');
    write('b/index.md', '# B');
    write('Guide.PDF', '%PDF-');
    write('.hidden/inside.txt', 'x');
    write('.env', 'x');
    write('photo.jpg', 'x');
    write('empty.txt', '');
    write('big.txt', 'x'.repeat(101));
    const single = path.join(tempDataDir(), 'alone.html');
    fs.writeFileSync(single, '<p>x</p>');

    const walk = walkFiles([root, single, path.join(root, 'missing')], 100);
    assert.deepEqual(walk.files.map((f) => f.externalId), ['a/index.md', 'alone.html', 'b/index.md', 'Guide.PDF']);
    assert.equal(walk.files.find((f) => f.externalId === 'a/index.md')!.size, 3);
    assert.equal(
      skippedSummary(walk.skipped),
      '2 hidden; 1 empty; 1 larger than 100 bytes, the most one file may be; 1 not a kind of file LocalIQ reads (.pdf, .docx, .md, .markdown, .html, .htm, .txt, .text); 1 not found',
    );
  });
});
