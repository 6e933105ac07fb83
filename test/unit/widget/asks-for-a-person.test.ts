import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WIDGET_LANGUAGES, type WidgetLanguage } from '../../../common/contract/widget-texts.ts';
import { ASKS_FOR_A_PERSON, asksForAPerson } from '../../../widget/src/asks-for-a-person.ts';

/** Per language: visitors asking for a person, and questions about people or talking that ask the assistant. */
const CASES: Record<WidgetLanguage, { asks: string[]; questions: string[] }> = {
  en: {
    asks: ['Can I talk to someone?', 'I want to speak to a person', 'speak with a real human please', 'Can I chat with your team?', 'real person please', 'human, please', 'talk to an agent'],
    questions: ['Who is the person behind the bakery?', 'Do you talk about allergens on the label?', 'Is the cake suitable for someone with diabetes?', 'How many persons does the large cake serve?'],
  },
  de: {
    asks: ['Kann ich mit jemandem sprechen?', 'Ich möchte mit einem Menschen reden', 'Bitte mit einer echten Person sprechen', 'Kann ich mit einem Mitarbeiter sprechen?', 'mit Ihrem Team chatten', 'Kann ich jemanden sprechen?', 'echter Mensch bitte', 'Mensch, bitte!'],
    questions: ['Für wie viele Personen reicht die große Torte?', 'Sprechen Sie auch Englisch?', 'Welche Person steht hinter der Bäckerei?', 'Ist das Brot für jemanden mit Zöliakie geeignet?', 'Kann ich mit Karte zahlen?'],
  },
  fr: {
    asks: ["Puis-je parler à quelqu'un ?", 'Je voudrais parler à une vraie personne', 'parler avec un conseiller', "Je veux échanger avec l’équipe", 'une vraie personne svp', "Un humain, s'il vous plaît"],
    questions: ['Le gâteau est-il pour combien de personnes ?', 'Parlez-vous anglais ?', 'Quelle personne gère la boutique ?', "Qu'en est-il pour quelqu'un d'allergique ?"],
  },
  es: {
    asks: ['¿Puedo hablar con una persona?', 'Quiero hablar con alguien', 'hablar con un agente', '¿Puedo hablar con su equipo?', 'una persona real, por favor', 'Un humano, por favor'],
    questions: ['¿Para cuántas personas es la tarta?', '¿Hablan inglés?', '¿Es apto para alguien con alergias?', '¿Quién es la persona detrás de la panadería?'],
  },
  it: {
    asks: ['Posso parlare con qualcuno?', 'Vorrei parlare con una persona vera', 'parlare con un operatore', 'Posso chattare con il vostro team?', 'operatore, per favore', 'una persona reale'],
    questions: ['Per quante persone è la torta?', 'Parlate inglese?', 'È adatto a qualcuno con allergie?', 'Chi è la persona dietro la panetteria?'],
  },
  nl: {
    asks: ['Kan ik met iemand praten?', 'Ik wil met een echt persoon spreken', 'Kan ik iemand spreken?', 'spreken met een medewerker', 'met het team chatten', 'mens, alsjeblieft'],
    questions: ['Voor hoeveel personen is de taart?', 'Spreken jullie Engels?', 'Is het geschikt voor iemand met een allergie?', 'Wie is de persoon achter de bakkerij?'],
  },
};

describe('the widget: asking for a person, in the widget\'s language', () => {
  it('has phrases for each of the six languages', () => {
    assert.deepEqual(Object.keys(ASKS_FOR_A_PERSON).sort(), [...WIDGET_LANGUAGES].sort());
  });

  for (const language of WIDGET_LANGUAGES) {
    it(`${language}: recognises a visitor asking for a person`, () => {
      for (const text of CASES[language].asks) {
        assert.ok(ASKS_FOR_A_PERSON[language].test(text), text);
        assert.ok(asksForAPerson(language, text), text);
      }
    });

    it(`${language}: leaves questions about people, or about talking, to the assistant`, () => {
      for (const text of CASES[language].questions) assert.ok(!asksForAPerson(language, text), text);
    });
  }

  it("reads English in every widget, and another language's phrases in none but that language's", () => {
    for (const language of WIDGET_LANGUAGES) assert.ok(asksForAPerson(language, 'Can I talk to someone?'), language);
    assert.ok(!asksForAPerson('en', 'Kann ich mit jemandem sprechen?'), "an English widget does not read German");
    assert.ok(!asksForAPerson('fr', 'Kann ich mit jemandem sprechen?'), 'a French widget does not read German');
    assert.ok(asksForAPerson('de', 'Kann ich mit jemandem sprechen?'));
  });
});
