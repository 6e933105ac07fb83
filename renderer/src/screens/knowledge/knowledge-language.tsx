import { type FormEvent, useEffect, useState } from 'react';
import {
  KEYWORD_LANGUAGE_NAMES,
  KEYWORD_LANGUAGES,
  type KeywordLanguage,
} from '../../../../common/contract/knowledge.ts';
import { getKnowledgeBaseSettings, updateKnowledgeBaseSettings } from '../../api/knowledge-bases.ts';
import { ErrorNote, errorText, useLoad } from '../../components/ui.tsx';
import { formatNumber } from '../../format.ts';
import { useSession } from '../../session.tsx';

/** How often the panel asks how far a re-index is while one runs. */
const PROGRESS_POLL_MS = 1_000;

/**
 * The knowledge base's language (its keyword index's stemmer, stop words and diacritics): the
 * Owner and Admins change it, members see it. A change re-indexes the knowledge base in the
 * background; the panel shows how far it is, and search keeps answering in the previous language.
 */
export function KnowledgeLanguagePanel({ knowledgeBaseId }: { knowledgeBaseId: string }) {
  const { session } = useSession();
  const { data, error, setData, reload } = useLoad((signal) => getKnowledgeBaseSettings(knowledgeBaseId, signal), [knowledgeBaseId]);
  const [saveError, setSaveError] = useState<string | null>(null);
  const reindexing = data?.keywordIndex.reindexing ?? null;
  useEffect(() => {
    if (!reindexing) return;
    const timer = setTimeout(reload, PROGRESS_POLL_MS);
    return () => clearTimeout(timer);
  }, [reindexing, reload]);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const language = String(new FormData(event.currentTarget).get('language')) as KeywordLanguage;
    try {
      setData(await updateKnowledgeBaseSettings(knowledgeBaseId, { language }));
      setSaveError(null);
    } catch (e) {
      setSaveError(errorText(e));
    }
  };
  return (
    <section className="panel" aria-labelledby="kb-language-heading">
      <h2 id="kb-language-heading">Language</h2>
      <p className="hint">
        The language of this knowledge base's texts: keyword search finds other forms of a word ("Jacken" finds "Jacke"), ignores
        the language's stop words and accents where its writers often leave them out. Changing it re-indexes the knowledge base in
        the background; search answers in the previous language until then.
      </p>
      <ErrorNote error={error} />
      {data ? (
        <form className="form" onSubmit={(e) => void submit(e)} key={data.language}>
          <fieldset className="plain" disabled={!session.canManage}>
            <div className="field">
              <label htmlFor="kb-language">Language of its texts</label>
              <select id="kb-language" name="language" defaultValue={data.language}>
                {KEYWORD_LANGUAGES.map((language) => (
                  <option key={language} value={language}>
                    {KEYWORD_LANGUAGE_NAMES[language]}
                  </option>
                ))}
              </select>
            </div>
            {session.canManage ? (
              <button type="submit" className="primary">
                Save language
              </button>
            ) : (
              <p className="hint">Only the Owner and Admins can change the language.</p>
            )}
          </fieldset>
        </form>
      ) : null}
      <ErrorNote error={saveError} />
      {reindexing ? (
        <p role="status" data-testid="kb-language-progress">
          Re-indexing in {KEYWORD_LANGUAGE_NAMES[reindexing.language]}: {formatNumber(reindexing.done)} of{' '}
          {formatNumber(reindexing.total)} items. Search answers in {KEYWORD_LANGUAGE_NAMES[data!.keywordIndex.language]} meanwhile.
        </p>
      ) : data ? (
        <p className="hint" role="status" data-testid="kb-language-progress">
          Keyword search reads this knowledge base in {KEYWORD_LANGUAGE_NAMES[data.keywordIndex.language]}.
        </p>
      ) : null}
    </section>
  );
}
