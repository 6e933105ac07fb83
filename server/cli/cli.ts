import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { parseDuration, parseExpiry } from '../domain/api-keys.ts';
import { isScope, SCOPES, type Scope } from '../../common/contract/scopes.ts';
import { JOB_STATUSES, type JobStatus } from '../../common/contract/jobs.ts';
import { type RunningServer, startServer } from '../main.ts';
import { openServices, type Services } from '../services.ts';
import { ownerSetupLine, secretStoreNote } from '../startup-notes.ts';
import { localServerUrl } from './import/server-url.ts';
import { DB_FILE_NAME } from '../storage/db.ts';
import { toJobView } from '../http/edge/job-view.ts';
import { displayPrefix } from '../domain/api-keys.ts';
import { BACKUP_USAGE, backupCommand, restoreCommand } from './backup-command.ts';
import { IMPORT_USAGE, importCommand } from './import/import-command.ts';
import { SOURCES_USAGE, sourcesCommand } from './sources-command.ts';
import { SYNONYMS_USAGE, synonymsCommand } from './synonyms-command.ts';
import { ANSWERS_USAGE, answersCommand } from './answers-command.ts';
import { FILES_USAGE, filesCommand } from './import/files-command.ts';
import { USERS_USAGE, usersCommand } from './users-command.ts';
import { configuredWidgetBaseUrl, WIDGETS_USAGE, widgetsCommand } from './widgets-command.ts';
import { WEBHOOKS_USAGE, webhooksCommand } from './webhooks-command.ts';

const USAGE = `Usage: localiq <command>

  serve                                   run the appliance (HTTP API on 127.0.0.1:7410)
  keys create --name N --scopes a,b       create an API key and print its value once
        [--description D] [--knowledge-bases kb1,kb2] [--expires 30d|2027-01-31|never] [--json]
  keys list [--json]                      list keys (never their values)
  keys revoke <id>                        revoke a key at once
  keys rotate <id> [--grace 24h] [--json] new value, same settings; the old one works for the grace period
  jobs [--status s] [--knowledge-base kb] [--limit n] [--json]
                                          list jobs, newest first
${IMPORT_USAGE}
${FILES_USAGE}
${USERS_USAGE}
${WIDGETS_USAGE}
${WEBHOOKS_USAGE}
${SYNONYMS_USAGE}
${SOURCES_USAGE}
${ANSWERS_USAGE}
${BACKUP_USAGE}

Scopes: ${SCOPES.join(', ')}
Environment: LOCALIQ_DATA_DIR, LOCALIQ_PORT, LOCALIQ_HOST, LOCALIQ_SECRET_STORE (auto|keychain|file),
  LOCALIQ_URL (import and files add; without it and LOCALIQ_PORT they find the server of LOCALIQ_DATA_DIR)`;

class UsageError extends Error {}

function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

/** A bad option value is a usage error: exit code 2 and the usage. */
function asUsage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function print(json: boolean, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);
}

async function withServices<T>(run: (services: Services) => T | Promise<T>): Promise<T> {
  const config = loadConfig();
  const isNew = !fs.existsSync(path.join(config.dataDir, DB_FILE_NAME));
  const services = await openServices(config);
  if (isNew) {
    // A mistyped or unset LOCALIQ_DATA_DIR would otherwise make keys a server never sees.
    process.stderr.write(
      `localiq: ${config.dataDir} held no LocalIQ database; a new one was created there. ` +
        'If your server uses another folder, set LOCALIQ_DATA_DIR to the one `localiq serve` prints.\n',
    );
  }
  try {
    return await run(services);
  } finally {
    services.close();
  }
}

