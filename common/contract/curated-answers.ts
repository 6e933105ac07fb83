import { z } from 'zod';
import { safeText } from './text-rules.ts';

/**
 * Curated answers: the owner's own answer to a question, given as written to any visitor question
 * that means the same (the question or one of its `alsoAsked` phrasings), before any retrieval.
 */
const phrasing = safeText(500).trim().min(1);
/** The most `alsoAsked` phrasings one curated answer holds. */
export const ALSO_ASKED_LIMIT = 50;

export const curatedAnswerInputSchema = z
  .strictObject({
    question: phrasing.describe('The question as the owner would ask it.'),
    answer: safeText(8_000).trim().min(1).describe('The answer, given as written.'),
    alsoAsked: z.array(phrasing).max(ALSO_ASKED_LIMIT).default([]).describe('Other ways visitors ask the same question.'),
  })
  .meta({ id: 'CuratedAnswerInput' });
export type CuratedAnswerInput = z.infer<typeof curatedAnswerInputSchema>;

/** PATCH: any of the fields; those left out keep their value. */
export const curatedAnswerPatchSchema = z.strictObject({
  question: phrasing.optional(),
  answer: safeText(8_000).trim().min(1).optional(),
  alsoAsked: z.array(phrasing).max(ALSO_ASKED_LIMIT).optional(),
});
export type CuratedAnswerPatch = z.infer<typeof curatedAnswerPatchSchema>;

/**
 * Learning from use: a visitor's wording the owner confirms for an answer (a question the answer
 * was given to, or a Content-gap question linked to it) joins its `alsoAsked`.
 */
export const curatedAlsoAskedInputSchema = z
  .strictObject({ question: phrasing.describe('A visitor\'s wording of the same question.') })
  .meta({ id: 'CuratedAlsoAskedInput' });
export type CuratedAlsoAskedInput = z.infer<typeof curatedAlsoAskedInputSchema>;

export const curatedAnswerParamsSchema = z.strictObject({
  knowledgeBaseId: z.string().min(1).max(200),
  answerId: z.coerce.number().int().min(1),
});

export type CuratedAnswerView = {
  id: number;
  knowledgeBaseId: string;
  question: string;
  answer: string;
  alsoAsked: string[];
  createdAt: string;
  updatedAt: string;
};
export type CuratedAnswerList = { data: CuratedAnswerView[] };
