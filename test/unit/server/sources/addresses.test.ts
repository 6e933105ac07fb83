import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPrivateAddress } from '../../../../server/sources/addresses.ts';

describe('isPrivateAddress', () => {
  it('refuses loopback, private, link-local, CGNAT, multicast and reserved IPv4', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1']) {
      assert.equal(isPrivateAddress(address), true, address);
    }
  });
  it('lets public IPv4 through', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '172.15.255.255', '100.128.0.1', '1.1.1.1']) {
      assert.equal(isPrivateAddress(address), false, address);
    }
  });
  it('refuses loopback, unique-local, link-local and unspecified IPv6, with or without brackets', () => {
    for (const address of ['::1', '[::1]', '::', 'fd00::1', 'fc12:3456::1', 'fe80::1%eth0', 'ff02::1']) {
      assert.equal(isPrivateAddress(address), true, address);
    }
  });
  it('judges an IPv6 address carrying an IPv4 one by that address', () => {
    assert.equal(isPrivateAddress('::ffff:127.0.0.1'), true);
    assert.equal(isPrivateAddress('::ffff:7f00:1'), true);
    assert.equal(isPrivateAddress('::ffff:10.0.0.1'), true);
    assert.equal(isPrivateAddress('64:ff9b::192.168.0.1'), true);
    assert.equal(isPrivateAddress('2002:c0a8:0101::1'), true);
    assert.equal(isPrivateAddress('::ffff:8.8.8.8'), false);
    assert.equal(isPrivateAddress('2606:4700:4700::1111'), false);
  });
  it('treats anything that is not an IP address as private', () => {
    assert.equal(isPrivateAddress('localhost'), true);
    assert.equal(isPrivateAddress(''), true);
  });
});
