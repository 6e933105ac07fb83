import { type FormEvent, useState } from 'react';
import {
  type AdminKey,
  type AdminKnowledgeBase,
  type CreatedKey,
  SCOPE_DESCRIPTIONS,
  SCOPES,
  type Scope,
} from '../../../server/contract/admin.ts';
import { get, post } from '../api.ts';
import { Badge, CodeBlock, Confirm, CopyButton, EmptyState, ErrorNote, errorText, Modal, PageHeader, useLoad, DataTable } from '../components/ui.tsx';
import { formatDate, formatRelative } from '../format.ts';
import { useSession } from '../session.tsx';

const EXPIRY_PRESETS = [
  { id: 'never', label: 'Never', days: null },
  { id: '30d', label: '30 days', days: 30 },
  { id: '90d', label: '90 days', days: 90 },
  { id: '1y', label: '1 year', days: 365 },
  { id: 'custom', label: 'Custom date', days: null },
] as const;

/** The first push, ready to paste: the one thing a new user needs to see something happen. */
export function curlExample(keyValue = '$LOCALIQ_API_KEY'): string {
  return `curl -s ${window.location.origin}/ingest \\
  -H "x-api-key: ${keyValue}" -H 'content-type: application/json' \\
  -d '{"integrationId":"shop","knowledgeBaseId":"main","sourceType":"PRODUCT","externalId":"sku-42",
       "data":{"title":"Rain jacket","content":"Waterproof jacket with taped seams."}}'`;
}