async function serve(args: string[]): Promise<number> {
  // Settings come from the environment only: an option here would be silently ignored.
  if (args.length > 0) throw new UsageError(`serve takes no options (got ${args.join(' ')}); set LOCALIQ_PORT, LOCALIQ_DATA_DIR and the rest in the environment.`);
  const config = loadConfig();
  let server: RunningServer;
  try {
    server = await startServer(config);
  } catch (error) {
    const inUse = error as { code?: string; port?: number };
    if (inUse.code === 'EADDRINUSE' && config.publicListener && inUse.port === config.publicListener.port && inUse.port !== config.port) {
      throw new Error(`Port ${inUse.port} on ${config.publicListener.host} is in use by another program; set LOCALIQ_PUBLIC_PORT to a free port.`);
    }
    if (inUse.code === 'EADDRINUSE') {
      throw new Error(`Port ${config.port} on ${config.host} is in use by another program; set LOCALIQ_PORT to a free port.`);
    }
    throw error;
  }
  // Listening before the line that says so: whoever reads it may signal at once.
  const signalled = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const { announce } = server.logs;
  announce(`LocalIQ is listening on ${server.url} (API docs: ${server.url}/docs)`);
  if (server.publicUrl) announce(`Visitor side (widget, hosted chat page, /v1/widget) also on ${server.publicUrl}`);
  announce(`Data folder: ${config.dataDir} (server secret in the ${server.services.secretStore === 'keychain' ? 'OS keychain' : 'file store'})`);
  announce(secretStoreNote(config.dataDir, server.services.secretStore, server.services.fileStoreReason));
  if (server.services.users.needsOwner()) announce(ownerSetupLine(localServerUrl(config.host, Number(new URL(server.url).port))));
  announce(
    server.pipeline
      ? `Pipeline: ${config.workers} worker thread(s), embedding model ${server.services.embedding.modelId()}`
      : 'Pipeline: off (LOCALIQ_WORKERS=0); pushed items stay queued',
  );
  await signalled;
  announce('Stopping LocalIQ: the pipeline finishes the batch in hand…');
  await server.stop();
  announce('LocalIQ stopped.');
  return 0;
}

async function keysCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      description: { type: 'string' },
      scopes: { type: 'string' },
      'knowledge-bases': { type: 'string' },
      expires: { type: 'string' },
      grace: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const json = values.json ?? false;
  switch (action) {
    case 'create': {
      if (!values.name) throw new UsageError('keys create needs --name.');
      const scopes = list(values.scopes);
      const unknown = scopes.filter((s) => !isScope(s));
      if (scopes.length === 0 || unknown.length) {
        const problem = unknown.length ? `Unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}. ` : 'keys create needs --scopes. ';
        throw new UsageError(`${problem}--scopes takes a comma-separated list of: ${SCOPES.join(', ')}.`);
      }
      if (values['knowledge-bases'] !== undefined && list(values['knowledge-bases']).length === 0) {
        // An empty list would mean no restriction at all: a script with its variable unset would
        // create a key for every knowledge base.
        throw new UsageError('--knowledge-bases names at least one knowledge base; leave it out for a key that reads all of them.');
      }
      const expiresAt = values.expires ? asUsage(() => parseExpiry(values.expires!, Date.now())) : null;
      return withServices(({ keys }) => {
        const { key, value } = keys.create({
          name: values.name!,
          description: values.description ?? '',
          scopes: scopes as Scope[],
          knowledgeBaseIds: list(values['knowledge-bases']),
          expiresAt,
          createdBy: 'cli',
        });
        print(json, { ...key, prefix: displayPrefix(key.id), value }, [
          `Created key ${key.id} "${key.name}" with scopes ${key.scopes.join(', ')}, ` +
            `${key.expiresAt === null ? 'never expiring' : `expiring ${new Date(key.expiresAt).toISOString()}`}.`,
          `Its value is shown only this once; store it now:`,
          value,
        ].join('\n'));
        return 0;
      });
    }
    case 'list':
      return withServices(({ keys }) => {
        const all = keys.list();
        const lines = all.map((k) =>
          [
            k.id,
            displayPrefix(k.id),
            // A rotated key's old value works until its grace period ends.
            k.state === 'active' && k.revokedAt !== null ? `active until ${new Date(k.revokedAt).toISOString()}` : k.state,
            k.name,
            k.scopes.join(','),
            k.knowledgeBaseIds?.join(',') ?? '*',
            k.expiresAt ? new Date(k.expiresAt).toISOString() : 'never',
            k.lastUsedAt ? new Date(k.lastUsedAt).toISOString() : '-',
          ].join('\t'),
        );
        print(json, all, ['id\tprefix\tstate\tname\tscopes\tknowledge bases\texpires\tlast used', ...lines].join('\n'));
        return 0;
      });
    case 'revoke': {
      const id = positionals[0];
      if (!id) throw new UsageError('keys revoke needs the key id.');
      return withServices(({ keys }) => {
        if (!keys.find(id)) {
          process.stderr.write(`No key with id ${id}.\n`);
          return 1;
        }
        const changed = keys.revoke(id);
        process.stdout.write(changed ? `Revoked key ${id}.\n` : `Key ${id} was already revoked.\n`);
        return 0;
      });
    }
    case 'rotate': {
      const id = positionals[0];
      if (!id) throw new UsageError('keys rotate needs the key id.');
      const graceMs = values.grace ? asUsage(() => parseDuration(values.grace!)) : 0;
      return withServices(({ keys }) => {
        const rotated = keys.rotate(id, graceMs, 'cli');
        if (!rotated) {
          process.stderr.write(`No active key with id ${id} that is not rotated already.\n`);
          return 1;
        }
        print(json, { ...rotated.key, prefix: displayPrefix(rotated.key.id), value: rotated.value }, [
          `Rotated ${id} into ${rotated.key.id}; the old value stops working ${graceMs ? `in ${values.grace}` : 'now'}.`,
          `The new value is shown only this once:`,
          rotated.value,
        ].join('\n'));
        return 0;
      });
    }
    default:
      throw new UsageError(`Unknown keys action "${action ?? ''}".`);
  }
}

