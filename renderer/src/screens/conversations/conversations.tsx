import { type FormEvent, useState } from 'react';
import type { AdminConversationSummary } from '../../../../common/contract/conversations.ts';
import {
  conversationExportUrl,
  type ConversationListQuery,
  deleteConversation,
  deleteOlderConversations,
  getConversation,
  listConversations,
} from '../../api/conversations.ts';
import { listKnowledgeBases } from '../../api/knowledge-bases.ts';
import { listWidgets } from '../../api/widgets.ts';
import { FilterSelect } from '../../components/filter-select.tsx';
import { Badge, Confirm, DataTable, EmptyState, ErrorNote, PageHeader, errorText, useLoad } from '../../components/ui.tsx';
import { formatDate } from '../../format.ts';
import { href, navigate } from '../../router.ts';
import { useSession } from '../../session.tsx';

/** The filters as the form holds them; empty strings and false mean "any". */
type Filters = { source: string; widgetId: string; knowledgeBaseId: string; from: string; to: string; unanswered: boolean; thumbsDown: boolean; q: string };
const NO_FILTERS: Filters = { source: '', widgetId: '', knowledgeBaseId: '', from: '', to: '', unanswered: false, thumbsDown: false, q: '' };
/** The Source filter's choices: who asked. */
const SOURCES = [
  { id: 'visitor', name: 'Website visitors' },
  { id: 'dashboard', name: 'Dashboard chat (staff)' },
];
/** Kept while the dashboard is open, so coming back from a conversation finds the same list. */
let lastFilters = NO_FILTERS;

/** The query of a filter set (dates are whole days in the browser's time zone); what is left empty is not sent. */
function filterQuery(f: Filters): ConversationListQuery {
  return {
    source: (f.source || undefined) as ConversationListQuery['source'],
    widgetId: f.widgetId || undefined,
    knowledgeBaseId: f.knowledgeBaseId || undefined,
    from: f.from ? new Date(`${f.from}T00:00`).toISOString() : undefined,
    to: f.to ? new Date(new Date(`${f.to}T00:00`).getTime() + 86_400_000).toISOString() : undefined,
    unanswered: f.unanswered ? 'true' : undefined,
    thumbsDown: f.thumbsDown ? 'true' : undefined,
    q: f.q.trim() || undefined,
  };
}

/** `#/conversations` and `#/conversations/<id>`. */
export function ConversationsScreen({ route }: { route: string[] }) {
  const id = route[1];
  return id ? <ConversationPage key={id} id={id} /> : <ConversationList />;
}

