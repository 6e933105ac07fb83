import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AdminWidget, AdminWidgetList } from '../../../../../common/contract/admin.ts';
import { WIDGET_ID_PATTERN } from '../../../../../common/contract/widget.ts';
import { buildApp } from '../../../../../server/app.ts';
import { loadConfig } from '../../../../../server/config.ts';
import { openServices } from '../../../../../server/services.ts';
import { AdminClient, signedInAs } from '../../../../helpers/admin-client.ts';
import { createTestApp, type TestApp } from '../../../../helpers/test-app.ts';
import { tempDataDir } from '../../../../helpers/temp-data.ts';

const OWNER = { username: 'owner', password: 'owner password 1' };
const INPUT = { name: 'Bakery shop', knowledgeBaseIds: ['kb-main'], allowedOrigins: ['https://shop.example'] };

describe('admin API: widgets', () => {
  let t: TestApp;
  let owner: AdminClient;
  let admin: AdminClient;
  let member: AdminClient;
  before(async () => {
    t = await createTestApp({}, undefined, { jobWriter: 'in-process' });
    owner = new AdminClient(t.app);
    assert.equal((await owner.post('/setup', OWNER)).statusCode, 201);
    admin = await signedInAs(owner, t.app, 'admin');
    member = await signedInAs(owner, t.app, 'member');
  });
  after(() => t.close());

  it('creates a widget with the contract defaults and answers 201 with its snippet and hosted page', async () => {
    const res = await owner.post('/widgets', INPUT);
    assert.equal(res.statusCode, 201, res.body);
    const widget = res.json() as AdminWidget;
    assert.match(widget.id, WIDGET_ID_PATTERN);
    assert.equal(widget.name, 'Bakery shop');
    assert.equal(widget.enabled, true);
    assert.equal(widget.themeColor, '#1f5fbf');
    assert.equal(widget.position, 'bottom-right');
    assert.deepEqual(widget.strings, {});
    assert.deepEqual(widget.limits, { visitorQuestionsPerMinute: 6, widgetQuestionsPerMinute: 60, dailyQuestions: 2_000 });
    assert.equal(widget.questionsToday, 0);
    assert.match(widget.createdAt, /^\d{4}-\d\d-\d\dT/);
    // Without a public listener the snippet points where the dashboard was reached (inject's host).
    assert.equal(widget.snippet, `<script src="http://localhost/widget.js" data-widget="${widget.id}" async></script>`);
    assert.equal(widget.pageUrl, `http://localhost/w/${widget.id}`);
  });

  it('takes every field of the contract and lists widgets with where their snippets point', async () => {
    const full = {
      ...INPUT,
      name: 'Full',
      knowledgeBaseIds: ['kb-main', 'kb-faq'],
      allowedOrigins: ['https://shop.example', 'https://*.example.com', 'http://localhost:8080'],
      language: 'de',
      greeting: 'Moin!',
      starterQuestions: ['When are you open?', 'Do you deliver?'],
      fallbackMessage: 'Call us.',
      themeColor: '#aa3300',
      position: 'bottom-left',
      strings: { send: 'Senden', title: 'Frag uns', handoffConsent: 'Der Laden darf mich zu meiner Frage kontaktieren.' },
      limits: { visitorQuestionsPerMinute: 3, widgetQuestionsPerMinute: 30, dailyQuestions: 500 },
      sendPageUrl: false,
      enabled: false,
    };
    const created = (await admin.post('/widgets', full)).json() as AdminWidget;
    const { id, createdAt, updatedAt, snippet, pageUrl, questionsToday, ...settings } = created;
    assert.deepEqual(settings, full);
    const list = (await member.get('/widgets')).json() as AdminWidgetList;
    assert.deepEqual(list.address, { baseUrl: 'http://localhost', publicListener: false });
    assert.ok(list.data.some((w) => w.id === id && w.enabled === false));
    const one = await member.get(`/widgets/${id}`);
    assert.equal(one.statusCode, 200);
    assert.deepEqual(one.json(), created);
    const pageUrlOn = await admin.patch(`/widgets/${id}`, { sendPageUrl: true });
    assert.equal(pageUrlOn.statusCode, 200, pageUrlOn.body);
    assert.equal((pageUrlOn.json() as AdminWidget).sendPageUrl, true);
    assert.equal((pageUrlOn.json() as AdminWidget).name, 'Full', 'an update changes only what it names');
  });

  it('puts each validation error beside its field', async () => {
    const res = await owner.post('/widgets', {
      name: ' ',
      knowledgeBaseIds: [],
      allowedOrigins: ['https://shop.example/path', 'https://ok.example'],
      themeColor: 'red',
      position: 'top',
      strings: { send: '' },
      limits: { dailyQuestions: 0 },
      colour: '#fff',
    });
    assert.equal(res.statusCode, 400);
    const body = res.json() as { code: string; details: Array<{ path: string; message: string }> };
    assert.equal(body.code, 'invalid_body');
    const paths = body.details.map((d) => d.path).sort();
    assert.deepEqual(paths, ['allowedOrigins.0', 'colour', 'knowledgeBaseIds', 'limits.dailyQuestions', 'name', 'position', 'strings.send', 'themeColor']);
    const origin = body.details.find((d) => d.path === 'allowedOrigins.0')!;
    assert.match(origin.message, /without a path/);
    const missing = await owner.post('/widgets', { name: 'x' });
    assert.deepEqual(missing.json().details.map((d: { path: string }) => d.path).sort(), ['allowedOrigins', 'knowledgeBaseIds']);
  });

  it('changes only the fields an update names, enables and disables, and refuses a bad update by field', async () => {
    const widget = (await owner.post('/widgets', { ...INPUT, limits: { dailyQuestions: 100 } })).json() as AdminWidget;
    const changed = await admin.patch(`/widgets/${widget.id}`, { name: 'Renamed', limits: { visitorQuestionsPerMinute: 2 }, strings: { title: 'Hi' } });
    assert.equal(changed.statusCode, 200, changed.body);
    const after = changed.json() as AdminWidget;
    assert.equal(after.name, 'Renamed');
    assert.deepEqual(after.limits, { visitorQuestionsPerMinute: 2, widgetQuestionsPerMinute: 60, dailyQuestions: 100 });
    assert.deepEqual(after.allowedOrigins, INPUT.allowedOrigins);
    assert.deepEqual(after.strings, { title: 'Hi' });
    assert.equal(after.snippet, widget.snippet);
    assert.equal((await owner.patch(`/widgets/${widget.id}`, { enabled: false })).json().enabled, false);
    assert.equal((await owner.patch(`/widgets/${widget.id}`, { enabled: true })).json().enabled, true);
    const bad = await owner.patch(`/widgets/${widget.id}`, { allowedOrigins: ['shop.example'], strings: { send: 'x'.repeat(31) } });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(bad.json().details.map((d: { path: string }) => d.path).sort(), ['allowedOrigins.0', 'strings.send']);
    assert.equal((await owner.patch('/widgets/wgt_00000000000000000000', { name: 'x' })).statusCode, 404);
  });

  it('deletes a widget: 204, then it is gone from the list and answers 404', async () => {
    const widget = (await owner.post('/widgets', INPUT)).json() as AdminWidget;
    const res = await admin.delete(`/widgets/${widget.id}`);
    assert.equal(res.statusCode, 204);
    assert.equal((await owner.get(`/widgets/${widget.id}`)).statusCode, 404);
    assert.equal((await owner.get(`/widgets/${widget.id}`)).json().code, 'not_found');
    assert.equal((await owner.delete(`/widgets/${widget.id}`)).statusCode, 404);
    assert.ok(!((await owner.get('/widgets')).json() as AdminWidgetList).data.some((w) => w.id === widget.id));
  });

  it('lets a Member read widgets but not create, change or delete them', async () => {
    const widget = (await owner.post('/widgets', INPUT)).json() as AdminWidget;
    assert.equal((await member.get('/widgets')).statusCode, 200);
    assert.equal((await member.get(`/widgets/${widget.id}`)).statusCode, 200);
    for (const res of [
      await member.post('/widgets', INPUT),
      await member.patch(`/widgets/${widget.id}`, { enabled: false }),
      await member.delete(`/widgets/${widget.id}`),
    ]) {
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().code, 'forbidden');
    }
    assert.equal(((await owner.get(`/widgets/${widget.id}`)).json() as AdminWidget).enabled, true);
    const signedOut = new AdminClient(t.app);
    assert.equal((await signedOut.get('/widgets')).statusCode, 401);
  });

  it("counts a widget's questions today from the visitor side's usage", async () => {
    const widget = (await owner.post('/widgets', INPUT)).json() as AdminWidget;
    const conversations = t.services.visitorConversations;
    const session = conversations.startSession({ id: 'vs_00000000000000000001', widgetId: widget.id, origin: 'https://shop.example', ipHash: 'h'.repeat(64) });
    for (const question of ['When are you open?', 'Do you deliver?']) {
      conversations.recordTurn({
        sessionId: session.id,
        widgetId: widget.id,
        knowledgeBaseId: 'kb-main',
        question,
        answer: 'From 9 to 5.',
        answered: true,
        citations: [],
        latencyMs: 5,
      });
    }
    assert.equal(((await member.get(`/widgets/${widget.id}`)).json() as AdminWidget).questionsToday, 2);
  });
});

