import fs from 'node:fs';
import readline from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../config.ts';
import { type ImportMapping, importTargetSchema, parseMapping, parseMappingSpec, type RowError } from '../../../common/import/import-mapping.ts';
import { PRIORITIES, SOURCE_TYPES } from '../../../common/contract/ingest.ts';
import { LIMITS } from '../../../common/contract/limits.ts';
import { ErrorAnswer } from '../../../common/contract/errors.ts';
import { httpImportApi } from '../../../common/import/http-import-api.ts';
import { ApiClient } from './api-client.ts';
import { defaultCheckpointPath } from './checkpoint.ts';
import { createProgress } from './progress.ts';
import { resolveServerUrl } from './server-url.ts';
import { formatFromName, IMPORT_FORMATS, type ImportFormat } from '../../../common/import/formats.ts';
import { FileFormatError } from '../../../common/import/json-array-stream.ts';
import { runImport, type ImportReport } from './run-import.ts';

export const IMPORT_USAGE = `  import FILE --map F=COL,… | --mapping map.json --source-type T --knowledge-base KB --integration I
        [--url U | env LOCALIQ_URL | LOCALIQ_PORT | the data folder's server] [--key K | env LOCALIQ_API_KEY] [--format csv|json|jsonl]
        [--delimiter ;] [--batch-size 500] [--priority high|low] [--force-refresh] [--dry-run [--preview 5]]
        [--sync [--yes]] [--wait 30m | --no-wait] [--checkpoint FILE] [--restart] [--json]
                                          import a CSV, JSON or JSONL file through the bulk API;
                                          fields: externalId, content, title, url, hash, sourceData.<key>`;

