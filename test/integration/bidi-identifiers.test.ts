/**
 * Bidirectional controls (U+202A–U+202E, U+2066–U+2069) in identifiers and uploaded file names
 * make them display as something else (`rtl\u202Egpj.md` shows as `rtldm.jpg`): refused with a 400
 * in the contract's error shape that names the field, and nothing is stored.
 */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse as InjectResponse } from 'fastify';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { FIXTURE, checkErrorShape, storedDigest } from './reliability/helpers/fixture.ts';

const BIDI_CONTROLS = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069'];
const hex = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase()}`;


/** A 400 in the contract's shape whose details name exactly `paths`, with no raw control in the message. */
function assertRefused(res: InjectResponse, paths: string[]): void {
  assert.equal(res.statusCode, 400, res.body);
  const shape = checkErrorShape(400, res.headers as Record<string, string>, res.body);
  assert.ok(shape.ok, shape.ok ? '' : shape.problem);
  const details = res.json().details as Array<{ path: string; message: string }>;
  assert.deepEqual(details.map((d) => d.path), paths, res.body);
  for (const detail of details) assert.match(detail.message, /bidirectional/, detail.message);
  assert.ok(!BIDI_CONTROLS.some((c) => res.body.includes(c)), `the refusal shows no raw control: ${res.body}`);
}

/** multipart/form-data as a browser or curl sends it (fetch's FormData, serialised). */
async function multipart(files: Array<{ name: string; externalId?: string }>) {
  const form = new FormData();
  for (const file of files) {
    if (file.externalId !== undefined) form.append('externalId', file.externalId);
    form.append('file', new Blob(['# Opening hours\n\nWe open at 9.\n']), file.name);
  }
  const body = new Response(form);
  return { payload: Buffer.from(await body.arrayBuffer()), contentType: body.headers.get('content-type')! };
}

describe('bidirectional controls are refused in identifiers and file names', () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await createTestApp();
    key = t.key({ scopes: ['iq:import', 'iq:read'] });
  });
  after(() => t.close());

  const inject = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { 'x-api-key': key }, ...(payload ? { payload } : {}) });

  for (const control of BIDI_CONTROLS) {
    it(`${hex(control)} in externalId, integrationId or knowledgeBaseId of a push → 400 naming the field, nothing stored`, async () => {
      const before = storedDigest(t.services.db);
      const id = `rtl${control}gpj.md`;
      assertRefused(await inject('POST', '/ingest', FIXTURE.item({ externalId: id })), ['externalId']);
      assertRefused(await inject('POST', '/ingest', FIXTURE.item({ integrationId: id })), ['integrationId']);
      assertRefused(await inject('POST', '/ingest', FIXTURE.item({ knowledgeBaseId: id })), ['knowledgeBaseId']);
      assertRefused(await inject('POST', '/ingest/bulk', { items: [FIXTURE.item({ externalId: 'fine' }), FIXTURE.item({ externalId: id })] }), ['items.1.externalId']);
      assert.equal(storedDigest(t.services.db), before);
    });
  }

  it('in the externalId of a delete or of a read of one item → 400 naming the field', async () => {
    const id = encodeURIComponent('rtl\u202Egpj.md');
    assertRefused(await inject('DELETE', `/items/kb-main/cms/${id}`), ['externalId']);
    assertRefused(await inject('GET', `/knowledge-bases/kb-main/items/cms/${id}`), ['externalId']);
  });

  it('in an uploaded file name → 400 naming the file part, nothing stored', async () => {
    const before = storedDigest(t.services.db);
    for (const control of BIDI_CONTROLS) {
      const { payload, contentType } = await multipart([{ name: 'hours.md' }, { name: `rtl${control}gpj.md` }]);
      const res = await t.app.inject({ method: 'POST', url: '/knowledge-bases/docs/files', headers: { 'x-api-key': key, 'content-type': contentType }, payload });
      assertRefused(res, ['file.1']);
      assert.match(res.json().details[0].message, new RegExp(`rtl\\\\u${control.codePointAt(0)!.toString(16)}gpj\\.md`, 'i'), 'the name is shown escaped');
    }
    assert.equal(storedDigest(t.services.db), before);
  });

  it("in an upload's externalId field → 400 naming it, nothing stored", async () => {
    const before = storedDigest(t.services.db);
    const { payload, contentType } = await multipart([{ name: 'hours.md', externalId: 'hours\u2067.md' }]);
    const res = await t.app.inject({ method: 'POST', url: '/knowledge-bases/docs/files', headers: { 'x-api-key': key, 'content-type': contentType }, payload });
    assertRefused(res, ['file.0.externalId']);
    assert.equal(storedDigest(t.services.db), before);
  });

  it('other right-to-left text is taken: Hebrew and Arabic names are identifiers like any other', async () => {
    const pushed = await inject('POST', '/ingest', FIXTURE.item({ externalId: 'שעות-פתיחה' }));
    assert.equal(pushed.statusCode, 200, pushed.body);
    const { payload, contentType } = await multipart([{ name: 'ساعات العمل.md' }]);
    const uploaded = await t.app.inject({ method: 'POST', url: '/knowledge-bases/docs/files', headers: { 'x-api-key': key, 'content-type': contentType }, payload });
    assert.equal(uploaded.statusCode, 200, uploaded.body);
  });
});
