import { type FormEvent, useId, useState } from 'react';
import type { AdminHandoff } from '../../../../common/contract/handoffs.ts';
import { listHandoffs, replyToHandoff } from '../../api/handoffs.ts';
import { HANDOFFS_CHANGED } from '../../components/handoff-count.tsx';
import { ErrorNote, errorText, PageHeader, useLoad } from '../../components/ui.tsx';
import { formatDate } from '../../format.ts';
import { href } from '../../router.ts';
import { useSession } from '../../session.tsx';

type Filter = 'open' | 'answered' | 'all';
const FILTERS: Array<[Filter, string]> = [
  ['open', 'Open'],
  ['answered', 'Answered'],
  ['all', 'All'],
];

/**
 * Visitors' questions left for the shop (handoffs), each with the conversation that led to it;
 * the reply is written in place and read by the visitor in the widget. Every text a visitor wrote
 * (question, name, e-mail, phone) is shown as text, never as markup or a live link.
 */
export function InboxScreen() {
  const [filter, setFilter] = useState<Filter>('open');
  const { data, error, setData } = useLoad((signal) => listHandoffs({ status: filter }, signal), [filter]);

  const replied = (handoff: AdminHandoff) => {
    if (!data) return;
    const rows = data.data.map((h) => (h.id === handoff.id ? handoff : h)).filter((h) => filter === 'all' || h.status === filter || h.id === handoff.id);
    setData({ ...data, data: rows });
    window.dispatchEvent(new Event(HANDOFFS_CHANGED));
  };

  return (
    <>
      <PageHeader title="Inbox" />
      <p className="hint">
        Questions visitors left for you in the widget, when the assistant could not answer or they asked for a person. Reply here: the visitor
        reads your reply in the widget when they come back, and can be reached by the contact they gave.
      </p>
      <div className="row-actions" role="group" aria-label="Show">
        {FILTERS.map(([value, label]) => (
          <button key={value} type="button" className={value === filter ? 'primary' : 'secondary'} aria-pressed={value === filter} onClick={() => setFilter(value)}>
            {label}
            {value !== 'all' && data ? ` (${data.counts[value]})` : ''}
          </button>
        ))}
      </div>
      <ErrorNote error={error} />
      {data && data.data.length === 0 ? <p className="hint">{filter === 'open' ? 'No open questions.' : 'Nothing here yet.'}</p> : null}
      {data?.data.map((handoff) => <HandoffCard key={handoff.id} handoff={handoff} onReplied={replied} />)}
    </>
  );
}

function HandoffCard({ handoff, onReplied }: { handoff: AdminHandoff; onReplied: (handoff: AdminHandoff) => void }) {
  const { session } = useSession();
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<number | null>(null);
  const ids = { heading: useId(), reply: useId(), save: useId() };

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = String(form.get('reply') ?? '').trim();
    if (!text) return setProblem('Write the reply first.');
    setBusy(true);
    setProblem(null);
    try {
      const result = await replyToHandoff(handoff.id, { text, saveAsAnswer: form.get('saveAsAnswer') === 'on' });
      setSaved(result.curatedAnswerId);
      onReplied(result.handoff);
    } catch (e) {
      setProblem(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel handoff" aria-labelledby={ids.heading} data-handoff={handoff.id}>
      <h2 id={ids.heading}>{handoff.question}</h2>
      <p className="hint">
        {handoff.status === 'open' ? 'Open' : 'Answered'} · {formatDate(handoff.createdAt)} · {handoff.widgetName ?? 'a deleted widget'} ·{' '}
        <a href={href('conversations', handoff.conversationId)}>the conversation</a>
      </p>
      <dl className="handoff-contact">
        <dt>Name</dt>
        <dd>{handoff.name ?? '—'}</dd>
        <dt>E-mail</dt>
        <dd>{handoff.email ?? '—'}</dd>
        <dt>Phone</dt>
        <dd>{handoff.phone ?? '—'}</dd>
      </dl>
      {handoff.conversation.length ? (
        <details>
          <summary>What the visitor asked before ({handoff.conversation.length})</summary>
          <ol className="handoff-turns">
            {handoff.conversation.map((turn, i) => (
              <li key={i}>
                <p>
                  <strong>{turn.question}</strong>
                </p>
                <p className={turn.answered ? undefined : 'hint'}>{turn.answered ? turn.answer : `Not answered: ${turn.answer || 'the fallback message'}`}</p>
              </li>
            ))}
          </ol>
        </details>
      ) : null}
      {handoff.reply ? (
        <div className="handoff-reply">
          <p className="hint">
            Replied {formatDate(handoff.reply.at)}
            {handoff.reply.by ? ` by ${handoff.reply.by}` : ''}:
          </p>
          <p className="curated-answer-text">{handoff.reply.text}</p>
        </div>
      ) : null}
      <form className="form" onSubmit={(e) => void submit(e)} aria-label={`Reply to ${handoff.question}`}>
        <div className="field">
          <label htmlFor={ids.reply}>{handoff.reply ? 'Replace the reply' : 'Reply'}</label>
          <textarea id={ids.reply} name="reply" rows={3} maxLength={8000} required />
        </div>
        {session.canManage ? (
          <label className="check" htmlFor={ids.save}>
            <input id={ids.save} type="checkbox" name="saveAsAnswer" />
            <span>
              Also save as the answer to this question <span className="hint">a curated answer of {handoff.knowledgeBaseId}: visitors asking the same, however worded, get it</span>
            </span>
          </label>
        ) : null}
        <ErrorNote error={problem} />
        {saved !== null ? (
          <p className="valid-note" role="status">
            Saved as a curated answer.
          </p>
        ) : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            Send the reply
          </button>
        </div>
      </form>
    </section>
  );
}
