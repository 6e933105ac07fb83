import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { AdminWidget } from '../../common/contract/admin.ts';
import { publicWidgetConfigSchema } from '../../common/contract/widget.ts';
import { WIDGET_MESSAGES, WIDGET_TEXTS } from '../../common/contract/widget-texts.ts';
import { KnowledgeBaseLanguages } from '../../server/storage/knowledge-base-languages.ts';
import { AdminClient } from '../helpers/admin-client.ts';
import { CLI, cliEnv } from '../helpers/server-process.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { tempDataDir } from '../helpers/temp-data.ts';
import { checkErrorShape } from './reliability/helpers/fixture.ts';

/**
 * A widget's language and its own texts through the admin API, the public config, the hosted page
 * and the CLI, on a real SQLite file (the knowledge base's language read where the keyword index keeps it).
 */

const OWNER = { username: 'owner', password: 'owner password 1' };
const ORIGIN = 'https://shop.example';
const INPUT = { name: 'Bäckerei', knowledgeBaseIds: ['kb-main'], allowedOrigins: [ORIGIN] };

describe('widget language and texts', () => {
  let t: TestApp;
  let owner: AdminClient;
  before(async () => {
    t = await createTestApp();
    owner = new AdminClient(t.app);
    assert.equal((await owner.post('/setup', OWNER)).statusCode, 201);
    const languages = new KnowledgeBaseLanguages(t.services.db);
    languages.request('kb-de', 'de');
    languages.request('kb-pt', 'pt');
  });
  after(() => t.close());

  const config = async (widgetId: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/v1/widget/${widgetId}/config`, headers: { origin: ORIGIN } });
    assert.equal(res.statusCode, 200, res.body);
    return publicWidgetConfigSchema.parse(res.json());
  };
  const refusedPaths = async (res: Awaited<ReturnType<AdminClient['post']>>) => {
    assert.equal(res.statusCode, 400, res.body);
    const shape = checkErrorShape(res.statusCode, res.headers as Record<string, string>, res.body);
    assert.ok(shape.ok, shape.ok ? '' : shape.problem);
    assert.equal(res.json().code, 'invalid_body');
    return (res.json().details as Array<{ path: string }>).map((d) => d.path).sort();
  };

  it("a new widget speaks its knowledge base's language when it is one of the six, else English", async () => {
    const german = (await owner.post('/widgets', { ...INPUT, knowledgeBaseIds: ['kb-de'] })).json() as AdminWidget;
    assert.equal(german.language, 'de');
    assert.equal(german.greeting, WIDGET_MESSAGES.de.greeting, 'the built-in greeting in German');
    assert.equal(german.fallbackMessage, WIDGET_MESSAGES.de.fallbackMessage);
    assert.equal(((await owner.post('/widgets', { ...INPUT, knowledgeBaseIds: ['kb-pt'] })).json() as AdminWidget).language, 'en');
    assert.equal(((await owner.post('/widgets', INPUT)).json() as AdminWidget).language, 'en', 'a knowledge base without a language is English');
  });

  it('the config carries the language and every text resolved, the widget\'s own in their place', async () => {
    const created = await owner.post('/widgets', { ...INPUT, language: 'de', strings: { send: 'Ab damit', handoffConsent: 'Ja, ruft mich an.' } });
    assert.equal(created.statusCode, 201, created.body);
    const widget = created.json() as AdminWidget;
    assert.deepEqual(widget.strings, { send: 'Ab damit', handoffConsent: 'Ja, ruft mich an.' }, 'the admin view shows only the own texts');
    const german = await config(widget.id);
    assert.equal(german.language, 'de');
    assert.deepEqual(german.strings, { ...WIDGET_TEXTS.de, send: 'Ab damit', handoffConsent: 'Ja, ruft mich an.' });
    assert.equal(german.fallbackMessage, WIDGET_MESSAGES.de.fallbackMessage);

    const changed = await owner.patch(`/widgets/${widget.id}`, { language: 'nl' });
    assert.equal(changed.statusCode, 200, changed.body);
    const dutch = await config(widget.id);
    assert.equal(dutch.language, 'nl');
    assert.equal(dutch.strings.placeholder, WIDGET_TEXTS.nl.placeholder);
    assert.equal(dutch.strings.send, 'Ab damit', 'the own text stays over the new language');
    assert.equal(dutch.greeting, WIDGET_MESSAGES.nl.greeting, 'a built-in greeting follows the language');
  });

  it('refuses an unknown text key, an over-long or multi-line text and an unknown language, each by its field', async () => {
    const paths = await refusedPaths(
      await owner.post('/widgets', { ...INPUT, language: 'pt', strings: { sendButton: 'Senden', placeholder: 'x'.repeat(81), title: 'Frag\nuns' } }),
    );
    assert.deepEqual(paths, ['language', 'strings.placeholder', 'strings.sendButton', 'strings.title']);
    const widget = (await owner.post('/widgets', INPUT)).json() as AdminWidget;
    assert.deepEqual(await refusedPaths(await owner.patch(`/widgets/${widget.id}`, { strings: { busy: 'Bitte \u202Ewarten' } })), ['strings.busy']);
    assert.deepEqual(await refusedPaths(await owner.patch(`/widgets/${widget.id}`, { language: 'DE' })), ['language']);
  });

  it('a widget stored with the former consent setting keeps its wording, as its own handoffConsent text', async () => {
    const settingsOf = (id: string) =>
      JSON.parse(t.services.db.prepare<[string], { settings: string }>('SELECT settings FROM widgets WHERE id = ?').get(id)!.settings) as Record<string, unknown>;
    // As an earlier version stored it: the consent a setting of its own, which took line breaks.
    const storeEarlier = (id: string, handoffConsent: string, strings: Record<string, string>) =>
      t.services.db.prepare('UPDATE widgets SET settings = ? WHERE id = ?').run(JSON.stringify({ ...settingsOf(id), handoffConsent, strings }), id);
    const earlier = (await owner.post('/widgets', { ...INPUT, language: 'de' })).json() as AdminWidget;
    storeEarlier(earlier.id, 'Der Laden darf mich\nzu meiner Frage anrufen.', { send: 'Ab damit' });

    const read = (await owner.get(`/widgets/${earlier.id}`)).json() as AdminWidget;
    assert.deepEqual(read.strings, { send: 'Ab damit', handoffConsent: 'Der Laden darf mich zu meiner Frage anrufen.' });
    assert.ok(!('handoffConsent' in read), 'no setting of its own any more');
    const visitorConfig = await config(earlier.id);
    assert.equal(visitorConfig.strings.handoffConsent, 'Der Laden darf mich zu meiner Frage anrufen.');
    assert.equal(visitorConfig.strings.handoffSend, WIDGET_TEXTS.de.handoffSend);
    assert.ok(!('handoffConsent' in visitorConfig));

    // Saved again, it is stored as a text; the setting is gone from the row.
    assert.equal((await owner.patch(`/widgets/${earlier.id}`, { name: 'Bäckerei Nord' })).statusCode, 200);
    const stored = settingsOf(earlier.id);
    assert.ok(!('handoffConsent' in stored), JSON.stringify(stored));
    assert.deepEqual(stored.strings, { send: 'Ab damit', handoffConsent: 'Der Laden darf mich zu meiner Frage anrufen.' });

    // A text the owner wrote since wins over the former setting; an empty former setting changes nothing.
    const both = (await owner.post('/widgets', INPUT)).json() as AdminWidget;
    storeEarlier(both.id, 'The old wording.', { handoffConsent: 'The new wording.' });
    assert.equal((await config(both.id)).strings.handoffConsent, 'The new wording.');
    const none = (await owner.post('/widgets', INPUT)).json() as AdminWidget;
    storeEarlier(none.id, '', {});
    assert.deepEqual(((await owner.get(`/widgets/${none.id}`)).json() as AdminWidget).strings, {});
    assert.equal((await config(none.id)).strings.handoffConsent, WIDGET_TEXTS.en.handoffConsent);
  });

  it('takes the consent wording as a text only: the former setting is refused by name', async () => {
    assert.deepEqual(await refusedPaths(await owner.post('/widgets', { ...INPUT, handoffConsent: 'Ja.' })), ['handoffConsent']);
    const widget = (await owner.post('/widgets', INPUT)).json() as AdminWidget;
    assert.deepEqual(await refusedPaths(await owner.patch(`/widgets/${widget.id}`, { handoffConsent: 'Ja.' })), ['handoffConsent']);
    const long = 'I agree that the shop may contact me. '.repeat(13).trim(); // 493 characters: a consent may be long
    assert.equal((await owner.patch(`/widgets/${widget.id}`, { strings: { handoffConsent: long } })).statusCode, 200);
    assert.deepEqual(await refusedPaths(await owner.patch(`/widgets/${widget.id}`, { strings: { handoffConsent: 'x'.repeat(501) } })), ['strings.handoffConsent']);
  });

  it('the hosted page is in the widget\'s language, its texts escaped', async () => {
    const widget = (await owner.post('/widgets', { ...INPUT, language: 'fr', strings: { title: '<b>Questions</b> & "réponses"' } })).json() as AdminWidget;
    const res = await t.app.inject({ method: 'GET', url: `/w/${widget.id}` });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<html lang="fr">/);
    assert.ok(res.body.includes('<title>&lt;b&gt;Questions&lt;/b&gt; &amp; &quot;réponses&quot;</title>'), res.body);
    assert.ok(res.body.includes(`<noscript>${WIDGET_TEXTS.fr.noScript}</noscript>`), res.body);
  });
});

describe('localiq widgets --language and --text', () => {
  const dataDir = tempDataDir();
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const run = (args: string[]) =>
    spawnSync(process.execPath, [CLI, 'widgets', ...args], { env: cliEnv(dataDir, { LOCALIQ_PORT: '7411' }), encoding: 'utf8', timeout: 60_000 });
  const create = ['create', '--name', 'Shop', '--knowledge-base', 'kb-main', '--origin', ORIGIN];

  it('sets the language and the own texts, and refuses an unknown language or key saying which option', () => {
    const res = run([...create, '--language', 'it', '--text', 'send=Vai', '--text', 'title=Domande? Scrivici', '--text', 'handoffConsent=Sì, contattatemi pure.', '--json']);
    assert.equal(res.status, 0, res.stderr);
    const widget = JSON.parse(res.stdout) as AdminWidget;
    assert.equal(widget.language, 'it');
    assert.deepEqual(widget.strings, { send: 'Vai', title: 'Domande? Scrivici', handoffConsent: 'Sì, contattatemi pure.' });
    assert.equal(widget.greeting, WIDGET_MESSAGES.it.greeting);

    const updated = run(['update', widget.id, '--language', 'es', '--json']);
    assert.equal(updated.status, 0, updated.stderr);
    assert.equal((JSON.parse(updated.stdout) as AdminWidget).greeting, WIDGET_MESSAGES.es.greeting);

    const language = run([...create, '--language', 'pt']);
    assert.notEqual(language.status, 0);
    assert.match(language.stderr, /--language takes en, de, fr, es, it, nl/);
    const key = run([...create, '--text', 'sendButton=Vai']);
    assert.notEqual(key.status, 0);
    assert.match(key.stderr, /--text: .*sendButton/);
    const form = run([...create, '--text', 'Vai']);
    assert.notEqual(form.status, 0);
    assert.match(form.stderr, /--text takes KEY=TEXT/);
  });
});
