import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDue, lastSlot, RETRY_AFTER_MS, type BackupRun } from '../../../../server/domain/scheduled-backups.ts';

/** Local times, as the schedule reads them. */
const at = (day: number, hour: number, minute = 0) => new Date(2026, 10, day, hour, minute).getTime();

describe('the backup schedule', () => {
  it('the latest slot is today at the hour once it has passed, else yesterday', () => {
    assert.equal(lastSlot(at(22, 14), 3), at(22, 3));
    assert.equal(lastSlot(at(22, 3), 3), at(22, 3));
    assert.equal(lastSlot(at(22, 2, 59), 3), at(21, 3));
    assert.equal(lastSlot(at(1, 1), 23), at(0, 23), 'across the start of a month');
  });

  it('is due once a slot passes after it was saved or last ran, and an hour after a failure', () => {
    const schedule = { enabled: true, folder: '/backups', hour: 3, keep: 7, changedAt: at(22, 14) };
    assert.equal(isDue(schedule, null, at(22, 14, 1)), false, 'saving it does not start a backup');
    assert.equal(isDue(schedule, null, at(23, 2, 59)), false);
    assert.equal(isDue(schedule, null, at(23, 3)), true);
    assert.equal(isDue(schedule, null, at(25, 9)), true, 'days missed while stopped: caught up');
    assert.equal(isDue({ ...schedule, enabled: false }, null, at(23, 3)), false);
    assert.equal(isDue({ ...schedule, folder: null }, null, at(23, 3)), false);

    const ok: BackupRun = { startedAt: at(23, 3), finishedAt: at(23, 3), ok: true, file: 'f', bytes: 1, error: null, removed: 0 };
    assert.equal(isDue(schedule, ok, at(23, 23)), false);
    assert.equal(isDue(schedule, ok, at(24, 3)), true);
    const failed: BackupRun = { ...ok, ok: false, file: null, bytes: null, error: 'no drive' };
    assert.equal(isDue(schedule, failed, at(23, 3) + RETRY_AFTER_MS - 1), false);
    assert.equal(isDue(schedule, failed, at(23, 3) + RETRY_AFTER_MS), true);
  });
});
