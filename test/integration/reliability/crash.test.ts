/**
 * CI part of the crash suite: a real `localiq serve` with its pipeline, SIGKILLed a few times at
 * random moments while bulks are acknowledged and while jobs are processed, checked after every
 * kill and verified at the end against what was acknowledged. The long run (24 kills, 3,000
 * items) is bench/reliability/crash-suite.ts. CRASH_SEED replays a run.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JobRuns } from '../../../server/storage/jobs/job-runs.ts';
import { createTestApp } from '../../helpers/test-app.ts';
import { FIXTURE } from './helpers/fixture.ts';
import { runCrashCampaign } from './helpers/crash.ts';

const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 2 ** 31);

describe('crash suite (CI size)', () => {
  it(`4 kills at random moments over 240 items and a poison item (seed ${SEED}): nothing acknowledged is lost or failed, nothing half-indexed; the poison alone fails, with its reason`, { timeout: 300_000 }, async () => {
    const report = await runCrashCampaign({
      items: 240,
      kills: 4,
      poison: true,
      seed: SEED,
      bulkSize: [20, 100],
      workers: 1,
      maxKillDelayMs: 1_500,
      drainTimeoutMs: 150_000,
      log: (line) => console.log(line),
    });
    assert.deepEqual(report.problems, []);
    assert.ok(report.kills.some((k) => k.mode === 'ack' && k.inFlightRequests > 0), 'at least one kill landed while bulks were in flight');
    assert.ok(report.kills.some((k) => k.processingJobsAtKill > 0), 'at least one kill landed while jobs were processing');
    assert.ok(report.pushesAcknowledged > 0 && report.pushesLost > 0, 'some pushes were acknowledged and some cut off');
    const f = report.final;
    assert.equal(f.integrity, 'ok');
    assert.equal(f.indexedItems, 240, 'every acknowledged item is indexed, once');
    assert.equal(f.pendingJobs, 0);
    assert.equal(f.jobsByStatus.failed ?? 0, 1, 'only the poison job failed');
    assert.equal(report.poison?.status, 'failed');
    assert.match(report.poison?.lastError ?? '', /^crashed the pipeline each of the 2 times it ran alone/);
    assert.equal(f.stale + f.missing + f.unexpectedVersion + f.duplicates + f.halfIndexed, 0);
    assert.ok(f.searchChecked >= 100 && f.searchMisses === 0 && f.staleSearchHits === 0);
  });

  it('recovery at start-up: interrupted jobs go back to the queue uncharged, even on their last attempt; a suspect alone at its second crash ends failed as a poison', async () => {
    const t = await createTestApp({ maxAttempts: 3 });
    try {
      const key = t.key();
      for (const externalId of ['survivor', 'poison', 'superseded']) {
        const res = await t.app.inject({ method: 'POST', url: '/ingest', headers: { 'x-api-key': key }, payload: FIXTURE.item({ externalId }) });
        assert.equal(res.statusCode, 200);
      }
      const db = t.services.db;
      // What a crash leaves behind: jobs marked processing, their attempt already counted.
      db.prepare("UPDATE jobs SET status = 'processing', attempts = 3 WHERE external_id = 'survivor'").run();
      db.prepare("UPDATE jobs SET status = 'processing', attempts = 1 WHERE external_id = 'superseded'").run();
      const newer = await t.app.inject({ method: 'POST', url: '/ingest', headers: { 'x-api-key': key }, payload: FIXTURE.item({ externalId: 'superseded' }, { content: 'A newer version.' }) });
      assert.equal(newer.statusCode, 200);
      const runs = new JobRuns(db);
      assert.equal(runs.recoverStale(Date.now()), 2);
      const status = (id: string) => (db.prepare('SELECT status FROM jobs WHERE external_id = ? ORDER BY id').all(id) as Array<{ status: string }>).map((r) => r.status);
      const job = async (id: string) => (await t.app.inject({ method: 'GET', url: `/jobs/${FIXTURE.integration}-${id}`, headers: { 'x-api-key': key } })).json();
      assert.deepEqual(status('superseded'), ['cancelled', 'queued']);
      const survivor = await job('survivor');
      assert.deepEqual([survivor.status, survivor.attempts, survivor.lastError, survivor.errors], ['queued', 2, null, []], 'the crash is not charged to it');
      // A suspect of an earlier crash, run alone, found alone in flight at its second crash.
      db.prepare("UPDATE jobs SET status = 'processing', attempts = 1, suspect = 1, solo_crashes = 1 WHERE external_id = 'poison'").run();
      assert.equal(runs.recoverStale(Date.now()), 1);
      const poison = await job('poison');
      const reason = 'crashed the pipeline each of the 2 times it ran alone (the process stopped: a crash, a kill or a power cut)';
      assert.deepEqual(
        [poison.status, poison.lastError, poison.errors.map((e: { attempt: number; message: string }) => [e.attempt, e.message])],
        ['failed', reason, [[1, reason]]],
      );
    } finally {
      await t.close();
    }
  });
});
