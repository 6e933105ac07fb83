import { useId } from 'react';
import { SOURCE_TYPES, type SourceType } from '../../../../common/contract/ingest.ts';
import { listIntegrations } from '../../api/knowledge-bases.ts';
import { useLoad } from '../../components/ui.tsx';

/** The mapping as edited: '' means "not mapped"; sourceData is a list so rows keep their order. */
export type MappingDraft = {
  externalId: string;
  content: string;
  title: string;
  url: string;
  hash: string;
  sourceData: Array<{ key: string; column: string }>;
};
export type TargetDraft = { sourceType: SourceType; knowledgeBaseId: string; integrationId: string };

const FIELDS: Array<{ field: keyof Omit<MappingDraft, 'sourceData'>; label: string; required: boolean }> = [
  { field: 'externalId', label: 'externalId', required: true },
  { field: 'title', label: 'title', required: false },
  { field: 'content', label: 'content', required: true },
  { field: 'url', label: 'url', required: false },
  { field: 'hash', label: 'hash', required: false },
];

function ColumnSelect({ id, value, columns, required, onChange }: { id: string; value: string; columns: string[]; required: boolean; onChange: (v: string) => void }) {
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)} required={required}>
      <option value="">{required ? '— choose a column —' : '— not mapped —'}</option>
      {columns.map((c) => (
        <option key={c} value={c}>
          {c}
        </option>
      ))}
    </select>
  );
}

/** Says when a typed name is not one that exists, so a typo is seen before the import creates it. */
function NewNameNote({ name, known, what }: { name: string; known: string[]; what: string }) {
  if (!name || known.includes(name)) return null;
  return (
    <span className="hint" role="status">
      New {what}: the import creates "{name}".
    </span>
  );
}

export function MappingForm({
  columns,
  mapping,
  target,
  knowledgeBases,
  onMapping,
  onTarget,
  disabled,
}: {
  columns: string[];
  mapping: MappingDraft;
  target: TargetDraft;
  /** The knowledge bases that exist, offered for the target. */
  knowledgeBases: string[];
  onMapping: (m: MappingDraft) => void;
  onTarget: (t: TargetDraft) => void;
  disabled: boolean;
}) {
  const id = useId();
  const existingKb = knowledgeBases.includes(target.knowledgeBaseId);
  const integrations = useLoad(
    (signal) =>
      existingKb ? listIntegrations(target.knowledgeBaseId, signal) : Promise.resolve({ data: [] }),
    [target.knowledgeBaseId, existingKb],
  );
  const knownIntegrations = (integrations.data?.data ?? []).map((i) => i.id);
  const mapped = new Set([mapping.externalId, mapping.content, mapping.title, mapping.url, mapping.hash, ...mapping.sourceData.map((s) => s.column)]);
  const unmapped = columns.filter((c) => !mapped.has(c) && !c.includes('.'));
  const setRow = (i: number, row: { key: string; column: string }) =>
    onMapping({ ...mapping, sourceData: mapping.sourceData.map((r, j) => (j === i ? row : r)) });
  return (
    <fieldset disabled={disabled} className="plain">
      <div className="two-col">
        <fieldset>
          <legend>Item fields</legend>
          {FIELDS.map(({ field, label, required }) => (
            <div className="field" key={field}>
              <label htmlFor={`${id}-${field}`}>
                {label}
                {required ? ' (required)' : ''}
              </label>
              <ColumnSelect
                id={`${id}-${field}`}
                value={mapping[field]}
                columns={columns}
                required={required}
                onChange={(v) => onMapping({ ...mapping, [field]: v })}
              />
            </div>
          ))}
        </fieldset>
        <fieldset>
          <legend>Target</legend>
          <div className="field">
            <label htmlFor={`${id}-type`}>sourceType</label>
            <select id={`${id}-type`} value={target.sourceType} onChange={(e) => onTarget({ ...target, sourceType: e.target.value as SourceType })}>
              {SOURCE_TYPES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-kb`}>Knowledge base</label>
            <input
              id={`${id}-kb`}
              list={`${id}-kbs`}
              value={target.knowledgeBaseId}
              placeholder={knowledgeBases.length ? 'choose or type a name' : 'type a name'}
              onChange={(e) => onTarget({ ...target, knowledgeBaseId: e.target.value.trim() })}
            />
            <datalist id={`${id}-kbs`}>
              {knowledgeBases.map((kb) => (
                <option key={kb} value={kb} />
              ))}
            </datalist>
            <NewNameNote name={target.knowledgeBaseId} known={knowledgeBases} what="knowledge base" />
          </div>
          <div className="field">
            <label htmlFor={`${id}-int`}>Integration</label>
            <input id={`${id}-int`} list={`${id}-ints`} value={target.integrationId} onChange={(e) => onTarget({ ...target, integrationId: e.target.value.trim() })} />
            <datalist id={`${id}-ints`}>
              {knownIntegrations.map((integration) => (
                <option key={integration} value={integration} />
              ))}
            </datalist>
            {existingKb ? <NewNameNote name={target.integrationId} known={knownIntegrations} what="integration in this knowledge base" /> : null}
            <span className="hint">Items are identified by integration and externalId; use the same integration for every import of this source.</span>
          </div>
        </fieldset>
      </div>
      <fieldset>
        <legend>sourceData</legend>
        {mapping.sourceData.length === 0 ? <p className="hint">Extra columns carried with each item (price, sku, tags…).</p> : null}
        {mapping.sourceData.map((row, i) => (
          <div className="inline-form source-row" key={i}>
            <div className="field">
              <label htmlFor={`${id}-sd-key-${i}`}>Key {i + 1}</label>
              <input id={`${id}-sd-key-${i}`} value={row.key} onChange={(e) => setRow(i, { ...row, key: e.target.value })} />
            </div>
            <div className="field">
              <label htmlFor={`${id}-sd-col-${i}`}>Column {i + 1}</label>
              <ColumnSelect id={`${id}-sd-col-${i}`} value={row.column} columns={columns} required onChange={(v) => setRow(i, { key: row.key || v, column: v })} />
            </div>
            <button
              type="button"
              className="secondary"
              aria-label={`Remove sourceData key ${row.key || i + 1}`}
              onClick={() => onMapping({ ...mapping, sourceData: mapping.sourceData.filter((_, j) => j !== i) })}
            >
              Remove
            </button>
          </div>
        ))}
        <div className="inline-form">
          <button type="button" className="secondary" onClick={() => onMapping({ ...mapping, sourceData: [...mapping.sourceData, { key: '', column: '' }] })}>
            Add sourceData field
          </button>
          {unmapped.length > 0 ? (
            <button
              type="button"
              className="secondary"
              onClick={() => onMapping({ ...mapping, sourceData: [...mapping.sourceData, ...unmapped.map((c) => ({ key: c, column: c }))] })}
            >
              Add the {unmapped.length} unmapped column{unmapped.length === 1 ? '' : 's'}
            </button>
          ) : null}
        </div>
      </fieldset>
    </fieldset>
  );
}
