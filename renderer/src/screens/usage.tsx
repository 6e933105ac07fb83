import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { AdminKey, AdminKnowledgeBase } from '../../../server/contract/admin.ts';
import { get } from '../api.ts';
import { EmptyState, ErrorNote, PageHeader, useLoad } from '../components/ui.tsx';
import { formatNumber } from '../format.ts';

type Totals = {
  requests: number;
  itemsPushed: number;
  jobs: { succeeded: number; skipped: number; failed: number; cancelled: number };
  chunksEmbedded: number;
  searches: number;
  questions: number;
};
type UsageResponse = {
  from: string;
  to: string;
  series: Array<Totals & { start: string }>;
  totals: Totals;
  byKey: Array<{ keyId: string; totals: Totals }>;
  byKnowledgeBase: Array<{ knowledgeBaseId: string; totals: Totals }>;
};

const RANGES = [7, 30, 90] as const;
const SERIES = [
  { key: 'requests', label: 'Requests', color: '#3565d8' },
  { key: 'itemsPushed', label: 'Items pushed', color: '#1f9d74' },
  { key: 'questions', label: 'Questions', color: '#c2701a' },
] as const;

export function UsageScreen() {
  const [days, setDays] = useState<(typeof RANGES)[number]>(30);
  const [keyId, setKeyId] = useState('');
  const [knowledgeBaseId, setKnowledgeBaseId] = useState('');
  const keys = useLoad((signal) => get<{ data: AdminKey[] }>('/keys', signal), []);
  const kbs = useLoad((signal) => get<{ data: AdminKnowledgeBase[] }>('/knowledge-bases', signal), []);
  const usage = useLoad(
    (signal) => {
      const params = new URLSearchParams({ granularity: 'day' });
      const day = 86_400_000;
      const to = Math.ceil((Date.now() + 1) / day) * day;
      params.set('to', new Date(to).toISOString());
      params.set('from', new Date(to - days * day).toISOString());
      if (keyId) params.set('keyId', keyId);
      if (knowledgeBaseId) params.set('knowledgeBaseId', knowledgeBaseId);
      return get<UsageResponse>(`/usage?${params}`, signal);
    },
    [days, keyId, knowledgeBaseId],
  );
  const keyName = (id: string) => (id === '' ? 'Dashboard and internal' : (keys.data?.data.find((k) => k.id === id)?.name ?? id));
  const data = (usage.data?.series ?? []).map((b) => ({ ...b, day: b.start.slice(5, 10) }));
  const t = usage.data?.totals;
  const empty = t && t.requests === 0 && t.itemsPushed === 0 && t.questions === 0;

  return (
    <>
      <PageHeader title="Usage" />
      <form className="filters" aria-label="Usage filters" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor="usage-range">Period</label>
          <select id="usage-range" value={days} onChange={(e) => setDays(Number(e.target.value) as (typeof RANGES)[number])}>
            {RANGES.map((d) => (
              <option key={d} value={d}>
                Last {d} days
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="usage-key">API key</label>
          <select id="usage-key" value={keyId} onChange={(e) => setKeyId(e.target.value)}>
            <option value="">All keys</option>
            {(keys.data?.data ?? []).map((k) => (
              <option key={k.id} value={k.id}>
                {k.name} ({k.prefix})
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="usage-kb">Knowledge base</label>
          <select id="usage-kb" value={knowledgeBaseId} onChange={(e) => setKnowledgeBaseId(e.target.value)}>
            <option value="">All knowledge bases</option>
            {(kbs.data?.data ?? []).map((kb) => (
              <option key={kb.id} value={kb.id}>
                {kb.id}
              </option>
            ))}
          </select>
        </div>
      </form>
      <ErrorNote error={usage.error} />
      {t ? (
        <dl className="stats wide" aria-label="Totals for the period">
          {(
            [
              ['Requests', t.requests],
              ['Items pushed', t.itemsPushed],
              ['Questions', t.questions],
              ['Searches', t.searches],
              ['Chunks embedded', t.chunksEmbedded],
              ['Failed jobs', t.jobs.failed],
            ] as const
          ).map(([label, value]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>{formatNumber(value)}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      {empty ? (
        <EmptyState title="No usage in this period">
          <p>Requests, pushed items and questions show up here per day once an integration uses its API key.</p>
        </EmptyState>
      ) : null}
      {usage.data && !empty ? (
        <section className="panel" aria-labelledby="usage-chart-heading">
          <h2 id="usage-chart-heading">Per day</h2>
          <figure className="chart" aria-label="Requests, items pushed and questions per day">
            <ResponsiveContainer width="100%" height={300}>
              <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                <XAxis dataKey="day" tick={{ fontSize: 12 }} />
                <YAxis allowDecimals={false} tick={{ fontSize: 12 }} />
                <Tooltip />
                <Legend />
                {SERIES.map((s) => (
                  <Bar key={s.key} dataKey={s.key} name={s.label} fill={s.color} />
                ))}
              </BarChart>
            </ResponsiveContainer>
          </figure>
          {/* The same numbers as a table, for screen readers and for copying. */}
          <details>
            <summary>Show as a table</summary>
            <table>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  {SERIES.map((s) => (
                    <th scope="col" key={s.key}>
                      {s.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {data.map((d) => (
                  <tr key={d.start}>
                    <td>{d.start.slice(0, 10)}</td>
                    {SERIES.map((s) => (
                      <td key={s.key}>{d[s.key]}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        </section>
      ) : null}
      {usage.data && !empty ? (
        <div className="two-col">
          <section className="panel" aria-labelledby="by-key-heading">
            <h2 id="by-key-heading">By API key</h2>
            <table>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Requests</th>
                  <th scope="col">Items</th>
                  <th scope="col">Questions</th>
                </tr>
              </thead>
              <tbody>
                {usage.data.byKey.map((row) => (
                  <tr key={row.keyId}>
                    <td>{keyName(row.keyId)}</td>
                    <td>{formatNumber(row.totals.requests)}</td>
                    <td>{formatNumber(row.totals.itemsPushed)}</td>
                    <td>{formatNumber(row.totals.questions)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <section className="panel" aria-labelledby="by-kb-heading">
            <h2 id="by-kb-heading">By knowledge base</h2>
            <table>
              <thead>
                <tr>
                  <th scope="col">Knowledge base</th>
                  <th scope="col">Requests</th>
                  <th scope="col">Items</th>
                  <th scope="col">Questions</th>
                </tr>
              </thead>
              <tbody>
                {usage.data.byKnowledgeBase.map((row) => (
                  <tr key={row.knowledgeBaseId}>
                    <td>{row.knowledgeBaseId || '—'}</td>
                    <td>{formatNumber(row.totals.requests)}</td>
                    <td>{formatNumber(row.totals.itemsPushed)}</td>
                    <td>{formatNumber(row.totals.questions)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </div>
      ) : null}
    </>
  );
}
