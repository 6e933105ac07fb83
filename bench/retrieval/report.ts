/** Markdown tables of an eval run, in the shape docs/retrieval.md uses. */
import type { DatasetName } from './datasets.ts';
import type { ModeResult } from './http-eval.ts';
import type { IngestStats } from './ingest-dataset.ts';
import type { SweepRow } from './sweep.ts';

export type DatasetReport = {
  queries: number;
  ingest: IngestStats;
  modes?: ModeResult[];
  sweep?: SweepRow[];
};

export type EvalReport = {
  when: string;
  machine: string;
  embedder: string | null;
  datasets: Partial<Record<DatasetName, DatasetReport>>;
};

const f3 = (x: number) => x.toFixed(3);

function table(header: string[], rows: string[][]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

function modesTable(name: string, report: DatasetReport): string {
  const modes = report.modes!;
  const metrics = Object.keys(modes[0]?.scores ?? {});
  return table(
    [`${name} (${report.queries} queries): mode`, ...metrics, 'tookMs p50', 'p95', 'max'],
    modes.map((m) => [m.mode, ...metrics.map((k) => f3(m.scores[k]!)), String(m.tookMs.p50), String(m.tookMs.p95), String(m.tookMs.max)]),
  );
}

function ingestTable(report: EvalReport): string {
  const rows = Object.entries(report.datasets).map(([name, d]) => {
    const i = d.ingest;
    const timed = (x: number | null) => (x === null ? 'reused' : String(x));
    return [name, String(i.items), String(i.missing), String(i.chunks), timed(i.pushSeconds), timed(i.totalSeconds), timed(i.itemsPerSecond), timed(i.chunksPerSecond)];
  });
  return table(['dataset', 'items', 'missing', 'chunks', 'acknowledged (s)', 'indexed (s)', 'items/s', 'chunks/s'], rows);
}

/**
 * One row per setting, one column per dataset metric, and for each hybrid setting the metrics on
 * which it ranks worse than keyword alone (the product rule for the default is: none).
 */
function sweepTable(report: EvalReport): string {
  const swept = Object.entries(report.datasets).filter(([, d]) => d.sweep);
  if (swept.length === 0) return '';
  const columns = swept.flatMap(([name, d]) => Object.keys(d.sweep![0]!.scores).map((metric) => ({ name, metric })));
  const score = (name: string, label: string, metric: string) =>
    report.datasets[name as DatasetName]!.sweep!.find((r) => r.label === label)!.scores[metric]!;
  const rows = swept[0]![1].sweep!.map(({ label, hybrid }) => {
    const worse = columns
      .map((c) => ({ ...c, delta: score(c.name, label, c.metric) - score(c.name, 'keyword', c.metric) }))
      .filter((c) => c.delta < 0)
      .map((c) => `${c.name} ${c.metric} (${c.delta.toFixed(4)})`);
    return [label, ...columns.map((c) => f3(score(c.name, label, c.metric))), hybrid ? worse.join(', ') || 'none' : ''];
  });
  return table(['setting (keyword/dense)', ...columns.map((c) => `${c.name} ${c.metric}`), 'worse than keyword on'], rows);
}

export function markdownReport(report: EvalReport): string {
  const parts = [`Retrieval eval, ${report.when}, ${report.machine}, embedder ${report.embedder ?? 'none'}`, '', '## Ingestion', '', ingestTable(report)];
  const withModes = Object.entries(report.datasets).filter(([, d]) => d.modes);
  if (withModes.length) parts.push('', '## Search over HTTP', '', ...withModes.flatMap(([name, d]) => [modesTable(name, d), '']));
  const sweep = sweepTable(report);
  if (sweep) parts.push('', '## Hybrid fusion sweep (in-process)', '', sweep);
  return `${parts.join('\n').trimEnd()}\n`;
}
