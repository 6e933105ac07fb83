import type { ReactNode } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { z } from 'zod';
import type { visitorUsageSchema } from '../../../../common/contract/usage.ts';
import { DataTable, EmptyState } from '../../components/ui.tsx';
import { formatNumber } from '../../format.ts';
import { href } from '../../router.ts';

type VisitorUsage = z.infer<typeof visitorUsageSchema>;

const percent = (share: number | null) => (share === null ? '—' : `${Math.round(share * 100)} %`);
const ms = (value: number | null) => (value === null ? '—' : value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(1)} s`);

/** One chart with its numbers as a table beside it, for screen readers and for copying. */
function Chart({ title, label, children, table }: { title: string; label: string; children: ReactNode; table: { columns: string[]; rows: Array<Array<string | number>> } }) {
  return (
    <section className="panel" aria-label={title}>
      <h3>{title}</h3>
      <figure className="chart" aria-label={label}>
        <ResponsiveContainer width="100%" height={220}>
          {children as never}
        </ResponsiveContainer>
      </figure>
      <details>
        <summary>Show as a table</summary>
        <table>
          <thead>
            <tr>
              {table.columns.map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.rows.map((row) => (
              <tr key={String(row[0])}>
                {row.map((cell, i) => (
                  <td key={i}>{cell}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}

/** The visitor assistant's part of the Usage screen: what website visitors asked and how it went. */
export function VisitorUsageSection({ visitors, granularity }: { visitors: VisitorUsage; granularity: 'day' | 'hour' }) {
  const s = visitors.summary;
  const when = (start: string) => (granularity === 'day' ? start.slice(5, 10) : `${start.slice(5, 10)} ${start.slice(11, 13)}h`);
  const data = visitors.series.map((b) => ({
    ...b,
    when: when(b.start),
    answeredPercent: b.answeredShare === null ? null : Math.round(b.answeredShare * 100),
    median: b.answerTimeMs.median,
    p95: b.answerTimeMs.p95,
  }));
  const per = granularity === 'day' ? 'Per day' : 'Per hour';
  return (
    <section aria-labelledby="visitors-heading">
      <h2 id="visitors-heading">Website visitors</h2>
      <dl className="stats wide" aria-label="Visitor totals for the period">
        {(
          [
            ['Sessions', formatNumber(s.sessions)],
            ['Questions', formatNumber(s.questions)],
            ['Answered', percent(s.answeredShare)],
            ['Thumbs up', formatNumber(s.feedbackUp)],
            ['Thumbs down', formatNumber(s.feedbackDown)],
            ['Median answer time', ms(s.answerTimeMs.median)],
            ['95th percentile', ms(s.answerTimeMs.p95)],
          ] as const
        ).map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {s.questions === 0 ? (
        <EmptyState title="No visitor questions in this period">
          <p>
            Charts of sessions, answers, ratings and answer times appear here once visitors ask through a widget on your website.{' '}
            <a href={href('widgets')}>Set up a widget</a>, or choose a longer period.
          </p>
        </EmptyState>
      ) : (
        <>
          <div className="two-col">
            <Chart
              title={`Sessions and questions — ${per.toLowerCase()}`}
              label="Visitor sessions and questions"
              table={{ columns: ['Time', 'Sessions', 'Questions'], rows: data.map((d) => [d.start, d.sessions, d.questions]) }}
            >
              <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                <XAxis dataKey="when" tick={{ fontSize: 12 }} />
                <YAxis allowDecimals={false} tick={{ fontSize: 12 }} />
                <Tooltip />
                <Legend />
                <Bar dataKey="sessions" name="Sessions" fill="#3565d8" />
                <Bar dataKey="questions" name="Questions" fill="#c2701a" />
              </BarChart>
            </Chart>
            <Chart
              title="Answered share"
              label="Share of visitor questions answered"
              table={{ columns: ['Time', 'Answered', 'Questions'], rows: data.map((d) => [d.start, percent(d.answeredShare), d.questions]) }}
            >
              <LineChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                <XAxis dataKey="when" tick={{ fontSize: 12 }} />
                <YAxis domain={[0, 100]} unit="%" tick={{ fontSize: 12 }} />
                <Tooltip />
                <Line dataKey="answeredPercent" name="Answered (%)" stroke="#1f9d74" connectNulls dot={{ r: 2 }} />
              </LineChart>
            </Chart>
            <Chart
              title="Thumbs up and down"
              label="Visitor ratings"
              table={{ columns: ['Time', 'Up', 'Down'], rows: data.map((d) => [d.start, d.feedbackUp, d.feedbackDown]) }}
            >
              <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                <XAxis dataKey="when" tick={{ fontSize: 12 }} />
                <YAxis allowDecimals={false} tick={{ fontSize: 12 }} />
                <Tooltip />
                <Legend />
                <Bar dataKey="feedbackUp" name="Thumbs up" stackId="r" fill="#1f9d74" />
                <Bar dataKey="feedbackDown" name="Thumbs down" stackId="r" fill="#c23b3b" />
              </BarChart>
            </Chart>
            <Chart
              title="Answer time"
              label="Median and 95th percentile answer time in milliseconds"
              table={{ columns: ['Time', 'Median', '95th percentile'], rows: data.map((d) => [d.start, ms(d.median), ms(d.p95)]) }}
            >
              <LineChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                <XAxis dataKey="when" tick={{ fontSize: 12 }} />
                <YAxis unit=" ms" tick={{ fontSize: 12 }} />
                <Tooltip />
                <Legend />
                <Line dataKey="median" name="Median" stroke="#3565d8" connectNulls dot={{ r: 2 }} />
                <Line dataKey="p95" name="95th percentile" stroke="#c2701a" connectNulls dot={{ r: 2 }} />
              </LineChart>
            </Chart>
          </div>
          <div className="two-col tables">
            <section className="panel" aria-labelledby="top-questions-heading">
              <h3 id="top-questions-heading">Top questions</h3>
              <p className="hint">The same question in other words counts once.</p>
              <DataTable caption="Top visitor questions" columns={['Question', 'Asked', 'Answered', 'Wordings']}>
                {visitors.topQuestions.map((q) => (
                  <tr key={q.question}>
                    <td>{q.question}</td>
                    <td className="number">{formatNumber(q.asked)}</td>
                    <td className="number">{formatNumber(q.answered)}</td>
                    <td className="number">{q.wordings}</td>
                  </tr>
                ))}
              </DataTable>
            </section>
            <section className="panel" aria-labelledby="top-cited-heading">
              <h3 id="top-cited-heading">Top cited items</h3>
              {visitors.topCitedItems.length === 0 ? (
                <p className="hint">No answer cited an item in this period.</p>
              ) : (
                <DataTable caption="Items cited most in answers to visitors" columns={['Item', 'Cited']}>
                  {visitors.topCitedItems.map((item) => (
                    <tr key={`${item.title}|${item.url}`}>
                      <td>{item.url ? <a href={item.url} target="_blank" rel="noreferrer noopener">{item.title}</a> : item.title}</td>
                      <td className="number">{formatNumber(item.cited)}</td>
                    </tr>
                  ))}
                </DataTable>
              )}
            </section>
          </div>
          <section className="panel" aria-labelledby="visitors-kb-heading">
            <h3 id="visitors-kb-heading">By knowledge base</h3>
            <DataTable caption="Visitor questions by knowledge base" columns={['Knowledge base', 'Questions', 'Answered', 'Thumbs up', 'Thumbs down']}>
              {visitors.byKnowledgeBase.map((k) => (
                <tr key={k.knowledgeBaseId}>
                  <td>{k.knowledgeBaseId}</td>
                  <td className="number">{formatNumber(k.questions)}</td>
                  <td className="number">{percent(k.answeredShare)}</td>
                  <td className="number">{formatNumber(k.feedbackUp)}</td>
                  <td className="number">{formatNumber(k.feedbackDown)}</td>
                </tr>
              ))}
            </DataTable>
          </section>
        </>
      )}
    </section>
  );
}
