import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { readServerAddress, removeServerAddress, serverAddressFile, writeServerAddress, type ServerAddress } from '../../../../server/storage/server-address.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

const address = (pid: number): ServerAddress => ({
  pid,
  url: 'http://127.0.0.1:50123',
  host: '127.0.0.1',
  port: 50123,
  publicUrl: 'http://127.0.0.1:50124',
  startedAt: '2026-11-28T20:00:00.000Z',
});

describe('server address file (server.json)', () => {
  it('is read back as written, and the process it names decides running or stale', () => {
    const dataDir = tempDataDir();
    writeServerAddress(dataDir, address(4242));
    assert.deepEqual(readServerAddress(dataDir, () => true), { state: 'running', file: serverAddressFile(dataDir), address: address(4242) });
    assert.equal(readServerAddress(dataDir, () => false).state, 'stale');
    assert.deepEqual(fs.readdirSync(dataDir), ['server.json'], 'the temporary file was renamed into place');
  });

  it('a live process is found with the real check, an ended one is not', () => {
    const dataDir = tempDataDir();
    writeServerAddress(dataDir, address(process.pid));
    assert.equal(readServerAddress(dataDir).state, 'running');
    // The largest pid Linux hands out is 2^22; one above it never exists.
    writeServerAddress(dataDir, address(2 ** 22 + 1));
    assert.equal(readServerAddress(dataDir).state, 'stale');
  });

  it('absent, damaged or foreign files read as absent', () => {
    const dataDir = tempDataDir();
    assert.equal(readServerAddress(dataDir).state, 'absent');
    for (const text of ['{', 'null', '{"pid":"1","url":"http://x","host":"x","port":1}', '{"pid":1,"url":"file:///etc","host":"x","port":1}']) {
      fs.writeFileSync(serverAddressFile(dataDir), text);
      assert.equal(readServerAddress(dataDir, () => true).state, 'absent', text);
    }
  });

  it('is removed only by the process that wrote it', () => {
    const dataDir = tempDataDir();
    writeServerAddress(dataDir, address(4242));
    removeServerAddress(dataDir, 4343);
    assert.ok(fs.existsSync(serverAddressFile(dataDir)), 'another server\'s file stays');
    removeServerAddress(dataDir, 4242);
    assert.equal(fs.existsSync(serverAddressFile(dataDir)), false);
    removeServerAddress(dataDir, 4242);
  });
});
