import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { widgetInputSchema, widgetStringsSchema, type WidgetStringKey } from '../../../../common/contract/widget.ts';
import {
  ENGLISH_WIDGET_TEXTS,
  messageIn,
  resolveWidgetTexts,
  WIDGET_LANGUAGE_NAMES,
  WIDGET_LANGUAGES,
  WIDGET_MESSAGES,
  WIDGET_TEXTS,
} from '../../../../common/contract/widget-texts.ts';

const KEYS = Object.keys(widgetStringsSchema.shape).sort() as WidgetStringKey[];

/** The handoff form's keys, with the English the form shows (test/e2e/handoffs.test.ts reads them in the form). */
const HANDOFF_ENGLISH: Partial<Record<WidgetStringKey, string>> = {
  handoffOffer: 'Ask the team',
  handoffOfferHint: 'Our team can answer this. Leave your question and how to reach you.',
  handoffQuestion: 'Your question',
  handoffName: 'Name (optional)',
  handoffEmail: 'E-mail',
  handoffPhone: 'Phone',
  handoffContactHint: 'An e-mail address or a phone number, so we can reply.',
  handoffConsent: 'I agree that the shop may contact me about my question.',
  handoffSend: 'Send to the team',
  handoffCancel: 'Cancel',
  handoffSent: 'Thank you. The team will reply here and by the contact you gave.',
  handoffNeedContact: 'Please give an e-mail address or a phone number.',
  handoffNeedConsent: 'Please tick the box so the team may contact you.',
  handoffInvalidEmail: 'Please check the e-mail address.',
  handoffInvalidContact: 'Please check the e-mail address and the phone number.',
  handoffTooMany: 'You have left several questions already; the team will reply to those.',
  handoffFailed: 'Your question could not be sent. Please try again in a moment.',
  handoffReplied: 'The team replied to “{question}”:',
};

// Words that are the same in a language as in English (a loan word, a cognate): not untranslated.
const SAME_AS_ENGLISH: Record<string, WidgetStringKey[]> = {
  fr: ['sources', 'page', 'handoffEmail'],
  it: ['handoffEmail'],
  nl: ['product', 'handoffEmail'],
};

describe('the widget texts catalogue', () => {
  it('has a set for each of the six languages and a name for each', () => {
    assert.deepEqual([...WIDGET_LANGUAGES].sort(), ['de', 'en', 'es', 'fr', 'it', 'nl']);
    assert.deepEqual(Object.keys(WIDGET_TEXTS).sort(), [...WIDGET_LANGUAGES].sort());
    assert.deepEqual(Object.keys(WIDGET_MESSAGES).sort(), [...WIDGET_LANGUAGES].sort());
    for (const language of WIDGET_LANGUAGES) assert.ok(WIDGET_LANGUAGE_NAMES[language], language);
  });

  for (const language of WIDGET_LANGUAGES) {
    it(`${language}: every key, no unknown key, each text within the rules an owner's text must meet`, () => {
      const texts = WIDGET_TEXTS[language];
      assert.deepEqual(Object.keys(texts).sort(), KEYS);
      // The strict schema refuses an unknown key and checks each text's length and plain-text rules.
      const parsed = widgetStringsSchema.safeParse(texts);
      assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues));
      for (const [key, text] of Object.entries(texts)) assert.equal(text.trim(), text, `${language}.${key} has no stray spaces`);
      const messages = widgetInputSchema.pick({ greeting: true, fallbackMessage: true }).safeParse(WIDGET_MESSAGES[language]);
      assert.ok(messages.success, `${language}'s greeting and fallback message`);
    });
  }

  it('the other five are translated: no text left in English but the words the languages share', () => {
    for (const language of WIDGET_LANGUAGES.filter((l) => l !== 'en')) {
      const same = KEYS.filter((key) => WIDGET_TEXTS[language][key] === ENGLISH_WIDGET_TEXTS[key]);
      assert.deepEqual(same, (SAME_AS_ENGLISH[language] ?? []).sort(), language);
      assert.notEqual(WIDGET_MESSAGES[language].greeting, WIDGET_MESSAGES.en.greeting, language);
      assert.notEqual(WIDGET_MESSAGES[language].fallbackMessage, WIDGET_MESSAGES.en.fallbackMessage, language);
    }
  });

  it("holds every text of the handoff form, with the form's English", () => {
    assert.deepEqual(KEYS.filter((key) => key.startsWith('handoff')), Object.keys(HANDOFF_ENGLISH).sort());
    for (const [key, english] of Object.entries(HANDOFF_ENGLISH) as Array<[WidgetStringKey, string]>) {
      assert.equal(ENGLISH_WIDGET_TEXTS[key], english, key);
    }
  });

  it("names the question once in every language's line before the team's reply", () => {
    for (const language of WIDGET_LANGUAGES) assert.equal(WIDGET_TEXTS[language].handoffReplied.split('{question}').length, 2, language);
  });

  it('the schema refuses an unknown key, an over-long text, a line break and a bidirectional control', () => {
    const refused = (value: unknown) => !widgetStringsSchema.partial().safeParse(value).success;
    assert.ok(refused({ sendButton: 'Senden' }), 'unknown key');
    assert.ok(refused({ send: 'x'.repeat(31) }), 'over 30 characters');
    assert.ok(refused({ send: '' }), 'empty');
    assert.ok(refused({ title: 'Ask\nus' }), 'line break');
    assert.ok(refused({ title: 'Ask \u202Esu' }), 'bidirectional override');
    assert.ok(!refused({ title: '<b>Fragen</b> & mehr' }), 'markup is text like any other (shown as written)');
  });

  it("resolves a language's set under the widget's own texts; an empty own text keeps the built-in one", () => {
    const texts = resolveWidgetTexts('de', { send: 'Los', close: '' });
    assert.equal(texts.send, 'Los');
    assert.equal(texts.close, WIDGET_TEXTS.de.close);
    assert.equal(texts.placeholder, WIDGET_TEXTS.de.placeholder);
    assert.notEqual(WIDGET_TEXTS.de.send, 'Los');
    assert.equal(WIDGET_TEXTS.de.send, 'Senden', 'the catalogue itself is left as it was');
  });

  it('a built-in greeting or fallback message (of any language) follows the language; an own one stays', () => {
    assert.equal(messageIn('de', 'greeting', WIDGET_MESSAGES.en.greeting), WIDGET_MESSAGES.de.greeting);
    assert.equal(messageIn('en', 'greeting', WIDGET_MESSAGES.fr.greeting), WIDGET_MESSAGES.en.greeting);
    assert.equal(messageIn('it', 'fallbackMessage', WIDGET_MESSAGES.nl.fallbackMessage), WIDGET_MESSAGES.it.fallbackMessage);
    assert.equal(messageIn('de', 'greeting', 'Moin!'), 'Moin!');
    assert.equal(messageIn('de', 'fallbackMessage', WIDGET_MESSAGES.en.greeting), WIDGET_MESSAGES.en.greeting, 'a greeting is no fallback message');
  });
});