async function jobsCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      status: { type: 'string' },
      'knowledge-base': { type: 'string' },
      limit: { type: 'string', default: '50' },
      json: { type: 'boolean', default: false },
    },
  });
  if (values.status && !(JOB_STATUSES as readonly string[]).includes(values.status)) {
    throw new UsageError(`--status takes one of: ${JOB_STATUSES.join(', ')}.`);
  }
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit takes a positive whole number.');
  return withServices(({ queue }) => {
    const { rows, nextCursor } = queue.list(
      { status: values.status as JobStatus | undefined, knowledgeBaseId: values['knowledge-base'] },
      limit,
      undefined,
    );
    const views = rows.map(toJobView);
    // The note (superseded, deleted, pages read by OCR) has a column of its own: it is no error.
    const lines = views.map((j) =>
      [j.jobId, j.status, j.knowledgeBaseId, j.priority, `${j.attempts}/${j.maxAttempts}`, j.updatedAt, j.lastError ?? '', j.note ?? ''].join('\t'),
    );
    print(values.json ?? false, views, ['jobId\tstatus\tknowledge base\tpriority\tattempts\tupdated\tlast error\tnote', ...lines].join('\n'));
    if (nextCursor) process.stderr.write(`(the newest ${limit}; --limit shows more)\n`);
    return 0;
  });
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    switch (command) {
      case 'serve':
        return await serve(rest);
      case 'keys':
        return await keysCommand(rest);
      case 'jobs':
        return await jobsCommand(rest);
      case 'users':
        return await usersCommand(rest, withServices, (message) => new UsageError(message));
      case 'widgets':
        return await widgetsCommand(rest, withServices, (message) => new UsageError(message), () => configuredWidgetBaseUrl(loadConfig()));
      case 'webhooks':
        return await webhooksCommand(rest, withServices, (message) => new UsageError(message));
      case 'synonyms':
        return await synonymsCommand(rest, withServices, (message) => new UsageError(message));
      case 'sources':
        return await sourcesCommand(rest, withServices, (message) => new UsageError(message));
      case 'answers':
        return await answersCommand(rest, withServices, (message) => new UsageError(message));
      case 'import':
        return await importCommand(rest, (message) => new UsageError(message));
      case 'files':
        return await filesCommand(rest, (message) => new UsageError(message));
      case 'backup':
        return await backupCommand(rest, (message) => new UsageError(message));
      case 'restore':
        return await restoreCommand(rest, (message) => new UsageError(message));
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? 1 : 0;
      default:
        throw new UsageError(`Unknown command "${command}".`);
    }
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
      return 2;
    }
    process.stderr.write(`localiq: ${(error as Error).message}\n`);
    return 1;
  }
}
