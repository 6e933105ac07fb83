import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultDataDir, loadConfig } from '../../../server/config.ts';

describe('default data folder', () => {
  it('follows each OS convention', () => {
    assert.match(defaultDataDir({ APPDATA: 'C:\\Users\\a\\AppData\\Roaming' }, 'win32'), /LocalIQ$/);
    assert.match(defaultDataDir({}, 'darwin'), /Library\/Application Support\/LocalIQ$/);
    assert.equal(defaultDataDir({ XDG_DATA_HOME: '/x' }, 'linux'), '/x/localiq');
  });
});

describe('OCR setting (LOCALIQ_OCR)', () => {
  it('is on unless set off, and refuses anything but on or off', () => {
    assert.equal(loadConfig({}).extraction.ocr, true);
    assert.equal(loadConfig({ LOCALIQ_OCR: 'off' }).extraction.ocr, false);
    assert.equal(loadConfig({ LOCALIQ_OCR: 'on' }).extraction.ocr, true);
    assert.throws(() => loadConfig({ LOCALIQ_OCR: 'yes' }), /Invalid LocalIQ configuration: LOCALIQ_OCR/);
  });
});
