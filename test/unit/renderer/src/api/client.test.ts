import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { queryString } from '../../../../../renderer/src/api/client.ts';

describe('queryString (the API modules\' query strings)', () => {
  it('leaves out what is not set, so an empty filter is no filter', () => {
    assert.equal(queryString({ status: 'open', widgetId: '', knowledgeBaseId: undefined, cursor: null }), '?status=open');
    assert.equal(queryString({ q: '', limit: undefined }), '');
  });

  it('keeps the order given and encodes the values', () => {
    assert.equal(queryString({ from: '2026-01-01T00:00:00.000Z', q: 'rain & wind', limit: 50, unanswered: 'true' }), '?from=2026-01-01T00%3A00%3A00.000Z&q=rain+%26+wind&limit=50&unanswered=true');
  });
});
