/**
 * Answers about products: one product's facts must not be mixed with another's. When the question
 * names one product, or one product clearly leads the retrieved ones, the answer comes from it
 * alone; when several products answer, each is named before its sentences.
 */
import type { KeywordLanguage } from '../../../common/contract/knowledge.ts';
import type { CandidatePassage, ScoredSentence } from './extractive.ts';
import { contentTerms, termsMatch } from '../../language/content-terms.ts';

/** A product leads when the next product retrieved scores at most this share of it. */
const LEAD_RATIO = 0.6;

export function aboutProducts(
  chosen: ScoredSentence[],
  candidates: CandidatePassage[],
  question: string,
  language: KeywordLanguage = 'en',
): ScoredSentence[] {
  const productOf = (s: ScoredSentence) => {
    const item = candidates[s.passage]!.item;
    return item.sourceType === 'PRODUCT' ? item : null;
  };
  const products = [...new Map(chosen.map(productOf).filter((p) => p !== null).map((p) => [p.id, p])).values()];
  if (products.length < 2) return chosen;

  const asked = contentTerms(question, language);
  const named = (title: string) => contentTerms(title, language).filter((t) => asked.some((a) => termsMatch(a, t, language)));
  const lead = products[0]!;
  const leadNamed = named(lead.title);
  const othersNamed = products.slice(1).flatMap((p) => named(p.title));
  const namesOnlyLead = leadNamed.some((t) => !othersNamed.includes(t));
  const retrievalOf = (id: number) => Math.max(...candidates.filter((c) => c.item.id === id).map((c) => c.retrieval));
  const leads = products.slice(1).every((p) => retrievalOf(p.id) <= LEAD_RATIO * retrievalOf(lead.id));
  if (namesOnlyLead || leads) return chosen.filter((s) => candidates[s.passage]!.item.id === lead.id);

  const labelled = new Set<number>();
  return chosen.map((s) => {
    const product = productOf(s);
    if (!product || labelled.has(product.id)) return s;
    labelled.add(product.id);
    return s.text.toLowerCase().includes(product.title.toLowerCase()) ? s : { ...s, text: `${product.title}: ${s.text}` };
  });
}
