import { type FormEvent, useId, useState } from 'react';
import { formatSynonymLines, parseSynonymLines } from '../../../../common/contract/synonyms.ts';
import { getSynonyms, saveSynonyms } from '../../api/synonyms.ts';
import { ErrorNote, errorText, useLoad } from '../../components/ui.tsx';
import { useSession } from '../../session.tsx';

/**
 * A knowledge base's synonyms as lines of text (common/contract/synonyms.ts reads them): a plain
 * text area, so the keyboard, copy and paste and a screen reader work as anywhere. Members read
 * them; the Owner and Admins save them, and the next search uses them.
 */
export function SynonymsEditor({ knowledgeBaseId }: { knowledgeBaseId: string }) {
  const { session } = useSession();
  const { data, error, setData } = useLoad((signal) => getSynonyms(knowledgeBaseId, signal), [knowledgeBaseId]);
  const [problems, setProblems] = useState<string[]>([]);
  const [saved, setSaved] = useState<string | null>(null);
  const ids = { heading: useId(), field: useId(), help: useId(), problems: useId() };

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSaved(null);
    const { sets, errors } = parseSynonymLines(String(new FormData(event.currentTarget).get('synonyms') ?? ''));
    setProblems(errors);
    if (errors.length) return;
    try {
      const next = await saveSynonyms(knowledgeBaseId, { sets });
      setData(next);
      setSaved(next.sets.length ? `Saved ${next.sets.length} synonym set${next.sets.length === 1 ? '' : 's'}. The next search uses them.` : 'Saved: no synonyms.');
    } catch (e) {
      setProblems([errorText(e)]);
    }
  };

  return (
    <section className="panel" aria-labelledby={ids.heading}>
      <h2 id={ids.heading}>Synonyms</h2>
      <p className="hint" id={ids.help}>
        One set per line. <code>sofa, couch, settee</code>: each word finds the others. <code>hoodie =&gt; sweatshirt, jumper</code>: a
        search for hoodie also finds sweatshirts and jumpers, not the reverse. A term can be a short phrase (<code>t-shirt, tee</code>).
        Items holding the word searched for rank above those found through a synonym. Lines starting with # are notes.
      </p>
      <ErrorNote error={error} />
      {data ? (
        <form className="form" onSubmit={(e) => void submit(e)} key={formatSynonymLines(data.sets)}>
          <div className="field">
            <label htmlFor={ids.field}>Synonym sets</label>
            <textarea
              id={ids.field}
              name="synonyms"
              rows={Math.min(12, Math.max(4, data.sets.length + 2))}
              defaultValue={formatSynonymLines(data.sets)}
              readOnly={!session.canManage}
              spellCheck={false}
              aria-describedby={problems.length ? `${ids.help} ${ids.problems}` : ids.help}
              aria-invalid={problems.length ? true : undefined}
              onChange={() => setSaved(null)}
            />
          </div>
          {problems.length ? (
            <ul className="error" id={ids.problems} role="alert">
              {problems.map((problem) => (
                <li key={problem}>{problem}</li>
              ))}
            </ul>
          ) : null}
          {session.canManage ? (
            <button type="submit" className="primary">
              Save synonyms
            </button>
          ) : (
            <p className="hint">Only the Owner and Admins change synonyms.</p>
          )}
          {saved ? <p role="status">{saved}</p> : null}
        </form>
      ) : null}
    </section>
  );
}
