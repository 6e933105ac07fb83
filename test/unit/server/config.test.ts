import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultDataDir } from '../../../server/config.ts';

describe('default data folder', () => {
  it('follows each OS convention', () => {
    assert.match(defaultDataDir({ APPDATA: 'C:\\Users\\a\\AppData\\Roaming' }, 'win32'), /LocalIQ$/);
    assert.match(defaultDataDir({}, 'darwin'), /Library\/Application Support\/LocalIQ$/);
    assert.equal(defaultDataDir({ XDG_DATA_HOME: '/x' }, 'linux'), '/x/localiq');
  });
});
