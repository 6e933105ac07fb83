import type { AskEvent, AskRequest, AskResponse, Citation } from '../../../common/contract/ask.ts';
import type { VisitorCitation, VisitorProduct } from '../../../common/contract/widget.ts';
import { webLink } from '../../../common/web-link.ts';
import type { DashboardConversations } from '../../domain/dashboard-conversations.ts';
import type { VisitorConversations } from '../../domain/visitor-conversations.ts';
import type { ContextItem } from '../../domain/item-record.ts';
import type { ContextItemRepo } from '../../storage/context-item-repo.ts';
import type { UsageRepo } from '../../storage/usage-repo.ts';
import { SUGGESTED } from '../curated/match.ts';
import type { CuratedAnswers } from '../curated/curated-answers.ts';
import type { Analysis, Assistant, AskOptions } from './assistant.ts';
import { mayBeNotFoundReply } from './prompt.ts';

/** Who asks, which decides where the turn is recorded. */
export type Asker =
  /** `POST /knowledge-bases/{id}/ask`: counted in the key's usage. */
  | { kind: 'api'; keyId: string | null }
  /** The dashboard's chat: counted in usage without a key, kept in the user's conversation. */
  | { kind: 'dashboard'; user: { id: string; name: string }; conversationId: string | null }
  /** A visitor through a widget: kept in the visitor's session; reads the widget's fallback message when not answered. */
  | { kind: 'visitor'; widgetId: string; sessionId: string; fallbackMessage: string; sendPageUrl: boolean };

/** Why an answer is what it is: no caller reads the answer's wording to find out. */
export type AskReason = 'answered' | 'not_in_content' | 'model_found_nothing';

/** What the use case streams: the assistant's events, then `done` with the outcome once the turn is recorded. */
export type AskQuestionEvent = Exclude<AskEvent, { type: 'done' }> | { type: 'done'; outcome: AskOutcome };

export type AskOutcome = {
  knowledgeBaseId: string;
  /** The response, its `answer` being what the asker reads (a visitor: the widget's fallback message when not answered). */
  response: AskResponse;
  answered: boolean;
  reason: AskReason;
  /** The item the request's context named and the knowledge base holds, or null. */
  contextItem: { externalId: string; title: string } | null;
  /** The product the answer is about, for a visitor's product card; null when none or not answered. */
  product: VisitorProduct | null;
  /** Where the turn was kept: a dashboard conversation or a visitor session's answer. */
  recorded: { conversationId?: string; answerId?: string };
};

export type AskQuestionInput = {
  /** The knowledge bases the asker may read, already checked; the best-supported one answers. */
  knowledgeBaseIds: string[];
  request: AskRequest;
  asker: Asker;
  signal: AbortSignal;
  onEvent?: (event: AskQuestionEvent) => void;
  /** Keeping the turn failed: the answer still goes out, and the reason goes to the log. */
  onRecordFailure?: (error: unknown) => void;
} & Pick<AskOptions, 'showModelFailure' | 'onModelFailure'>;

export type AskQuestionDeps = {
  assistant: Assistant;
  /** The owner's curated questions close to an unanswered one ("Did you mean …?"); none offered without. */
  curatedSuggestions?: Pick<CuratedAnswers, 'suggestionsFor'>;
  contextItems: ContextItemRepo;
  usage: UsageRepo;
  visitorConversations: VisitorConversations;
  dashboardConversations: DashboardConversations;
};

/**
 * Asking a question, the one way the API, the dashboard's chat and a widget's visitors do it:
 * the item the page names is found, each knowledge base the asker may read is searched once (the
 * search's reading of the question: typos, synonyms, language), the best-supported one answers
 * from that same search, and the turn is recorded where the asker's turns go. The HTTP edges only
 * check access and serialise what this returns and streams.
 */
export class AskQuestion {
  constructor(private readonly deps: AskQuestionDeps) {}

