import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keychainFailure } from '../../../../server/secrets/server-secret.ts';

describe('why the keychain did not answer', () => {
  const accessDenied = new Error("Couldn't access platform storage: AccessDenied");
  const noResult = new Error("Couldn't access platform storage: Secret Service: no result found");

  it('on Linux without a D-Bus session says so, with the error', () => {
    assert.equal(
      keychainFailure(accessDenied, {}, 'linux'),
      "no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set), so there is no keyring to ask (Couldn't access platform storage: AccessDenied)",
    );
  });

  it('in a D-Bus session without an unlocked keyring says so', () => {
    assert.match(keychainFailure(noResult, { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus' }, 'linux'), /^the D-Bus session has no unlocked keyring: gnome-keyring-daemon is not running there, or its keyring is locked/);
  });

  it('a keychain that does not answer in time, and any other error as it is', () => {
    const timeout = Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
    assert.match(keychainFailure(timeout, {}, 'darwin'), /no answer within 5 s/);
    assert.equal(keychainFailure(new Error('Keychain is broken'), {}, 'win32'), 'Keychain is broken');
  });
});
