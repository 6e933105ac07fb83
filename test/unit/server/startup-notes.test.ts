import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ownerSetupLine, secretStoreNote } from '../../../server/startup-notes.ts';

describe('start-up notes', () => {
  it('names the dashboard address where the Owner account is created', () => {
    assert.equal(
      ownerSetupLine('http://127.0.0.1:7410'),
      'No dashboard account yet: open http://127.0.0.1:7410/ in a browser to create the first one, the Owner.',
    );
  });

  it('says where the secret is and why, for each reason', () => {
    assert.equal(secretStoreNote('/srv/liq', 'keychain', null), 'Server secret: in the OS keychain (service LocalIQ).');
    assert.equal(secretStoreNote('/srv/liq', 'file', { kind: 'requested' }), 'Server secret: in /srv/liq/server-secret (mode 0600), as LOCALIQ_SECRET_STORE=file asks.');
    assert.match(secretStoreNote('/srv/liq', 'file', { kind: 'recorded' }), /^Server secret: in \/srv\/liq\/server-secret .*since its first start, when no OS keychain answered/);
    const unreachable = secretStoreNote('/srv/liq', 'file', { kind: 'keychain-unreachable', detail: 'no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set)' });
    assert.match(unreachable, /because the OS keychain did not answer: no D-Bus session \(DBUS_SESSION_BUS_ADDRESS is not set\)\. /);
    assert.match(unreachable, /inside a D-Bus session with an unlocked gnome-keyring/);
  });
});
