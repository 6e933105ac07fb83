import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, mock } from 'node:test';
import { ScheduledBackups, type BackupRun } from '../../server/domain/scheduled-backups.ts';
import { backupFileName } from '../../server/domain/backup-names.ts';
import { backupContents, backupInThread, openBackup } from '../../server/storage/backup.ts';
import { openDatabase } from '../../server/storage/db.ts';
import { SettingsRepo } from '../../server/storage/settings-repo.ts';
import { AdminClient, signedInAs } from '../helpers/admin-client.ts';
import { startPipelineServer } from '../helpers/pipeline-app.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { item, tempDataDir } from '../helpers/temp-data.ts';

/** Local times, as the schedule reads them. */
const at = (day: number, hour: number, minute = 0) => new Date(2026, 10, day, hour, minute).getTime();

function backupsIn(folder: string): string[] {
  return fs.readdirSync(folder).filter((name) => name.startsWith('localiq-backup-')).sort();
}

/** Jobs in a backup: the test app runs no pipeline, so pushes stay jobs. */
function jobsIn(file: string): number {
  const db = openBackup(file);
  try {
    return backupContents(db).jobs;
  } finally {
    db.close();
  }
}

/**
 * The test app's database with a clock the test moves, and the real backup on its thread;
 * `folderAtBackup` is what the folder held as each backup began.
 */
function scheduled(t: TestApp) {
  const clock = { now: at(22, 14) };
  const folderAtBackup: string[][] = [];
  const backUp = (dataDir: string, file: string, signal: AbortSignal) => {
    folderAtBackup.push(backupsIn(path.dirname(file)));
    return backupInThread(dataDir, file, signal);
  };
  const backups = new ScheduledBackups(new SettingsRepo(t.services.db), t.dataDir, backUp, () => clock.now);
  const runs: BackupRun[] = [];
  backups.reportTo((run) => runs.push(run));
  return { clock, backups, runs, folderAtBackup };
}

/** Runs `body` with `scheduled`'s backups over a fresh test app, then stops them and closes the app. */
async function withScheduled(body: (context: ReturnType<typeof scheduled> & { t: TestApp }) => Promise<void>): Promise<void> {
  const t = await createTestApp();
  const context = scheduled(t);
  try {
    await body({ ...context, t });
  } finally {
    context.backups.stop();
    await t.close();
  }
}

async function pushItems(t: TestApp, count: number, from = 0): Promise<void> {
  const items = Array.from({ length: count }, (_, i) => item({ externalId: `p-${from + i}` }));
  const res = await t.app.inject({ method: 'POST', url: '/ingest/bulk', headers: { 'x-api-key': t.key() }, payload: { items } });
  assert.equal(res.statusCode, 200, res.body);
}

