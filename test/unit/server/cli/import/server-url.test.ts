import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { localServerUrl, resolveServerUrl } from '../../../../../server/cli/import/server-url.ts';
import type { ServerAddressLookup } from '../../../../../server/storage/server-address.ts';

const settings = { dataDir: '/srv/localiq', host: '127.0.0.1', port: 7410 };
const file = '/srv/localiq/server.json';
const recorded = { pid: 77, url: 'http://0.0.0.0:50123', host: '0.0.0.0', port: 50123, publicUrl: null, startedAt: '' };
const running: ServerAddressLookup = { state: 'running', file, address: recorded };
const stale: ServerAddressLookup = { state: 'stale', file, address: recorded };
const absent: ServerAddressLookup = { state: 'absent', file };

describe('which server the CLI sends to', () => {
  it('finds the server of the data folder through its server.json, on loopback for a wildcard address', () => {
    const target = resolveServerUrl(undefined, { LOCALIQ_DATA_DIR: '/srv/localiq' }, settings, () => running);
    assert.equal(target.url, 'http://127.0.0.1:50123');
    assert.match(target.unreachableHint, /server\.json.*process 77/);
  });

  it('--url, then LOCALIQ_URL, then LOCALIQ_PORT win over the data folder', () => {
    const lookup = () => running;
    assert.equal(resolveServerUrl('http://flag:1', { LOCALIQ_URL: 'http://env:2', LOCALIQ_PORT: '3' }, settings, lookup).url, 'http://flag:1');
    assert.equal(resolveServerUrl(undefined, { LOCALIQ_URL: 'http://env:2', LOCALIQ_PORT: '3' }, settings, lookup).url, 'http://env:2');
    const byPort = resolveServerUrl(undefined, { LOCALIQ_PORT: '7999' }, { ...settings, port: 7999 }, lookup);
    assert.equal(byPort.url, 'http://127.0.0.1:7999');
    assert.match(byPort.unreachableHint, /LOCALIQ_PORT/);
  });

  it('LOCALIQ_PORT=0 names no address a client can reach: the data folder decides', () => {
    assert.equal(resolveServerUrl(undefined, { LOCALIQ_PORT: '0' }, { ...settings, port: 0 }, () => running).url, 'http://127.0.0.1:50123');
  });

  it('with no running server, the default address, and a hint that says where it looked and how to start one', () => {
    for (const lookup of [absent, stale]) {
      const target = resolveServerUrl(undefined, {}, settings, () => lookup);
      assert.equal(target.url, 'http://127.0.0.1:7410');
      assert.match(target.unreachableHint, /\/srv\/localiq\/server\.json/);
      assert.match(target.unreachableHint, /LOCALIQ_DATA_DIR=\/srv\/localiq npm start/);
    }
    assert.match(resolveServerUrl(undefined, {}, settings, () => stale).unreachableHint, /process 77.*no longer running/);
  });

  it('a wildcard or IPv6 host is written as a reachable URL', () => {
    assert.equal(localServerUrl('::', 1), 'http://[::1]:1');
    assert.equal(localServerUrl('192.168.1.5', 2), 'http://192.168.1.5:2');
  });
});
