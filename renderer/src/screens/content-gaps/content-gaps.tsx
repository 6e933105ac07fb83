import { type FormEvent, useState } from 'react';
import type { AdminContentGap, WriteAnswerResult } from '../../../../common/contract/content-gaps.ts';
import { getContentGapReport, writeGapAnswer } from '../../api/content-gaps.ts';
import { LinkAnswerForm } from './link-answer.tsx';
import { listKnowledgeBases } from '../../api/knowledge-bases.ts';
import { listWidgets } from '../../api/widgets.ts';
import { FilterSelect } from '../../components/filter-select.tsx';
import { EmptyState, ErrorNote, Modal, PageHeader, errorText, useLoad } from '../../components/ui.tsx';
import { formatDate, formatNumber } from '../../format.ts';
import { href } from '../../router.ts';
import { useSession } from '../../session.tsx';

type Status = 'open' | 'answered' | 'all';

/** `#/content-gaps`: what visitors asked that the knowledge bases could not answer, most visitors first. */
export function ContentGapsScreen() {
  const { session } = useSession();
  const [status, setStatus] = useState<Status>('open');
  const [widgetId, setWidgetId] = useState('');
  const [knowledgeBaseId, setKnowledgeBaseId] = useState('');
  const [writing, setWriting] = useState<AdminContentGap | null>(null);
  const [linking, setLinking] = useState<AdminContentGap | null>(null);
  const [written, setWritten] = useState<string | null>(null);
  const widgets = useLoad((signal) => listWidgets(signal), []);
  const kbs = useLoad((signal) => listKnowledgeBases(signal), []);
  const report = useLoad(
    (signal) => getContentGapReport({ status, widgetId, knowledgeBaseId }, signal),
    [status, widgetId, knowledgeBaseId],
  );
  const gaps = report.data?.data ?? [];

  return (
    <>
      <PageHeader title="Content gaps" />
      <p className="hint">
        Questions visitors asked that your knowledge bases could not answer, or whose answer they rated down. Wordings of the same question
        are grouped, and the groups most visitors asked come first. Write the answer once, and the assistant uses it from then on.
      </p>
      <form className="filters" aria-label="Content gap filters" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor="gap-status">Show</label>
          <select id="gap-status" value={status} onChange={(e) => setStatus(e.target.value as Status)}>
            <option value="open">Not answered yet</option>
            <option value="answered">Answered</option>
            <option value="all">All</option>
          </select>
        </div>
        <FilterSelect id="gap-widget" label="Widget" allLabel="All widgets" value={widgetId} onChange={setWidgetId} options={widgets.data?.data} name={(w) => w.name} />
        <FilterSelect id="gap-kb" label="Knowledge base" allLabel="All knowledge bases" value={knowledgeBaseId} onChange={setKnowledgeBaseId} options={kbs.data?.data} />
      </form>
      <ErrorNote error={report.error} />
      {written ? (
        <p className="valid-note" role="status">
          {written}
        </p>
      ) : null}
      {report.data && report.data.pending > 0 ? (
        <p className="hint" role="status">
          {formatNumber(report.data.pending)} recent questions are still being grouped; they show up here in a few seconds.
        </p>
      ) : null}
      {report.data && gaps.length === 0 ? (
        status === 'answered' ? (
          <EmptyState title="No answered gaps">
            <p>Groups you write an answer for move here.</p>
          </EmptyState>
        ) : (
          <EmptyState title="No content gaps">
            <p>
              Every question visitors asked here was answered, and no answer was rated down. Questions show up once a widget is on your website:{' '}
              <a href={href('widgets')}>set one up</a>, or read what visitors asked under <a href={href('conversations')}>Conversations</a>.
            </p>
          </EmptyState>
        )
      ) : null}
      <ol className="gap-list" aria-label="Content gaps">
        {gaps.map((gap) => (
          <li key={gap.id} className="panel" data-gap-id={gap.id}>
            <h2>{gap.label}</h2>
            <dl className="stats">
              <div>
                <dt>Visitors</dt>
                <dd>{formatNumber(gap.visitors)}</dd>
              </div>
              <div>
                <dt>Times asked</dt>
                <dd>{formatNumber(gap.asked)}</dd>
              </div>
              <div>
                <dt>Not answered</dt>
                <dd>{formatNumber(gap.abstained)}</dd>
              </div>
              <div>
                <dt>Rated down</dt>
                <dd>{formatNumber(gap.thumbsDown)}</dd>
              </div>
            </dl>
            <p className="hint">
              Knowledge base {gap.knowledgeBaseId} · last asked {formatDate(gap.lastAskedAt)}
              {gap.answeredAt
                ? ` · ${gap.linkedAnswerId !== null ? 'answered by one of your answers' : 'answer written'} ${formatDate(gap.answeredAt)}${gap.askedSinceAnswer ? `, asked ${gap.askedSinceAnswer} more times since without an answer` : ''}`
                : ''}
            </p>
            <div className="two-col">
              <section aria-label="How visitors asked it">
                <h3>How visitors asked it</h3>
                <ul>
                  {gap.examples.map((e) => (
                    <li key={e.question}>
                      {e.question} {e.asked > 1 ? <span className="hint">×{e.asked}</span> : null}
                    </li>
                  ))}
                </ul>
              </section>
              <section aria-label="Found anyway">
                <h3>Found anyway</h3>
                {gap.nearestItems.length ? (
                  <ul>
                    {gap.nearestItems.map((item) => (
                      <li key={`${item.integrationId}/${item.externalId}`}>
                        <a href={href('knowledge', gap.knowledgeBaseId, 'items', item.integrationId, item.externalId)}>{item.title || item.externalId}</a>
                      </li>
                    ))}
                  </ul>
                ) : (
                  <p className="hint">Nothing in the knowledge base comes close.</p>
                )}
              </section>
            </div>
            {session.canManage ? (
              <div className="actions">
                <button type="button" className="primary" onClick={() => setWriting(gap)}>
                  {gap.answeredAt ? 'Change the answer' : 'Write the answer'}
                </button>
                <button type="button" className="secondary" onClick={() => setLinking(gap)}>
                  Answered by one of your answers
                </button>
              </div>
            ) : null}
          </li>
        ))}
      </ol>
      {!session.canManage && gaps.length > 0 ? <p className="note">Only the Owner and Admins can write answers.</p> : null}
      <Modal title="Answered by one of your answers" open={linking !== null} onClose={() => setLinking(null)}>
        {linking ? (
          <LinkAnswerForm
            gap={linking}
            onCancel={() => setLinking(null)}
            onLinked={(question, added) => {
              setLinking(null);
              setWritten(
                `Linked to your answer "${question}": ${added === 1 ? 'one more wording' : `${added} more wordings`} of this question now get${added === 1 ? 's' : ''} it as written.`,
              );
              report.reload();
            }}
          />
        ) : null}
      </Modal>
      <Modal title="Write the answer" open={writing !== null} onClose={() => setWriting(null)}>
        {writing ? (
          <AnswerForm
            gap={writing}
            onCancel={() => setWriting(null)}
            onWritten={(result) => {
              setWriting(null);
              setWritten(
                result.curatedAnswerId !== null
                  ? `Answer saved as a curated answer of ${result.knowledgeBaseId}: visitors asking this question get it as written from now on. It is also saved as page "${result.externalId}", which is being indexed for nearby questions.`
                  : `Answer saved as page "${result.externalId}" in ${result.knowledgeBaseId}. It is being indexed and answers visitors within moments.`,
              );
              report.reload();
            }}
          />
        ) : null}
      </Modal>
    </>
  );
}

