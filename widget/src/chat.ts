import { VISITOR_CONVERSATION_MAX_TURNS as MAX_TURNS, VISITOR_TURN_MAX as TURN_MAX_CHARS } from '../../common/contract/visitor-limits.ts';
import type { AskSuggestion } from '../../common/contract/ask.ts';
import type { PublicWidgetConfig, WidgetStrings } from '../../common/contract/widget.ts';
import { ENGLISH_WIDGET_TEXTS } from '../../common/contract/widget-texts.ts';
import { WidgetError, type WidgetApi } from './api.ts';
import { asksForAPerson } from './asks-for-a-person.ts';
import { handoffForm, repliedTo, replyMessage } from './handoff.ts';
import { HandoffStore } from './handoff-store.ts';
import { renderAnswerText } from './answer-text.ts';
import { ICONS, el, icon } from './dom.ts';
import { botMessage, correctedNote, ratingButtons, sourcesList, thanksNote, userMessage } from './messages.ts';
import type { PageContext } from './page-context.ts';
import { PRODUCT_CARD_STYLES, productCard } from './product-card.ts';
import type { ConversationStore, Turn } from './store.ts';
import { stylesheet } from './styles.ts';
import { deriveTheme } from './theme.ts';

/** Numbers the "Did you mean" groups' headings, each group named by its own. */
let suggestionGroups = 0;

/** When a 429 came without a readable Retry-After (the server must expose the header to CORS). */
const DEFAULT_WAIT_SECONDS = 20;

/**
 * `float`: a launcher button and a panel over the shop's page. `page`: the chat filling the page
 * (the hosted page, a kiosk). `preview`: the open panel in the dashboard, asking nothing.
 */
export type Mode = 'float' | 'page' | 'preview';

export class Chat {
  private readonly launcher: HTMLButtonElement | null;
  private readonly panel: HTMLElement;
  private readonly log: HTMLElement;
  private readonly notice: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly announcer: HTMLElement;
  private asking: AbortController | null = null;
  private waitTimer = 0;
  /** The config's texts over the English set: a text the server did not send (an older server) is still there. */
  private readonly strings: WidgetStrings;
  /** The shop's replies to this visitor's handoffs, above the conversation; refreshed when the panel opens. */
  private readonly replies: HTMLElement = el('div', { class: 'replies' });
  private readonly handoffs: HandoffStore | null;

