import { type FormEvent, useEffect, useState } from 'react';
import type { AdminWebsiteSource, AdminWebsiteSync } from '../../../../common/contract/sources.ts';
import { addSource, listSources, removeSource, syncSource } from '../../api/sources.ts';
import { ConfirmDelete } from '../../components/confirm-delete.tsx';
import { Badge, DataTable, EmptyState, ErrorNote, errorText, Modal, PageHeader, useLoad } from '../../components/ui.tsx';
import { formatRelative } from '../../format.ts';
import { useSession } from '../../session.tsx';

const lines = (text: string) => text.split('\n').map((line) => line.trim()).filter(Boolean);

/** A source's form: the site, where its pages go, how often, and which addresses belong. */
function AddSourceForm({ isOwner, onCancel, onAdded }: { isOwner: boolean; onCancel: () => void; onAdded: () => void }) {
  const [startUrl, setStartUrl] = useState('https://');
  const [knowledgeBaseId, setKnowledgeBaseId] = useState('main');
  const [every, setEvery] = useState('24h');
  const [maxPages, setMaxPages] = useState(500);
  const [include, setInclude] = useState('');
  const [exclude, setExclude] = useState('');
  const [allowPrivateNetwork, setAllowPrivateNetwork] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await addSource({ startUrl, knowledgeBaseId, every: every || null, maxPages, include: lines(include), exclude: lines(exclude), allowPrivateNetwork });
      onAdded();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="dialog-body" onSubmit={submit}>
      <div className="field">
        <label htmlFor="source-url">Website address</label>
        <input id="source-url" type="url" required value={startUrl} onChange={(e) => setStartUrl(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="source-kb">Knowledge base</label>
        <input id="source-kb" required value={knowledgeBaseId} onChange={(e) => setKnowledgeBaseId(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="source-every">Sync every (such as 24h or 7d; empty for on demand only)</label>
        <input id="source-every" value={every} onChange={(e) => setEvery(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="source-max">Most pages</label>
        <input id="source-max" type="number" min={1} max={10000} value={maxPages} onChange={(e) => setMaxPages(Number(e.target.value))} />
      </div>
      <div className="field">
        <label htmlFor="source-include">Only addresses matching (one pattern a line, such as /help/**)</label>
        <textarea id="source-include" rows={2} value={include} onChange={(e) => setInclude(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="source-exclude">Leave out addresses matching</label>
        <textarea id="source-exclude" rows={2} value={exclude} onChange={(e) => setExclude(e.target.value)} />
      </div>
      {isOwner ? (
        <label className="check">
          <input type="checkbox" checked={allowPrivateNetwork} onChange={(e) => setAllowPrivateNetwork(e.target.checked)} /> The site is on this
          network (an intranet or LAN address)
        </label>
      ) : null}
      <ErrorNote error={error} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={busy}>
          Add and sync
        </button>
      </div>
    </form>
  );
}

function SyncCell({ sync }: { sync: AdminWebsiteSync | null }) {
  if (!sync) return <span className="hint">never synced</span>;
  return (
    <>
      <Badge value={sync.state === 'running' ? 'processing' : sync.state} label={sync.state === 'running' ? 'syncing' : sync.state} />
      <div>
        {sync.added} added, {sync.updated} updated, {sync.unchanged} unchanged, {sync.removed} removed
      </div>
      <div className="hint">{sync.finishedAt ? `finished ${formatRelative(sync.finishedAt)}` : `started ${formatRelative(sync.startedAt)}`}</div>
      {sync.error ? <div className="warning">{sync.error}</div> : null}
      {sync.skipped.length > 0 ? (
        <details>
          <summary>{sync.skipped.length} skipped</summary>
          <ul className="skipped-list">
            {sync.skipped.map((skip) => (
              <li key={skip.url}>
                <code>{skip.url}</code>: {skip.reason}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </>
  );
}

/** Websites crawled into knowledge bases: each with its last sync's results, live while it runs. */
export function SourcesScreen() {
  const { session } = useSession();
  const sources = useLoad((signal) => listSources(signal), []);
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<AdminWebsiteSource | null>(null);
  const [error, setError] = useState<string | null>(null);
  const list = sources.data?.sources ?? [];
  const running = list.some((source) => source.lastSync?.state === 'running');
  const { reload } = sources;
  // Progress while a sync runs: the list is read again every two seconds until none runs.
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(reload, 2000);
    return () => clearInterval(timer);
  }, [running, reload]);
  const canManage = session.canManage;

  return (
    <>
      <PageHeader title="Website sources">
        {canManage ? (
          <button className="primary" type="button" onClick={() => setAdding(true)}>
            Add a website
          </button>
        ) : null}
      </PageHeader>
      <ErrorNote error={sources.error ?? error} />
      {sources.data && list.length === 0 ? (
        <EmptyState title="No website sources yet">
          <p>Add your shop's website: LocalIQ reads its pages (main content only, as robots.txt allows) and keeps them in sync.</p>
        </EmptyState>
      ) : null}
      {list.length > 0 ? (
        <DataTable caption="Website sources" columns={['Website', 'Knowledge base', 'Schedule', 'Last sync', canManage && 'Actions']}>
          {list.map((source) => (
            <tr key={source.id} data-source-id={source.id}>
              <td>
                <strong>{source.startUrl}</strong>
                <div className="hint">
                  at most {source.maxPages} pages{source.allowPrivateNetwork ? ', private network allowed' : ''}
                </div>
              </td>
              <td>{source.knowledgeBaseId}</td>
              <td>{source.everyHours === null ? 'on demand' : `every\u00a0${source.everyHours % 24 === 0 ? `${source.everyHours / 24}d` : `${source.everyHours}h`}`}</td>
              <td>
                <SyncCell sync={source.lastSync} />
              </td>
              {canManage ? (
                <td>
                  <div className="row-actions">
                    <button
                      type="button"
                      className="secondary"
                      disabled={source.lastSync?.state === 'running'}
                      aria-label={`Sync ${source.startUrl} now`}
                      onClick={async () => {
                        try {
                          await syncSource(source.id);
                          reload();
                        } catch (e) {
                          setError(errorText(e));
                        }
                      }}
                    >
                      Sync now
                    </button>
                    <button type="button" className="danger" aria-label={`Remove ${source.startUrl}`} onClick={() => setRemoving(source)}>
                      Remove
                    </button>
                  </div>
                </td>
              ) : null}
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Modal title="Add a website" open={adding} onClose={() => setAdding(false)}>
        <AddSourceForm
          isOwner={session.user.role === 'owner'}
          onCancel={() => setAdding(false)}
          onAdded={() => {
            setAdding(false);
            reload();
          }}
        />
      </Modal>
      <ConfirmDelete
        target={removing}
        title="Remove this website?"
        confirmLabel="Remove website"
        message={(source) => (
          <p>
            <strong>{source.startUrl}</strong> is no longer synced and the items of its pages are deleted from{' '}
            <strong>{source.knowledgeBaseId}</strong>.
          </p>
        )}
        remove={async (source) => {
          await removeSource(source.id);
          reload();
        }}
        onClose={() => setRemoving(null)}
      />
    </>
  );
}
