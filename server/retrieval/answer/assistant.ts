import { type AskEvent, type AskRequest, type AskResponse, askRequestSchema, type Citation } from '../../../common/contract/ask.ts';
import type { SourceType } from '../../../common/contract/ingest.ts';
import type { KeywordLanguage } from '../../../common/contract/knowledge.ts';
import { isAnalyzed } from '../../language/keyword-language.ts';
import type { EmbeddingModel } from '../../indexes/embedding-model.ts';
import type { TermStatsRepo } from '../../storage/term-stats-repo.ts';
import type { Correction } from '../../indexes/keyword-index.ts';
import { replaceWords } from '../../language/query-words.ts';
import type { CuratedAnswers } from '../curated/curated-answers.ts';
import type { SearchOptions, SearchOutcome, SearchService } from '../search.ts';
import { ABSTAIN_BELOW, askedTerms, missingKeyTerms, PAGE_ABSTAIN_BELOW, support } from './abstention.ts';
import { type DecisionModel, dot, FITTED_MODEL, type PassageVectors, passagesAnswer } from './answer-decision.ts';
import {
  asksForADay, type CandidatePassage, valueFirst, composeAnswer, headingsOf, DEFAULT_SELECTION, questionIntent, type ScoredSentence, scoreSentences, selectSentences, type SelectionOptions,
} from './extractive.ts';
import { labelOf } from './attribute-text.ts';
import { answersDimension } from './dimensions.ts';
import { faqAnswerSentences, matchingFaq } from './faq.ts';
import type { LlmSettings } from './llm-settings.ts';
import { LlmError, streamChat } from './openai-client.ts';
import { aboutProducts } from './product-answers.ts';
import { buildMessages, citedNumbers, isNotFoundReply, NOT_FOUND_REPLY } from './prompt.ts';
import { QuoteBudget, type QuoteVerdict } from './quote-budget.ts';
import { contextTurns, namesOwnSubject, refersToItem, retrievalQuery, type WeightedTerm, weightedTerms } from './question-terms.ts';
import { isValueLine } from './asked-value.ts';
import { inStatedRange } from './number-ranges.ts';
import { saysInOtherWords } from './shop-words.ts';
import { correctTypos, splitRunTogether, splitTurns } from './typed-words.ts';
import { citedItem, lastExchange, pointsBack } from './earlier-turn.ts';
import { contentTerms, termsMatch } from '../../language/content-terms.ts';

export type AskResult = AskResponse;
type ParsedAskRequest = ReturnType<typeof askRequestSchema.parse>;
/** The item the asker is looking at (ask-question.ts resolves it from the request's context). */
export type Focus = { itemId: number };
/** What an answer and the decision to abstain are made from: one retrieval of one knowledge base. */
export type Analysis = Awaited<ReturnType<Assistant['analyzeParsed']>>;
export type AskOptions = {
  signal: AbortSignal;
  onEvent?: (event: AskEvent) => void;
  /**
   * Why the language model failed (unreachable, refused, timed out) tells whoever set its address
   * which ports answer on which hosts: only the Owner is told; everyone else reads that it could
   * not be used, and the reason goes to `onModelFailure` (the server log).
   */
  showModelFailure?: boolean;
  onModelFailure?: (reason: string) => void;
  /**
   * Hold a generated answer to the extractive answer's quote budget (quote-budget.ts): cut when
   * too long, replaced by the extractive answer when it copies the prompt. The visitor side sets it.
   */
  quoteBudget?: boolean;
};

/** Why a generated answer was replaced on the visitor side (the server log's reason). */
const COPIED_PROMPT = 'the generated answer copied its prompt beyond the quote budget';

/** What a caller other than the Owner reads when the language model failed. */
export const MODEL_NOT_USED = 'the language model could not be used';

/** The words that name a day a visitor wants something for. */
const DAY_WORDS = /^(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|tomorrow|today|tonight)s?$/i;

/** Passages retrieved per item; the second often holds the rest of a sentence cut at a chunk edge. */
const PASSAGES_PER_ITEM = 2;
/** Passages a generated answer is grounded in. */
const PROMPT_PASSAGES = 6;

