import { type FormEvent, useCallback, useState } from 'react';
import { type AdminItemSummary, type JobView, SOURCE_TYPES } from '../../../../common/contract/admin.ts';
import type { SourceType } from '../../../../common/contract/ingest.ts';
import { deleteItem, getItem, type ItemDeletion, listItems } from '../../api/items.ts';
import { listIntegrations, listKnowledgeBases } from '../../api/knowledge-bases.ts';
import { Badge, CodeBlock, Confirm, EmptyState, ErrorNote, PageHeader, useLoad, DataTable } from '../../components/ui.tsx';
import { JobError } from '../../components/job-text.tsx';
import { formatDate, formatNumber } from '../../format.ts';
import { href, navigate } from '../../router.ts';
import { useSession } from '../../session.tsx';
import { curlExample } from '../../components/curl-example.ts';
import { KnowledgeLanguagePanel } from './knowledge-language.tsx';
import { SynonymsEditor } from './synonyms-editor.tsx';
import { CuratedAnswersPanel } from './curated-answers.tsx';
import { DocumentView, documentHref, OriginalLink } from './document-view.tsx';
import { FileUploadPanel } from './file-upload.tsx';

export function itemHref(item: { knowledgeBaseId: string; integrationId: string; externalId: string }): string {
  return href('knowledge', item.knowledgeBaseId, 'items', item.integrationId, item.externalId);
}

/** A knowledge base appears with its first item: this names one, whose page then takes its files. */
function NewKnowledgeBaseForm() {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get('name') ?? '').trim();
    if (name) navigate('knowledge', name);
  };
  return (
    <form className="inline-form panel" aria-labelledby="new-kb-heading" onSubmit={submit}>
      <h2 id="new-kb-heading">Upload files to a new knowledge base</h2>
      <div className="field">
        <label htmlFor="new-kb">Name</label>
        <input id="new-kb" name="name" required maxLength={256} pattern="[^\u0000-\u001f\u007f]+" placeholder="support" />
      </div>
      <button type="submit" className="secondary">
        Continue
      </button>
    </form>
  );
}

function KnowledgeBaseList() {
  const { session } = useSession();
  const { data, error } = useLoad((signal) => listKnowledgeBases(signal), []);
  return (
    <>
      <PageHeader title="Knowledge bases" />
      <ErrorNote error={error} />
      {data && data.data.length === 0 ? (
        <EmptyState title="Nothing here yet">
          <p>
            A knowledge base appears when the first item is pushed to it. Create an API key with the scope <code>iq:import</code> on
            the <a href={href('keys')}>API keys</a> page, then push an item:
          </p>
          <CodeBlock code={curlExample()} label="curl example" />
        </EmptyState>
      ) : null}
      <ul className="cards" aria-label="Knowledge bases">
        {(data?.data ?? []).map((kb) => (
          <li key={kb.id} className="card">
            <h2>
              <a href={href('knowledge', kb.id)}>{kb.id}</a>
            </h2>
            <dl className="stats">
              <div>
                <dt>Items</dt>
                <dd data-testid={`kb-items-${kb.id}`}>{formatNumber(kb.itemCount)}</dd>
              </div>
              <div>
                <dt>Chunks</dt>
                <dd>{formatNumber(kb.chunkCount)}</dd>
              </div>
              <div>
                <dt>In the queue</dt>
                <dd>{formatNumber(kb.pendingJobs)}</dd>
              </div>
            </dl>
            <p className="hint">Since {formatDate(kb.createdAt)}</p>
          </li>
        ))}
      </ul>
      {session.canManage ? <NewKnowledgeBaseForm /> : null}
    </>
  );
}

