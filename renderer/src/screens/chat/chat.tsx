import { type FormEvent, useEffect, useRef, useState } from 'react';
import { citationPlace } from '../../../../common/citation-place.ts';
import type { Citation } from '../../../../common/contract/admin.ts';
import type { AskContext, AskSuggestion } from '../../../../common/contract/ask.ts';
import type { DashboardAnswer } from '../../../../common/contract/conversations.ts';
import { rateAnswer } from '../../api/conversations.ts';
import { askKnowledgeBase, listKnowledgeBases } from '../../api/knowledge-bases.ts';
import { CodeBlock, EmptyState, ErrorNote, errorText, PageHeader, useLoad } from '../../components/ui.tsx';
import { curlExample } from '../../components/curl-example.ts';
import { itemHref } from '../knowledge/knowledge.tsx';
import { documentHref } from '../knowledge/document-view.tsx';

type Turn = {
  question: string;
  answer: string;
  citations: Citation[];
  done: boolean;
  answered: boolean | null;
  method: string | null;
  note: string | null;
  error: string | null;
  /** How the assistant read a question with a misspelt word (typo tolerance), else null. */
  correctedQuery: string | null;
  /** Where the server kept the answer (for thumbs up/down), once it is complete. */
  answerId: string | null;
  /** "owner" when the answer is one of the owner's curated answers. */
  source: 'owner' | null;
  /** Not answered: the curated questions close to it ("Did you mean …?"), each asked by a click. */
  suggestions: AskSuggestion[];
  /** The page or item the question was asked about, as the visitor's widget would send it. */
  context: AskContext | null;
  feedback: 'up' | 'down' | null;
};

/**
 * The chat on screen lives in memory, so it survives opening a cited item and coming back. The
 * server keeps each answer in this chat's conversation (Conversations screen): its id comes with
 * the first answer and goes with every next question, until "New conversation".
 */
let remembered: { knowledgeBaseId: string; turns: Turn[]; conversationId: string | null; pageContext: AskContext } = {
  knowledgeBaseId: '',
  turns: [],
  conversationId: null,
  pageContext: {},
};

/** The page context as the API takes it: only the fields filled in, none when both are empty. */
function filledContext(context: AskContext): AskContext | null {
  const url = context.url?.trim();
  const externalId = context.externalId?.trim();
  if (!url && !externalId) return null;
  return { ...(url ? { url } : {}), ...(externalId ? { externalId } : {}) };
}

/** A passage from a file's page or section opens the document there; any other, the item. */
function citationHref(c: Citation): string {
  return c.page !== undefined || c.section !== undefined ? documentHref(c, { page: c.page, section: c.section }) : itemHref(c);
}

function AnswerText({ text, citations }: { text: string; citations: Citation[] }) {
  const parts = text.split(/(\[\d+\])/g);
  return (
    <p className="answer-text">
      {parts.map((part, i) => {
        const match = /^\[(\d+)\]$/.exec(part);
        const cited = match ? citations.find((c) => c.number === Number(match[1])) : undefined;
        return cited ? (
          <a key={i} className="cite" href={citationHref(cited)} title={cited.title} aria-label={`Source ${cited.number}: ${cited.title}`}>
            [{cited.number}]
          </a>
        ) : (
          <span key={i}>{part}</span>
        );
      })}
    </p>
  );
}

