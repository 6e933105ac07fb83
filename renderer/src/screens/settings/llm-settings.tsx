import { type FormEvent, useState } from 'react';
import { getLlmSettings, type LlmSaved, saveLlmSettings } from '../../api/settings.ts';
import { ErrorNote, errorText, useLoad } from '../../components/ui.tsx';
import { useSession } from '../../session.tsx';


/** The optional language model: without one, answers are extractive (cited passages). */
export function LlmSettingsPanel() {
  const { session } = useSession();
  const { data, error, setData } = useLoad((signal) => getLlmSettings(signal), []);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [saved, setSaved] = useState<LlmSaved | null>(null);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const apiKey = String(form.get('apiKey') ?? '');
    const clearKey = form.get('clearKey') === 'on';
    try {
      const next = await saveLlmSettings({
        baseUrl: String(form.get('baseUrl') ?? '') || null,
        model: String(form.get('model') ?? '') || null,
        timeoutMs: Math.round(Number(form.get('timeout')) * 1000),
        ...(clearKey ? { apiKey: null } : apiKey ? { apiKey } : {}),
      });
      setData(next);
      setSaveError(null);
      setSaved(next);
    } catch (e) {
      setSaved(null);
      setSaveError(errorText(e));
    }
  };
  return (
    <section className="panel" aria-labelledby="llm-heading">
      <h2 id="llm-heading">Language model</h2>
      <p className="hint">
        Without a language model, the assistant answers with the best passages from your content, cited. With an OpenAI-compatible
        endpoint on your network (llama.cpp server, Ollama, LM Studio), it writes answers from those passages.
      </p>
      <ErrorNote error={error} />
      {data ? (
        <form className="form" onSubmit={(e) => void submit(e)} key={`${data.baseUrl}|${data.model}|${data.timeoutMs}`}>
          <fieldset className="plain" disabled={!session.canManage}>
            <div className="field">
              <label htmlFor="llm-url">Endpoint base URL</label>
              <input id="llm-url" name="baseUrl" type="url" placeholder="http://127.0.0.1:11434/v1" defaultValue={data.baseUrl ?? ''} />
            </div>
            <div className="field">
              <label htmlFor="llm-model">Model</label>
              <input id="llm-model" name="model" placeholder="e.g. llama3.2:3b" defaultValue={data.model ?? ''} />
            </div>
            <div className="field">
              <label htmlFor="llm-key">API key of the endpoint {data.hasApiKey ? '(one is stored; leave empty to keep it)' : '(if it needs one)'}</label>
              <input id="llm-key" name="apiKey" type="password" autoComplete="off" />
              {data.hasApiKey ? (
                <p className="hint">The stored key is only sent to this address: changing its scheme, host or port removes it unless you enter a key here.</p>
              ) : null}
            </div>
            {data.hasApiKey ? (
              <label className="check">
                <input type="checkbox" name="clearKey" /> Remove the stored API key
              </label>
            ) : null}
            <div className="field">
              <label htmlFor="llm-timeout">Timeout (seconds)</label>
              <input id="llm-timeout" name="timeout" type="number" min={1} max={600} defaultValue={Math.round(data.timeoutMs / 1000)} />
            </div>
            <button type="submit" className="primary">
              Save language model
            </button>
          </fieldset>
          {!session.canManage ? <p className="hint">Only the Owner and Admins change this.</p> : null}
          <ErrorNote error={saveError} />
          {saved ? (
            <div role="status">
              <p>Saved. New questions use it.</p>
              {saved.apiKeyRemoved ? <p>The endpoint's address changed, so its stored API key was removed. Enter the key again if the new endpoint needs one.</p> : null}
              {saved.test ? <p className={saved.test.ok ? undefined : 'error'}>{saved.test.ok ? 'Tested: ' : 'Tested, and it does not work: '}{saved.test.message} {saved.test.ok ? '' : 'Questions are answered with cited passages meanwhile.'}</p> : null}
            </div>
          ) : null}
        </form>
      ) : null}
    </section>
  );
}
