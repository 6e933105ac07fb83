import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AdminClient, signedInAs } from '../helpers/admin-client.ts';
import { docxFile, pdfFile } from '../helpers/document-fixtures.ts';
import { api, startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';

type Server = Awaited<ReturnType<typeof startPipelineServer>>;
type Upload = { name: string; bytes: Buffer | string; externalId?: string };

const PAGES = [
  ['Our catalogue lists every product we sell in the shop.'],
  ['The alpine rain jacket costs 189 euros and has taped seams.'],
  ['Delivery within Germany is free for orders above 50 euros.'],
];

function form(files: Upload[], fields: Record<string, string> = {}): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  for (const file of files) {
    if (file.externalId) body.append('externalId', file.externalId);
    body.append('file', new Blob([typeof file.bytes === 'string' ? file.bytes : new Uint8Array(file.bytes)]), file.name);
  }
  return body;
}

describe('files in the dashboard: upload with a session, the original served (real HTTP, real pipeline)', () => {
  let server: Server;
  let owner: AdminClient;
  let member: AdminClient;
  let pdf: Buffer;

  /** The dashboard's upload route over real HTTP, with a client's session cookie and CSRF token. */
  const adminUpload = async (client: AdminClient, kb: string, files: Upload[], headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}/admin/api/knowledge-bases/${kb}/files`, {
      method: 'POST',
      headers: { ...(client.cookie ? { cookie: client.cookie } : {}), 'x-localiq-csrf': client.csrf ?? '', ...headers },
      body: form(files),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const apiUpload = async (kb: string, files: Upload[]) => {
    const res = await fetch(`${server.url}/knowledge-bases/${kb}/files`, { method: 'POST', headers: { 'x-api-key': server.key }, body: form(files) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const original = (client: AdminClient, kb: string, integrationId: string, externalId: string) =>
    fetch(`${server.url}/admin/api/knowledge-bases/${kb}/items/${integrationId}/${encodeURIComponent(externalId)}/original`, {
      headers: client.cookie ? { cookie: client.cookie } : {},
    });

  before(async () => {
    server = await startPipelineServer({ extraction: { timeoutMs: 8_000, memoryMb: 512, ocr: false } });
    owner = new AdminClient(server.app);
    assert.equal((await owner.post('/setup', { username: 'owner', password: 'owner password 1' })).statusCode, 201);
    member = await signedInAs(owner, server.app, 'member');
    pdf = await pdfFile(PAGES, { title: 'Price list 2026' });
  });
  after(() => server.stop());

  it('a file uploaded from the dashboard is processed as one from the API: same answer, same item, same chunks', async () => {
    const fromDashboard = await adminUpload(owner, 'dash', [{ name: 'price-list.pdf', bytes: pdf, externalId: 'catalogue/price-list.pdf' }]);
    const fromApi = await apiUpload('api', [{ name: 'price-list.pdf', bytes: pdf, externalId: 'catalogue/price-list.pdf' }]);
    assert.equal(fromDashboard.status, 200, JSON.stringify(fromDashboard.body));
    assert.equal(fromApi.status, 200, JSON.stringify(fromApi.body));
    assert.deepEqual({ ...fromDashboard.body, estimatedTime: 'x' }, { ...fromApi.body, estimatedTime: 'x' });
    assert.deepEqual(fromDashboard.body.jobIds, ['files-catalogue/price-list.pdf']);
    await waitForIdle(server);

    // The dashboard follows the upload's job by its id.
    const job = await owner.get(`/jobs/${encodeURIComponent(fromDashboard.body.jobIds[0])}?knowledgeBaseId=dash&integrationId=files`);
    assert.equal(job.statusCode, 200, job.body);
    assert.equal(job.json().status, 'succeeded');
    assert.equal(job.json().externalId, 'catalogue/price-list.pdf');
    assert.equal((await owner.get('/jobs/files-nothing?knowledgeBaseId=dash')).statusCode, 404);

    const chunksOf = async (kb: string) => {
      const detail = (await owner.get(`/knowledge-bases/${kb}/items/files/${encodeURIComponent('catalogue/price-list.pdf')}`)).json();
      assert.equal(detail.indexed, true);
      return { title: detail.title, chunks: detail.chunks.map((c: any) => ({ text: c.text, page: c.page })), original: detail.original };
    };
    const dash = await chunksOf('dash');
    assert.deepEqual(dash, await chunksOf('api'));
    assert.equal(dash.title, 'Price list 2026');
    assert.deepEqual(dash.chunks.map((c: any) => c.page), [1, 2, 3]);
    assert.deepEqual(dash.original, { fileName: 'price-list.pdf', kind: 'pdf', contentType: 'application/pdf', bytes: pdf.length });

    // The same bytes again from the dashboard: skipped by hash, as from the API.
    const again = await adminUpload(owner, 'dash', [{ name: 'price-list.pdf', bytes: pdf, externalId: 'catalogue/price-list.pdf' }]);
    assert.equal(again.status, 200);
    const skipped = await owner.get(`/jobs/${encodeURIComponent(again.body.jobIds[0])}?knowledgeBaseId=dash&integrationId=files`);
    assert.equal(skipped.json().status, 'skipped');
  });

  it('serves the original as uploaded: its bytes, type, an inline safe name, nosniff and a sandbox', async () => {
    const res = await original(member, 'dash', 'files', 'catalogue/price-list.pdf');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.equal(res.headers.get('content-disposition'), `inline; filename="price-list.pdf"; filename*=UTF-8''price-list.pdf`);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.match(res.headers.get('content-security-policy') ?? '', /^sandbox;.*default-src 'none'/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(createHash('sha256').update(bytes).digest('hex'), createHash('sha256').update(pdf).digest('hex'));
  });

  it('serves HTML sandboxed, Markdown and Word by their own types, and a hostile name safely', async () => {
    const docx = await docxFile([{ heading: 1, text: 'Returns' }, { text: 'Return any product within 30 days.' }], 'Policy');
    const page = '<html><head><title>Evil</title><script>parent.alert(1)</script></head><body><h1>Hours</h1><p>Open at nine.</p></body></html>';
    const up = await adminUpload(owner, 'dash', [
      { name: 'policy.docx', bytes: docx },
      { name: 'hours.html', bytes: page },
      { name: 'care.md', bytes: '# Care\n\nWash at 30 degrees.\n' },
      { name: 'x.md', bytes: '# Notes\n\nShop notes.\n', externalId: 'notes "a";\r\b/ü.md' },
    ]);
    // A control character is refused as an externalId by the shared upload rules.
    assert.equal(up.status, 400);
    assert.equal(up.body.code, 'invalid_body');
    assert.ok(up.body.details.some((d: any) => d.path === 'file.3.externalId'), JSON.stringify(up.body));
    const ok = await adminUpload(owner, 'dash', [
      { name: 'policy.docx', bytes: docx },
      { name: 'hours.html', bytes: page },
      { name: 'care.md', bytes: '# Care\n\nWash at 30 degrees.\n' },
      { name: 'x.md', bytes: '# Notes\n\nShop notes.\n', externalId: 'notes "a";ü.md' },
    ]);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    await waitForIdle(server);
    const expect = [
      ['policy.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'inline; filename="policy.docx"'],
      ['hours.html', 'text/html; charset=utf-8', 'inline; filename="hours.html"'],
      ['care.md', 'text/markdown; charset=utf-8', 'inline; filename="care.md"'],
      ['notes "a";ü.md', 'text/markdown; charset=utf-8', `inline; filename="notes _a___.md"; filename*=UTF-8''notes%20%22a%22%3B%C3%BC.md`],
    ];
    for (const [externalId, type, disposition] of expect) {
      const res = await original(owner, 'dash', 'files', externalId!);
      assert.equal(res.status, 200, externalId);
      assert.equal(res.headers.get('content-type'), type, externalId);
      assert.ok(res.headers.get('content-disposition')!.startsWith(disposition!), res.headers.get('content-disposition')!);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      // The page's script never runs as the dashboard: the response is sandboxed (no allow-scripts).
      assert.ok(!/allow-scripts|allow-same-origin/.test(res.headers.get('content-security-policy')!));
    }
  });

  it('answers 404 for an unknown item, an item not made from a file, and a missing original', async () => {
    const unknown = await original(owner, 'dash', 'files', 'nothing.pdf');
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as any).code, 'not_found');
    const pushed = await api(server, 'POST', '/ingest', {
      integrationId: 'cms',
      knowledgeBaseId: 'dash',
      sourceType: 'PAGE',
      externalId: 'about',
      data: { title: 'About us', content: 'A small shop in Utrecht.' },
    });
    assert.equal(pushed.status, 200);
    await waitForIdle(server);
    const notAFile = await original(owner, 'dash', 'cms', 'about');
    assert.equal(notAFile.status, 404);
    assert.match(((await notAFile.json()) as any).message, /not made from an uploaded file/);
    assert.equal((await owner.get('/knowledge-bases/dash/items/cms/about')).json().original, null);
    // Deleting the item removes its original (no other item uses those bytes): 404 from then on.
    assert.equal((await owner.delete(`/knowledge-bases/dash/items/files/care.md`)).statusCode, 200);
    assert.equal((await original(owner, 'dash', 'files', 'care.md')).status, 404);
  });

  it('an upload is for the Owner and Admins with the CSRF header; reading an original is for any signed-in user', async () => {
    const file = [{ name: 'member.md', bytes: '# Member\n\nHello.\n' }];
    const refused = await adminUpload(member, 'dash', file);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'forbidden');
    const admin = await signedInAs(owner, server.app, 'admin');
    assert.equal((await adminUpload(admin, 'dash', [{ name: 'admin.md', bytes: '# Admin\n\nHello.\n' }])).status, 200);
    assert.equal((await adminUpload(owner, 'dash', file, { 'x-localiq-csrf': 'wrong' })).status, 403);
    assert.equal((await adminUpload(owner, 'dash', file, { 'x-api-key': server.key })).status, 403);
    assert.equal((await adminUpload(new AdminClient(server.app), 'dash', file)).status, 401);
    assert.equal((await original(new AdminClient(server.app), 'dash', 'files', 'catalogue/price-list.pdf')).status, 401);
    // An API key opens no original: the admin API never takes keys.
    const withKey = await fetch(`${server.url}/admin/api/knowledge-bases/dash/items/files/${encodeURIComponent('catalogue/price-list.pdf')}/original`, {
      headers: { 'x-api-key': server.key },
    });
    assert.equal(withKey.status, 403);
    assert.equal((await original(member, 'dash', 'files', 'catalogue/price-list.pdf')).status, 200);
    await waitForIdle(server);
  });
});
