import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FILE_LIMITS } from '../../../../common/contract/files.ts';
import { LIMITS, limitSize } from '../../../../common/contract/limits.ts';

describe('limits as people read them', () => {
  it('are shown in the binary units they are defined in: the 50 MiB file limit is "50 MB", not 52.4', () => {
    assert.equal(limitSize(FILE_LIMITS.fileBytes), '50 MB');
    assert.equal(limitSize(FILE_LIMITS.requestBytes), '200 MB');
    assert.equal(limitSize(LIMITS.defaultBodyBytes), '10 MB');
    assert.equal(limitSize(LIMITS.sourceDataBytes), '64 KB');
    assert.equal(limitSize(1_500_000), '1.4 MB');
    assert.equal(limitSize(100), '100 bytes');
  });
});