describe('scheduled backups', () => {
  it('run at the hour into the folder, keep the newest, and touch no other file', () =>
    withScheduled(async ({ t, clock, backups, runs }) => {
      const folder = tempDataDir();
      fs.writeFileSync(path.join(folder, 'notes.txt'), 'mine');
      fs.writeFileSync(path.join(folder, 'localiq-backup-before-upgrade.db'), 'a backup named by hand');
      fs.writeFileSync(path.join(folder, 'localiq-backup-2026-11-01T03-00-00.db.partial'), 'cut short');
      await pushItems(t, 5);

      const saved = backups.setSchedule({ enabled: true, folder, hour: 3, keep: 2 });
      assert.equal(saved.nextRunAt, at(23, 3));
      assert.equal(await backups.tick(), null, 'nothing before the hour');
      assert.deepEqual(backupsIn(folder), ['localiq-backup-2026-11-01T03-00-00.db.partial', 'localiq-backup-before-upgrade.db']);

      const taken: string[] = [];
      for (const day of [23, 24, 25]) {
        clock.now = at(day, 3, 0);
        await pushItems(t, 1, 100 + day);
        const run = await backups.tick();
        assert.ok(run?.ok, run?.error ?? 'no run');
        assert.equal(run.file, path.join(folder, backupFileName(new Date(at(day, 3)), backups.label())));
        taken.push(path.basename(run.file!));
        clock.now = at(day, 12);
        assert.equal(await backups.tick(), null, 'once a day');
      }
      assert.deepEqual(runs.map((run) => run.removed), [0, 0, 1]);
      assert.deepEqual(backupsIn(folder), [...taken.slice(1), 'localiq-backup-before-upgrade.db'].sort());
      assert.equal(fs.readFileSync(path.join(folder, 'notes.txt'), 'utf8'), 'mine');
      const newest = path.join(folder, taken[2]!);
      assert.equal(jobsIn(newest), 8, 'the 5 + 3 jobs pushed by then');
      const state = backups.state();
      assert.deepEqual(state.lastSuccess, { at: at(25, 3), file: newest, bytes: fs.statSync(newest).size });
      assert.equal(state.nextRunAt, at(26, 3));

      // Stopped for three days: one backup catches up, not three.
      clock.now = at(28, 9);
      assert.ok((await backups.tick())?.ok);
      assert.equal(await backups.tick(), null);
    }));

  it('a missing folder fails the run, which is tried again an hour later; the last good backup stays known', () =>
    withScheduled(async ({ clock, backups }) => {
      const folder = path.join(tempDataDir(), 'nas');
      fs.mkdirSync(folder);
      backups.setSchedule({ enabled: true, folder, hour: 3, keep: 7 });
      clock.now = at(23, 3);
      const good = await backups.tick();
      assert.ok(good?.ok);

      fs.rmSync(folder, { recursive: true });
      clock.now = at(24, 3);
      const failed = await backups.tick();
      assert.equal(failed?.ok, false);
      assert.equal(failed.error, `The backup folder ${folder} is not there. Is its drive connected?`);
      assert.equal(backups.state().lastSuccess?.file, good.file);
      assert.equal(backups.state().nextRunAt, at(24, 4));
      clock.now = at(24, 3, 59);
      assert.equal(await backups.tick(), null);

      fs.mkdirSync(folder);
      clock.now = at(24, 4);
      const retried = await backups.tick();
      assert.ok(retried?.ok, retried?.error ?? '');
      assert.equal(backups.state().lastRun?.ok, true);
      assert.equal(backups.state().nextRunAt, at(25, 3));
    }));

  it('a second backup within the same second gets a name of its own; older names are still kept in order', () =>
    withScheduled(async ({ clock, backups }) => {
      const folder = tempDataDir();
      // As earlier versions named backups: to the second.
      const older = 'localiq-backup-2026-11-20T03-00-00.db';
      fs.writeFileSync(path.join(folder, older), 'an older backup');
      backups.setSchedule({ enabled: true, folder, hour: 3, keep: 2 });
      clock.now = at(23, 3);
      const first = await backups.runNow();
      clock.now += 400;
      const second = await backups.runNow();
      assert.ok(first.ok && second.ok, `${first.error} ${second.error}`);
      assert.notEqual(first.file, second.file);
      assert.deepEqual(backupsIn(folder), [path.basename(first.file!), path.basename(second.file!)], 'the older backup went first');
      assert.match(path.basename(second.file!), /^localiq-backup-[a-z0-9-]+-[0-9a-f]{6}-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}\.db$/);
    }));

  it('LocalIQs sharing a folder each keep and clean up only their own backups', () =>
    withScheduled(async ({ t, clock, backups }) => {
      const folder = tempDataDir();
      const label = backups.label();
      assert.ok(label.startsWith(`${os.hostname().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')}-`), label);
      assert.equal(new ScheduledBackups(new SettingsRepo(t.services.db), t.dataDir, backupInThread).label(), label, 'kept with the database');
      // Another LocalIQ's backups, one of them being written right now.
      const theirs = ['localiq-backup-office-pc-0a1b2c-2026-11-01T03-00-00-000.db', 'localiq-backup-office-pc-0a1b2c-2026-11-02T03-00-00-000.db'];
      for (const name of theirs) fs.writeFileSync(path.join(folder, name), 'theirs');
      fs.writeFileSync(path.join(folder, 'localiq-backup-office-pc-0a1b2c-2026-11-23T03-00-00-000.db.partial'), 'theirs, under way');
      backups.setSchedule({ enabled: true, folder, hour: 3, keep: 1 });
      const mine: string[] = [];
      for (const day of [23, 24]) {
        clock.now = at(day, 3);
        const run = await backups.tick();
        assert.ok(run?.ok, run?.error ?? 'no run');
        assert.ok(path.basename(run.file!).startsWith(`localiq-backup-${label}-`));
        mine.push(path.basename(run.file!));
      }
      assert.deepEqual(
        backupsIn(folder),
        [...theirs, 'localiq-backup-office-pc-0a1b2c-2026-11-23T03-00-00-000.db.partial', mine[1]!].sort(),
      );
    }));
});