  async ask(input: AskQuestionInput): Promise<AskOutcome> {
    const started = performance.now();
    const { assistant } = this.deps;
    const { asker, signal } = input;
    const emit = input.onEvent ?? (() => {});
    // A visitor's earlier turns are the stored ones: the browser's `conversation` is not believed.
    if (asker.kind === 'visitor') {
      input = { ...input, request: { ...input.request, conversation: this.deps.visitorConversations.earlierTurns(asker.sessionId) } };
    }

    const onAssistantEvent = visitorHold(asker, emit);
    const options = { ...input, onEvent: onAssistantEvent.forward, quoteBudget: asker.kind === 'visitor' };
    const { knowledgeBaseId, contextItem, response } =
      (await assistant.ownersAnswer(input.knowledgeBaseIds, input.request, options, started)) ??
      (await this.retrievedAnswer(input, options, started));
    const chosen = { knowledgeBaseId, contextItem };
    const reason: AskReason = response.answered ? 'answered' : response.method === 'generative' ? 'model_found_nothing' : 'not_in_content';
    const shown: AskResponse = asker.kind === 'visitor' && !response.answered ? { ...response, answer: asker.fallbackMessage, citations: [] } : response;
    const read = response.answered ? shown : await this.withSuggestions(shown, input.knowledgeBaseIds);
    onAssistantEvent.settle(read);

    const product = response.answered ? this.productOf(response.citations[0] ?? null, chosen.contextItem) : null;
    let recorded: AskOutcome['recorded'] = {};
    try {
      recorded = this.record(asker, chosen.knowledgeBaseId, input.request.question, read, Math.round((performance.now() - started) * 10) / 10);
    } catch (error) {
      input.onRecordFailure?.(error);
    }
    const outcome: AskOutcome = {
      knowledgeBaseId: chosen.knowledgeBaseId,
      response: read,
      answered: response.answered,
      reason,
      contextItem: chosen.contextItem ? { externalId: chosen.contextItem.externalId, title: chosen.contextItem.title } : null,
      product,
      recorded,
    };
    emit({ type: 'done', outcome });
    return outcome;
  }

  /**
   * An unanswered question with the owner's curated questions closest to it ("Did you mean …?"),
   * best first across the asker's knowledge bases; the response as it is when none is close
   * (docs/assistant.md, "When unsure"). Any of them asked as it is matches its curated answer.
   */
  private async withSuggestions(response: AskResponse, knowledgeBaseIds: string[]): Promise<AskResponse> {
    const curated = this.deps.curatedSuggestions;
    if (!curated) return response;
    const found = (await Promise.all(knowledgeBaseIds.map((id) => curated.suggestionsFor(id, response.question)))).flat();
    const best = found.sort((a, b) => b.score - a.score).slice(0, SUGGESTED);
    return best.length ? { ...response, suggestions: best.map(({ id, question }) => ({ id, question })) } : response;
  }

  /**
   * The answer retrieved from the content: each knowledge base searched once, the best-supported
   * one answering from that same search. The visitor side promises quotes, not passages: a
   * generated answer is held to the quote budget there (`options.quoteBudget`).
   */
  private async retrievedAnswer(input: AskQuestionInput, options: AskOptions, started: number) {
    const { assistant } = this.deps;
    const analyses: Array<{ knowledgeBaseId: string; analysis: Analysis; contextItem: ContextItem | null }> = [];
    for (const knowledgeBaseId of input.knowledgeBaseIds) {
      const contextItem = this.contextItem(knowledgeBaseId, input.request, input.asker);
      const analysis = await assistant.analyze(knowledgeBaseId, input.request, input.signal, contextItem ? { itemId: contextItem.id } : undefined);
      analyses.push({ knowledgeBaseId, analysis, contextItem });
    }
    const chosen = analyses.length === 1 ? analyses[0]! : bestSupported(assistant, analyses);
    const response = await assistant.respond(chosen.analysis, options, started);
    return { knowledgeBaseId: chosen.knowledgeBaseId, contextItem: chosen.contextItem, response };
  }

  /** The item the request's context names in this knowledge base: its external id first, else the page's address. */
  private contextItem(knowledgeBaseId: string, request: AskRequest, asker: Asker): ContextItem | null {
    const context = request.context;
    if (!context) return null;
    // A widget whose owner turned the page's address off is not answered by it, whatever a page sends.
    const url = asker.kind === 'visitor' && !asker.sendPageUrl ? undefined : context.url;
    const { contextItems } = this.deps;
    return (
      (context.externalId !== undefined ? contextItems.byExternalId(knowledgeBaseId, context.externalId) : null) ??
      (url !== undefined ? contextItems.byUrl(knowledgeBaseId, url) : null)
    );
  }

