import type { WidgetLanguage } from '../../common/contract/widget-texts.ts';

/**
 * What a visitor types when asking for a person rather than the assistant ("can I talk to
 * someone?", "mit jemandem sprechen", "parler à quelqu'un"): the widget then offers the handoff
 * form instead of asking the assistant. A widget reads its own language's phrases and English's,
 * which visitors of every shop use. Phrases, not single words: "Für wie viele Personen ist die
 * Torte?" asks the assistant.
 */
const ENGLISH = /\b(talk|speak|chat|write)\s+(to|with)\s+(someone|somebody|a\s+(real\s+)?(person|human|agent)|an\s+agent|(the|your)\s+(team|staff|shop|owner))\b|\b(real|actual)\s+(person|human)\b|\bhuman,?\s+please\b/i;

/**
 * Phrases of a language with accented letters: `\b` knows only ASCII letters, so a phrase starts
 * after a non-letter and ends before one (no lookbehind, which older Safari cannot parse).
 */
const phrases = (alternatives: string): RegExp => new RegExp(`(?:^|[^\\p{L}])(?:${alternatives})(?![\\p{L}])`, 'iu');

export const ASKS_FOR_A_PERSON: Record<WidgetLanguage, RegExp> = {
  en: ENGLISH,
  de: phrases(
    'mit\\s+(jemandem|einer?m?\\s+(echten\\s+)?(person|menschen|mitarbeiter(in)?)|(dem|ihrem|eurem)\\s+team)\\s+(sprechen|reden|chatten)' +
      '|jemanden\\s+(sprechen|erreichen)|(echte[nr]?|richtige[nr]?)\\s+(person|mensch(en)?)|mensch,?\\s+bitte',
  ),
  fr: phrases(
    "(parler|discuter|échanger)\\s+(à|avec)\\s+(quelqu['’]un|une?\\s+(vraie?\\s+)?(personne|humain|conseill(er|ère)|agent)|(l['’]|votre\\s+)équipe)" +
      "|(vraie|réelle)\\s+personne|(un\\s+)?humain,?\\s+(svp|s['’]il\\s+vous\\s+pla[iî]t)",
  ),
  es: phrases(
    '(hablar|chatear|comunicarme)\\s+con\\s+(alguien|una\\s+persona(\\s+real)?|un\\s+(humano|agente|asesor)|(el|su|vuestro)\\s+equipo)' +
      '|persona\\s+real|(un\\s+)?humano,?\\s+por\\s+favor',
  ),
  it: phrases(
    "(parlare|chattare)\\s+con\\s+(qualcuno|una\\s+persona(\\s+(vera|reale))?|un\\s+(operatore|essere\\s+umano|umano|consulente)|un['’]operatrice|(il\\s+)?(vostro\\s+)?team|lo\\s+staff)" +
      '|persona\\s+(vera|reale)|(un\\s+)?operatore,?\\s+per\\s+favore',
  ),
  nl: phrases(
    'met\\s+(iemand|een\\s+(echte?\\s+)?(persoon|mens|medewerker)|(het|jullie)\\s+team)\\s+(praten|spreken|chatten)' +
      '|(praten|spreken|chatten)\\s+met\\s+(iemand|een\\s+(echte?\\s+)?(persoon|mens|medewerker)|(het|jullie)\\s+team)' +
      '|iemand\\s+spreken|echte?\\s+(persoon|mens)|mens,?\\s+alsjeblieft',
  ),
};

/** Whether a visitor of a widget in `language` asks for a person: that language's phrases or English's. */
export function asksForAPerson(language: WidgetLanguage, text: string): boolean {
  return ASKS_FOR_A_PERSON[language].test(text) || ENGLISH.test(text);
}