/**
 * `decision` null keeps only the support threshold (the rule before the fitted decision; the
 * answer bench runs it beside the fitted one).
 */
export type AssistantTuning = {
  abstainBelow: number;
  /**
   * The support the page's item's own content needs to answer a question asked on its page
   * (`PAGE_ABSTAIN_BELOW`); null reads the page's item only as the search's first item.
   */
  pageAbstainBelow: number | null;
  selection: SelectionOptions;
  decision: DecisionModel | null;
};
export const DEFAULT_TUNING: AssistantTuning = { abstainBelow: ABSTAIN_BELOW, pageAbstainBelow: PAGE_ABSTAIN_BELOW, selection: DEFAULT_SELECTION, decision: FITTED_MODEL };

/**
 * Answers a question from a knowledge base: retrieve with the hybrid search, then either compose
 * an extractive answer from the sentences that answer it, or, with a language model endpoint
 * configured, generate one grounded in the retrieved passages (falling back to extractive when the
 * endpoint fails). Says so instead of answering when the knowledge base does not support one.
 * Free of HTTP: AskQuestion (ask-question.ts) calls it for the API, the dashboard's chat and visitors.
 */
export class Assistant {
  constructor(
    private readonly search: SearchService,
    private readonly embedding: EmbeddingModel,
    private readonly termStats: TermStatsRepo,
    private readonly llm: LlmSettings,
    private readonly tuning: AssistantTuning = DEFAULT_TUNING,
    private readonly curated: CuratedAnswers | null = null,
  ) {}

  private lastVector: { text: string; mode: AskRequest['mode']; model: unknown; vector: Promise<Float32Array | null> } | null = null;

  async ask(knowledgeBaseId: string, request: AskRequest, options: AskOptions): Promise<AskResult> {
    const started = performance.now();
    const owners = await this.ownersAnswer([knowledgeBaseId], request, options, started);
    if (owners) return owners.response;
    const analysis = await this.analyze(knowledgeBaseId, request, options.signal);
    return this.respond(analysis, options, started);
  }

  /**
   * The owner's own answer (curated answers), when the question asks for one in one of these
   * knowledge bases: it wins before any retrieval. Its vector is the one retrieval reads when the
   * question stands alone (queryVector's memo), so asking costs one embedding either way.
   */
  async ownersAnswer(
    knowledgeBaseIds: string[],
    request: AskRequest,
    options: AskOptions,
    started = performance.now(),
  ): Promise<{ knowledgeBaseId: string; contextItem: null; response: AskResult } | null> {
    if (!this.curated) return null;
    const req = askRequestSchema.parse(request);
    for (const knowledgeBaseId of knowledgeBaseIds) {
      const curated = await this.curated.curatedAnswerFor(knowledgeBaseId, req.question, () => this.queryVector(req.question, req.mode));
      if (!curated) continue;
      const emit = options.onEvent ?? (() => {});
      const tookMs = Math.round((performance.now() - started) * 10) / 10;
      const response: AskResponse = { question: req.question, answer: curated.record.answer, answered: true, method: 'extractive', fallbackReason: null, citations: [], tookMs, source: 'owner' };
      emit({ type: 'answer', text: response.answer });
      emit({ type: 'citations', citations: [] });
      emit({ type: 'done', response });
      return { knowledgeBaseId, contextItem: null, response };
    }
    return null;
  }

