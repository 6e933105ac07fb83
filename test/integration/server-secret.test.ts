import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AsyncEntry } from '@napi-rs/keyring';
import { keychainAccount, loadServerSecret } from '../../server/secrets/server-secret.ts';
import { openDatabase } from '../../server/storage/db.ts';
import { SettingsRepo } from '../../server/storage/settings-repo.ts';
import { REPO_ROOT } from '../helpers/server-process.ts';
import { tempDataDir } from '../helpers/temp-data.ts';

async function load(dataDir: string, choice: 'auto' | 'keychain' | 'file') {
  const db = openDatabase(dataDir);
  try {
    return await loadServerSecret(dataDir, choice, new SettingsRepo(db));
  } finally {
    db.close();
  }
}

async function keychainAnswers(): Promise<boolean> {
  const probe = new AsyncEntry('LocalIQ', `probe-${process.pid}`);
  try {
    await probe.setPassword('probe', AbortSignal.timeout(5_000));
    await probe.deletePassword();
    return true;
  } catch {
    return false;
  }
}

describe('server secret', () => {
  it('file store: 32 random bytes in a 0600 file, the same on every start', async () => {
    const dataDir = tempDataDir();
    const first = await load(dataDir, 'file');
    const second = await load(dataDir, 'file');
    assert.equal(first.store, 'file');
    assert.equal(first.secret.length, 32);
    assert.deepEqual(first.secret, second.secret);
    assert.equal(fs.statSync(path.join(dataDir, 'server-secret')).mode & 0o777, 0o600);
    assert.notDeepEqual(first.secret, (await load(tempDataDir(), 'file')).secret);
    assert.deepEqual(first.fileStoreReason, { kind: 'requested' }, 'start-up says LOCALIQ_SECRET_STORE=file asked for it');
    const later = await load(dataDir, 'auto');
    assert.deepEqual([later.store, later.fileStoreReason], ['file', { kind: 'recorded' }], 'the folder keeps its store, and says so');
  });

  it('auto falls back to the file store when no keychain answers', () => {
    const dataDir = tempDataDir();
    const script = `
      import { openDatabase } from './server/storage/db.ts';
      import { SettingsRepo } from './server/storage/settings-repo.ts';
      import { loadServerSecret } from './server/secrets/server-secret.ts';
      const db = openDatabase(${JSON.stringify(dataDir)});
      const s = await loadServerSecret(${JSON.stringify(dataDir)}, 'auto', new SettingsRepo(db));
      console.log(JSON.stringify({ store: s.store, reason: s.fileStoreReason }));`;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' },
    });
    const loaded = JSON.parse(result.stdout.trim() || 'null') as { store: string; reason: { kind: string; detail: string } } | null;
    assert.equal(loaded?.store, 'file', result.stderr);
    assert.equal(loaded!.reason.kind, 'keychain-unreachable');
    assert.match(loaded!.reason.detail, /platform storage/, 'the reason carries what the keychain answered');
    assert.ok(fs.existsSync(path.join(dataDir, 'server-secret')));
  });

  it('keychain store: the secret lives in the OS keychain, never on disk, and is not silently replaced', async (t) => {
    if (!(await keychainAnswers())) {
      assert.notEqual(process.env.LOCALIQ_TEST_KEYCHAIN, 'required', 'the OS keychain must answer in this run');
      t.skip('no OS keychain answers on this machine (npm test starts one where gnome-keyring is installed)');
      return;
    }
    const dataDir = tempDataDir();
    const entry = new AsyncEntry('LocalIQ', keychainAccount(dataDir));
    try {
      const first = await load(dataDir, 'auto');
      assert.equal(first.store, 'keychain');
      assert.equal(fs.existsSync(path.join(dataDir, 'server-secret')), false);
      assert.deepEqual((await load(dataDir, 'auto')).secret, first.secret);
      assert.equal(await entry.getPassword(), first.secret.toString('hex'));
      await assert.rejects(load(dataDir, 'file'), /keychain/);
      await entry.deletePassword();
      await assert.rejects(load(dataDir, 'auto'), /missing from the OS keychain/);
    } finally {
      await entry.deletePassword().catch(() => undefined);
    }
  });
});
