import type { AskSuggestion } from '../../common/contract/ask.ts';
import type { VisitorCitation, VisitorProduct, VisitorSession } from '../../common/contract/widget.ts';
import type { SessionStore } from './api.ts';

/** One exchange's half, as shown and as sent back with a follow-up question. */
export type Turn = {
  role: 'user' | 'assistant';
  content: string;
  citations?: VisitorCitation[];
  answerId?: string;
  /** The question as the assistant read it, when it corrected a typo ("Showing results for …"). */
  correctedQuery?: string;
  /** The product the answer is about (its card). */
  product?: VisitorProduct;
  /** Feedback was given: the thumbs are not offered again. */
  rated?: boolean;
  /** The fallback was shown for this question: the widget offers to pass it to the shop. */
  unansweredQuestion?: string;
  /** The owner's curated questions close to the unanswered one ("Did you mean …?"), each asked by a click. */
  suggestions?: AskSuggestion[];
};

type Saved = { turns: Turn[]; session: VisitorSession | null };

/**
 * The conversation and the visitor session for the tab's life: sessionStorage, keyed by widget
 * id, so moving between a shop's pages keeps the chat. Where storage is refused (a sandboxed
 * frame, some private modes) the memory copy still serves the page.
 */
export class ConversationStore implements SessionStore {
  private readonly key: string;
  private saved: Saved = { turns: [], session: null };

  constructor(widgetId: string) {
    this.key = `localiq-widget:${widgetId}`;
    try {
      const raw = sessionStorage.getItem(this.key);
      const parsed = raw ? (JSON.parse(raw) as Partial<Saved>) : null;
      if (parsed && Array.isArray(parsed.turns)) this.saved = { turns: parsed.turns, session: parsed.session ?? null };
    } catch {
      // Unreadable or refused: start empty.
    }
  }

  private write(): void {
    try {
      sessionStorage.setItem(this.key, JSON.stringify(this.saved));
    } catch {
      // Full or refused: the memory copy is all there is.
    }
  }

  get turns(): readonly Turn[] {
    return this.saved.turns;
  }

  add(...turns: Turn[]): void {
    this.saved.turns.push(...turns);
    this.write();
  }

  markRated(answerId: string): void {
    for (const turn of this.saved.turns) if (turn.answerId === answerId) turn.rated = true;
    this.write();
  }

  clearTurns(): void {
    this.saved.turns = [];
    this.write();
  }

  get(): VisitorSession | null {
    return this.saved.session;
  }

  set(session: VisitorSession | null): void {
    this.saved.session = session;
    this.write();
  }
}