  /**
   * The answer to an analysed question (`analyze`): the question is retrieved once, and a caller
   * choosing among knowledge bases answers from the analysis it chose by.
   */
  async respond(analysis: Analysis, options: AskOptions, started = performance.now()): Promise<AskResult> {
    const req = analysis.request;
    const conversation = req.conversation ?? [];
    const emit = options.onEvent ?? (() => {});
    const { signal } = options;
    const { candidates } = analysis;

    const finish = (answer: Omit<AskResponse, 'question' | 'tookMs'>): AskResult => {
      emit({ type: 'citations', citations: answer.citations });
      const response: AskResponse = { question: req.question, ...answer, tookMs: Math.round((performance.now() - started) * 10) / 10 };
      if (analysis.correctedQuestion !== null) response.correctedQuery = analysis.correctedQuestion;
      emit({ type: 'done', response });
      return response;
    };

    // Decided before any language model is called: a model handed passages about the subject but
    // without the answer tends to answer anyway.
    if (!this.answers(analysis)) {
      emit({ type: 'answer', text: NOT_FOUND_REPLY });
      return finish({ answer: NOT_FOUND_REPLY, answered: false, method: 'extractive', fallbackReason: null, citations: [] });
    }

    let fallbackReason: string | null = null;
    const endpoint = this.llm.endpoint();
    if (endpoint) {
      const passages = promptPassages(candidates);
      const messages = buildMessages(req.question, passages, conversation);
      const budget = options.quoteBudget ? new QuoteBudget(messages) : null;
      let text = '';
      let verdict: QuoteVerdict = 'within';
      try {
        for await (const delta of streamChat(endpoint, messages, signal)) {
          // Checked before the piece is shown; leaving the loop stops the model's request.
          verdict = budget?.check(text + delta) ?? 'within';
          text += delta;
          if (verdict !== 'within') break;
          emit({ type: 'answer', text: delta });
        }
        if (verdict === 'copies the prompt') throw new LlmError(COPIED_PROMPT);
        const answer = verdict === 'too long' ? budget!.cut(text) : text.trim();
        if (isNotFoundReply(answer)) {
          return finish({ answer, answered: false, method: 'generative', fallbackReason: null, citations: [] });
        }
        const citations = citedNumbers(answer, passages.length).map((n) => citation(n, passages[n - 1]!));
        return finish({ answer, answered: true, method: 'generative', fallbackReason: null, citations });
      } catch (error) {
        if (!(error instanceof LlmError) || signal.aborted) throw error;
        options.onModelFailure?.(error.message);
        fallbackReason = `${options.showModelFailure ? error.message : MODEL_NOT_USED}; this answer is extractive`;
        emit({ type: 'fallback', reason: fallbackReason });
      }
    }

    const { chosen, language } = analysis;
    const parts = composeAnswer(chosen, this.tuning.selection.maxChars, analysis.terms, language);
    const citations: Citation[] = [];
    parts.forEach((part, i) => {
      emit({ type: 'answer', text: i > 0 ? ` ${part.text}` : part.text });
      if (!citations.some((c) => c.number === part.citation)) citations.push(citation(part.citation, candidates[part.passage]!));
    });
    return finish({ answer: parts.map((p) => p.text).join(' '), answered: true, method: 'extractive', fallbackReason, citations });
  }

  /**
   * Whether to answer: the passages are about the question (support, abstention.ts) and, with a
   * query vector to read their meaning, the fitted decision says they answer it. The decision's
   * features and weights are English (question words, answer types, fitted on English sets), so a
   * knowledge base in another language is answered on support alone.
   */
  answers(analysis: Analysis): boolean {
    const { scored, support: s, bestCosine } = analysis;
    // The owner's own question matched the visitor's: its answer is the answer (faq.ts).
    if (analysis.faq) return true;
    if (analysis.missingKeyTerms.length > 0) return false;
    // Asked on a product's page, another product's fact is no answer about the one the visitor sees.
    if (analysis.otherProduct) return false;
    // The page's item's attribute for the dimension asked ("how tall" → "Height: 80 cm", dimensions.ts).
    if (analysis.itemAttribute) return true;
    if (!scored.some((sentence) => sentence.quotable) || s.score < s.threshold) return false;
    // A line stating the value asked for about everything the question names ("Price: 18 EUR" of
    // "Children's cut" for "how much do you charge for kids") is the answer (asked-value.ts).
    if (analysis.valueLine) return true;
    const model = this.tuning.decision;
    return model === null || bestCosine === null || isAnalyzed(analysis.language) || passagesAnswer(analysis, model);
  }

  /**
   * Retrieval and sentence scoring without composing an answer: what the answer and the decision
   * to abstain are made from (the calibration in bench/answer reads it too).
   */
  analyze(knowledgeBaseId: string, request: AskRequest, signal: AbortSignal, focus?: Focus): Promise<Analysis> {
    return this.analyzeParsed(knowledgeBaseId, askRequestSchema.parse(request), signal, focus ?? null);
  }

