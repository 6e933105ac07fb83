import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileSkipReason } from '../../../../common/contract/files.ts';

describe('fileSkipReason: what a folder upload leaves out (the CLI and the dashboard)', () => {
  it('sends documents, and leaves out hidden files and folders, other kinds, empty and too large files, each with its reason', () => {
    assert.equal(fileSkipReason('manuals/setup.pdf', 10, 100), null);
    assert.equal(fileSkipReason('guide/.draft.md', 10, 100), 'hidden');
    assert.equal(fileSkipReason('.git/notes.md', 10, 100), 'hidden');
    assert.match(fileSkipReason('logo.gif', 10, 100)!, /^not a kind of file LocalIQ reads \(\.pdf, \.docx/);
    assert.equal(fileSkipReason('empty.md', 0, 100), 'empty');
    assert.equal(fileSkipReason('big.pdf', 101, 100), 'larger than 100 bytes, the most one file may be');
  });
});