function parseDuration(text: string): number {
  const match = /^(\d+)\s*(s|m|h)$/.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not a duration like 90s, 30m or 2h.`);
  return Number(match[1]) * { s: 1_000, m: 60_000, h: 3_600_000 }[match[2] as 's' | 'm' | 'h'];
}

function describeRow(error: RowError): string {
  return `row ${error.row}${error.externalId ? ` (${error.externalId})` : ''}: ${error.reason}`;
}

async function askToDelete(count: number, target: { integrationId: string; knowledgeBaseId: string }, yes: boolean): Promise<boolean> {
  const what = `${count} item${count === 1 ? '' : 's'} of integration "${target.integrationId}" in knowledge base "${target.knowledgeBaseId}" that the file no longer holds`;
  if (yes) {
    process.stderr.write(`Sync: deleting ${what}.\n`);
    return true;
  }
  if (!process.stdin.isTTY) {
    process.stderr.write(`Sync would delete ${what}. Nothing was deleted: run again with --yes to confirm.\n`);
    return false;
  }
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`Sync will delete ${what}. Delete them? [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

function printReport(report: ImportReport, dryRun: boolean): void {
  const out: string[] = [];
  if (dryRun) {
    out.push(`Dry run: nothing was sent. The first ${report.preview.length} item(s):`);
    for (const item of report.preview) out.push(JSON.stringify(item, null, 2));
    out.push(report.invalid ? `Invalid rows (${report.invalid}):` : 'No invalid rows.');
    for (const error of report.invalidRows) out.push(`  ${describeRow(error)}`);
  }
  out.push(`${report.rows} row(s) read: ${report.valid} valid, ${report.invalid} invalid.`);
  if (report.titlesFromContent) {
    out.push(`${report.titlesFromContent} valid row(s) have no title: the item's title is the first line of its content (up to 80 characters).`);
  }
  if (!dryRun) {
    const resumed = report.resumedAfterRow === null ? '' : ` (resumed after row ${report.resumedAfterRow})`;
    out.push(`Sent ${report.itemsSent} item(s) in ${report.batches} batch(es)${resumed}.`);
  }
  if (report.jobs) {
    const counts = Object.entries(report.jobs)
      .filter(([key, n]) => key !== 'timedOut' && n)
      .map(([status, n]) => `${n} ${status}`);
    out.push(`Jobs: ${counts.join(', ') || 'none'}${report.jobs.timedOut ? ' (stopped waiting; the rest is still being processed)' : ''}.`);
  }
  if (report.sync) {
    out.push(
      dryRun
        ? `Sync would delete ${report.sync.absent} item(s) not in the file.`
        : `Sync: ${report.sync.absent} item(s) not in the file, ${report.sync.deleted} deleted.`,
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

/**
 * `localiq import FILE …`: reads the file as a stream, maps and validates every row, and pushes
 * the valid items through `POST /ingest/bulk` of a running LocalIQ. Exit code 0 when every row
 * was valid and no job failed, 1 otherwise.
 */
export async function importCommand(args: string[], usageError: (message: string) => Error): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      key: { type: 'string' },
      format: { type: 'string' },
      delimiter: { type: 'string' },
      map: { type: 'string' },
      mapping: { type: 'string' },
      'source-type': { type: 'string' },
      'knowledge-base': { type: 'string' },
      integration: { type: 'string' },
      priority: { type: 'string' },
      'force-refresh': { type: 'boolean', default: false },
      'batch-size': { type: 'string', default: '500' },
      'dry-run': { type: 'boolean', default: false },
      preview: { type: 'string', default: '5' },
      sync: { type: 'boolean', default: false },
      yes: { type: 'boolean', default: false },
      wait: { type: 'string', default: '30m' },
      'no-wait': { type: 'boolean', default: false },
      checkpoint: { type: 'string' },
      restart: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const file = positionals[0];
  if (!file || positionals.length > 1) throw usageError('import takes one FILE.');
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw usageError(`No file "${file}".`);

  const format = (values.format ?? formatFromName(file)) as ImportFormat | null;
  if (!format || !(IMPORT_FORMATS as readonly string[]).includes(format)) {
    throw usageError(`--format takes one of ${IMPORT_FORMATS.join(', ')} (it cannot be told from the file name).`);
  }
  if (Boolean(values.map) === Boolean(values.mapping)) throw usageError('import needs exactly one of --map or --mapping.');
  let mapping: ImportMapping;
  try {
    mapping = values.map ? parseMappingSpec(values.map) : parseMapping(JSON.parse(fs.readFileSync(values.mapping!, 'utf8')));
  } catch (error) {
    throw usageError(`Mapping: ${(error as Error).message}`);
  }
  if (values.priority && !(PRIORITIES as readonly string[]).includes(values.priority)) {
    throw usageError(`--priority takes ${PRIORITIES.join(' or ')}.`);
  }
  const target = importTargetSchema.safeParse({
    integrationId: values.integration,
    knowledgeBaseId: values['knowledge-base'],
    sourceType: values['source-type'],
    ...(values.priority ? { priority: values.priority } : {}),
    ...(values['force-refresh'] ? { forceRefresh: true } : {}),
  });
  if (!target.success) {
    throw usageError(
      `import needs --integration, --knowledge-base and --source-type (${SOURCE_TYPES.join(', ')}): ` +
        target.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    );
  }
  const batchSize = Number(values['batch-size']);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > LIMITS.defaultBulkItems) {
    throw usageError(`--batch-size takes a whole number from 1 to ${LIMITS.defaultBulkItems}.`);
  }
  const previewCount = Number(values.preview);
  if (!Number.isInteger(previewCount) || previewCount < 0) throw usageError('--preview takes a whole number.');
  let waitMs: number;
  try {
    waitMs = values['no-wait'] ? 0 : parseDuration(values.wait!);
  } catch (error) {
    throw usageError((error as Error).message);
  }

  const dryRun = values['dry-run'];
  const apiKey = values.key ?? process.env.LOCALIQ_API_KEY;
  if (!apiKey && (!dryRun || values.sync)) throw usageError('import needs an API key: --key or the LOCALIQ_API_KEY environment variable.');
  const config = loadConfig();
  const { url, unreachableHint } = resolveServerUrl(values.url, process.env, config);
  const progress = createProgress(process.stderr, values.json);
  const client = apiKey
    ? new ApiClient({
        url,
        apiKey,
        unreachableHint,
        onRetry: ({ reason, waitMs: ms }) => progress.note(`${reason}; retrying in ${Math.ceil(ms / 1000)}s`),
      })
    : null;
  const api = client ? httpImportApi((method, path, body) => client.request(method, path, body), 'public') : null;
  const checkpointPath = values.checkpoint ?? defaultCheckpointPath(file, config.dataDir);
  if (values.restart) fs.rmSync(checkpointPath, { force: true });

  let report: ImportReport;
  try {
    report = await runImport({
      file,
      format,
      delimiter: values.delimiter,
      mapping,
      target: target.data,
      api,
      batchSize,
      dryRun,
      previewCount,
      checkpointPath,
      waitMs,
      sync: values.sync,
      confirmDelete: (count) => askToDelete(count, target.data, values.yes),
      onInvalidRow: dryRun || values.json ? undefined : (error) => progress.note(`skipped ${describeRow(error)}`),
      progress,
    });
  } catch (error) {
    progress.end();
    if (error instanceof FileFormatError) throw new Error(`${file}: ${error.message}`);
    if (error instanceof ErrorAnswer) {
      const details = error.details.map((d) => `\n  ${d.path}: ${d.message}`).join('');
      const resume = dryRun ? '' : `\nRows acknowledged so far are recorded in ${checkpointPath}; run the same command again to resume.`;
      throw new Error(`the server answered ${error.status} ${error.code}: ${error.message}${details}${resume}`);
    }
    throw error;
  }
  progress.end();
  if (values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else printReport(report, dryRun);
  const declined = report.sync !== null && !dryRun && report.sync.absent > 0 && !report.sync.confirmed;
  const failed = (report.jobs?.failed ?? 0) > 0 || report.jobs?.timedOut === true;
  return report.invalid > 0 || failed || declined ? 1 : 0;
}
