import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ZodError } from 'zod';
import { VISITOR_QUESTION_MAX } from '../../../../common/contract/visitor-limits.ts';
import { WIDGET_ID_PATTERN, publicWidgetConfigSchema } from '../../../../common/contract/widget.ts';
import { ENGLISH_WIDGET_TEXTS, WIDGET_MESSAGES, WIDGET_TEXTS } from '../../../../common/contract/widget-texts.ts';
import { WidgetService, publicWidgetConfig } from '../../../../server/domain/widgets.ts';
import { type Db, openDatabase } from '../../../../server/storage/db.ts';
import { WidgetRepo } from '../../../../server/storage/widget-repo.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

describe('WidgetService (real SQLite)', () => {
  let db: Db;
  let now = Date.UTC(2026, 2, 1);
  let widgets: WidgetService;
  before(() => {
    db = openDatabase(tempDataDir());
    widgets = new WidgetService(new WidgetRepo(db), () => now);
  });
  after(() => db.close());

  const input = { name: ' Shop ', knowledgeBaseIds: ['kb-main', 'kb-main'], allowedOrigins: ['https://shop.example'] };

  it('creates a widget with a random public id and the contract defaults filled in', () => {
    const widget = widgets.create(input);
    assert.match(widget.id, WIDGET_ID_PATTERN);
    assert.notEqual(widgets.create(input).id, widget.id);
    assert.equal(widget.name, 'Shop');
    assert.deepEqual(widget.knowledgeBaseIds, ['kb-main'], 'duplicates dropped');
    assert.equal(widget.enabled, true);
    assert.equal(widget.position, 'bottom-right');
    assert.deepEqual(widget.limits, { visitorQuestionsPerMinute: 6, widgetQuestionsPerMinute: 60, dailyQuestions: 2_000 });
    assert.deepEqual(widget.strings, {});
    assert.equal(widget.createdAt, now);
    assert.deepEqual(widgets.get(widget.id), widget, 'read back as written');
  });

  it('refuses invalid input with the contract schema', () => {
    assert.throws(() => widgets.create({ ...input, allowedOrigins: ['https://shop.example/path'] }), ZodError);
    assert.throws(() => widgets.create({ ...input, knowledgeBaseIds: [] }), ZodError);
    assert.throws(() => widgets.create({ ...input, themeColor: 'red' } as never), ZodError);
    assert.throws(() => widgets.create({ ...input, unknown: 1 } as never), ZodError);
  });

  it('updates only the fields an update names, limits one by one', () => {
    const widget = widgets.create({ ...input, greeting: 'Hi', enabled: false, limits: { visitorQuestionsPerMinute: 3, widgetQuestionsPerMinute: 30, dailyQuestions: 100 } });
    now += 1_000;
    const updated = widgets.update(widget.id, { name: 'Renamed', limits: { dailyQuestions: 50 } })!;
    assert.equal(updated.name, 'Renamed');
    assert.equal(updated.greeting, 'Hi', 'kept');
    assert.equal(updated.enabled, false, 'kept (an update does not re-enable)');
    assert.deepEqual(updated.limits, { visitorQuestionsPerMinute: 3, widgetQuestionsPerMinute: 30, dailyQuestions: 50 });
    assert.equal(updated.updatedAt, now);
    assert.equal(updated.createdAt, widget.createdAt);
    assert.deepEqual(widgets.get(widget.id), updated);
    assert.equal(widgets.update('wgt_00000000000000000000', { name: 'x' }), null);
    assert.throws(() => widgets.update(widget.id, { limits: { dailyQuestions: 0 } }), ZodError);
  });

  it('a disabled widget is no widget to visitors; enabling it brings it back', () => {
    const widget = widgets.create(input);
    assert.ok(widgets.forVisitors(widget.id));
    widgets.disable(widget.id);
    assert.equal(widgets.forVisitors(widget.id), null);
    assert.equal(widgets.get(widget.id)?.enabled, false);
    widgets.enable(widget.id);
    assert.ok(widgets.forVisitors(widget.id));
  });

  it('a deleted widget is gone for everyone and cannot be changed', () => {
    const widget = widgets.create(input);
    assert.equal(widgets.delete(widget.id), true);
    assert.equal(widgets.get(widget.id), null);
    assert.equal(widgets.forVisitors(widget.id), null);
    assert.ok(!widgets.list().some((w) => w.id === widget.id));
    assert.equal(widgets.update(widget.id, { enabled: true }), null);
    assert.equal(widgets.delete(widget.id), false);
  });

  it('the public config holds the texts with defaults, and nothing about bases, origins or limits', () => {
    const widget = widgets.create({ ...input, strings: { send: 'Senden' } });
    const config = publicWidgetConfigSchema.parse(publicWidgetConfig(widget));
    assert.equal(config.strings.send, 'Senden');
    assert.equal(config.strings.title, ENGLISH_WIDGET_TEXTS.title);
    assert.equal(config.questionMaxLength, VISITOR_QUESTION_MAX);
    const text = JSON.stringify(config);
    for (const hidden of ['kb-main', 'shop.example', 'dailyQuestions', 'Shop']) assert.ok(!text.includes(hidden), hidden);
  });

  describe('language', () => {
    const kbLanguages: Record<string, string> = { 'kb-de': 'de', 'kb-pt': 'pt' };
    let speaking: WidgetService;
    before(() => {
      speaking = new WidgetService(new WidgetRepo(db), () => now, (kb) => kbLanguages[kb] ?? 'en');
    });

    it("speaks its first knowledge base's language when it is one of the six, else English, unless told", () => {
      assert.equal(speaking.create({ ...input, knowledgeBaseIds: ['kb-de', 'kb-main'] }).language, 'de');
      assert.equal(speaking.create({ ...input, knowledgeBaseIds: ['kb-main', 'kb-de'] }).language, 'en', 'the first one decides');
      assert.equal(speaking.create({ ...input, knowledgeBaseIds: ['kb-pt'] }).language, 'en', 'Portuguese has no built-in set');
      assert.equal(speaking.create({ ...input, knowledgeBaseIds: ['kb-de'], language: 'it' }).language, 'it');
      assert.throws(() => speaking.create({ ...input, language: 'pt' } as never), ZodError);
    });

    it('a greeting and fallback message left as built in follow the language, on create and on update; own ones stay', () => {
      const german = speaking.create({ ...input, knowledgeBaseIds: ['kb-de'] });
      assert.equal(german.greeting, WIDGET_MESSAGES.de.greeting);
      assert.equal(german.fallbackMessage, WIDGET_MESSAGES.de.fallbackMessage);
      const french = speaking.update(german.id, { language: 'fr' })!;
      assert.equal(french.greeting, WIDGET_MESSAGES.fr.greeting);
      assert.equal(french.fallbackMessage, WIDGET_MESSAGES.fr.fallbackMessage);
      const own = speaking.update(german.id, { greeting: 'Bonjour et bienvenue !' })!;
      assert.equal(speaking.update(own.id, { language: 'nl' })!.greeting, 'Bonjour et bienvenue !');
      assert.equal(speaking.get(own.id)!.fallbackMessage, WIDGET_MESSAGES.nl.fallbackMessage);
    });

    it("the public config carries the language and every text of its set, the widget's own in their place", () => {
      const widget = speaking.create({ ...input, language: 'de', strings: { send: 'Los' } });
      const config = publicWidgetConfigSchema.parse(publicWidgetConfig(widget));
      assert.equal(config.language, 'de');
      assert.deepEqual(config.strings, { ...WIDGET_TEXTS.de, send: 'Los' });
    });

    it('a widget stored before the setting existed reads as English, as it spoke', () => {
      const widget = speaking.create(input);
      const settings = JSON.parse((db.prepare('SELECT settings FROM widgets WHERE id = ?').get(widget.id) as { settings: string }).settings);
      delete settings.language;
      db.prepare('UPDATE widgets SET settings = ? WHERE id = ?').run(JSON.stringify(settings), widget.id);
      assert.equal(speaking.get(widget.id)!.language, 'en');
    });
  });
});
