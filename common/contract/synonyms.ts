import { z } from 'zod';

/**
 * A knowledge base's synonyms, as Typesense (and Meilisearch) define them: a multi-way set
 * (`{ synonyms: ["sofa", "couch", "settee"] }`: each term finds the others) or a one-way set
 * (`{ root: "hoodie", synonyms: ["sweatshirt", "jumper"] }`: a query holding the root also finds
 * the synonyms, not the reverse). A term is a word or a short phrase; a phrase matches as a phrase.
 * Applied when a query is searched (docs/retrieval.md, "Synonyms"), so changing them re-indexes nothing.
 */
export const SYNONYM_LIMITS = {
  /** Sets per knowledge base: each query looks every one of its words up, so the set list stays a lookup table. */
  sets: 1_000,
  /** Terms per set (a multi-way set's terms; a one-way set's root and synonyms together). */
  termsPerSet: 20,
  /** Characters of a term. */
  termLength: 60,
  /** Words of a term: a short phrase, not a sentence. */
  wordsPerTerm: 4,
} as const;

/** The words of a term or a query as matching sees them: NFKC, lower case, letters and digits. */
export function synonymWords(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** A term as stored: its words in lower case, one space apart (`T-Shirt ` → `t shirt`). */
export function normalizedTerm(text: string): string {
  return synonymWords(text).join(' ');
}

const term = z
  .string()
  .max(SYNONYM_LIMITS.termLength, `A term has at most ${SYNONYM_LIMITS.termLength} characters.`)
  .refine((text) => synonymWords(text).length > 0, 'A term must hold a letter or a digit (empty terms are refused).')
  .refine(
    (text) => synonymWords(text).length <= SYNONYM_LIMITS.wordsPerTerm,
    `A term is a word or a phrase of at most ${SYNONYM_LIMITS.wordsPerTerm} words.`,
  )
  .transform(normalizedTerm);

/** Refuses a set naming the same term twice (after normalizing: `Sofa` and `sofa ` are one). */
function distinct(terms: string[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  for (const [i, t] of terms.entries()) {
    if (seen.has(t)) ctx.addIssue({ code: 'custom', message: `The term "${t}" appears twice in this set.`, path: [i] });
    seen.add(t);
  }
}

/**
 * One set: with a `root`, one-way (a query holding the root also finds the synonyms, not the
 * reverse); without, multi-way (every term finds the others). One object shape, not a union, so a
 * refusal names the field at fault.
 */
export const synonymSetSchema = z
  .strictObject({
    root: term.optional().describe('One-way sets only: the term whose queries also find the synonyms.'),
    synonyms: z.array(term).max(SYNONYM_LIMITS.termsPerSet, `A set has at most ${SYNONYM_LIMITS.termsPerSet} terms.`).superRefine(distinct),
  })
  .superRefine((set, ctx) => {
    if (set.root === undefined && set.synonyms.length < 2) {
      ctx.addIssue({ code: 'custom', message: 'A multi-way set (no root) needs at least two terms.', path: ['synonyms'] });
    }
    if (set.root !== undefined && set.synonyms.length < 1) {
      ctx.addIssue({ code: 'custom', message: 'A one-way set needs at least one synonym.', path: ['synonyms'] });
    }
    if (set.root !== undefined && set.synonyms.length >= SYNONYM_LIMITS.termsPerSet) {
      ctx.addIssue({ code: 'custom', message: `A set has at most ${SYNONYM_LIMITS.termsPerSet} terms, its root included.`, path: ['synonyms'] });
    }
    if (set.root !== undefined && set.synonyms.includes(set.root)) {
      ctx.addIssue({ code: 'custom', message: 'A one-way set cannot list its root among its synonyms.', path: ['synonyms'] });
    }
  })
  .meta({ id: 'SynonymSet' });
export type SynonymSet = z.output<typeof synonymSetSchema>;

/** `PUT /admin/api/knowledge-bases/{id}/synonyms`: the whole list, replacing the one before. */
export const synonymsUpdateSchema = z
  .strictObject({
    sets: z.array(synonymSetSchema).max(SYNONYM_LIMITS.sets, `A knowledge base has at most ${SYNONYM_LIMITS.sets} synonym sets.`),
  })
  .meta({ id: 'SynonymsUpdate' });
export type SynonymsUpdate = z.input<typeof synonymsUpdateSchema>;

export const synonymsSchema = z
  .strictObject({
    knowledgeBaseId: z.string(),
    sets: z.array(z.strictObject({ root: z.string().optional(), synonyms: z.array(z.string()) })),
  })
  .meta({ id: 'Synonyms' });
export type Synonyms = z.infer<typeof synonymsSchema>;

/**
 * Synonyms as lines of text, for the dashboard's editor and `localiq synonyms set` (Solr's
 * format): `sofa, couch, settee` is a multi-way set, `hoodie => sweatshirt, jumper` a one-way set;
 * blank lines and lines starting with `#` are skipped. Each set is then validated by
 * `synonymSetSchema` (the line number goes with every refusal).
 */
export function parseSynonymLines(text: string): { sets: SynonymSet[]; errors: string[] } {
  const sets: SynonymSet[] = [];
  const errors: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const parts = line.split('=>');
    if (parts.length > 2) return void errors.push(`Line ${i + 1}: one "=>" at most (root => synonyms).`);
    const list = (part: string) => part.split(',').map((t) => t.trim());
    const candidate = parts.length === 2 ? { root: parts[0]!.trim(), synonyms: list(parts[1]!) } : { synonyms: list(parts[0]!) };
    const read = synonymSetSchema.safeParse(candidate);
    if (read.success) sets.push(read.data);
    else errors.push(`Line ${i + 1}: ${[...new Set(read.error.issues.map((issue) => issue.message))].join(' ')}`);
  });
  if (sets.length > SYNONYM_LIMITS.sets) errors.push(`A knowledge base has at most ${SYNONYM_LIMITS.sets} synonym sets; this has ${sets.length}.`);
  return { sets, errors };
}

/** The sets as lines, the form `parseSynonymLines` reads. */
export function formatSynonymLines(sets: ReadonlyArray<{ root?: string; synonyms: string[] }>): string {
  return sets.map((set) => (set.root !== undefined ? `${set.root} => ${set.synonyms.join(', ')}` : set.synonyms.join(', '))).join('\n');
}
