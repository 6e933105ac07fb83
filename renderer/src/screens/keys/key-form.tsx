import { type FormEvent, useState } from 'react';
import { type CreatedKey, SCOPE_DESCRIPTIONS, SCOPES, type Scope } from '../../../../common/contract/admin.ts';
import { ErrorAnswer } from '../../../../common/contract/errors.ts';
import { createKey } from '../../api/keys.ts';
import { KnowledgeBasePicker, type KnowledgeBasePickerText } from '../../components/knowledge-base-picker.tsx';
import { ErrorNote, errorText } from '../../components/ui.tsx';

const EXPIRY_PRESETS = [
  { id: 'never', label: 'Never', days: null },
  { id: '30d', label: '30 days', days: 30 },
  { id: '90d', label: '90 days', days: 90 },
  { id: '1y', label: '1 year', days: 365 },
  { id: 'custom', label: 'Custom date', days: null },
] as const;
type ExpiryId = (typeof EXPIRY_PRESETS)[number]['id'];

type Field = 'name' | 'scopes' | 'knowledgeBases' | 'expiryDate';
type FieldErrors = Partial<Record<Field, string>>;
type KeyDraft = { name: string; scopes: Scope[]; restricted: boolean; knowledgeBases: string[]; expiry: ExpiryId; expiryDate: string };