  /**
   * A question that leans on the conversation ("when are they baked?") is read with the earlier
   * turns. One that also names a subject of its own ("is it possible to get gluten-free bread?") is
   * read alone too, and answered from whichever reading the knowledge base supports better.
   */
  private async analyzeParsed(knowledgeBaseId: string, req: ParsedAskRequest, signal: AbortSignal, focus: Focus | null) {
    // The language keyword search reads the knowledge base in: the question and its sentences are read so too.
    const { language } = this.search.keywordIndex(knowledgeBaseId);
    // "Is it waterproof?" on a product's page is about that product, whatever was asked before;
    // "is it possible to get gluten-free bread?" names its own subject, found anywhere (the page's item first).
    // "How much do they cost?" after "Do you have croissants?" is about the item the answer to that
    // cited, as "this" is about the page's item (earlier-turn.ts).
    const only = focus !== null && refersToItem(req.question, language) && !namesOwnSubject(req.question, language);
    // The page's item wins over the previous turn's: "and how wide is it?" after the visitor moved
    // to another product is about the product shown now.
    const earlier = !only && pointsBack(req.question, language, focus !== null) ? await this.previousTurnItem(knowledgeBaseId, req, language, signal) : null;
    // Its subject is the item, named by its title: "cost" of the "Butter croissant". When that item
    // does not answer it (the answer is in another passage of the same subject), it is read as before.
    if (earlier !== null) {
      const about = await this.analyzeReading(knowledgeBaseId, req, [earlier.title], language, signal, { itemId: earlier.id, only: true });
      if (this.answers(about)) return about;
    }
    // Asked on an item's page, a question naming a subject of its own ("how tall is the figure?",
    // "would this work on 220 volts?") is still most often about that item: its own content is
    // read first, alone, and answers when it supports the question (PAGE_ABSTAIN_BELOW, calibrated
    // on product questions asked on their product's page). Otherwise the whole knowledge base is read.
    if (focus !== null && !only && earlier === null && this.tuning.pageAbstainBelow !== null) {
      const onPage = await this.analyzeReading(knowledgeBaseId, req, [], language, signal, { itemId: focus.itemId, only: true }, true);
      if (this.answers(onPage)) return onPage;
    }
    // "Is it waterproof?" on the page is read in the page's item alone, under the page's threshold too.
    const reading = (context: string[]) =>
      this.analyzeReading(knowledgeBaseId, req, context, language, signal, focus && { itemId: focus.itemId, only }, only);
    const context = only ? [] : contextTurns(req.question, req.conversation, language);
    if (context.length === 0) return reading([]);
    const withContext = await reading(context);
    if (!namesOwnSubject(req.question, language)) return withContext;
    const alone = await reading([]);
    return withContext.support.score > alone.support.score ? withContext : alone;
  }

  /**
   * The item the previous turn was about: the one its answer quoted from, when the conversation
   * carries the answer and a passage retrieved for its question holds the quote; else the item an
   * answer to that question leads with now. Null when it is not answered (then the question is
   * read with the earlier turns' words, leansOnConversation).
   */
  private async previousTurnItem(
    knowledgeBaseId: string,
    req: ParsedAskRequest,
    language: KeywordLanguage,
    signal: AbortSignal,
  ): Promise<{ id: number; title: string } | null> {
    const exchange = lastExchange(req.conversation);
    if (exchange === null) return null;
    const previous = await this.analyzeReading(knowledgeBaseId, { ...req, question: exchange.question, conversation: [] }, [], language, signal, null);
    const quoted = exchange.answer === null ? null : citedItem(exchange.answer, previous.candidates);
    const lead = previous.chosen[0];
    const item = quoted ?? (lead !== undefined && this.answers(previous) ? previous.candidates[lead.passage]!.item : null);
    return item && { id: item.id, title: item.title };
  }

