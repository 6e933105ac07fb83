import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../server/config.ts';
import { openServices, type Services } from '../../server/services.ts';
import { CLI, cliEnv } from '../helpers/server-process.ts';
import { tempDataDir } from '../helpers/temp-data.ts';

describe('localiq users (dashboard users from the command line)', () => {
  const dataDir = tempDataDir();
  const run = (args: string[], input = '') =>
    spawnSync(process.execPath, [CLI, 'users', ...args], { env: cliEnv(dataDir), input, encoding: 'utf8', timeout: 60_000 });
  let services: Services;
  let ownerSession: string;
  before(async () => {
    services = await openServices(loadConfig({ LOCALIQ_DATA_DIR: dataDir, LOCALIQ_SECRET_STORE: 'file' }));
    const owner = await services.users.createOwner('olivia', 'the old password');
    ownerSession = services.sessions.create(owner.id).token;
  });
  after(() => services.close());

  it('lists users with their roles', () => {
    const res = run(['list']);
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /olivia\s+owner/);
  });

  it('resets a forgotten password from stdin and signs the user out everywhere', async () => {
    const res = run(['reset-password', 'olivia'], 'a brand new password\n');
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /1 session\(s\) signed out/);
    assert.equal(await services.users.verify('olivia', 'the old password'), null);
    assert.equal((await services.users.verify('olivia', 'a brand new password'))?.username, 'olivia');
    assert.equal(services.sessions.authenticate(ownerSession), null);
  });

  it('refuses a short password and an unknown user', () => {
    assert.equal(run(['reset-password', 'olivia'], 'short\n').status, 1);
    assert.equal(run(['reset-password', 'nobody'], 'long enough password\n').status, 1);
  });
});