/** Today in the browser's own calendar, as a date input writes it (yyyy-mm-dd). */
function localDate(offsetDays = 0): string {
  const day = new Date(Date.now() + offsetDays * 86_400_000);
  return `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
}

/** Every problem of the draft, by field; the form shows each beside its field. */
function validate(draft: KeyDraft): FieldErrors {
  const errors: FieldErrors = {};
  if (!draft.name.trim()) errors.name = 'Give the key a name.';
  if (draft.scopes.length === 0) errors.scopes = 'Choose at least one scope.';
  if (draft.restricted && draft.knowledgeBases.length === 0) errors.knowledgeBases = 'Choose at least one knowledge base, or allow all.';
  if (draft.expiry === 'custom') {
    if (!draft.expiryDate) errors.expiryDate = 'Pick the expiry date.';
    else if (draft.expiryDate <= localDate()) errors.expiryDate = 'The expiry date must be after today.';
  }
  return errors;
}

/** Where the server names a field (`details[].path`), the error goes beside that field. */
const SERVER_FIELDS: Record<string, Field> = { name: 'name', scopes: 'scopes', knowledgeBaseIds: 'knowledgeBases', expiresAt: 'expiryDate' };

function FieldError({ id, error }: { id: string; error: string | undefined }) {
  return error ? (
    <p className="error-text" id={id} role="alert">
      {error}
    </p>
  ) : null;
}

const KEY_PICKER_TEXT: KnowledgeBasePickerText = {
  idPrefix: 'key',
  addLabel: 'Add a knowledge base that does not exist yet',
  unknownHint: 'new: will be created on the first push to it',
  emptyHint: 'No knowledge base exists yet.',
  footer: 'A knowledge base is created by the first item pushed to it: check the spelling, since the key works only there.',
};

export function CreateKeyForm({ knowledgeBases, onCreated, onCancel }: { knowledgeBases: string[]; onCreated: (c: CreatedKey) => void; onCancel: () => void }) {
  const [draft, setDraft] = useState<KeyDraft>({ name: '', scopes: ['iq:import'], restricted: false, knowledgeBases: [], expiry: '90d', expiryDate: '' });
  const [description, setDescription] = useState('');
  // Errors appear once the form was submitted, then follow every change, so a fixed field clears.
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const errors = submitted ? { ...validate(draft), ...serverErrors } : {};
  const change = (patch: Partial<KeyDraft>, field: Field) => {
    setDraft((d) => ({ ...d, ...patch }));
    setServerErrors(({ [field]: _fixed, ...rest }) => rest);
  };

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    setServerErrors({});
    if (Object.keys(validate(draft)).length > 0) return;
    const preset = EXPIRY_PRESETS.find((p) => p.id === draft.expiry)!;
    const expiresAt = preset.days
      ? new Date(Date.now() + preset.days * 86_400_000).toISOString()
      : draft.expiry === 'custom'
        ? new Date(`${draft.expiryDate}T23:59:59`).toISOString()
        : null;
    setBusy(true);
    setError(null);
    try {
      onCreated(
        await createKey({
          name: draft.name,
          description,
          scopes: draft.scopes,
          knowledgeBaseIds: draft.restricted ? draft.knowledgeBases : null,
          expiresAt,
        }),
      );
    } catch (e) {
      const byField: FieldErrors = {};
      for (const detail of e instanceof ErrorAnswer ? e.details : []) {
        const field = SERVER_FIELDS[String(detail.path ?? '').split('.')[0]!];
        if (field) byField[field] = detail.message;
      }
      if (Object.keys(byField).length > 0) setServerErrors(byField);
      else setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const invalid = (field: Field) => (errors[field] ? { 'aria-invalid': true, 'aria-describedby': `key-${field}-error` } : {});

  return (
    <form onSubmit={(e) => void submit(e)} className="form" noValidate>
      <div className="field">
        <label htmlFor="key-name">Name</label>
        <input
          id="key-name"
          name="name"
          maxLength={100}
          placeholder="e.g. Shop catalogue sync"
          autoFocus
          value={draft.name}
          onChange={(e) => change({ name: e.target.value }, 'name')}
          {...invalid('name')}
        />
        <FieldError id="key-name-error" error={errors.name} />
      </div>
      <div className="field">
        <label htmlFor="key-description">Description</label>
        <input id="key-description" maxLength={500} placeholder="What uses this key (optional)" value={description} onChange={(e) => setDescription(e.target.value)} />
      </div>
      <fieldset aria-describedby={errors.scopes ? 'key-scopes-error' : undefined}>
        <legend>Scopes: what the key may do</legend>
        {SCOPES.map((scope) => (
          <label key={scope} className="check">
            <input
              type="checkbox"
              name="scopes"
              value={scope}
              checked={draft.scopes.includes(scope)}
              onChange={(e) => change({ scopes: e.target.checked ? [...draft.scopes, scope] : draft.scopes.filter((s) => s !== scope) }, 'scopes')}
            />
            <span>
              <code>{scope}</code> <span className="hint">{SCOPE_DESCRIPTIONS[scope]}</span>
            </span>
          </label>
        ))}
        <FieldError id="key-scopes-error" error={errors.scopes} />
      </fieldset>
      <fieldset aria-describedby={errors.knowledgeBases ? 'key-knowledgeBases-error' : undefined}>
        <legend>Knowledge bases the key may use</legend>
        <div className="segmented">
          <label className="radio">
            <input type="radio" name="kb-scope" checked={!draft.restricted} onChange={() => change({ restricted: false }, 'knowledgeBases')} />
            All, including later ones
          </label>
          <label className="radio">
            <input type="radio" name="kb-scope" checked={draft.restricted} onChange={() => change({ restricted: true }, 'knowledgeBases')} />
            Only the ones I choose
          </label>
        </div>
        {draft.restricted ? (
          <KnowledgeBasePicker
            text={KEY_PICKER_TEXT}
            known={knowledgeBases}
            selected={draft.knowledgeBases}
            onChange={(kbs) => change({ knowledgeBases: kbs }, 'knowledgeBases')}
          />
        ) : null}
        <FieldError id="key-knowledgeBases-error" error={errors.knowledgeBases} />
      </fieldset>
      <fieldset>
        <legend>Expires</legend>
        <div className="segmented">
          {EXPIRY_PRESETS.map((p) => (
            <label key={p.id} className="radio">
              <input type="radio" name="expiry" value={p.id} checked={draft.expiry === p.id} onChange={() => change({ expiry: p.id }, 'expiryDate')} />
              {p.label}
            </label>
          ))}
        </div>
        {draft.expiry === 'custom' ? (
          <div className="field">
            <label htmlFor="key-expiry-date">Expiry date</label>
            <input
              id="key-expiry-date"
              type="date"
              min={localDate(1)}
              value={draft.expiryDate}
              onChange={(e) => change({ expiryDate: e.target.value }, 'expiryDate')}
              {...invalid('expiryDate')}
            />
            <FieldError id="key-expiryDate-error" error={errors.expiryDate} />
          </div>
        ) : null}
      </fieldset>
      <ErrorNote error={error} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={busy}>
          Create key
        </button>
      </div>
    </form>
  );
}
