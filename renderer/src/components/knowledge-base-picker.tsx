import { useState } from 'react';

export type KnowledgeBasePickerText = {
  /** The id prefix of the "add by name" input (one picker per form). */
  idPrefix: string;
  addLabel: string;
  /** Beside a picked name that has no items yet. */
  unknownHint: string;
  emptyHint: string;
  /** Under the picker, if anything needs saying. */
  footer?: string;
};

/**
 * Knowledge bases are ticked, not typed, so a typo cannot point a key or a widget at a knowledge base
 * nobody pushes to; one that has no items yet can still be added by name, and says so. Names added
 * here stay listed when unticked, like the existing ones.
 */
export function KnowledgeBasePicker({
  known,
  selected,
  onChange,
  text,
}: {
  known: string[];
  selected: string[];
  onChange: (ids: string[]) => void;
  text: KnowledgeBasePickerText;
}) {
  const [newName, setNewName] = useState('');
  const [added, setAdded] = useState<string[]>(() => selected.filter((id) => !known.includes(id)));
  const toggle = (id: string, on: boolean) => onChange(on ? [...selected, id] : selected.filter((k) => k !== id));
  const add = () => {
    const name = newName.trim();
    if (name && !known.includes(name) && !added.includes(name)) setAdded([...added, name]);
    if (name && !selected.includes(name)) onChange([...selected, name]);
    setNewName('');
  };
  const inputId = `${text.idPrefix}-new-kb`;
  return (
    <div className="kb-picker">
      {known.length === 0 && added.length === 0 ? <p className="hint">{text.emptyHint}</p> : null}
      {[...known, ...added.filter((id) => !known.includes(id))].map((id) => (
        <label key={id} className="check">
          <input type="checkbox" checked={selected.includes(id)} onChange={(e) => toggle(id, e.target.checked)} />
          <span>
            <code>{id}</code> {known.includes(id) ? null : <span className="hint">{text.unknownHint}</span>}
          </span>
        </label>
      ))}
      <div className="inline-add">
        <div className="field">
          <label htmlFor={inputId}>{text.addLabel}</label>
          <input
            id={inputId}
            value={newName}
            maxLength={256}
            onChange={(e) => setNewName(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                add();
              }
            }}
          />
        </div>
        <button type="button" className="secondary" onClick={add} disabled={!newName.trim()}>
          Add
        </button>
      </div>
      {text.footer ? <p className="hint">{text.footer}</p> : null}
    </div>
  );
}
