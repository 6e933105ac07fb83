import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { fileItem } from '../../../../server/domain/file-items.ts';
import { openDatabase } from '../../../../server/storage/db.ts';
import { JobHistory } from '../../../../server/storage/job-history.ts';
import { JobRepo } from '../../../../server/storage/jobs/job-repo.ts';
import { JobRuns } from '../../../../server/storage/jobs/job-runs.ts';
import { Originals } from '../../../../server/storage/originals.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

const DAY = 24 * 60 * 60_000;
const T0 = Date.UTC(2026, 0, 1);

/** A data folder with its database, originals and queue, and a way to upload bytes as the files route does. */
function folder() {
  const dataDir = tempDataDir();
  const db = openDatabase(dataDir);
  const originals = new Originals(dataDir);
  const jobs = new JobRepo(db);
  const runs = new JobRuns(db);
  /** An upload streamed to `.incoming/` and adopted: what the route has done before it commits the job. */
  const received = (text: string) => {
    const incoming = originals.incomingPath();
    fs.writeFileSync(incoming, text);
    const sha256 = createHash('sha256').update(text).digest('hex');
    originals.adopt(incoming, sha256);
    return { incoming, sha256, bytes: Buffer.byteLength(text) };
  };
  const commit = (externalId: string, upload: { sha256: string; bytes: number }, now = T0) =>
    jobs.enqueue(
      [{ items: [fileItem('kb', { integrationId: 'files', sourceType: 'PAGE' }, { sha256: upload.sha256, name: `${externalId}.txt`, bytes: upload.bytes }, externalId)], apiKeyId: null }],
      { now, maxAttempts: 1, activeModelId: null },
    );
  return { db, originals, runs, received, commit };
}

describe('originals of uploaded files', () => {
  it('an upload keeps its own copy until its job is committed, then settles to the one original', () => {
    const { originals, received, commit } = folder();
    const upload = received('The rain jacket has taped seams.');
    assert.ok(originals.has(upload.sha256), 'in place before the commit, for the worker that claims the job');
    assert.ok(fs.existsSync(upload.incoming), 'the upload\'s own copy is kept until the commit');
    commit('jacket', upload);
    originals.settle(upload.incoming, upload.sha256);
    assert.ok(!fs.existsSync(upload.incoming));
    assert.equal(fs.readFileSync(originals.pathOf(upload.sha256), 'utf8'), 'The rain jacket has taped seams.');
    assert.deepEqual(originals.list().map((o) => o.sha256), [upload.sha256]);
  });

  it('a deletion that removes the same bytes while a re-upload is not yet committed does not leave the new job without its file', () => {
    const { db, originals, received, commit } = folder();
    const text = 'Gift cards never expire.';
    // The bytes were an item's; that item is being deleted while the same bytes are uploaded again.
    const first = received(text);
    originals.settle(first.incoming, first.sha256);
    const again = received(text);
    // The deletion's removal runs between the upload's adopt and its commit: nothing uses the file yet.
    assert.deepEqual(originals.removeUnused(db, [again.sha256]), [again.sha256]);
    assert.ok(!originals.has(again.sha256), 'taken by the removal');
    commit('gift-cards', again);
    originals.settle(again.incoming, again.sha256);
    assert.ok(originals.has(again.sha256), 'put back from the upload\'s copy once committed');
    assert.equal(fs.readFileSync(originals.pathOf(again.sha256), 'utf8'), text);
    // A removal after the commit sees the queued job and keeps the file.
    assert.deepEqual(originals.removeUnused(db, [again.sha256]), []);
    assert.ok(originals.has(again.sha256));
  });

  it('job-history retention removes the original a swept failed job was the last to hold, and no other', () => {
    const { db, originals, runs, received, commit } = folder();
    const settled = (text: string) => {
      const upload = received(text);
      originals.settle(upload.incoming, upload.sha256);
      return upload;
    };
    // Day 0: a file that fails for good (its failed job keeps its payload, and so its original).
    const broken = settled('a scan without text');
    commit('manual', broken, T0);
    const shared = settled('a page two items share');
    commit('shared-one', shared, T0);
    for (const job of runs.claim(10, T0 + 1)) runs.recordFailure(job, 'needs OCR', T0 + 1, true);
    // Day 40: a fixed file replaces the broken one; the shared bytes are pushed again by another item.
    const fixed = settled('the same manual, with text');
    commit('manual', fixed, T0 + 40 * DAY);
    commit('shared-one', settled('its own new text'), T0 + 40 * DAY);
    commit('shared-two', shared, T0 + 40 * DAY);
    assert.ok(originals.has(broken.sha256), 'held by the failed job, which a retry could still run');

    const history = new JobHistory(db, originals);
    assert.equal(history.prune(T0 + 10 * DAY, null, 100).removed, 2);
    assert.ok(!originals.has(broken.sha256), 'the swept failed job was the last to hold it');
    assert.ok(originals.has(shared.sha256), 'another item\'s queued job still holds it');
    assert.ok(originals.has(fixed.sha256));
  });
});