  /** The analysis of the question read with the given earlier turns, in the knowledge base's keyword language. */
  private async analyzeReading(
    knowledgeBaseId: string,
    req: ParsedAskRequest,
    context: string[],
    language: KeywordLanguage,
    signal: AbortSignal,
    focus: SearchOptions['focus'] | null,
    /** The page's item read alone first (`pageAbstainBelow`): its own support threshold. */
    pageFirst = false,
  ) {
    const abstainBelow = pageFirst && this.tuning.pageAbstainBelow !== null ? this.tuning.pageAbstainBelow : this.tuning.abstainBelow;
    const { candidates, bestCosine, vectors, corrections, synonyms } = await this.retrieve(knowledgeBaseId, req, context, signal, focus ?? undefined);
    // A misspelt word the search read as another is scored as that word: typed, it is in no passage.
    // So is a word in no passage the owner gave synonyms for ("cinammon => cinnamon"), as its first synonym.
    const replaced = new Map(corrections.filter((c) => c.absent).map((c) => [c.word, c.replacements[0]!]));
    for (const { word, synonyms: added } of synonyms) {
      if (!replaced.has(word) && this.termStats.documentFrequency(knowledgeBaseId, word) === 0) replaced.set(word, added[0]!);
    }
    // Run-together words ("glutenfree") are read as the passages write them before search's
    // corrections (which would read "gluten"), misspelt ones search left as typed after (typed-words.ts).
    const english = !isAnalyzed(language);
    const split = english ? splitRunTogether(req.question, candidates) : req.question;
    const corrected = replaced.size ? replaceWords(split, replaced) : split;
    const question = english ? correctTypos(corrected, candidates) : corrected;
    const correctedQuestion = question === req.question ? null : question;
    const chunks = this.termStats.chunkCount(knowledgeBaseId);
    // The earlier turns' words are read as the question's are: "do you do timbercutting" then "how much does it cost?".
    const turns = english ? splitTurns(context, candidates) : context;
    const terms = weightedTerms(question, turns, (word) => this.idf(knowledgeBaseId, chunks, word), language);
    const scored = scoreSentences(candidates, terms, questionIntent(question, language), question, language);
    const bestCoverage = Math.max(0, ...scored.map((s) => s.coverage));
    // The embedder is English: in another language its cosine says little (docs/retrieval.md,
    // "Languages"), so support leans on keyword coverage alone.
    const s = support(bestCoverage, isAnalyzed(language) ? null : bestCosine, abstainBelow);
    const quotedSentences = this.quoted(question, terms, candidates, scored, language);
    const { faq, missing } = quotedSentences;
    // On an item's page, "how tall is it?" is answered by that item's "Height: 80 cm" though they
    // share no word (dimensions.ts), and "can this go in the dishwasher?" by its "Dishwasher safe:
    // no", whose label holds every word the question asks about: that line is the answer.
    const asked = askedTerms(question, terms);
    const labelAnswers = (text: string) => {
      const label = labelOf(text);
      if (label === null) return false;
      const labelTerms = contentTerms(label, language);
      return answersDimension(question, text) || (asked.length > 0 && asked.every((t) => labelTerms.some((s) => termsMatch(s, t.stem, language))));
    };
    const attribute = english && focus && !faq ? scored.find((c) => candidates[c.passage]!.item.id === focus.itemId && labelAnswers(c.text)) : undefined;
    // A sentence of the item already chosen that holds every asked word says it in full ("Comes
    // with two batteries…" before "Battery: 2 x 2.0 Ah"): it stays the answer.
    const first = quotedSentences.chosen[0];
    const saysItAlready =
      first !== undefined && focus && candidates[first.passage]!.item.id === focus.itemId && asked.length > 0 && asked.every((t) => first.stems.some((s) => termsMatch(s, t.stem, language)));
    const best = attribute && !saysItAlready ? [attribute] : quotedSentences.chosen;
    const itemAttribute = attribute !== undefined;
    // Whether to answer reads the best sentence; the answer leads with the value asked for
    // ("How much is the rye bread?": its price, then its description), and the owner's FAQ answer
    // is quoted in the owner's order.
    const valueLine = english && isValueLine(best[0]);
    const chosen = english && !faq ? valueFirst(best, question) : best;
    const otherProduct = pageFirst || !focus || focus.only || this.tuning.pageAbstainBelow === null ? false : anotherProduct(candidates, focus.itemId, chosen[0], question, language);
    return { request: req, question, correctedQuestion, language, terms, candidates, scored, bestCoverage, bestCosine, vectors, support: s, chosen, faq, itemAttribute, valueLine, missingKeyTerms: missing, focus, pageFirst, otherProduct };
  }

