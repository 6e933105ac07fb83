import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { describe, it } from 'node:test';
import { checkedLookup, FetchRefused } from '../../../../server/sources/fetch-page.ts';

/** Runs the lookup a request would run, with a fake resolver. */
function lookUp(addresses: LookupAddress[], allowPrivateNetwork: boolean, options: { all?: boolean; family?: number } = {}) {
  const lookup = checkedLookup(async () => addresses, allowPrivateNetwork);
  return new Promise<{ error: Error | null; address: unknown }>((resolve) =>
    lookup('shop.example', options as never, (error, address) => resolve({ error, address })),
  );
}

describe('checkedLookup', () => {
  it('refuses a name that resolves to a private address (the address connected to is the one checked)', async () => {
    const { error } = await lookUp([{ address: '10.0.0.5', family: 4 }], false);
    assert.ok(error instanceof FetchRefused);
    assert.match(error.message, /shop\.example is a private or loopback address \(10\.0\.0\.5\)/);
  });
  it('refuses when any of the addresses is private (a rebinding answer mixing both)', async () => {
    const { error } = await lookUp([{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }], false, { all: true });
    assert.ok(error instanceof FetchRefused);
  });
  it('passes public addresses through, as one or all', async () => {
    assert.deepEqual(await lookUp([{ address: '93.184.216.34', family: 4 }], false), { error: null, address: '93.184.216.34' });
    const all = await lookUp([{ address: '2606:4700::1', family: 6 }, { address: '93.184.216.34', family: 4 }], false, { all: true });
    assert.equal(all.error, null);
    assert.equal((all.address as LookupAddress[]).length, 2);
  });
  it('lets private addresses through when the source allows the private network', async () => {
    assert.deepEqual(await lookUp([{ address: '192.168.1.10', family: 4 }], true), { error: null, address: '192.168.1.10' });
  });
  it('says a name with no address of the family asked for is not found', async () => {
    const { error } = await lookUp([{ address: '93.184.216.34', family: 4 }], false, { family: 6 });
    assert.equal((error as NodeJS.ErrnoException).code, 'ENOTFOUND');
  });
});
