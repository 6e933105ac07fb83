import { parseArgs } from 'node:util';
import { parseEvery, type WebsiteSource, WebsiteSourceError, type WebsiteSync } from '../domain/website-sources.ts';
import type { Services } from '../services.ts';

export const SOURCES_USAGE = `  sources add-site URL --knowledge-base KB [--every 24h] [--max-pages N] [--include GLOB …] [--exclude GLOB …]
        [--allow-private-network] [--json]
                                          crawl a website into a knowledge base and keep it in sync; prints the source's id
  sources sync ID [--wait] [--json]       crawl the site now (pages that changed are pushed, gone ones deleted) and print
                                          added, updated, unchanged, removed and what was skipped and why; --wait also
                                          waits until the running server has indexed the pages pushed
  sources list [--json]                   list website sources with their last sync
  sources remove ID                       remove a source and the items of its pages`;

const OPTIONS = {
  'knowledge-base': { type: 'string' },
  every: { type: 'string' },
  'max-pages': { type: 'string' },
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  'allow-private-network': { type: 'boolean' },
  wait: { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

const OPTION_OF: Record<string, string> = {
  startUrl: 'URL',
  knowledgeBaseId: '--knowledge-base',
  every: '--every',
  maxPages: '--max-pages',
  include: '--include',
  exclude: '--exclude',
};

/**
 * Website sources from the command line. The command works on the data folder's database, as
 * `widgets` does: `sync` runs the crawl in this process (the running server's pipeline indexes
 * what it pushes).
 */
export async function sourcesCommand(
  args: string[],
  withServices: <T>(run: (services: Services) => T | Promise<T>) => Promise<T>,
  usageError: (message: string) => Error,
): Promise<number> {
  const [action, ...rest] = args;
  let parsed;
  try {
    parsed = parseArgs({ args: rest, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    throw usageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const json = values.json === true;
  const print = (value: unknown, text: string) => process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);
  switch (action) {
    case 'add-site': {
      const [url] = positionals;
      if (!url) throw usageError('sources add-site needs the address of the site (https://shop.example/).');
      if (!values['knowledge-base']) throw usageError('sources add-site needs --knowledge-base.');
      const everyMs = values.every === undefined ? null : parseEvery(values.every);
      if (values.every !== undefined && everyMs === null) throw usageError(`--every takes a duration such as 30m, 24h or 7d (got ${values.every}).`);
      const maxPages = values['max-pages'] === undefined ? undefined : Number(values['max-pages']);
      return withServices(({ websiteSources }) => {
        let source: WebsiteSource;
        try {
          source = websiteSources.create({
            knowledgeBaseId: values['knowledge-base']!,
            startUrl: url,
            everyMs,
            ...(maxPages === undefined ? {} : { maxPages }),
            include: values.include ?? [],
            exclude: values.exclude ?? [],
            allowPrivateNetwork: values['allow-private-network'] === true,
          });
        } catch (error) {
          if (error instanceof WebsiteSourceError) throw usageError(`${OPTION_OF[error.field] ?? error.field} ${error.message}.`);
          throw error;
        }
        print(source, source.id);
        return 0;
      });
    }
    case 'sync': {
      const [id] = positionals;
      if (!id) throw usageError('sources sync needs the id of a source (see sources list).');
      return withServices(async (services) => {
        if (!services.websiteSourceStore.get(id)) {
          process.stderr.write(`localiq: no website source ${id} (see localiq sources list).\n`);
          return 1;
        }
        const sync = await services.websiteSources.sync(id).done;
        if (values.wait && sync.state === 'succeeded') await waitForIndexing(services, id);
        print(sync, describeSync(sync));
        return sync.state === 'succeeded' ? 0 : 1;
      });
    }
    case 'list':
      return withServices(({ websiteSources }) => {
        const sources = websiteSources.list();
        const lines = sources.map(({ source, lastSync }) =>
          [source.id, source.knowledgeBaseId, source.settings.startUrl, source.everyMs ? `every ${source.everyMs / 3_600_000}h` : 'on demand', lastSync ? describeSync(lastSync).split('\n')[0] : 'never synced'].join('  '),
        );
        print(sources, lines.length ? lines.join('\n') : 'No website sources (add one with: localiq sources add-site URL --knowledge-base KB).');
        return 0;
      });
    case 'remove': {
      const [id] = positionals;
      if (!id) throw usageError('sources remove needs the id of a source.');
      return withServices(async ({ websiteSources }) => {
        if (!(await websiteSources.remove(id))) {
          process.stderr.write(`localiq: no website source ${id}.\n`);
          return 1;
        }
        print({ removed: id }, `Removed website source ${id} and the items of its pages.`);
        return 0;
      });
    }
    default:
      throw usageError('sources takes add-site, sync, list or remove.');
  }
}

/** One line of counts, then each skipped address and why. */
function describeSync(sync: WebsiteSync): string {
  const { added, updated, unchanged, removed, skipped } = sync.summary;
  const head =
    sync.state === 'running'
      ? `syncing: ${added} added, ${updated} updated, ${unchanged} unchanged, ${removed} removed so far`
      : `${sync.state === 'succeeded' ? 'synced' : `failed (${sync.error})`}: ${added} added, ${updated} updated, ${unchanged} unchanged, ${removed} removed, ${skipped.length} skipped`;
  return [head, ...skipped.map((skip) => `  skipped ${skip.url}: ${skip.reason}`)].join('\n');
}

/** Polls the jobs of the source's pages until none is queued or processing. */
async function waitForIndexing(services: Services, sourceId: string): Promise<void> {
  const pending = services.db.prepare<[string], { n: number }>(
    "SELECT count(*) AS n FROM jobs WHERE integration_id = ? AND status IN ('queued', 'processing')",
  );
  let told = false;
  for (;;) {
    const n = pending.get(`website-${sourceId}`)!.n;
    if (n === 0) return;
    if (!told) {
      process.stderr.write(`localiq: waiting for LocalIQ to index ${n} pages (localiq serve must be running)…\n`);
      told = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
