import { labelOf } from './attribute-text.ts';

/**
 * "How tall is it?" asks for the item's height, though the attribute it is answered by ("Height:
 * 80 cm") shares no word with the question. The general English table of how-adjectives and the
 * attribute labels that measure them; a label naming one of them (as a word of the label: "Max
 * working height", "Vase life") answers the question's dimension.
 */
const DIMENSION_LABELS: Record<string, string[]> = {
  tall: ['height'],
  high: ['height'],
  heavy: ['weight'],
  big: ['size', 'dimensions'],
  large: ['size', 'dimensions'],
  small: ['size', 'dimensions'],
  long: ['length', 'duration', 'life', 'time'],
  wide: ['width'],
  old: ['age'],
  deep: ['depth'],
};

const HOW_ADJECTIVE = new RegExp(`\\bhow\\s+(${Object.keys(DIMENSION_LABELS).join('|')})\\b`, 'i');

/** The attribute labels the question's "how tall/heavy/long…" asks for, or none. */
export function askedDimension(question: string): string[] {
  const adjective = HOW_ADJECTIVE.exec(question)?.[1]?.toLowerCase();
  return adjective ? DIMENSION_LABELS[adjective]! : [];
}

/** Whether a "Label: value" sentence gives the dimension the question asks for ("Height: 80 cm" for "how tall"). */
export function answersDimension(question: string, sentence: string): boolean {
  const labels = askedDimension(question);
  const label = labels.length > 0 ? labelOf(sentence) : null;
  if (!label) return false;
  const words = label.toLowerCase().split(/[\s'’-]+/);
  return words.some((word) => labels.includes(word));
}