export function ChatScreen() {
  const kbs = useLoad((signal) => listKnowledgeBases(signal), []);
  const [knowledgeBaseId, setKnowledgeBaseId] = useState(remembered.knowledgeBaseId);
  const [turns, setTurns] = useState<Turn[]>(remembered.turns);
  const [conversationId, setConversationId] = useState<string | null>(remembered.conversationId);
  const [pageContext, setPageContext] = useState<AskContext>(remembered.pageContext);
  const [busy, setBusy] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const endRef = useRef<HTMLDivElement>(null);
  const list = kbs.data?.data ?? [];

  useEffect(() => {
    if (!knowledgeBaseId && list[0]) setKnowledgeBaseId(list[0].id);
  }, [list, knowledgeBaseId]);
  useEffect(() => {
    remembered = { knowledgeBaseId, turns, conversationId, pageContext };
    endRef.current?.scrollIntoView({ block: 'end' });
  }, [knowledgeBaseId, turns, conversationId, pageContext]);
  useEffect(() => () => abort.current?.abort(), []);

  const update = (index: number, change: Partial<Turn> | ((t: Turn) => Partial<Turn>)) =>
    setTurns((all) => all.map((t, i) => (i === index ? { ...t, ...(typeof change === 'function' ? change(t) : change) } : t)));

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formEl = event.currentTarget;
    const question = String(new FormData(formEl).get('question') ?? '').trim();
    if (!question || !knowledgeBaseId) return;
    formEl.reset();
    void ask(question);
  };

  const ask = async (question: string) => {
    if (!question || !knowledgeBaseId || busy) return;
    const context = filledContext(pageContext);
    const index = turns.length;
    const conversation = turns
      .filter((t) => t.done && !t.error)
      .slice(-5)
      .flatMap((t) => [
        { role: 'user' as const, content: t.question.slice(0, 8000) },
        { role: 'assistant' as const, content: t.answer.slice(0, 8000) },
      ]);
    setTurns((all) => [
      ...all,
      {
        question,
        answer: '',
        citations: [],
        done: false,
        answered: null,
        method: null,
        note: null,
        error: null,
        correctedQuery: null,
        answerId: null,
        feedback: null,
        source: null,
        suggestions: [],
        context,
      },
    ]);
    setBusy(true);
    abort.current = new AbortController();
    try {
      await askKnowledgeBase(
        knowledgeBaseId,
        {
          question,
          stream: true,
          ...(conversation.length ? { conversation } : {}),
          ...(conversationId ? { conversationId } : {}),
          ...(context ? { context } : {}),
        },
        (type, data) => {
          if (type === 'answer') update(index, (t) => ({ answer: t.answer + (data as { text: string }).text }));
          else if (type === 'fallback') update(index, { answer: '', note: (data as { reason: string }).reason });
          else if (type === 'citations') update(index, { citations: (data as { citations: Citation[] }).citations });
          else if (type === 'done') {
            const r = data as DashboardAnswer;
            if (r.conversationId) setConversationId(r.conversationId);
            update(index, {
              answer: r.answer,
              citations: r.citations,
              answered: r.answered,
              method: r.method,
              correctedQuery: r.correctedQuery ?? null,
              answerId: r.answerId ?? null,
              source: r.source ?? null,
              suggestions: r.suggestions ?? [],
              done: true,
            });
          } else if (type === 'error') update(index, { error: (data as { message: string }).message, done: true });
        },
        abort.current.signal,
      );
    } catch (e) {
      if (!abort.current.signal.aborted) update(index, { error: errorText(e), done: true });
    } finally {
      update(index, { done: true });
      setBusy(false);
    }
  };

  const rate = async (index: number, rating: 'up' | 'down') => {
    const turn = turns[index];
    if (!turn?.answerId || !conversationId) return;
    try {
      await rateAnswer(conversationId, turn.answerId, { rating });
      update(index, { feedback: rating });
    } catch (e) {
      update(index, { error: errorText(e) });
    }
  };

  return (
    <>
      <PageHeader title="Chat">
        {turns.length ? (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setTurns([]);
              setConversationId(null);
            }}
            disabled={busy}
          >
            New conversation
          </button>
        ) : null}
      </PageHeader>
      <ErrorNote error={kbs.error} />
      {kbs.data && list.length === 0 ? (
        <EmptyState title="Nothing to ask about yet">
          <p>The assistant answers from your content. Push some items first, for example:</p>
          <CodeBlock code={curlExample()} label="curl example" />
        </EmptyState>
      ) : null}
      {list.length > 0 ? (
        <div className="chat">
          <div className="field inline">
            <label htmlFor="chat-kb">Knowledge base</label>
            <select id="chat-kb" value={knowledgeBaseId} onChange={(e) => setKnowledgeBaseId(e.target.value)} disabled={busy}>
              {list.map((kb) => (
                <option key={kb.id} value={kb.id}>
                  {kb.id} ({kb.itemCount} items)
                </option>
              ))}
            </select>
          </div>
          <details className="page-context" open={Boolean(filledContext(pageContext))}>
            <summary>Ask as a visitor on a page</summary>
            <p className="hint">
              The widget sends the page the visitor is on, so &ldquo;how long is this?&rdquo; is answered about the product that page shows. Fill in
              one to try it here.
            </p>
            <div className="field">
              <label htmlFor="chat-context-url">Page address</label>
              <input
                id="chat-context-url"
                type="url"
                placeholder="https://shop.example/products/oak-table"
                value={pageContext.url ?? ''}
                onChange={(e) => setPageContext({ ...pageContext, url: e.target.value })}
                disabled={busy}
              />
            </div>
            <div className="field">
              <label htmlFor="chat-context-item">Item external ID</label>
              <input
                id="chat-context-item"
                placeholder="sku-42"
                value={pageContext.externalId ?? ''}
                onChange={(e) => setPageContext({ ...pageContext, externalId: e.target.value })}
                disabled={busy}
              />
            </div>
          </details>
          <ol className="turns" aria-label="Conversation" aria-live="polite" aria-busy={busy}>
            {turns.length === 0 ? (
              <li className="hint">Ask a question about your content. Answers cite their sources; select a source to open it.</li>
            ) : null}
            {turns.map((t, i) => (
              <li key={i} className="turn">
                <p className="question">
                  <span className="sr-only">You asked: </span>
                  {t.question}
                </p>
                {t.context ? (
                  <p className="hint asked-on" data-testid="asked-on">
                    Asked on {t.context.externalId ? `item ${t.context.externalId}` : t.context.url}
                  </p>
                ) : null}
                <div className="answer" data-testid="answer">
                  {t.correctedQuery ? (
                    <p className="hint" data-testid="corrected-query">
                      Read as: <em>{t.correctedQuery}</em>
                    </p>
                  ) : null}
                  {t.note ? <p className="hint">{t.note}</p> : null}
                  {t.answer ? <AnswerText text={t.answer} citations={t.citations} /> : !t.done ? <p className="hint">Thinking…</p> : null}
                  {t.error ? <ErrorNote error={t.error} /> : null}
                  {t.citations.length ? (
                    <ol className="citations" aria-label="Sources">
                      {t.citations.map((c) => (
                        <li key={c.number}>
                          <a href={citationHref(c)} data-testid="citation">
                            [{c.number}] {c.title || c.externalId}
                            {citationPlace(c)}
                          </a>
                          <blockquote>{c.passage}</blockquote>
                        </li>
                      ))}
                    </ol>
                  ) : null}
                  {t.suggestions.length ? (
                    <div className="suggestions" role="group" aria-labelledby={`did-you-mean-${i}`} data-testid="suggestions">
                      <p className="hint" id={`did-you-mean-${i}`}>
                        Did you mean:
                      </p>
                      {t.suggestions.map((s) => (
                        <button key={s.id} type="button" className="secondary" disabled={busy} onClick={() => void ask(s.question)}>
                          {s.question}
                        </button>
                      ))}
                    </div>
                  ) : null}
                  {t.done && t.method ? <p className="hint">{answerHint(t)}</p> : null}
                  {t.answerId ? (
                    <p className="rating" role="group" aria-label="Was this answer helpful?">
                      <button type="button" className="secondary" aria-pressed={t.feedback === 'up'} onClick={() => void rate(i, 'up')}>
                        Helpful
                      </button>
                      <button type="button" className="secondary" aria-pressed={t.feedback === 'down'} onClick={() => void rate(i, 'down')}>
                        Not helpful
                      </button>
                    </p>
                  ) : null}
                </div>
              </li>
            ))}
          </ol>
          <div ref={endRef} />
          <form className="ask" onSubmit={onSubmit}>
            <label htmlFor="question" className="sr-only">
              Your question
            </label>
            <input id="question" name="question" placeholder="Ask a question…" autoComplete="off" maxLength={2000} required disabled={busy} />
            <button type="submit" className="primary" disabled={busy}>
              Ask
            </button>
            {busy ? (
              <button type="button" className="secondary" onClick={() => abort.current?.abort()}>
                Stop
              </button>
            ) : null}
          </form>
        </div>
      ) : null}
    </>
  );
}

/** Where an answer came from, or, when there is none, what to try next. */
function answerHint(turn: Turn): string {
  if (!turn.answered) return 'Try other words, or choose another knowledge base above.';
  if (turn.source === 'owner') return "Your own answer, given as you wrote it (Curated answers, on the knowledge base's page).";
  return turn.method === 'generative' ? 'Written by the language model from the sources.' : 'Taken from the sources.';
}