  /** A product card for the answer's first source when it is a product. */
  private productOf(first: Citation | null, contextItem: ContextItem | null): VisitorProduct | null {
    if (!first || first.sourceType !== 'PRODUCT') return null;
    const row =
      contextItem && contextItem.knowledgeBaseId === first.knowledgeBaseId && contextItem.externalId === first.externalId && contextItem.integrationId === first.integrationId
        ? contextItem
        : this.deps.contextItems.byExternalId(first.knowledgeBaseId, first.externalId);
    return { title: first.title, price: priceOf(row?.sourceData ?? null), url: webLink(first.url) };
  }

  private record(asker: Asker, knowledgeBaseId: string, question: string, response: AskResponse, latencyMs: number): AskOutcome['recorded'] {
    const { usage, dashboardConversations, visitorConversations } = this.deps;
    const turn = { knowledgeBaseId, question, answer: response.answer, answered: response.answered, citations: visitorCitations(response.citations), latencyMs };
    switch (asker.kind) {
      case 'api':
      case 'dashboard': {
        const who = { keyId: asker.kind === 'api' ? asker.keyId : null, knowledgeBaseId };
        usage.count('questions', who);
        usage.answerLatency(response.tookMs, who);
        if (asker.kind === 'api') return {};
        const kept = dashboardConversations.recordTurn(asker.user, asker.conversationId, turn);
        return { conversationId: kept.conversationId, answerId: kept.id };
      }
      case 'visitor': {
        const kept = visitorConversations.recordTurn({ ...turn, sessionId: asker.sessionId, widgetId: asker.widgetId });
        return { answerId: kept.id };
      }
    }
  }
}

/**
 * Of several knowledge bases' analyses, the one to answer from: the one whose passages answer the
 * question, with the most support.
 */
function bestSupported<T extends { analysis: Analysis }>(assistant: Assistant, analyses: T[]): T {
  let best = analyses[0]!;
  let bestAnswers = assistant.answers(best.analysis);
  for (const candidate of analyses.slice(1)) {
    const answers = assistant.answers(candidate.analysis);
    if (Number(answers) > Number(bestAnswers) || (answers === bestAnswers && candidate.analysis.support.score > best.analysis.support.score)) {
      best = candidate;
      bestAnswers = answers;
    }
  }
  return best;
}

/**
 * The assistant's events as the asker reads them. A visitor who is not answered reads the
 * widget's fallback message instead of the assistant's own wording, so the start of a generated
 * answer is held back while it could still be that wording (a word or two at most of any other
 * answer); `done` is the use case's own, sent once the turn is recorded.
 */
function visitorHold(asker: Asker, emit: (event: AskQuestionEvent) => void) {
  let held = '';
  let flowing = asker.kind !== 'visitor';
  return {
    forward(event: AskEvent) {
      if (event.type === 'done') return;
      if (event.type === 'citations' && asker.kind === 'visitor') return;
      if (event.type !== 'answer' || flowing) return emit(event);
      held += event.text;
      if (mayBeNotFoundReply(held)) return;
      flowing = true;
      emit({ type: 'answer', text: held });
    },
    /** The visitor's text when nothing flowed yet (the fallback message, or an answer held back whole), then its citations. */
    settle(read: AskResponse) {
      if (asker.kind !== 'visitor') return;
      if (!flowing) emit({ type: 'answer', text: read.answer });
      emit({ type: 'citations', citations: read.citations });
    },
  };
}

/**
 * What a visitor may see of a citation: its number, its title, its link when that is http(s), and
 * the page or section of an uploaded file's passage.
 */
export function visitorCitations(citations: Citation[]): VisitorCitation[] {
  return citations.map((c) => ({
    number: c.number,
    title: c.title,
    url: webLink(c.url),
    ...(c.page !== undefined ? { page: c.page } : {}),
    ...(c.section !== undefined ? { section: c.section } : {}),
  }));
}

/** A product's price as `sourceData` holds it (`price`, with `currency` when given), or null. */
export function priceOf(sourceData: Record<string, unknown> | null): string | null {
  if (!sourceData) return null;
  const { price, currency } = sourceData;
  const amount = typeof price === 'number' && Number.isFinite(price) ? price.toFixed(2) : typeof price === 'string' && price.trim() ? price.trim() : null;
  if (amount === null) return null;
  return typeof currency === 'string' && currency.trim() && !amount.includes(currency.trim()) ? `${amount} ${currency.trim()}` : amount;
}