function ItemList({ knowledgeBaseId }: { knowledgeBaseId: string }) {
  const [filter, setFilter] = useState({ q: '', sourceType: '', integrationId: '' });
  const [pages, setPages] = useState<AdminItemSummary[][]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  // An empty field is no filter: the query string leaves it out.
  const query = (extra: { cursor?: string } = {}) => ({ ...filter, sourceType: (filter.sourceType || undefined) as SourceType | undefined, ...extra });
  const { session } = useSession();
  const { error, reload } = useLoad(
    async (signal) => {
      const page = await listItems(knowledgeBaseId, query(), signal);
      setPages([page.data]);
      setCursor(page.nextCursor);
      return page;
    },
    [knowledgeBaseId, filter],
  );
  const integrations = useLoad((signal) => listIntegrations(knowledgeBaseId, signal), [knowledgeBaseId]);
  // A knowledge base named here for its first upload has no settings or synonyms until its first item.
  const knowledgeBases = useLoad((signal) => listKnowledgeBases(signal), [knowledgeBaseId]);
  const exists = knowledgeBases.data?.data.some((kb) => kb.id === knowledgeBaseId) ?? false;
  const onIndexed = useCallback(() => {
    reload();
    integrations.reload();
    knowledgeBases.reload();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [reload]);
  const more = async () => {
    const page = await listItems(knowledgeBaseId, query({ cursor: cursor! }));
    setPages((p) => [...p, page.data]);
    setCursor(page.nextCursor);
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setFilter({ q: String(form.get('q') ?? ''), sourceType: String(form.get('sourceType') ?? ''), integrationId: String(form.get('integrationId') ?? '') });
  };
  const items = pages.flat();
  return (
    <>
      <PageHeader title={`Knowledge base: ${knowledgeBaseId}`}>
        <a className="button secondary" href={href('knowledge')}>
          All knowledge bases
        </a>
      </PageHeader>
      {/* Keyed: files dropped on one knowledge base never go to the next one opened. */}
      {session.canManage ? <FileUploadPanel key={knowledgeBaseId} knowledgeBaseId={knowledgeBaseId} onIndexed={onIndexed} /> : null}
      {exists ? <KnowledgeLanguagePanel knowledgeBaseId={knowledgeBaseId} /> : null}
      <form className="filters" role="search" aria-label="Filter items" onSubmit={submit}>
        <div className="field">
          <label htmlFor="item-q">Search</label>
          <input id="item-q" name="q" type="search" placeholder="Words in the title or text" defaultValue={filter.q} />
        </div>
        <div className="field">
          <label htmlFor="item-type">Source type</label>
          <select id="item-type" name="sourceType" defaultValue={filter.sourceType}>
            <option value="">All</option>
            {SOURCE_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="item-integration">Integration</label>
          <select id="item-integration" name="integrationId" defaultValue={filter.integrationId} key={integrations.data ? 'loaded' : 'loading'}>
            <option value="">All</option>
            {(integrations.data?.data ?? []).map((integration) => (
              <option key={integration.id} value={integration.id}>
                {integration.id} ({formatNumber(integration.itemCount)})
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="primary">
          Apply
        </button>
      </form>
      <ErrorNote error={error} />
      {items.length === 0 && !error ? (
        <EmptyState title={filter.q || filter.sourceType || filter.integrationId ? 'No items match' : 'No indexed items yet'}>
          <p>
            {filter.q || filter.sourceType || filter.integrationId
              ? 'Change or clear the filters.'
              : 'Pushed items appear here once they are processed; follow them on the Ingestion page.'}
          </p>
        </EmptyState>
      ) : (
        <DataTable caption="Items" columns={['Title', 'Type', 'Integration', 'External id', 'Chunks', 'Updated']}>
          {items.map((item) => (
            <tr key={`${item.integrationId}\u0000${item.externalId}`}>
              <td>
                <a href={itemHref(item)}>{item.title || '(untitled)'}</a>
              </td>
              <td>{item.sourceType}</td>
              <td>{item.integrationId}</td>
              <td>
                <code>{item.externalId}</code>
              </td>
              <td>{item.chunkCount ?? '—'}</td>
              <td className="date">{formatDate(item.updatedAt)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {cursor ? (
        <button type="button" className="secondary" onClick={() => void more()}>
          Load more
        </button>
      ) : null}
      {exists ? <CuratedAnswersPanel knowledgeBaseId={knowledgeBaseId} /> : null}
      {exists ? <SynonymsEditor knowledgeBaseId={knowledgeBaseId} /> : null}
    </>
  );
}

export function JobTable({ jobs, caption }: { jobs: JobView[]; caption: string }) {
  return (
    <DataTable caption={caption} columns={['Status', 'Attempts', 'Priority', 'Queued', 'Finished', 'Last error', 'Note']}>
      {jobs.map((job, i) => (
        <tr key={`${job.createdAt}-${i}`}>
          <td>
            <Badge value={job.status} />
          </td>
          <td>
            {job.attempts} / {job.maxAttempts}
          </td>
          <td>{job.priority}</td>
          <td className="date">{formatDate(job.createdAt)}</td>
          <td className="date">{formatDate(job.finishedAt)}</td>
          <td>
            <JobError job={job} />
          </td>
          <td className="hint">{job.note ?? ''}</td>
        </tr>
      ))}
    </DataTable>
  );
}

function deletedBy(deletion: NonNullable<ItemDeletion>): string {
  if (deletion.byKey) return `the API key ${deletion.byKey.name ? `"${deletion.byKey.name}" ` : ''}(${deletion.byKey.prefix})`;
  return deletion.byUser ? deletion.byUser : 'a user since removed';
}

function ItemDetail({ knowledgeBaseId, integrationId, externalId }: { knowledgeBaseId: string; integrationId: string; externalId: string }) {
  const { session } = useSession();
  const item = { knowledgeBaseId, integrationId, externalId };
  const { data, error } = useLoad((signal) => getItem(item, signal), [knowledgeBaseId, integrationId, externalId]);
  const [confirming, setConfirming] = useState(false);
  return (
    <>
      <PageHeader title={data?.indexed ? data.title || '(untitled)' : externalId}>
        <a className="button secondary" href={href('knowledge', knowledgeBaseId)}>
          Back to {knowledgeBaseId}
        </a>
        {data?.indexed && (data.original || data.chunks.some((c) => c.page !== undefined || c.section !== undefined)) ? (
          <a className="button secondary" href={documentHref({ knowledgeBaseId, integrationId, externalId })}>
            Read as a document
          </a>
        ) : null}
        {data?.indexed && data.original ? (
          <OriginalLink item={{ knowledgeBaseId, integrationId, externalId }} original={data.original} className="button secondary" />
        ) : null}
        {session.canManage && data && (data.indexed || !data.deleted) ? (
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Delete item
          </button>
        ) : null}
      </PageHeader>
      <ErrorNote error={error} />
      {data ? (
        <>
          <dl className="meta">
            <div>
              <dt>Knowledge base</dt>
              <dd>{knowledgeBaseId}</dd>
            </div>
            <div>
              <dt>Integration</dt>
              <dd>{integrationId}</dd>
            </div>
            <div>
              <dt>External id</dt>
              <dd>
                <code>{externalId}</code>
              </dd>
            </div>
            {data.indexed ? (
              <>
                <div>
                  <dt>Type</dt>
                  <dd>{data.sourceType}</dd>
                </div>
                <div>
                  <dt>URL</dt>
                  <dd>{data.url ? <a href={data.url} target="_blank" rel="noreferrer noopener">{data.url}</a> : '—'}</dd>
                </div>
                <div>
                  <dt>Updated</dt>
                  <dd>{formatDate(data.updatedAt)}</dd>
                </div>
                <div>
                  <dt>Embedding model</dt>
                  <dd>{data.embedder}</dd>
                </div>
                <div>
                  <dt>Indexing</dt>
                  <dd>{data.indexing === 'text' ? 'text indexed: found by keyword, meaning still to come' : 'complete'}</dd>
                </div>
              </>
            ) : null}
          </dl>
          {!data.indexed && data.deleted ? (
            <p className="note">
              This item was deleted on {formatDate(data.deleted.at)} by {deletedBy(data.deleted)}. Pushing it again brings it back.
            </p>
          ) : null}
          {!data.indexed && !data.deleted ? <p className="note">This item is not indexed (yet). Its jobs are below.</p> : null}
          {data.indexed && data.sourceData ? (
            <section aria-labelledby="source-data">
              <h2 id="source-data">Source data</h2>
              <pre className="json">{JSON.stringify(data.sourceData, null, 2)}</pre>
            </section>
          ) : null}
          {data.indexed ? (
            <section aria-labelledby="chunks">
              <h2 id="chunks">Chunks ({data.chunks.length})</h2>
              <ol className="chunks">
                {data.chunks.map((c) => (
                  <li key={c.id} id={`chunk-${c.id}`}>
                    <p>{c.text}</p>
                    <span className="hint">
                      {c.tokenCount} tokens
                      {c.page !== undefined ? `, page ${c.page}` : ''}
                      {c.section ? `, ${c.section}` : ''}
                    </span>
                  </li>
                ))}
              </ol>
            </section>
          ) : null}
          <section aria-labelledby="job-history">
            <h2 id="job-history">Job history</h2>
            <JobTable jobs={data.jobs} caption="Job history" />
          </section>
        </>
      ) : null}
      <Confirm
        title="Delete this item?"
        open={confirming}
        confirmLabel="Delete item"
        message={<p>The item, its chunks and vectors are removed, and a queued or running job for it is cancelled. Pushing it again brings it back.</p>}
        onCancel={() => setConfirming(false)}
        onConfirm={async () => {
          await deleteItem(item);
          setConfirming(false);
          navigate('knowledge', knowledgeBaseId);
        }}
      />
    </>
  );
}

export function KnowledgeScreen({ route }: { route: string[] }) {
  const [, kb, section, integrationId, externalId, view, placeKind, place] = route;
  if (kb && section === 'items' && integrationId && externalId && view === 'document') {
    const at = placeKind === 'page' && place && /^\d+$/.test(place) ? { page: Number(place) } : placeKind === 'section' && place ? { section: place } : {};
    return <DocumentView item={{ knowledgeBaseId: kb, integrationId, externalId }} at={at} />;
  }
  if (kb && section === 'items' && integrationId && externalId) {
    return <ItemDetail knowledgeBaseId={kb} integrationId={integrationId} externalId={externalId} />;
  }
  if (kb) return <ItemList knowledgeBaseId={kb} />;
  return <KnowledgeBaseList />;
}