function CreateKeyForm({ knowledgeBases, onCreated, onCancel }: { knowledgeBases: string[]; onCreated: (c: CreatedKey) => void; onCancel: () => void }) {
  const [expiry, setExpiry] = useState<(typeof EXPIRY_PRESETS)[number]['id']>('90d');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const scopes = form.getAll('scopes').map(String) as Scope[];
    if (scopes.length === 0) return setError('Choose at least one scope.');
    const kbs = String(form.get('knowledgeBases') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    let expiresAt: string | null = null;
    const preset = EXPIRY_PRESETS.find((p) => p.id === expiry)!;
    if (preset.days) expiresAt = new Date(Date.now() + preset.days * 86_400_000).toISOString();
    if (expiry === 'custom') {
      const date = String(form.get('expiryDate') ?? '');
      if (!date) return setError('Pick the expiry date.');
      expiresAt = new Date(`${date}T23:59:59`).toISOString();
    }
    setBusy(true);
    setError(null);
    try {
      onCreated(
        await post<CreatedKey>('/keys', {
          name: String(form.get('name')),
          description: String(form.get('description') ?? ''),
          scopes,
          knowledgeBaseIds: kbs.length ? kbs : null,
          expiresAt,
        }),
      );
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} className="form">
      <div className="field">
        <label htmlFor="key-name">Name</label>
        <input id="key-name" name="name" required maxLength={100} placeholder="e.g. Shop catalogue sync" autoFocus />
      </div>
      <div className="field">
        <label htmlFor="key-description">Description</label>
        <input id="key-description" name="description" maxLength={500} placeholder="What uses this key (optional)" />
      </div>
      <fieldset>
        <legend>Scopes: what the key may do</legend>
        {SCOPES.map((scope) => (
          <label key={scope} className="check">
            <input type="checkbox" name="scopes" value={scope} defaultChecked={scope === 'iq:import'} />
            <span>
              <code>{scope}</code> <span className="hint">{SCOPE_DESCRIPTIONS[scope]}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <div className="field">
        <label htmlFor="key-kbs">Knowledge bases (comma-separated; empty means all)</label>
        <input id="key-kbs" name="knowledgeBases" list="known-kbs" placeholder={knowledgeBases[0] ?? 'main'} />
        <datalist id="known-kbs">
          {knowledgeBases.map((kb) => (
            <option key={kb} value={kb} />
          ))}
        </datalist>
      </div>
      <fieldset>
        <legend>Expires</legend>
        <div className="segmented">
          {EXPIRY_PRESETS.map((p) => (
            <label key={p.id} className="radio">
              <input type="radio" name="expiry" value={p.id} checked={expiry === p.id} onChange={() => setExpiry(p.id)} />
              {p.label}
            </label>
          ))}
        </div>
        {expiry === 'custom' ? (
          <div className="field">
            <label htmlFor="key-expiry-date">Expiry date</label>
            <input id="key-expiry-date" name="expiryDate" type="date" min={new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)} required />
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

/** The value exists only here, in component state, until dismissed: it is never stored. */
function KeyValuePanel({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  return (
    <div className="dialog-body">
      <p className="warning" role="alert">
        Copy this key now. It is shown only this once: LocalIQ keeps only a hash and cannot show it again.
      </p>
      <div className="key-value">
        <code aria-label="New API key value" data-testid="key-value">
          {created.value}
        </code>
        <CopyButton text={created.value} label="Copy key" />
      </div>
      <p className="hint">Try it: push your first item.</p>
      <CodeBlock code={curlExample(created.value)} label="curl example" />
      <div className="actions">
        <button type="button" className="primary" onClick={onDone}>
          I have stored the key
        </button>
      </div>
    </div>
  );
}

export function KeysScreen() {
  const { session } = useSession();
  const keys = useLoad((signal) => get<{ data: AdminKey[] }>('/keys', signal), []);
  const kbs = useLoad((signal) => get<{ data: AdminKnowledgeBase[] }>('/knowledge-bases', signal), []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<AdminKey | null>(null);
  const [rotating, setRotating] = useState<AdminKey | null>(null);
  const [graceHours, setGraceHours] = useState(24);
  const canManage = session.canManage;
  const list = keys.data?.data ?? [];

  return (
    <>
      <PageHeader title="API keys">
        {canManage ? (
          <button className="primary" type="button" onClick={() => setCreating(true)}>
            Create key
          </button>
        ) : null}
      </PageHeader>
      {!canManage ? (
        <p className="note">You can see the keys; only the Owner and Admins can create, rotate or revoke them.</p>
      ) : null}
      <ErrorNote error={keys.error} />
      {keys.data && list.length === 0 ? (
        <EmptyState title="No API keys yet">
          <p>
            Your shop, CMS or script pushes content with an API key. {canManage ? 'Create one with the scope ' : 'Ask an Admin for one with the scope '}
            <code>iq:import</code>, then push your first item:
          </p>
          <CodeBlock code={curlExample()} label="curl example" />
        </EmptyState>
      ) : null}
      {list.length > 0 ? (
        <DataTable caption="API keys" columns={['Name', 'Prefix', 'Scopes', 'Knowledge bases', 'Created by', 'Last used', 'Expiry', canManage && 'Actions']}>
          {list.map((key) => (
            <tr key={key.id} data-key-id={key.id}>
              <td>
                <strong>{key.name}</strong>
                {key.description ? <div className="hint">{key.description}</div> : null}
              </td>
              <td>
                <code>{key.prefix}</code>
              </td>
              <td>
                {key.scopes.map((s) => (
                  <code key={s} className="scope" title={SCOPE_DESCRIPTIONS[s]}>
                    {s}
                  </code>
                ))}
              </td>
              <td>{key.knowledgeBaseIds?.join(', ') ?? 'all'}</td>
              <td>
                {key.createdBy ?? '—'}
                <div className="hint">{formatDate(key.createdAt)}</div>
              </td>
              <td>{formatRelative(key.lastUsedAt)}</td>
              <td>
                <Badge value={key.state} />
                <div className="hint">
                  {key.state === 'revoked'
                    ? formatDate(key.revokedAt)
                    : key.revokedAt
                      ? `rotated: old value ends ${formatRelative(key.revokedAt)}`
                      : key.expiresAt
                        ? `${key.state === 'expired' ? 'expired' : 'expires'} ${formatRelative(key.expiresAt)}`
                        : 'never expires'}
                </div>
              </td>
              {canManage ? (
                <td>
                  {key.state === 'active' ? (
                    <div className="row-actions">
                      {key.revokedAt === null ? (
                        <button type="button" className="secondary" onClick={() => setRotating(key)} aria-label={`Rotate ${key.name}`}>
                          Rotate
                        </button>
                      ) : null}
                      <button type="button" className="danger" onClick={() => setRevoking(key)} aria-label={`Revoke ${key.name}`}>
                        Revoke
                      </button>
                    </div>
                  ) : null}
                </td>
              ) : null}
            </tr>
          ))}
        </DataTable>
      ) : null}

      <Modal title="Create an API key" open={creating} onClose={() => setCreating(false)}>
        <CreateKeyForm
          knowledgeBases={(kbs.data?.data ?? []).map((k) => k.id)}
          onCancel={() => setCreating(false)}
          onCreated={(c) => {
            setCreating(false);
            setCreated(c);
            keys.reload();
          }}
        />
      </Modal>
      <Modal title={created ? `Key "${created.key.name}" created` : 'Key created'} open={created !== null} onClose={() => setCreated(null)} dismissable={false}>
        {created ? <KeyValuePanel created={created} onDone={() => setCreated(null)} /> : null}
      </Modal>
      <Confirm
        title="Revoke this key?"
        open={revoking !== null}
        confirmLabel="Revoke key"
        message={
          <p>
            <strong>{revoking?.name}</strong> (<code>{revoking?.prefix}</code>) stops working at once. Anything that uses it will get
            401 errors. This cannot be undone.
          </p>
        }
        onCancel={() => setRevoking(null)}
        onConfirm={async () => {
          await post(`/keys/${encodeURIComponent(revoking!.id)}/revoke`);
          setRevoking(null);
          keys.reload();
        }}
      />
      <Confirm
        title="Rotate this key?"
        open={rotating !== null}
        danger={false}
        confirmLabel="Rotate key"
        message={
          <>
            <p>
              <strong>{rotating?.name}</strong> gets a new value with the same settings. The old value keeps working for the grace
              period, so you can update your integration without downtime.
            </p>
            <div className="field">
              <label htmlFor="grace">Grace period (hours)</label>
              <input id="grace" type="number" min={0} max={720} value={graceHours} onChange={(e) => setGraceHours(Number(e.target.value))} />
            </div>
          </>
        }
        onCancel={() => setRotating(null)}
        onConfirm={async () => {
          const result = await post<CreatedKey>(`/keys/${encodeURIComponent(rotating!.id)}/rotate`, { graceHours });
          setRotating(null);
          setCreated(result);
          keys.reload();
        }}
      />
    </>
  );
}
