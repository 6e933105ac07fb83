import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../../../helpers/test-app.ts';

describe('OpenAPI document', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({}, undefined, { jobWriter: 'in-process' });
  });
  after(() => t.close());

  it('is generated from the zod schemas and lists every public route', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.equal(doc.openapi, '3.1.0');
    for (const route of ['/ingest', '/ingest/bulk', '/jobs', '/jobs/{jobId}', '/jobs/{jobId}/retry',
      '/items/{knowledgeBaseId}/{integrationId}/{externalId}']) {
      assert.ok(doc.paths[route], `missing ${route}`);
    }
    assert.deepEqual(doc.components.securitySchemes.apiKey, { type: 'apiKey', in: 'header', name: 'x-api-key' });
    const ingest = doc.paths['/ingest'].post;
    const body = JSON.stringify(ingest.requestBody);
    for (const field of ['integrationId', 'knowledgeBaseId', 'sourceType', 'externalId', 'forceRefresh', 'priority']) {
      assert.ok(body.includes(field) || JSON.stringify(doc.components.schemas).includes(field), field);
    }
    assert.ok(ingest.responses['200'] && ingest.responses['401'] && ingest.responses['413']);
    // A job's note (superseded, deleted, pages read by OCR) is a field of its own beside its last error.
    const job = doc.components.schemas.Job;
    for (const field of ['lastError', 'errors', 'note']) assert.ok(job.required.includes(field), field);
    assert.match(job.properties.note.description, /Not an error/);
  });

  it('serves a browsable page at /docs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs' });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /text\/html/);
    assert.match(res.body, /swagger/i);
  });
});
