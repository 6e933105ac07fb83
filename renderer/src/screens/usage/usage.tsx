import { type ReactNode, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { listKeys } from '../../api/keys.ts';
import { listKnowledgeBases } from '../../api/knowledge-bases.ts';
import { getUsage, type UsageResponse } from '../../api/usage.ts';
import { listWidgets } from '../../api/widgets.ts';
import { FilterSelect } from '../../components/filter-select.tsx';
import { DataTable, EmptyState, ErrorNote, PageHeader, useLoad } from '../../components/ui.tsx';
import { formatNumber } from '../../format.ts';
import { VisitorUsageSection } from './usage-visitors.tsx';

type Totals = UsageResponse['totals'];

/** One row of a per-key or per-knowledge-base table. */
function TotalsRow({ name, totals }: { name: ReactNode; totals: Totals }) {
  return (
    <tr>
      <td>{name}</td>
      <td>{formatNumber(totals.requests)}</td>
      <td>{formatNumber(totals.itemsPushed)}</td>
      <td>{formatNumber(totals.questions)}</td>
    </tr>
  );
}
const TOTALS_COLUMNS = ['Requests', 'Items', 'Questions'];

/**
 * Requests that name no single knowledge base are counted together; a note under the table says
 * which they are (in the cell, the long note made the row taller than the rest of the table).
 */
const NO_KNOWLEDGE_BASE = (
  <span aria-describedby="no-knowledge-base-note">
    None named<sup aria-hidden="true">*</sup>
  </span>
);

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
  const [widgetId, setWidgetId] = useState('');
  const [granularity, setGranularity] = useState<'day' | 'hour'>('day');
  const widgets = useLoad((signal) => listWidgets(signal), []);
  const keys = useLoad((signal) => listKeys(signal), []);
  const kbs = useLoad((signal) => listKnowledgeBases(signal), []);
  const usage = useLoad(
    (signal) => {
      const day = 86_400_000;
      const bucket = granularity === 'day' ? day : 3_600_000;
      const to = Math.ceil((Date.now() + 1) / bucket) * bucket;
      const period = { to: new Date(to).toISOString(), from: new Date(to - days * day).toISOString() };
      return getUsage({ granularity, ...period, keyId, knowledgeBaseId, widgetId }, signal);
    },
    [days, keyId, knowledgeBaseId, widgetId, granularity],
  );
  const keyName = (id: string) => (id === '' ? 'Dashboard and internal' : (keys.data?.data.find((k) => k.id === id)?.name ?? id));
  const data = (usage.data?.series ?? []).map((b) => ({ ...b, day: granularity === 'day' ? b.start.slice(5, 10) : `${b.start.slice(5, 10)} ${b.start.slice(11, 13)}h` }));
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
        <FilterSelect id="usage-key" label="API key" allLabel="All keys" value={keyId} onChange={setKeyId} options={keys.data?.data} name={(k) => `${k.name} (${k.prefix})`} />
        <FilterSelect id="usage-kb" label="Knowledge base" allLabel="All knowledge bases" value={knowledgeBaseId} onChange={setKnowledgeBaseId} options={kbs.data?.data} />
        <FilterSelect id="usage-widget" label="Widget (visitors)" allLabel="All widgets" value={widgetId} onChange={setWidgetId} options={widgets.data?.data} name={(w) => w.name} />
        <div className="field">
          <label htmlFor="usage-granularity">Buckets</label>
          <select id="usage-granularity" value={granularity} onChange={(e) => setGranularity(e.target.value as 'day' | 'hour')}>
            <option value="day">Per day</option>
            <option value="hour">Per hour</option>
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
          <h2 id="usage-chart-heading">{granularity === 'day' ? 'Per day' : 'Per hour'}</h2>
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
        <div className="two-col tables">
          <section className="panel" aria-labelledby="by-key-heading">
            <h2 id="by-key-heading">By API key</h2>
            <DataTable caption="Usage by API key" columns={['Key', ...TOTALS_COLUMNS]}>
              {usage.data.byKey.map((row) => (
                <TotalsRow key={row.keyId} name={keyName(row.keyId)} totals={row.totals} />
              ))}
            </DataTable>
          </section>
          <section className="panel" aria-labelledby="by-kb-heading">
            <h2 id="by-kb-heading">By knowledge base</h2>
            <DataTable caption="Usage by knowledge base" columns={['Knowledge base', ...TOTALS_COLUMNS]}>
              {usage.data.byKnowledgeBase.map((row) => (
                <TotalsRow key={row.knowledgeBaseId} name={row.knowledgeBaseId || NO_KNOWLEDGE_BASE} totals={row.totals} />
              ))}
            </DataTable>
            {usage.data.byKnowledgeBase.some((row) => !row.knowledgeBaseId) ? (
              <p className="hint" id="no-knowledge-base-note">
                * None named: bulk pushes (their items count under each knowledge base), job lookups, the list of knowledge bases, usage and articles.
              </p>
            ) : null}
          </section>
        </div>
      ) : null}
      {usage.data?.visitors ? <VisitorUsageSection visitors={usage.data.visitors} granularity={granularity} /> : null}
    </>
  );
}