describe('admin API: widget snippets with a public listener', () => {
  it('point at the public listener, named as the dashboard was reached when it listens on every interface', async () => {
    const dataDir = tempDataDir();
    const config = loadConfig({ LOCALIQ_DATA_DIR: dataDir, LOCALIQ_SECRET_STORE: 'file', LOCALIQ_LOG_LEVEL: 'silent' });
    const services = await openServices(config);
    const snippets: string[] = [];
    try {
      for (const publicListener of [{ host: '0.0.0.0', port: 7411 }, { host: '127.0.0.1', port: 8088 }]) {
        const app = await buildApp({ config: { ...config, publicListener }, ...services });
        const owner = new AdminClient(app);
        if ((await owner.post('/setup', OWNER)).statusCode !== 201) await owner.post('/session', OWNER);
        const headers = { host: '192.168.1.20:7410' };
        const widget = (await owner.post('/widgets', INPUT, headers)).json() as AdminWidget;
        snippets.push(widget.snippet.replace(widget.id, 'ID'));
        const list = (await owner.get('/widgets', headers)).json() as AdminWidgetList;
        assert.equal(list.address.publicListener, true);
        assert.equal(list.data.find((w) => w.id === widget.id)!.pageUrl, `${list.address.baseUrl}/w/${widget.id}`);
        await app.close();
      }
    } finally {
      services.close();
    }
    assert.deepEqual(snippets, [
      '<script src="http://192.168.1.20:7411/widget.js" data-widget="ID" async></script>',
      '<script src="http://127.0.0.1:8088/widget.js" data-widget="ID" async></script>',
    ]);
  });
});
