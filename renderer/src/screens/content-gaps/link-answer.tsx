import { type FormEvent, useState } from 'react';
import type { AdminContentGap } from '../../../../common/contract/content-gaps.ts';
import { linkGapAnswer } from '../../api/content-gaps.ts';
import { listCuratedAnswers } from '../../api/curated-answers.ts';
import { ErrorNote, errorText, useLoad } from '../../components/ui.tsx';
import { href } from '../../router.ts';

/**
 * "Answered by one of your answers": the group's question is one the owner already answered in a
 * curated answer of its knowledge base, worded otherwise. Picking that answer adds the group's
 * wordings to the answer's other wordings (`alsoAsked`), so visitors asking it so get it from then on.
 */
export function LinkAnswerForm({ gap, onCancel, onLinked }: { gap: AdminContentGap; onCancel: () => void; onLinked: (question: string, added: number) => void }) {
  const answers = useLoad((signal) => listCuratedAnswers(gap.knowledgeBaseId, signal), [gap.knowledgeBaseId]);
  const [chosen, setChosen] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const list = answers.data?.data ?? [];
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const answer = list.find((a) => String(a.id) === chosen);
    if (!answer) return;
    setBusy(true);
    setError(null);
    try {
      const result = await linkGapAnswer(gap.id, { curatedAnswerId: answer.id });
      onLinked(answer.question, result.added.length);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} aria-label="Link to an answer">
      <p className="hint">
        Visitors asked <em>{gap.examples[0]?.question ?? gap.label}</em>. Pick the answer of {gap.knowledgeBaseId} that answers it: the wordings of this
        question are added to that answer&rsquo;s other wordings, and visitors asking it so get that answer as written.
      </p>
      <ErrorNote error={answers.error} />
      {answers.data && list.length === 0 ? (
        <p className="note">
          {gap.knowledgeBaseId} has no curated answers yet: add them on <a href={href('knowledge', gap.knowledgeBaseId)}>its page</a>, or write the answer.
        </p>
      ) : null}
      {list.length > 0 ? (
        <div className="field">
          <label htmlFor="link-answer">Your answer</label>
          <select id="link-answer" required value={chosen} onChange={(e) => setChosen(e.target.value)}>
            <option value="">Choose an answer…</option>
            {list.map((a) => (
              <option key={a.id} value={String(a.id)}>
                {a.question}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <ErrorNote error={error} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={busy || !chosen}>
          Link the answer
        </button>
      </div>
    </form>
  );
}
