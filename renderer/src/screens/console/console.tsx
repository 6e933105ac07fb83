import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { z } from 'zod';
import { askRequestSchema } from '../../../../common/contract/ask.ts';
import { bulkIngestSchema, ingestItemSchema, SOURCE_TYPES, type SourceType } from '../../../../common/contract/ingest.ts';
import { isFinalJobStatus, type JobView } from '../../../../common/contract/jobs.ts';
import { searchRequestSchema } from '../../../../common/contract/knowledge.ts';
import { SAMPLE_ITEMS } from '../../../../common/import/sample-items.ts';
import { Badge, CodeBlock, ErrorNote, PageHeader, DataTable } from '../../components/ui.tsx';
import { JobError } from '../../components/job-text.tsx';
import { ApiKeyField } from './key-field.tsx';
import { curlCommand, rawRequest, type RawResponse } from '../../api/public-api.ts';

/**
 * The API console: a user checks an integration before wiring their CMS or shop. Requests go to
 * the public API from this page with a pasted key, validated as they are typed with the very zod
 * schemas the server applies.
 */

type EndpointId = 'ingest' | 'bulk' | 'job' | 'search' | 'ask';
type Endpoint = { id: EndpointId; method: 'GET' | 'POST'; label: string; schema?: z.ZodType; scopes: string };

const ENDPOINTS: Endpoint[] = [
  { id: 'ingest', method: 'POST', label: 'POST /ingest', schema: ingestItemSchema, scopes: 'iq:import' },
  { id: 'bulk', method: 'POST', label: 'POST /ingest/bulk', schema: bulkIngestSchema, scopes: 'iq:import' },
  { id: 'job', method: 'GET', label: 'GET /jobs/{jobId}', scopes: 'iq:import' },
  { id: 'search', method: 'POST', label: 'POST /knowledge-bases/{id}/search', schema: searchRequestSchema, scopes: 'iq:read' },
  { id: 'ask', method: 'POST', label: 'POST /knowledge-bases/{id}/ask', schema: askRequestSchema, scopes: 'iq:read' },
];

function sampleBody(endpoint: EndpointId, sourceType: SourceType): string {
  const item = SAMPLE_ITEMS[sourceType];
  if (endpoint === 'ingest') return JSON.stringify(item, null, 2);
  if (endpoint === 'bulk') {
    const second = { ...item, externalId: `${item.externalId}-b`, data: { ...item.data, title: `${item.data.title} (second)` } };
    return JSON.stringify({ items: [item, second] }, null, 2);
  }
  if (endpoint === 'search') return JSON.stringify({ query: 'waterproof jacket', mode: 'hybrid', topK: 5 }, null, 2);
  if (endpoint === 'ask') return JSON.stringify({ question: 'Can I wash the rain jacket?' }, null, 2);
  return '';
}

type Issue = { path: string; message: string };

/** JSON syntax first, then the endpoint's schema: every issue with the path it is about. */
function validate(text: string, schema: z.ZodType | undefined): { issues: Issue[]; value?: unknown } {
  if (!schema) return { issues: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { issues: [{ path: '(JSON)', message: (error as Error).message }] };
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { issues: [], value };
  return { issues: parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message })) };
}

/** What to follow after an ingest: each job with the ids that make its lookup unambiguous. */
type FollowTarget = { jobId: string; knowledgeBaseId: string; integrationId: string };

function followTargets(endpoint: EndpointId, body: unknown, res: RawResponse): FollowTarget[] {
  if (res.status !== 200 && res.status !== 202) return [];
  const ack = res.json as { jobId?: string; jobIds?: string[] } | undefined;
  if (endpoint === 'ingest' && ack?.jobId) {
    const item = body as { knowledgeBaseId: string; integrationId: string };
    return [{ jobId: ack.jobId, knowledgeBaseId: item.knowledgeBaseId, integrationId: item.integrationId }];
  }
  if (endpoint === 'bulk' && ack?.jobIds) {
    const items = (body as { items: Array<{ knowledgeBaseId: string; integrationId: string }> }).items;
    // One watcher per job id; a bulk that repeats an item has one job for it.
    const seen = new Set<string>();
    return ack.jobIds
      .map((jobId, i) => ({ jobId, knowledgeBaseId: items[i]!.knowledgeBaseId, integrationId: items[i]!.integrationId }))
      .filter((t) => !seen.has(`${t.knowledgeBaseId}/${t.jobId}`) && seen.add(`${t.knowledgeBaseId}/${t.jobId}`))
      .slice(0, 50);
  }
  return [];
}

const jobPath = (t: { jobId: string; knowledgeBaseId?: string; integrationId?: string }) => {
  const query = new URLSearchParams();
  if (t.knowledgeBaseId) query.set('knowledgeBaseId', t.knowledgeBaseId);
  if (t.integrationId) query.set('integrationId', t.integrationId);
  const q = query.toString();
  return `/jobs/${encodeURIComponent(t.jobId)}${q ? `?${q}` : ''}`;
};

