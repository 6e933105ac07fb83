/**
 * The decision's features on product questions, in the form `bench/answer/fit-decision.ts` fits
 * on (decision-fit.ts `Example`): each calibration question analysed in process, with the support
 * threshold alone, as `POST /ask` reads it. The decision judges the sentence it would quote, so
 * the example's label is that (question, candidate) pair's: answerable when the best quotable
 * sentence is from the question's own product and lies in a candidate labelled answering it
 * (evidence.ts). Questions the support threshold abstains on keep `features: null`, as in the
 * SQuAD and StackFAQ dumps. The product's context is passed when the server's ask takes one.
 * (A knowledge base holding the question's product alone is no stand-in for the context: its
 * term statistics are one item's, and the support threshold then let through 38 of the 401
 * calibration questions, against 258 in the catalogue.)
 */
import { askRequestSchema, type AskRequest } from '../../common/contract/ask.ts';
import { decisionFeatures } from '../../server/retrieval/answer/answer-decision.ts';
import { Assistant, DEFAULT_TUNING } from '../../server/retrieval/answer/assistant.ts';
import type { Services } from '../../server/services.ts';
import { TermStatsRepo } from '../../server/storage/term-stats-repo.ts';
import type { Example } from '../answer/decision-fit.ts';
import { type ProductQuestion, productUrl } from './dataset.ts';
import { matchQuote } from './evidence.ts';

/**
 * The example's set: "product-qa <data set> answering" or "… not answering". fit-decision's
 * threshold rule reads sets by their prefix (squad, stackfaq), so these only join the fit.
 */
export function productQaSet(dataSet: string, answering: boolean): string {
  return `product-qa ${dataSet} ${answering ? 'answering' : 'not answering'}`;
}
/** The calibration fold's examples carry this fold number (any of 1–9 passes fit-decision's fold filter). */
export const PRODUCT_QA_FOLD = 5;

export async function exportDecisionFeatures(
  services: Services,
  dataSet: string,
  kb: string,
  questions: ProductQuestion[],
  withContext: boolean,
  log: (line: string) => void,
): Promise<Example[]> {
  const gateOnly = new Assistant(services.search, services.embedding, new TermStatsRepo(services.db), services.llmSettings, { ...DEFAULT_TUNING, decision: null });
  const noInteraction = { ...DEFAULT_TUNING.decision!, interaction: undefined };
  const signal = new AbortController().signal;
  const out: Example[] = [];
  for (const q of questions) {
    const request = { question: q.question, ...(withContext ? { context: { externalId: q.asin, url: productUrl(q.asin) } } : {}) };
    // Before the field exists the schema rejects it: then the question is read as the server reads it today.
    const asked: AskRequest = askRequestSchema.safeParse(request).success ? (request as AskRequest) : { question: q.question };
    const analysis = await gateOnly.analyze(kb, asked, signal);
    const features = gateOnly.answers(analysis) ? decisionFeatures(analysis, noInteraction) : null;
    const best = analysis.scored.find((s) => s.quotable);
    const sameProduct = best !== undefined && analysis.candidates[best.passage]?.item.externalId === q.asin;
    const answering = sameProduct && matchQuote(best.whole?.text ?? best.text, q.candidates)?.label === 1;
    let product: number[] | null = null;
    if (features && best && analysis.vectors) {
      const own = analysis.vectors.passages[best.passage];
      if (own) product = Array.from(analysis.vectors.query, (v, i) => Math.round(v * own[i]! * 1e6) / 1e6);
    }
    out.push({
      set: productQaSet(dataSet, answering),
      fold: PRODUCT_QA_FOLD,
      answerable: answering,
      features,
      gold: false,
      product,
      question: q.question,
      sentence: best?.text,
    });
    if (out.length % 100 === 0) log(`features: ${out.length} of ${questions.length}`);
  }
  return out;
}