function ConversationList() {
  const { session } = useSession();
  const [filters, setFilters] = useState<Filters>(lastFilters);
  const [draft, setDraft] = useState<Filters>(lastFilters);
  const [more, setMore] = useState<{ rows: AdminConversationSummary[]; cursor: string | null; error: string | null }>({ rows: [], cursor: null, error: null });
  const [deleting, setDeleting] = useState(false);
  const [olderThan, setOlderThan] = useState('');
  const [deleted, setDeleted] = useState<number | null>(null);
  const widgets = useLoad((signal) => listWidgets(signal), []);
  const kbs = useLoad((signal) => listKnowledgeBases(signal), []);
  const page = useLoad(async (signal) => {
    const result = await listConversations(filterQuery(filters), signal);
    setMore({ rows: [], cursor: result.nextCursor, error: null });
    return result;
  }, [filters]);
  const rows = [...(page.data?.data ?? []), ...more.rows];
  const filtered = JSON.stringify(filters) !== JSON.stringify(NO_FILTERS);
  const apply = (next: Filters) => {
    lastFilters = next;
    setFilters(next);
  };
  const loadMore = async () => {
    if (!more.cursor) return;
    try {
      const next = await listConversations({ ...filterQuery(filters), cursor: more.cursor });
      setMore({ rows: [...more.rows, ...next.data], cursor: next.nextCursor, error: null });
    } catch (e) {
      setMore({ ...more, error: errorText(e) });
    }
  };
  const exportHref = (format: 'csv' | 'jsonl') => conversationExportUrl({ ...filterQuery(filters), format });
  const set = <K extends keyof Filters>(key: K, value: Filters[K]) => setDraft({ ...draft, [key]: value });

  return (
    <>
      <PageHeader title="Conversations">
        <a className="button secondary" href={exportHref('csv')} download data-testid="export-csv">
          Export CSV
        </a>
        <a className="button secondary" href={exportHref('jsonl')} download data-testid="export-jsonl">
          Export JSON Lines
        </a>
        {session.canManage ? (
          <button type="button" className="danger" onClick={() => setDeleting(true)}>
            Delete older…
          </button>
        ) : null}
      </PageHeader>
      <p className="hint">
        What visitors asked your website's assistant and what your team asked in the dashboard's chat, with what it answered. The export holds
        what the filters below select.
      </p>
      {!session.canManage ? <p className="note">You can read and export conversations; only the Owner and Admins can delete them.</p> : null}
      <form
        className="filters"
        aria-label="Conversation filters"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          apply(draft);
        }}
      >
        <div className="field">
          <label htmlFor="conv-q">Question contains</label>
          <input id="conv-q" type="search" value={draft.q} onChange={(e) => set('q', e.target.value)} maxLength={200} />
        </div>
        <FilterSelect id="conv-source" label="Source" allLabel="Visitors and dashboard" value={draft.source} onChange={(value) => set('source', value)} options={SOURCES} name={(s) => s.name} />
        <FilterSelect id="conv-widget" label="Widget" allLabel="All widgets" value={draft.widgetId} onChange={(value) => set('widgetId', value)} options={widgets.data?.data} name={(w) => w.name} />
        <FilterSelect id="conv-kb" label="Knowledge base" allLabel="All knowledge bases" value={draft.knowledgeBaseId} onChange={(value) => set('knowledgeBaseId', value)} options={kbs.data?.data} />
        <div className="field">
          <label htmlFor="conv-from">From</label>
          <input id="conv-from" type="date" value={draft.from} onChange={(e) => set('from', e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="conv-to">To</label>
          <input id="conv-to" type="date" value={draft.to} onChange={(e) => set('to', e.target.value)} />
        </div>
        <fieldset className="plain">
          <legend className="sr-only">Only</legend>
          <label className="check">
            <input type="checkbox" checked={draft.unanswered} onChange={(e) => set('unanswered', e.target.checked)} /> Only unanswered
          </label>
          <label className="check">
            <input type="checkbox" checked={draft.thumbsDown} onChange={(e) => set('thumbsDown', e.target.checked)} /> Only thumbs down
          </label>
        </fieldset>
        <button type="submit" className="primary">
          Apply
        </button>
        {filtered ? (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setDraft(NO_FILTERS);
              apply(NO_FILTERS);
            }}
          >
            Clear
          </button>
        ) : null}
      </form>
      <ErrorNote error={page.error ?? more.error} />
      {deleted !== null ? (
        <p className="valid-note" role="status">
          {deleted === 1 ? '1 conversation deleted.' : `${deleted.toLocaleString()} conversations deleted.`}
        </p>
      ) : null}
      {page.data && rows.length === 0 ? (
        filtered ? (
          <EmptyState title="No conversation matches these filters">
            <p>Widen the dates, choose all widgets and both sources, or clear the filters.</p>
          </EmptyState>
        ) : (
          <EmptyState title="No conversations yet">
            <p>
              Visitors' questions show up here once a widget is on your website. <a href={href('widgets')}>Create a widget</a> and paste its
              line into your shop's pages. Questions asked in the dashboard's <a href={href('chat')}>Chat</a> show up here too.
            </p>
          </EmptyState>
        )
      ) : null}
      {rows.length > 0 ? (
        <DataTable caption="Conversations" columns={['Started', 'Asked by', 'First question', 'Questions', 'Outcome', '']}>
          {rows.map((c) => (
            <tr key={c.id} data-conversation-id={c.id}>
              <td className="date">{formatDate(c.startedAt)}</td>
              <td>
                <AskedBy conversation={c} />
              </td>
              <td>{c.firstQuestion}</td>
              <td className="number">{c.turns}</td>
              <td>
                <Outcome conversation={c} />
              </td>
              <td>
                <a className="button secondary" href={href('conversations', c.id)} aria-label={`Read the conversation started ${formatDate(c.startedAt)}`}>
                  Read
                </a>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      {more.cursor ? (
        <button type="button" className="secondary" onClick={() => void loadMore()}>
          Show more
        </button>
      ) : null}
      <Confirm
        title="Delete older conversations?"
        open={deleting}
        confirmLabel="Delete conversations"
        message={
          <>
            <p>Every conversation last active before this day is deleted, with all its questions and answers. This cannot be undone.</p>
            <div className="field">
              <label htmlFor="conv-older">Delete conversations older than</label>
              <input id="conv-older" type="date" required value={olderThan} max={new Date().toISOString().slice(0, 10)} onChange={(e) => setOlderThan(e.target.value)} />
            </div>
          </>
        }
        onCancel={() => setDeleting(false)}
        onConfirm={async () => {
          if (!olderThan) throw new Error('Choose a day first.');
          const result = await deleteOlderConversations({ before: new Date(`${olderThan}T00:00`).toISOString() });
          setDeleted(result.deleted);
          setDeleting(false);
          page.reload();
        }}
      />
    </>
  );
}

/** Who asked: the dashboard user, or the widget a visitor used. */
function AskedBy({ conversation: c }: { conversation: AdminConversationSummary }) {
  if (c.source === 'dashboard') {
    return (
      <>
        <Badge value="dashboard" /> {c.user?.name}
      </>
    );
  }
  return (
    <>
      <Badge value="visitor" /> {c.widgetName ?? <span className="hint">deleted widget</span>}
    </>
  );
}

function Outcome({ conversation: c }: { conversation: AdminConversationSummary }) {
  return (
    <>
      {c.unanswered ? <Badge value="expired" label={`${c.unanswered} unanswered`} /> : <Badge value="active" label="answered" />}{' '}
      {c.thumbsDown ? <Badge value="failed" label={`${c.thumbsDown} thumbs down`} /> : null} {c.thumbsUp ? <Badge value="succeeded" label={`${c.thumbsUp} thumbs up`} /> : null}
    </>
  );
}

function ConversationPage({ id }: { id: string }) {
  const { session } = useSession();
  const loaded = useLoad((signal) => getConversation(id, signal), [id]);
  const [confirming, setConfirming] = useState(false);
  const c = loaded.data;
  return (
    <>
      <PageHeader title="Conversation">
        {c && session.canManage ? (
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Delete
          </button>
        ) : null}
        <a className="button secondary" href={href('conversations')}>
          All conversations
        </a>
      </PageHeader>
      <ErrorNote error={loaded.error} />
      {c ? (
        <>
          <dl className="meta">
            <div>
              <dt>Source</dt>
              <dd>{c.source === 'dashboard' ? 'Dashboard chat' : 'Website visitor'}</dd>
            </div>
            {c.source === 'dashboard' ? (
              <div>
                <dt>User</dt>
                <dd>{c.user?.name}</dd>
              </div>
            ) : (
              <>
                <div>
                  <dt>Widget</dt>
                  <dd>{c.widgetName ?? 'deleted widget'}</dd>
                </div>
                <div>
                  <dt>Page</dt>
                  <dd>{c.origin}</dd>
                </div>
              </>
            )}
            <div>
              <dt>Started</dt>
              <dd>{formatDate(c.startedAt)}</dd>
            </div>
            <div>
              <dt>Outcome</dt>
              <dd>
                <Outcome conversation={c} />
              </dd>
            </div>
          </dl>
          <ol className="turns" aria-label="Questions and answers">
            {c.turnList.map((t) => (
              <li key={t.id} className="turn" data-testid="conversation-turn">
                <p className="question">
                  <span className="sr-only">{c.source === 'dashboard' ? `${c.user?.name ?? 'The user'} asked: ` : 'The visitor asked: '}</span>
                  {t.question}
                </p>
                <div className="answer">
                  <p className="answer-text">{t.answer}</p>
                  {t.citations.length ? (
                    <ol className="citations" aria-label="Sources">
                      {t.citations.map((cite) => (
                        <li key={cite.number}>
                          {cite.url ? (
                            <a href={cite.url} target="_blank" rel="noreferrer noopener">
                              [{cite.number}] {cite.title}
                            </a>
                          ) : (
                            `[${cite.number}] ${cite.title}`
                          )}
                        </li>
                      ))}
                    </ol>
                  ) : null}
                  <p className="hint">
                    {formatDate(t.askedAt)} · {t.knowledgeBaseId} · {Math.round(t.latencyMs)} ms ·{' '}
                    {t.answered ? 'answered' : <strong>{c.source === 'dashboard' ? 'not in the knowledge base' : 'not in the knowledge base (the fallback message was shown)'}</strong>}
                    {t.feedback ? ` · rated ${t.feedback === 'up' ? 'helpful (thumbs up)' : 'not helpful (thumbs down)'}` : ''}
                  </p>
                </div>
              </li>
            ))}
          </ol>
        </>
      ) : null}
      <Confirm
        title="Delete this conversation?"
        open={confirming}
        confirmLabel="Delete conversation"
        message={<p>Its questions, answers and ratings are deleted for good. The usage counts keep counting them.</p>}
        onCancel={() => setConfirming(false)}
        onConfirm={async () => {
          await deleteConversation(id);
          setConfirming(false);
          navigate('conversations');
        }}
      />
    </>
  );
}