/** Polls each job about once a second until it is final: the user is watching this one push. */
function FollowJobs({ apiKey, targets }: { apiKey: string; targets: FollowTarget[] }) {
  const [jobs, setJobs] = useState<Record<string, JobView | { error: string }>>({});
  useEffect(() => {
    let stopped = false;
    const latest: Record<string, JobView | { error: string }> = {};
    (async () => {
      for (;;) {
        const open = targets.filter((t) => {
          const job = latest[t.jobId];
          return !job || ('status' in job && !isFinalJobStatus(job.status));
        });
        if (open.length === 0 || stopped) return;
        for (const t of open) {
          try {
            const res = await rawRequest({ apiKey }, 'GET', jobPath(t));
            latest[t.jobId] = res.status === 200 ? (res.json as JobView) : { error: `${res.status}: ${(res.json as { message?: string })?.message ?? res.body}` };
          } catch (error) {
            latest[t.jobId] = { error: (error as Error).message };
          }
          if (stopped) return;
        }
        setJobs({ ...latest });
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    })();
    return () => {
      stopped = true;
    };
  }, [apiKey, targets]);
  const finals = targets.filter((t) => {
    const job = jobs[t.jobId];
    return job && (!('status' in job) || isFinalJobStatus(job.status));
  }).length;
  return (
    <section className="panel" aria-labelledby="follow-heading">
      <h2 id="follow-heading">Follow the job{targets.length > 1 ? 's' : ''}</h2>
      <p role="status" className="hint">
        {finals === targets.length ? `All ${targets.length} final.` : `Waiting: ${finals} of ${targets.length} final, checking every second…`}
      </p>
      <DataTable caption="Followed jobs" columns={['Job', 'State', 'Attempts', 'Last error', 'Note']}>
        {targets.map((t) => {
          const job = jobs[t.jobId];
          return (
            <tr key={t.jobId} data-testid={`job-${t.jobId}`}>
              <td>
                <code>{t.jobId}</code>
              </td>
              <td>{!job ? <Badge value="queued" label="…" /> : 'status' in job ? <Badge value={job.status} /> : <span className="error-text">{job.error}</span>}</td>
              <td>{job && 'status' in job ? `${job.attempts} / ${job.maxAttempts}` : ''}</td>
              <td>{job && 'status' in job ? <JobError job={job} /> : null}</td>
              <td className="hint">{job && 'status' in job ? (job.note ?? '') : ''}</td>
            </tr>
          );
        })}
      </DataTable>
    </section>
  );
}

export function ConsoleScreen() {
  const ids = { endpoint: useId(), source: useId(), body: useId(), job: useId(), kb: useId(), narrowKb: useId(), narrowInt: useId() };
  const [apiKey, setApiKey] = useState('');
  const [endpointId, setEndpointId] = useState<EndpointId>('ingest');
  const [sourceType, setSourceType] = useState<SourceType>('PRODUCT');
  const [body, setBody] = useState(() => sampleBody('ingest', 'PRODUCT'));
  const [jobId, setJobId] = useState('');
  const [knowledgeBaseId, setKnowledgeBaseId] = useState('main');
  const [narrowKb, setNarrowKb] = useState('');
  const [narrowInt, setNarrowInt] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [response, setResponse] = useState<RawResponse | null>(null);
  const [targets, setTargets] = useState<FollowTarget[]>([]);
  const responseRef = useRef<HTMLElement>(null);

  const endpoint = ENDPOINTS.find((e) => e.id === endpointId)!;
  const { issues, value } = useMemo(() => validate(body, endpoint.schema), [body, endpoint]);
  const path =
    endpointId === 'ingest'
      ? '/ingest'
      : endpointId === 'bulk'
        ? '/ingest/bulk'
        : endpointId === 'job'
          ? jobPath({ jobId: jobId || '{jobId}', knowledgeBaseId: narrowKb, integrationId: narrowInt })
          : `/knowledge-bases/${encodeURIComponent(knowledgeBaseId || '{id}')}/${endpointId}`;
  const hasBody = endpoint.method === 'POST';
  const missingParam = (endpointId === 'job' && !jobId.trim()) || ((endpointId === 'search' || endpointId === 'ask') && !knowledgeBaseId.trim());
  const canSend = apiKey !== '' && !missingParam && issues.length === 0 && !sending;
  const curl = curlCommand(window.location.origin, endpoint.method, path, hasBody ? body : undefined);

  const chooseEndpoint = (id: EndpointId) => {
    setEndpointId(id);
    if (id !== 'job') setBody(sampleBody(id, sourceType));
  };

  const send = async () => {
    setSending(true);
    setError(null);
    setTargets([]);
    setResponse(null);
    try {
      const res = await rawRequest({ apiKey }, endpoint.method, path, hasBody ? body : undefined);
      setResponse(res);
      setTargets(followTargets(endpointId, value, res));
      responseRef.current?.focus();
    } catch (e) {
      setError(`The request did not reach LocalIQ: ${(e as Error).message}`);
    } finally {
      setSending(false);
    }
  };

  return (
    <>
      <PageHeader title="API console" />
      <p className="hint">
        Try LocalIQ's HTTP API the way your integration will call it: the same endpoints, the same validation, the same answers.
      </p>
      <section className="panel" aria-labelledby="request-heading">
        <h2 id="request-heading">Request</h2>
        <ApiKeyField value={apiKey} onChange={setApiKey} scopes={`${endpoint.scopes} for this endpoint`} />
        <div className="filters">
          <div className="field">
            <label htmlFor={ids.endpoint}>Endpoint</label>
            <select id={ids.endpoint} value={endpointId} onChange={(e) => chooseEndpoint(e.target.value as EndpointId)}>
              {ENDPOINTS.map((e) => (
                <option key={e.id} value={e.id}>
                  {e.label}
                </option>
              ))}
            </select>
          </div>
          {endpointId === 'ingest' || endpointId === 'bulk' ? (
            <>
              <div className="field">
                <label htmlFor={ids.source}>Sample sourceType</label>
                <select id={ids.source} value={sourceType} onChange={(e) => setSourceType(e.target.value as SourceType)}>
                  {SOURCE_TYPES.map((t) => (
                    <option key={t}>{t}</option>
                  ))}
                </select>
              </div>
              <button type="button" className="secondary" onClick={() => setBody(sampleBody(endpointId, sourceType))}>
                Load sample
              </button>
            </>
          ) : null}
          {endpointId === 'job' ? (
            <>
              <div className="field">
                <label htmlFor={ids.job}>jobId</label>
                <input id={ids.job} value={jobId} onChange={(e) => setJobId(e.target.value)} placeholder="shop-sku-42" />
              </div>
              <div className="field">
                <label htmlFor={ids.narrowKb}>knowledgeBaseId (optional)</label>
                <input id={ids.narrowKb} value={narrowKb} onChange={(e) => setNarrowKb(e.target.value)} />
              </div>
              <div className="field">
                <label htmlFor={ids.narrowInt}>integrationId (optional)</label>
                <input id={ids.narrowInt} value={narrowInt} onChange={(e) => setNarrowInt(e.target.value)} />
              </div>
            </>
          ) : null}
          {endpointId === 'search' || endpointId === 'ask' ? (
            <div className="field">
              <label htmlFor={ids.kb}>Knowledge base id</label>
              <input id={ids.kb} value={knowledgeBaseId} onChange={(e) => setKnowledgeBaseId(e.target.value)} />
            </div>
          ) : null}
        </div>
        {hasBody ? (
          <div className="field">
            <label htmlFor={ids.body}>Request body (JSON)</label>
            <textarea
              id={ids.body}
              className="json-editor"
              rows={16}
              spellCheck={false}
              value={body}
              onChange={(e) => setBody(e.target.value)}
              aria-invalid={issues.length > 0}
              aria-describedby={`${ids.body}-issues`}
            />
            <div id={`${ids.body}-issues`} aria-live="polite">
              {issues.length === 0 ? (
                <p className="valid-note">Valid for {endpoint.label}.</p>
              ) : (
                <ul className="issues" aria-label="Validation issues">
                  {issues.map((issue, i) => (
                    <li key={i}>
                      <code>{issue.path}</code>: {issue.message}
                    </li>
                  ))}
                </ul>
              )}
            </div>
          </div>
        ) : null}
        <h3>As curl</h3>
        <CodeBlock code={curl} label="curl command" />
        <div className="actions">
          <button type="button" className="primary" disabled={!canSend} onClick={() => void send()}>
            {sending ? 'Sending…' : 'Send'}
          </button>
        </div>
        {!apiKey ? <p className="hint">Paste an API key to send.</p> : null}
      </section>
      <ErrorNote error={error} />
      {response ? (
        <section className="panel" aria-labelledby="response-heading" ref={responseRef} tabIndex={-1}>
          <h2 id="response-heading">Response</h2>
          <p role="status" data-testid="response-status" className={`status-line ${response.status < 400 ? 'ok' : 'bad'}`}>
            HTTP {response.status} {response.statusText} · {response.ms} ms
          </p>
          <details>
            <summary>Headers ({response.headers.length})</summary>
            <pre className="json" aria-label="Response headers" tabIndex={0}>
              {response.headers.map(([name, v]) => `${name}: ${v}`).join('\n')}
            </pre>
          </details>
          <h3>Body</h3>
          <pre className="json" aria-label="Response body" tabIndex={0}>
            {prettyBody(response)}
          </pre>
        </section>
      ) : null}
      {targets.length > 0 ? <FollowJobs apiKey={apiKey} targets={targets} /> : null}
    </>
  );
}

/** JSON bodies indented for reading; anything else (an event stream) exactly as received. */
function prettyBody(res: RawResponse): string {
  return res.json === undefined ? res.body : JSON.stringify(res.json, null, 2);
}