describe('scheduled backups in the running server', () => {
  it('the server looks at the schedule every minute and runs a backup that is due', async () => {
    const dataDir = tempDataDir();
    const folder = tempDataDir();
    // A schedule saved long ago (as after a restart that missed a day): due at the first look.
    const db = openDatabase(dataDir);
    new SettingsRepo(db).set('backup_schedule', JSON.stringify({ enabled: true, folder, hour: 0, keep: 3, changedAt: 0 }));
    db.close();
    mock.timers.enable({ apis: ['setInterval'] });
    let server: Awaited<ReturnType<typeof startPipelineServer>> | undefined;
    try {
      server = await startPipelineServer({ workers: 0 }, dataDir);
      assert.equal(server.services.backups.state().lastRun, null);
      mock.timers.tick(60_000);
      const deadline = Date.now() + 30_000;
      while (server.services.backups.state().lastRun === null) {
        assert.ok(Date.now() < deadline, 'no backup within 30 s of the first look');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const { lastRun } = server.services.backups.state();
      assert.ok(lastRun?.ok, lastRun?.error ?? '');
      assert.deepEqual(backupsIn(folder), [path.basename(lastRun.file!)]);
    } finally {
      mock.timers.reset();
      await server?.stop();
    }
  });
});

describe('scheduled backups and the backup disk', () => {
  it('stopping the server stops a backup under way, which leaves no backup and no record', async () => {
    const t = await createTestApp();
    const { backups, runs } = scheduled(t);
    try {
      const folder = tempDataDir();
      backups.setSchedule({ enabled: true, folder, hour: 3, keep: 3 });
      const running = backups.runNow();
      backups.stop();
      const run = await running;
      assert.equal(run.ok, false);
      assert.match(run.error!, /stopped/);
      assert.deepEqual(backupsIn(folder), [], 'no backup, and no .partial either');
      assert.equal(backups.state().lastRun, null, 'nothing recorded');
      assert.deepEqual(runs, []);
      const after = await backups.runNow();
      assert.equal(after.error, 'The backup was stopped: LocalIQ is closing.');
    } finally {
      await t.close();
    }
  });

  it('a lowered number to keep makes room before the next backup', () =>
    withScheduled(async ({ clock, backups, folderAtBackup }) => {
      const folder = tempDataDir();
      backups.setSchedule({ enabled: true, folder, hour: 3, keep: 3 });
      for (const day of [23, 24, 25]) {
        clock.now = at(day, 3);
        assert.ok((await backups.tick())?.ok);
      }
      const before = backupsIn(folder);
      assert.equal(before.length, 3);
      backups.setSchedule({ enabled: true, folder, hour: 3, keep: 1 });
      assert.deepEqual(backupsIn(folder), before, 'saving removes nothing');
      clock.now = at(26, 3);
      const run = await backups.tick();
      assert.deepEqual(folderAtBackup.at(-1), before.slice(2), 'the oldest two removed before the backup began');
      assert.equal(run?.removed, 3);
      assert.deepEqual(backupsIn(folder), [path.basename(run.file!)]);
    }));
});

describe('automatic backups in the admin API', () => {
  it('the Owner saves a checked schedule and backs up now; Admins and Members may not', async () => {
    const t = await createTestApp();
    try {
      const owner = new AdminClient(t.app);
      assert.equal((await owner.post('/setup', { username: 'owner', password: 'owner password 1' })).statusCode, 201);
      const initial = await owner.get('/backup/schedule');
      assert.equal(initial.statusCode, 200);
      assert.deepEqual(initial.json(), {
        schedule: { enabled: false, folder: null, hour: 3, keep: 7 },
        running: false,
        nextRunAt: null,
        lastRun: null,
        lastSuccess: null,
      });

      const folder = tempDataDir();
      const refused: Array<[unknown, string]> = [
        [{ enabled: true, folder: 'backups', hour: 3, keep: 7 }, 'full path'],
        [{ enabled: true, folder: path.join(folder, 'missing'), hour: 3, keep: 7 }, 'There is no folder'],
        [{ enabled: true, folder: t.dataDir, hour: 3, keep: 7 }, 'outside the data folder'],
        [{ enabled: true, folder: path.join(t.dataDir, 'backup-downloads'), hour: 3, keep: 7 }, 'outside the data folder'],
        [{ enabled: true, folder: null, hour: 3, keep: 7 }, 'Choose the folder'],
        [{ enabled: true, folder, hour: 24, keep: 7 }, 'hour'],
        [{ enabled: true, folder, hour: 3, keep: 0 }, 'keep'],
        [{ enabled: true, folder, hour: 3, keep: 7, time: '03:00' }, 'time'],
        [{ enabled: 'yes', folder, hour: 3, keep: 7 }, 'enabled'],
      ];
      fs.mkdirSync(path.join(t.dataDir, 'backup-downloads'), { recursive: true });
      for (const [body, expected] of refused) {
        const res = await owner.request('PUT', '/backup/schedule', body);
        assert.equal(res.statusCode, 400, JSON.stringify(body));
        assert.equal(res.json().code, 'invalid_body');
        assert.ok(JSON.stringify(res.json()).includes(expected), `${JSON.stringify(body)}: ${res.body}`);
      }
      assert.deepEqual((await owner.get('/backup/schedule')).json().schedule, initial.json().schedule, 'nothing saved');

      const saved = await owner.request('PUT', '/backup/schedule', { enabled: true, folder, hour: 23, keep: 3 });
      assert.equal(saved.statusCode, 200, saved.body);
      assert.deepEqual(saved.json().schedule, { enabled: true, folder, hour: 23, keep: 3 });
      assert.ok(Date.parse(saved.json().nextRunAt) > Date.now());

      await pushItems(t, 4);
      const run = await owner.post('/backup/run', {});
      assert.equal(run.statusCode, 200, run.body);
      const state = run.json();
      assert.equal(state.lastRun.ok, true);
      assert.equal(path.dirname(state.lastSuccess.file), folder);
      assert.deepEqual(backupsIn(folder), [path.basename(state.lastSuccess.file)]);
      assert.equal(jobsIn(state.lastSuccess.file), 4);

      for (const role of ['admin', 'member'] as const) {
        const other = await signedInAs(owner, t.app, role);
        for (const [method, url, body] of [
          ['GET', '/backup/schedule', undefined],
          ['PUT', '/backup/schedule', { enabled: false, folder: null, hour: 3, keep: 7 }],
          ['POST', '/backup/run', {}],
        ] as const) {
          const res = await other.request(method, url, body);
          assert.equal(res.statusCode, 403, `${role} ${method} ${url}`);
        }
      }
      assert.equal(backupsIn(folder).length, 1, 'no backup was run by them');
    } finally {
      await t.close();
    }
  });
});
