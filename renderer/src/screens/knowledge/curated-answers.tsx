import { type FormEvent, useId, useState } from 'react';
import type { CuratedAnswerView } from '../../../../common/contract/curated-answers.ts';
import { addCuratedAnswer, deleteCuratedAnswer, listCuratedAnswers, replaceCuratedAnswer } from '../../api/curated-answers.ts';
import { ConfirmDelete } from '../../components/confirm-delete.tsx';
import { DataTable, ErrorNote, errorText, useLoad } from '../../components/ui.tsx';
import { useSession } from '../../session.tsx';

/** The wordings of the "Also asked as" field: one per line, blank lines dropped. */
const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/**
 * A knowledge base's curated answers: the owner's own answers, given as written to any visitor
 * question that means the same, before the assistant searches. Members read them; the Owner and
 * Admins add, edit and delete them.
 */
export function CuratedAnswersPanel({ knowledgeBaseId }: { knowledgeBaseId: string }) {
  const { session } = useSession();
  const { data, error, setData } = useLoad((signal) => listCuratedAnswers(knowledgeBaseId, signal), [knowledgeBaseId]);
  const [editing, setEditing] = useState<CuratedAnswerView | 'new' | null>(null);
  const [deleting, setDeleting] = useState<CuratedAnswerView | null>(null);
  const headingId = useId();

  const saved = (answer: CuratedAnswerView) => {
    const rest = (data?.data ?? []).filter((a) => a.id !== answer.id);
    setData({ data: [...rest, answer].sort((a, b) => a.id - b.id) });
    setEditing(null);
  };

  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>Curated answers</h2>
      <p className="hint">
        Your own answer to a question, given exactly as written to any visitor question that means the same (however it is worded),
        before the assistant searches your content. Add the other ways visitors ask it to catch more of them.
      </p>
      <ErrorNote error={error} />
      {data && data.data.length > 0 ? (
        <DataTable caption={`Curated answers of ${knowledgeBaseId}`} columns={['Question', 'Answer', session.canManage && 'Actions']}>
          {data.data.map((answer) => (
            <tr key={answer.id}>
              <td>
                <strong>{answer.question}</strong>
                {answer.alsoAsked.length ? <div className="hint">Also asked as: {answer.alsoAsked.join(' · ')}</div> : null}
              </td>
              <td className="curated-answer-text">{answer.answer}</td>
              {session.canManage ? (
                <td>
                  <div className="row-actions">
                    <button type="button" className="secondary" onClick={() => setEditing(answer)} aria-label={`Edit the answer to ${answer.question}`}>
                      Edit
                    </button>
                    <button type="button" className="danger" onClick={() => setDeleting(answer)} aria-label={`Delete the answer to ${answer.question}`}>
                      Delete
                    </button>
                  </div>
                </td>
              ) : null}
            </tr>
          ))}
        </DataTable>
      ) : data ? (
        <p className="hint">No curated answers yet.</p>
      ) : null}
      {session.canManage && editing === null ? (
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          Add a curated answer
        </button>
      ) : null}
      {!session.canManage ? <p className="hint">Only the Owner and Admins change curated answers.</p> : null}
      {editing !== null ? (
        <CuratedAnswerForm knowledgeBaseId={knowledgeBaseId} answer={editing === 'new' ? null : editing} onSaved={saved} onCancel={() => setEditing(null)} />
      ) : null}
      <ConfirmDelete
        target={deleting}
        title="Delete this curated answer?"
        confirmLabel="Delete"
        message={(answer) => <p>Visitors asking “{answer.question}” will be answered from your content again.</p>}
        remove={async (answer) => {
          await deleteCuratedAnswer(knowledgeBaseId, answer.id);
          setData({ data: (data?.data ?? []).filter((a) => a.id !== answer.id) });
        }}
        onClose={() => setDeleting(null)}
      />
    </section>
  );
}

function CuratedAnswerForm({
  knowledgeBaseId,
  answer,
  onSaved,
  onCancel,
}: {
  knowledgeBaseId: string;
  answer: CuratedAnswerView | null;
  onSaved: (answer: CuratedAnswerView) => void;
  onCancel: () => void;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ids = { question: useId(), answer: useId(), alsoAsked: useId(), help: useId() };

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const body = { question: String(form.get('question') ?? '').trim(), answer: String(form.get('answer') ?? '').trim(), alsoAsked: lines(String(form.get('alsoAsked') ?? '')) };
    if (!body.question || !body.answer) {
      setProblem('Write both the question and its answer.');
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      onSaved(answer ? await replaceCuratedAnswer(knowledgeBaseId, answer.id, body) : await addCuratedAnswer(knowledgeBaseId, body));
    } catch (e) {
      setProblem(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form" onSubmit={(e) => void submit(e)} aria-label={answer ? 'Edit the curated answer' : 'Add a curated answer'}>
      <div className="field">
        <label htmlFor={ids.question}>Question</label>
        <input id={ids.question} name="question" maxLength={500} defaultValue={answer?.question ?? ''} required />
      </div>
      <div className="field">
        <label htmlFor={ids.answer}>Answer</label>
        <textarea id={ids.answer} name="answer" rows={4} maxLength={8000} defaultValue={answer?.answer ?? ''} required />
      </div>
      <div className="field">
        <label htmlFor={ids.alsoAsked}>Also asked as (optional, one per line)</label>
        <textarea id={ids.alsoAsked} name="alsoAsked" rows={3} defaultValue={answer?.alsoAsked.join('\n') ?? ''} aria-describedby={ids.help} />
        <p className="hint" id={ids.help}>
          Other wordings visitors use for the same question.
        </p>
      </div>
      <ErrorNote error={problem} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={busy}>
          {answer ? 'Save the answer' : 'Add the answer'}
        </button>
      </div>
    </form>
  );
}
