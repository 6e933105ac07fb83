import { useState } from 'react';
import { type AdminKey, type CreatedKey, SCOPE_DESCRIPTIONS } from '../../../../common/contract/admin.ts';
import { listKeys, revokeKey, rotateKey } from '../../api/keys.ts';
import { listKnowledgeBases } from '../../api/knowledge-bases.ts';
import { Badge, CodeBlock, Confirm, CopyButton, EmptyState, ErrorNote, Modal, PageHeader, useLoad, DataTable } from '../../components/ui.tsx';
import { formatDate, formatRelative } from '../../format.ts';
import { useSession } from '../../session.tsx';
import { CreateKeyForm } from './key-form.tsx';
import { curlExample } from '../../components/curl-example.ts';

/**
 * A first request a new key can make: in a knowledge base it may use (its first, else one that
 * exists, else `main`) and with a scope it has (push if it may import, else search, usage, articles).
 */
export function tryItFor(key: AdminKey, value: string, knownKnowledgeBases: string[]): { what: string; curl: string } {
  const kb = key.knowledgeBaseIds?.[0] ?? knownKnowledgeBases[0] ?? 'main';
  const origin = window.location.origin;
  const header = `-H "x-api-key: ${value}"`;
  if (key.scopes.includes('iq:import')) return { what: `push your first item to "${kb}"`, curl: curlExample(value, kb) };
  if (key.scopes.includes('iq:read')) {
    const url = `${origin}/knowledge-bases/${encodeURIComponent(kb).replaceAll("'", '%27')}/search`;
    return { what: `search "${kb}"`, curl: `curl -s '${url}' \\\n  ${header} -H 'content-type: application/json' \\\n  -d '{"query":"opening hours"}'` };
  }
  if (key.scopes.includes('usage:read')) return { what: 'read the usage report', curl: `curl -s ${origin}/usage \\\n  ${header}` };
  return { what: 'list the published articles', curl: `curl -s ${origin}/articles \\\n  ${header}` };
}

/** The value exists only here, in component state, until dismissed: it is never stored. */
function KeyValuePanel({ created, knowledgeBases, onDone }: { created: CreatedKey; knowledgeBases: string[]; onDone: () => void }) {
  const tryIt = tryItFor(created.key, created.value, knowledgeBases);
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
      <p className="hint">Try it: {tryIt.what}.</p>
      <CodeBlock code={tryIt.curl} label="curl example" />
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
  const keys = useLoad((signal) => listKeys(signal), []);
  const kbs = useLoad((signal) => listKnowledgeBases(signal), []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<AdminKey | null>(null);
  const [rotating, setRotating] = useState<AdminKey | null>(null);
  const [graceHours, setGraceHours] = useState(24);
  const canManage = session.canManage;
  const list = keys.data?.data ?? [];
  const knownKbs = (kbs.data?.data ?? []).map((k) => k.id);

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
        <DataTable caption="API keys" columns={['Name', 'Scopes', 'Knowledge bases', 'Created', 'Expiry', canManage && 'Actions']}>
          {list.map((key) => (
            <tr key={key.id} data-key-id={key.id}>
              <td>
                <strong>{key.name}</strong>
                <div>
                  <code>{key.prefix}</code>
                </div>
                {key.description ? <div className="hint">{key.description}</div> : null}
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
                <div className="hint">last used {formatRelative(key.lastUsedAt)}</div>
              </td>
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
          knowledgeBases={knownKbs}
          onCancel={() => setCreating(false)}
          onCreated={(c) => {
            setCreating(false);
            setCreated(c);
            keys.reload();
          }}
        />
      </Modal>
      <Modal title={created ? `Key "${created.key.name}" created` : 'Key created'} open={created !== null} onClose={() => setCreated(null)} dismissable={false}>
        {created ? <KeyValuePanel created={created} knowledgeBases={knownKbs} onDone={() => setCreated(null)} /> : null}
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
          await revokeKey(revoking!.id);
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
          const result = await rotateKey(rotating!.id, { graceHours });
          setRotating(null);
          setCreated(result);
          keys.reload();
        }}
      />
    </>
  );
}