  constructor(
    root: ShadowRoot,
    private readonly mode: Mode,
    private readonly config: PublicWidgetConfig,
    /** null in preview: nothing is asked. */
    private readonly api: WidgetApi | null,
    private readonly store: ConversationStore | null,
    /** The page asked on (page-context.ts); null where there is no shop page (preview, the hosted page). */
    private readonly page: PageContext | null = null,
  ) {
    const s = (this.strings = { ...ENGLISH_WIDGET_TEXTS, ...config.strings });
    this.log = el('div', { class: 'log' });
    this.notice = el('p', { class: 'notice', hidden: '' });
    this.input = el('input', { type: 'text', 'aria-label': s.inputLabel, placeholder: s.placeholder, maxlength: String(config.questionMaxLength), autocomplete: 'off', enterkeyhint: 'send' });
    this.sendButton = el('button', { type: 'submit' }, s.send);
    this.announcer = el('div', { class: 'sr', 'aria-live': 'polite' });
    const form = el('form', { class: 'ask' }, this.input, this.sendButton);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.ask(this.input.value);
    });
    const restart = el('button', { type: 'button' }, s.newConversation);
    restart.addEventListener('click', () => this.restart());
    const askTeam = el('button', { type: 'button' }, s.handoffOffer);
    askTeam.addEventListener('click', () => this.offerHandoff(this.lastUnanswered()));
    this.handoffs = api ? new HandoffStore(api.widgetId) : null;
    const head = el('div', { class: 'head' }, el('h2', null, s.title), askTeam, restart);
    this.panel = el('div', { class: 'panel', id: 'localiq-panel', role: 'dialog', 'aria-label': s.title }, head, this.log, this.notice, form, this.announcer);
    const launcher = (this.launcher =
      mode === 'page'
        ? null
        : el('button', { class: 'launcher', type: 'button', 'aria-expanded': String(mode === 'preview'), 'aria-controls': 'localiq-panel' }, icon(ICONS.chat), el('span', null, s.launcherLabel)));

    if (mode === 'float' && launcher) {
      const close = el('button', { type: 'button', 'aria-label': s.close, title: s.close }, icon(ICONS.close));
      close.addEventListener('click', () => this.close());
      head.append(close);
      this.panel.hidden = true;
      launcher.addEventListener('click', () => (this.panel.hidden ? this.open() : this.close()));
      this.panel.addEventListener('keydown', (event) => {
        if (event.key === 'Escape') {
          event.stopPropagation();
          this.close();
        }
      });
    }
    if (!api) {
      // The preview shows the interface as a visitor sees it; only sending is off.
      this.sendButton.disabled = true;
      restart.setAttribute('aria-disabled', 'true');
      askTeam.setAttribute('aria-disabled', 'true');
    }

    const theme = deriveTheme(config.themeColor);
    // The launcher comes first in the tab order; the preview shows it below the panel (CSS order).
    // The language of every text in it: screen readers read it with that language's voice.
    const container = el('div', { class: `root ${mode}${config.position === 'bottom-left' ? ' left' : ''}`, lang: config.language ?? 'en' }, ...(launcher ? [launcher] : []), this.panel);
    root.replaceChildren(el('style', null, stylesheet(theme) + PRODUCT_CARD_STYLES), container);
    this.showConversation();
    // The floating panel reads the replies when it opens; the page shows itself open.
    if (mode === 'page') void this.showReplies();
  }

  open(): void {
    if (!this.launcher || this.mode !== 'float') return;
    this.panel.hidden = false;
    this.launcher.setAttribute('aria-expanded', 'true');
    this.scrollToEnd();
    this.input.focus();
    void this.showReplies();
  }

  /** The shop's replies to the handoffs this browser left (the sessions kept in localStorage). */
  private async showReplies(): Promise<void> {
    if (!this.api || !this.handoffs) return;
    const shown: HTMLElement[] = [];
    let firstReplied = '';
    for (const token of this.handoffs.tokens()) {
      try {
        const handoffs = await this.api.handoffs(token);
        // None left: the conversation was deleted or retention removed it.
        if (!handoffs.length) this.handoffs.forget(token);
        for (const handoff of handoffs) {
          const message = replyMessage(handoff, this.strings);
          if (message) shown.push(message);
          if (message && !firstReplied) firstReplied = repliedTo(this.strings, handoff.question);
        }
      } catch (error) {
        // A session the owner deleted (or retention removed) has nothing left to read.
        if (error instanceof WidgetError && error.status === 401) this.handoffs.forget(token);
      }
    }
    this.replies.replaceChildren(...shown);
    if (firstReplied) this.announce(firstReplied);
  }

  /** The last question the assistant could not answer, to fill the handoff form with. */
  private lastUnanswered(): string {
    return [...(this.store?.turns ?? [])].reverse().find((turn) => turn.unansweredQuestion)?.unansweredQuestion ?? '';
  }

  /** Shows the form that passes a question to the shop, at the end of the log. */
  private offerHandoff(question: string): void {
    const api = this.api;
    if (!api) return;
    this.log.querySelector('.handoff')?.closest('.msg')?.remove();
    const form = handoffForm({
      strings: this.strings,
      question,
      questionMaxLength: this.config.questionMaxLength,
      send: async (request) => {
        this.handoffs?.add(await api.handoff(request));
      },
      done: () => this.input.focus(),
    });
    this.log.append(form);
    this.scrollToEnd();
    form.querySelector<HTMLElement>(question ? 'input' : 'textarea')?.focus();
  }

  close(): void {
    if (!this.launcher || this.mode !== 'float') return;
    this.panel.hidden = true;
    this.launcher.setAttribute('aria-expanded', 'false');
    this.launcher.focus();
  }

  /** The greeting, then the stored turns, or the starter questions when there are none. */
  private showConversation(): void {
    this.log.replaceChildren(...(this.config.greeting.trim() ? [botMessage(this.config.greeting)] : []), this.replies);
    const turns = this.store?.turns ?? [];
    for (const turn of turns) {
      if (turn.role === 'user') this.log.append(userMessage(turn.content));
      else this.log.append(this.answerMessage(turn));
    }
    if (!turns.length && this.config.starterQuestions.length) {
      const starters = el('div', { class: 'starters' });
      for (const question of this.config.starterQuestions) {
        const button = el('button', { type: 'button' }, question);
        if (!this.api) button.setAttribute('aria-disabled', 'true');
        button.addEventListener('click', () => void this.ask(question));
        starters.append(button);
      }
      this.log.append(starters);
    }
  }

  private answerMessage(turn: Turn): HTMLElement {
    const bubble = botMessage(turn.content);
    if (turn.correctedQuery) bubble.prepend(correctedNote(turn.correctedQuery, this.strings));
    if (turn.product) bubble.append(productCard(turn.product, this.strings));
    if (turn.citations?.length) bubble.append(sourcesList(turn.citations, this.strings));
    if (turn.suggestions?.length) bubble.append(this.suggestionList(turn.suggestions));
    const unanswered = turn.unansweredQuestion;
    if (unanswered !== undefined) {
      const offer = el('button', { type: 'button', class: 'offer' }, this.strings.handoffOffer);
      if (!this.api) offer.setAttribute('aria-disabled', 'true');
      offer.addEventListener('click', () => this.offerHandoff(unanswered));
      bubble.append(el('p', { class: 'offer-hint' }, this.strings.handoffOfferHint), offer);
    }
    const answerId = turn.answerId;
    if (answerId) {
      bubble.append(turn.rated ? thanksNote(this.strings) : ratingButtons(this.strings, (rating) => this.rate(answerId, rating)));
    }
    return bubble;
  }

  /** "Did you mean …?": the owner's curated questions, each a button asking it as it is (which gets its answer). */
  private suggestionList(suggestions: AskSuggestion[]): HTMLElement {
    const heading = el('p', {}, this.strings.didYouMean);
    const group = el('div', { class: 'suggestions', role: 'group' }, heading);
    heading.id = `suggest-${++suggestionGroups}`;
    group.setAttribute('aria-labelledby', heading.id);
    for (const { question } of suggestions) {
      const button = el('button', { type: 'button' }, question);
      if (!this.api) button.setAttribute('aria-disabled', 'true');
      button.addEventListener('click', () => void this.ask(question));
      group.append(button);
    }
    return group;
  }

  private async ask(text: string): Promise<void> {
    const question = text.trim();
    if (!this.api || !question || this.asking) return;
    if (asksForAPerson(this.config.language ?? 'en', question)) {
      // Asked for a person, not the assistant: the form, with the last question it could not answer.
      this.log.querySelector('.starters')?.remove();
      this.log.append(userMessage(question));
      this.input.value = '';
      this.offerHandoff(this.lastUnanswered());
      return;
    }
    if (this.waitTimer) {
      this.show(this.strings.rateLimited);
      return;
    }
    const history = (this.store?.turns ?? [])
      .filter((turn) => turn.content.trim()) // the contract refuses empty turns (an empty fallback message)
      .slice(-MAX_TURNS)
      .map(({ role, content }) => ({ role, content: content.slice(0, TURN_MAX_CHARS) }));
    this.show(null);
    this.log.querySelector('.starters')?.remove();
    const asked = userMessage(question);
    const pending = el('div', { class: 'msg bot', 'aria-busy': 'true' }, el('p', { class: 'thinking' }, this.strings.thinking));
    this.log.append(asked, pending);
    this.input.value = '';
    this.scrollToEnd();
    const controller = (this.asking = new AbortController());
    this.sendButton.disabled = true;
    let streamed = '';
    try {
      const done = await this.api.ask(
        { question, conversation: history, ...this.pageContext() },
        (delta) => {
          streamed += delta;
          pending.replaceChildren(renderAnswerText(streamed));
          this.scrollToEnd();
        },
        controller.signal,
      );
      const turn: Turn = done.answered
        ? {
            role: 'assistant',
            content: done.answer || streamed,
            citations: done.citations ?? [],
            answerId: done.answerId,
            ...(done.correctedQuery ? { correctedQuery: done.correctedQuery } : {}),
            ...(done.product ? { product: done.product } : {}),
          }
        : {
            role: 'assistant',
            content: this.config.fallbackMessage,
            answerId: done.answerId,
            unansweredQuestion: question,
            ...(done.suggestions?.length ? { suggestions: done.suggestions } : {}),
          };
      this.store?.add({ role: 'user', content: question }, turn);
      pending.replaceWith(this.answerMessage(turn));
      this.scrollToEnd();
      // The offered questions are read out with the fallback: a screen reader learns they are there.
      const offered = turn.suggestions?.length ? ` ${this.strings.didYouMean} ${turn.suggestions.map((x) => x.question).join('; ')}` : '';
      this.announce(turn.content + offered);
    } catch (error) {
      if (controller.signal.aborted) return;
      // Nothing of the exchange is kept: the question goes back into the box to try again.
      asked.remove();
      pending.remove();
      if (!this.input.value) this.input.value = question;
      this.fail(error);
    } finally {
      if (this.asking === controller) {
        this.asking = null;
        if (!this.waitTimer) this.sendButton.disabled = false;
      }
    }
  }

  private pageContext() {
    const context = this.page?.forAsk(this.config.sendPageUrl);
    return context ? { context } : {};
  }

  private async rate(answerId: string, rating: 'up' | 'down'): Promise<boolean> {
    if (!this.api) return false;
    try {
      await this.api.feedback(answerId, rating);
    } catch (error) {
      this.fail(error);
      return false;
    }
    this.store?.markRated(answerId);
    this.announce(this.strings.thanks);
    this.input.focus();
    return true;
  }

  /** Says plainly why nothing came: busy (503), too many questions (429, send waits), unreachable. */
  private fail(error: unknown): void {
    const s = this.strings;
    const status = error instanceof WidgetError ? error.status : 0;
    const code = error instanceof WidgetError ? error.code : 'unreachable';
    if (status === 429 || code === 'rate_limited' || code === 'daily_limit_reached') {
      const seconds = (error instanceof WidgetError ? error.retryAfter : null) ?? DEFAULT_WAIT_SECONDS;
      this.sendButton.disabled = true;
      clearTimeout(this.waitTimer);
      this.waitTimer = window.setTimeout(() => {
        this.waitTimer = 0;
        this.sendButton.disabled = Boolean(this.asking);
      }, seconds * 1000);
      this.show(s.rateLimited);
    } else if (status === 503 || code === 'service_unavailable') {
      this.show(s.busy);
    } else {
      this.show(s.unreachable);
    }
  }

  private restart(): void {
    if (!this.api) return;
    this.asking?.abort();
    this.asking = null;
    if (!this.waitTimer) this.sendButton.disabled = false;
    this.store?.clearTurns();
    this.show(null);
    this.showConversation();
    this.input.focus();
  }

  private show(message: string | null): void {
    this.notice.hidden = !message;
    this.notice.textContent = message ?? '';
    if (message) this.announce(message);
  }

  /** Tells screen readers once, when an answer is complete (not at every delta). */
  private announce(message: string): void {
    this.announcer.textContent = '';
    setTimeout(() => (this.announcer.textContent = message), 50);
  }

  private scrollToEnd(): void {
    this.log.scrollTop = this.log.scrollHeight;
  }
}