function AnswerForm({ gap, onCancel, onWritten }: { gap: AdminContentGap; onCancel: () => void; onWritten: (result: WriteAnswerResult) => void }) {
  const [title, setTitle] = useState(gap.label.replace(/\?+$/, ''));
  const [content, setContent] = useState('');
  const [url, setUrl] = useState('');
  const [externalId, setExternalId] = useState(gap.answeredItem?.externalId ?? `answer-${gap.id}`);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onWritten(await writeGapAnswer(gap.id, { title, content, externalId, ...(url.trim() ? { url: url.trim() } : {}) }));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} aria-label="Answer">
      <p className="hint">
        Saved as a page of the knowledge base {gap.knowledgeBaseId}, processed like any pushed item: the next visitor who asks gets this answer, with the
        page cited. Visitors asked:{' '}
        <em>{gap.examples[0]?.question ?? gap.label}</em>
      </p>
      <div className="field">
        <label htmlFor="answer-title">Title</label>
        <input id="answer-title" required maxLength={1000} value={title} onChange={(e) => setTitle(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="answer-content">Answer</label>
        <textarea id="answer-content" required rows={6} value={content} onChange={(e) => setContent(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="answer-url">Link (optional)</label>
        <input id="answer-url" type="url" placeholder="https://shop.example/faq" value={url} onChange={(e) => setUrl(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="answer-id">Page id</label>
        <input id="answer-id" aria-describedby="answer-id-hint" required maxLength={200} value={externalId} onChange={(e) => setExternalId(e.target.value)} />
        <span className="hint" id="answer-id-hint">
          The name the page is kept under, already filled in for this question: leave it as it is. Pages written here belong to the integration
          "dashboard", apart from what your shop or CMS pushes, so they never replace its items; saving again under the same page id replaces
          that page.
        </span>
      </div>
      <ErrorNote error={error} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={busy}>
          Save the answer
        </button>
      </div>
    </form>
  );
}
