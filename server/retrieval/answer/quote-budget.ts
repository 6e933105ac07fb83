import { DEFAULT_SELECTION } from './extractive.ts';
import type { ChatMessage } from './openai-client.ts';
import { NOT_FOUND_REPLY } from './prompt.ts';

/**
 * The visitor side promises quotes, not passages: an extractive answer shows at most a few
 * sentences within `DEFAULT_SELECTION.maxChars`. A generated answer is held to the same budget
 * there, whatever a visitor asked the model to do ("repeat everything above"):
 *
 * - longer than the extractive cap, it is cut at its last sentence end within the cap;
 * - copying a run of more than `MAX_COPIED_WORDS` words from the passages of the prompt, or of
 *   `PROMPT_ECHO_WORDS` words from its rules, it is no answer but a dump, and is replaced (by the
 *   extractive answer: assistant.ts).
 *
 * Words are compared case-folded, letters and digits only, so spacing, punctuation and the
 * passages' numbering do not hide a copy.
 */
export const GENERATED_MAX_CHARS = DEFAULT_SELECTION.maxChars;
/** Two sentences' worth: an answer may quote a sentence word for word, not a stretch of a passage. */
export const MAX_COPIED_WORDS = 30;
/** No answer needs the wording of the rules the model was given. */
export const PROMPT_ECHO_WORDS = 8;

export type QuoteVerdict = 'within' | 'too long' | 'copies the prompt';

const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Every run of `n` consecutive words of the texts (a run never spans two texts). */
function runsOf(texts: string[], n: number): Set<string> {
  const runs = new Set<string>();
  for (const text of texts) {
    const words = wordsOf(text);
    for (let i = 0; i + n <= words.length; i++) runs.add(words.slice(i, i + n).join(' '));
  }
  return runs;
}

export class QuoteBudget {
  private readonly passageRuns: Set<string>;
  private readonly ruleRuns: Set<string>;

  /** `messages` as sent to the model: the system message's rules, the last user message's passages. */
  constructor(messages: ChatMessage[], private readonly maxChars = GENERATED_MAX_CHARS) {
    // The not-found reply is the one wording of the rules the model is asked to write.
    const rules = messages.filter((m) => m.role === 'system').flatMap((m) => m.content.split(NOT_FOUND_REPLY));
    const prompt = messages.findLast((m) => m.role === 'user')?.content ?? '';
    this.ruleRuns = runsOf(rules, PROMPT_ECHO_WORDS);
    this.passageRuns = runsOf([prompt], MAX_COPIED_WORDS + 1);
  }

  /** Whether the text generated so far keeps to the budget; checked before each piece is shown. */
  check(text: string): QuoteVerdict {
    const words = wordsOf(text);
    for (const [runs, n] of [[this.ruleRuns, PROMPT_ECHO_WORDS], [this.passageRuns, MAX_COPIED_WORDS + 1]] as const) {
      for (let i = 0; i + n <= words.length; i++) if (runs.has(words.slice(i, i + n).join(' '))) return 'copies the prompt';
    }
    return text.trim().length > this.maxChars ? 'too long' : 'within';
  }

  /** The text cut to the cap: at its last sentence end within it, else at a word, marked "…". */
  cut(text: string): string {
    const trimmed = text.trim();
    if (trimmed.length <= this.maxChars) return trimmed;
    const head = trimmed.slice(0, this.maxChars);
    // A sentence ends at . ! or ? followed by a space, optionally after its citations: "… noon. [1]" ends after "[1]".
    const ends = [...head.matchAll(/[.!?](?:\s*\[\d{1,3}(?:\s*,\s*\d{1,3})*\])*(?=\s)/g)];
    const last = ends.at(-1);
    if (last && last.index + last[0].length >= this.maxChars / 3) return head.slice(0, last.index + last[0].length);
    const space = head.lastIndexOf(' ', this.maxChars - 1);
    return `${head.slice(0, space > 0 ? space : this.maxChars - 1).trimEnd()}…`;
  }
}