  /**
   * The sentences an extractive answer quotes: the owner's answer to an FAQ question that means the
   * visitor's (faq.ts), else the selected sentences, of one product unless several are asked for
   * (product-answers.ts); and the key terms of a yes/no question they lack (abstention.ts).
   */
  private quoted(question: string, terms: WeightedTerm[], candidates: CandidatePassage[], scored: ScoredSentence[], language: KeywordLanguage) {
    const english = !isAnalyzed(language);
    const entry = english ? matchingFaq(candidates, terms, question, language) : null;
    const faqSentences = entry ? faqAnswerSentences(entry, scored, this.tuning.selection.maxSentences) : [];
    if (faqSentences.length > 0) return { chosen: faqSentences, faq: true, missing: [] };
    const chosen = aboutProducts(selectSentences(scored, this.tuning.selection, questionIntent(question, language)), candidates, question, language);
    // A key term the shop says in other words ("discount": "10 % off", shop-words.ts) is held.
    // So is a number inside a range the quote states ("04103 to 04357" holds "04109", number-ranges.ts).
    const otherWords = (text: string) => terms.filter((t) => (english && saysInOtherWords(t.word, text)) || inStatedRange(t.word, text)).map((t) => t.stem);
    const quoted = chosen.map((c) => {
      const title = headingsOf(candidates[c.passage]!);
      return { stems: [...c.stems, ...otherWords(c.text)], titleStems: [...contentTerms(title, language), ...otherWords(title)] };
    });
    // "for this Saturday" is when it is wanted: a lead time answers it, not a sentence naming the day.
    const keyTerms = asksForADay(question) ? terms.filter((t) => !DAY_WORDS.test(t.word)) : terms;
    const retrieved = english ? candidates.map((c) => [...contentTerms(`${c.item.title}\n${c.text}`, language), ...otherWords(`${c.item.title}\n${c.text}`)]) : [];
    const missing = english ? missingKeyTerms(question, keyTerms, quoted, retrieved, (a, b) => termsMatch(a, b, language)) : [];
    return { chosen, faq: false, missing };
  }

  /** The retrieved passages, best item first, and the best passage's cosine similarity to the query. */
  private async retrieve(
    knowledgeBaseId: string,
    req: ParsedAskRequest,
    context: string[],
    signal: AbortSignal,
    focus: SearchOptions['focus'],
  ): Promise<{
    candidates: CandidatePassage[];
    bestCosine: number | null;
    vectors: PassageVectors | null;
    corrections: Correction[];
    synonyms: SearchOutcome['synonyms'];
  }> {
    const query = retrievalQuery(req.question, context);
    const vectorQuery = req.mode === 'hybrid' ? (this.search.correctedQuery(knowledgeBaseId, query) ?? query) : query;
    const queryVector = await this.queryVector(vectorQuery, req.mode);
    const vectors = queryVector ? this.embedding.vectors() : null;
    signal.throwIfAborted();
    const outcome: SearchOutcome = this.search.searchWithVector(knowledgeBaseId, query, queryVector, {
      mode: req.mode,
      topK: req.topK,
      sourceTypes: req.sourceTypes ?? null,
      passages: PASSAGES_PER_ITEM,
      focus,
    });
    const top = outcome.hits[0]?.score ?? 0;
    const neighbours = this.search.neighbourChunks(
      outcome.hits.flatMap((hit) => hit.passages.map((p) => ({ itemId: hit.item.id, chunkId: p.chunkId, position: p.position }))),
    );
    const candidates = outcome.hits.flatMap((hit) =>
      hit.passages.map((p) => ({
        item: hit.item,
        chunkId: p.chunkId,
        text: p.text,
        ...(p.page !== undefined ? { page: p.page } : {}),
        ...(p.section !== undefined ? { section: p.section } : {}),
        ...neighbours.get(p.chunkId),
        retrieval: top > 0 ? hit.score / top : 0,
        itemScore: hit.score,
        passageScore: p.score,
      })),
    );
    let bestCosine: number | null = null;
    let passageVectors: PassageVectors | null = null;
    if (vectors && queryVector) {
      passageVectors = { query: queryVector, passages: candidates.map((c) => vectors.get(c.chunkId) ?? null) };
      for (const vector of passageVectors.passages) if (vector) bestCosine = Math.max(bestCosine ?? -1, dot(vector, queryVector));
    }
    return { candidates, bestCosine, vectors: passageVectors, corrections: outcome.corrections, synonyms: outcome.synonyms };
  }

