import { useId } from 'react';

/**
 * The API key the console calls with. Values are shown once when a key is
 * created, so the user pastes one here; it lives in component state only and is masked.
 */
export function ApiKeyField({ value, onChange, scopes }: { value: string; onChange: (value: string) => void; scopes: string }) {
  const id = useId();
  const prefix = /^liq_[0-9A-Za-z]{12}_/.exec(value.trim())?.[0];
  return (
    <div className="field">
      <label htmlFor={id}>API key</label>
      <input
        id={id}
        type="password"
        autoComplete="off"
        spellCheck={false}
        placeholder="liq_…"
        value={value}
        onChange={(e) => onChange(e.target.value.trim())}
        aria-describedby={`${id}-hint`}
      />
      <span id={`${id}-hint`} className="hint">
        {prefix ? `Using key ${prefix}… (kept in this page only, never saved). ` : 'Paste a key value: it is kept in this page only, never saved. '}
        Needs {scopes}.
      </span>
    </div>
  );
}
