import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { openServices, type Services } from '../../server/services.ts';
import { checkErrorShape } from './reliability/helpers/fixture.ts';
import { tempDataDir } from '../helpers/temp-data.ts';

describe('GET /widget.js and the hosted page /w/{widgetId}', () => {
  let app: FastifyInstance;
  let services: Services;
  let scriptFile: string;
  let widgetId: string;
  before(async () => {
    const dataDir = tempDataDir();
    scriptFile = path.join(dataDir, 'widget.js');
    const config = loadConfig({ LOCALIQ_DATA_DIR: dataDir, LOCALIQ_SECRET_STORE: 'file', LOCALIQ_LOG_LEVEL: 'silent' });
    services = await openServices(config);
    app = await buildApp({ config, ...services, widgetScript: scriptFile });
    widgetId = services.widgets.create({ name: 'Shop', knowledgeBaseIds: ['kb'], allowedOrigins: ['https://shop.example', 'https://*.example.com'], strings: { title: '<b>Fragen</b> & "Antworten"' } }).id;
  });
  after(async () => {
    await app.close();
    services.close();
  });

  it('says how to build the script when it has not been built', async () => {
    const res = await app.inject({ method: 'GET', url: '/widget.js' });
    assert.equal(res.statusCode, 404);
    assert.ok(checkErrorShape(res.statusCode, res.headers as Record<string, string>, res.body).ok);
    assert.match(res.json().message, /npm run build/);
  });

  it('serves the script cached an hour with an ETag, immutable under its own version, and 304 on a match', async () => {
    fs.writeFileSync(scriptFile, 'console.log("widget v1");');
    const res = await app.inject({ method: 'GET', url: '/widget.js' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, 'console.log("widget v1");');
    assert.match(String(res.headers['content-type']), /^text\/javascript/);
    assert.equal(res.headers['cache-control'], 'public, max-age=3600');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    const etag = String(res.headers.etag);
    assert.match(etag, /^"[0-9a-f]{16}"$/);
    const version = etag.slice(1, -1);

    const pinned = await app.inject({ method: 'GET', url: `/widget.js?v=${version}` });
    assert.equal(pinned.headers['cache-control'], 'public, max-age=31536000, immutable');
    const stale = await app.inject({ method: 'GET', url: '/widget.js?v=0000000000000000' });
    assert.equal(stale.headers['cache-control'], 'public, max-age=3600', 'an outdated version is never marked immutable');

    const again = await app.inject({ method: 'GET', url: '/widget.js', headers: { 'if-none-match': etag } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');

    fs.writeFileSync(scriptFile, 'console.log("widget v2, rebuilt");');
    const rebuilt = await app.inject({ method: 'GET', url: '/widget.js', headers: { 'if-none-match': etag } });
    assert.equal(rebuilt.statusCode, 200, 'a rebuilt script has a new ETag');
    assert.notEqual(rebuilt.headers.etag, etag);
  });

  it('the hosted page loads the current script in page mode by a relative link, with a strict CSP', async () => {
    fs.writeFileSync(scriptFile, 'console.log("widget");');
    const version = String((await app.inject({ method: 'GET', url: '/widget.js' })).headers.etag).slice(1, -1);
    const res = await app.inject({ method: 'GET', url: `/w/${widgetId}` });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.ok(res.body.includes(`<script src="../widget.js?v=${version}" data-widget="${widgetId}" data-mode="page" async></script>`), res.body);
    assert.ok(res.body.includes('<title>&lt;b&gt;Fragen&lt;/b&gt; &amp; &quot;Antworten&quot;</title>'), 'the title is escaped');
    const csp = String(res.headers['content-security-policy']);
    for (const rule of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'self' https://shop.example https://*.example.com"]) {
      assert.ok(csp.includes(rule), `${rule} in ${csp}`);
    }
    const slash = await app.inject({ method: 'GET', url: `/w/${widgetId}/` });
    assert.ok(slash.body.includes('src="../../widget.js'), 'one folder deeper with a trailing slash');
  });

  it('the hosted page of an unknown, disabled or deleted widget is a 404', async () => {
    const other = services.widgets.create({ name: 'Other', knowledgeBaseIds: ['kb'], allowedOrigins: ['https://shop.example'] });
    services.widgets.disable(other.id);
    const deleted = services.widgets.create({ name: 'Gone', knowledgeBaseIds: ['kb'], allowedOrigins: ['https://shop.example'] });
    services.widgets.delete(deleted.id);
    for (const id of ['wgt_AAAAAAAAAAAAAAAAAAAA', other.id, deleted.id, 'not-a-widget', '<script>']) {
      const res = await app.inject({ method: 'GET', url: `/w/${encodeURIComponent(id)}` });
      assert.equal(res.statusCode, 404, id);
      assert.ok(checkErrorShape(res.statusCode, res.headers as Record<string, string>, res.body).ok, res.body);
    }
  });

  it('the visitor API is in the OpenAPI document, tagged visitor; the script and the page are not', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    for (const path of ['config', 'sessions', 'ask', 'feedback']) {
      const entry = doc.paths[`/v1/widget/{widgetId}/${path}`];
      assert.ok(entry, path);
      assert.deepEqual(Object.values(entry).map((op: any) => op.tags), [['visitor']], path);
    }
    assert.equal(doc.paths['/widget.js'], undefined);
    assert.equal(doc.paths['/w/{widgetId}'], undefined);
  });
});