  /**
   * The query's vector, the last one remembered: the curated answers' match and retrieval read the
   * same question's vector, computed once. Keyed by the active model's vectors too, so a model
   * change never hands out a vector of the old one.
   */
  private queryVector(text: string, mode: AskRequest['mode']): Promise<Float32Array | null> {
    const model = this.embedding.vectors();
    const last = this.lastVector;
    if (last && last.text === text && last.mode === mode && last.model === model) return last.vector;
    const vector = this.search.queryVector(text, mode ?? 'hybrid');
    this.lastVector = { text, mode, model, vector };
    vector.catch(() => this.lastVector?.vector === vector && (this.lastVector = null));
    return vector;
  }

  /** BM25's inverse document frequency of a word among the knowledge base's chunks. */
  private idf(knowledgeBaseId: string, total: number, word: string): number {
    const df = this.termStats.documentFrequency(knowledgeBaseId, word);
    return Math.log(1 + (total - df + 0.5) / (df + 0.5));
  }
}

/**
 * Whether an answer read on a product's page would lead with another product the question does not
 * name: the page's product's own content did not answer (the page-first reading), so the visitor's
 * question about what they see ("how tall is the figure?") would get another product's fact.
 * A question naming the other product ("is the orchid safe for cats?" on the Monstera's page), or
 * an answer from an article (delivery, payment), is answered as usual.
 */
function anotherProduct(candidates: CandidatePassage[], pageItemId: number, lead: ScoredSentence | undefined, question: string, language: KeywordLanguage): boolean {
  const page = candidates.find((c) => c.item.id === pageItemId)?.item;
  const item = lead === undefined ? undefined : candidates[lead.passage]?.item;
  if (page?.sourceType !== 'PRODUCT' || item === undefined || item.id === page.id || item.sourceType !== 'PRODUCT') return false;
  const asked = contentTerms(question, language);
  const pageTerms = contentTerms(page.title, language);
  const namesIt = contentTerms(item.title, language).some((t) => !pageTerms.includes(t) && asked.some((a) => termsMatch(a, t, language)));
  return !namesIt;
}

/** The best passage of each item first, then their second passages: breadth before depth. */
function promptPassages(candidates: CandidatePassage[]): CandidatePassage[] {
  const byItem = new Map<number, CandidatePassage[]>();
  for (const c of candidates) byItem.set(c.item.id, [...(byItem.get(c.item.id) ?? []), c]);
  const ordered: CandidatePassage[] = [];
  for (let depth = 0; depth < PASSAGES_PER_ITEM; depth++) {
    for (const list of byItem.values()) if (list[depth]) ordered.push(list[depth]!);
  }
  return ordered.slice(0, PROMPT_PASSAGES);
}

function citation(number: number, passage: CandidatePassage): Citation {
  return {
    number,
    knowledgeBaseId: passage.item.knowledgeBaseId,
    integrationId: passage.item.integrationId,
    externalId: passage.item.externalId,
    sourceType: passage.item.sourceType as SourceType,
    title: passage.item.title,
    url: passage.item.url,
    chunkId: passage.chunkId,
    passage: passage.text,
    ...(passage.page !== undefined ? { page: passage.page } : {}),
    ...(passage.section !== undefined ? { section: passage.section } : {}),
  };
}
