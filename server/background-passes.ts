import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { type BackgroundPass, PassRunner } from './domain/background-pass.ts';
import { JobHistoryRetention } from './domain/job-history-retention.ts';
import { VisitorRetention } from './domain/visitor-retention.ts';
import type { Services } from './services.ts';
import { JobHistory } from './storage/job-history.ts';
import { writeBehind } from './storage/write-behind.ts';
import { WebhookDelivery } from './webhooks/delivery.ts';

/** Search's in-memory indexes follow the pipeline's writes this often. */
const INDEX_FOLLOW_MS = 1_000;

/**
 * Every background pass the server runs, in one list (docs/architecture.md, "Background passes").
 * A pass is added here and nowhere else; main.ts starts them (startBackgroundPasses) and stops them.
 * The CLI opens the same services and runs none of them.
 */
export function backgroundPasses(services: Services, config: Pick<Config, 'jobHistoryDays'>, log: Logger): BackgroundPass[] {
  return [
    {
      // Search's in-memory indexes (vectors, keyword postings) take up what the pipeline wrote.
      name: 'index-follow',
      intervalMs: INDEX_FOLLOW_MS,
      run: () => {
        for (const index of services.keywordIndexes.all()) index.follow();
        services.embedding.index()?.follow();
      },
    },
    new JobHistoryRetention(new JobHistory(services.db, services.originals), config.jobHistoryDays, (removed) =>
      log.info({ removed, days: config.jobHistoryDays }, 'job history: removed finished jobs that newer jobs of their items replaced'),
    ),
    new VisitorRetention(services.conversations, (removed) => {
      log.info({ removed, days: services.visitorConversations.retentionDays() }, 'conversations: removed those past their retention period');
      // Question groups are kept with the questions that name them: those with none left go too.
      services.questionGrouper.prune().catch((error: unknown) => log.warn({ err: passErrorFields(error) }, 'removing empty question groups failed'));
    }),
    services.questionGrouper,
    // Webhook deliveries pending when the last run stopped go on from where they were (SQLite).
    new WebhookDelivery({
      repo: services.webhookRepo,
      target: (id) => services.webhooks.target(id),
      log: (entry) => log.warn(entry, entry.final ? 'webhook delivery failed; no more attempts' : 'webhook delivery failed; it will be tried again'),
    }),
    services.backups,
    // Syncs a stopped server left running continue; schedules missed while it was stopped catch up.
    services.websiteSources,
  ];
}

/**
 * Starts the server's passes with one runner and one policy: a failure is logged once per streak
 * (the runner counts), with the error's name, code, message and stack only, since other fields an
 * error may carry (a request's headers, a body) could hold secrets; a pass that works again is
 * logged once. The database's deferred writes (storage/write-behind.ts) report the same way.
 */
export function startBackgroundPasses(services: Services, config: Pick<Config, 'jobHistoryDays'>, log: Logger): PassRunner {
  writeBehind(services.db).reportFailures((error) =>
    log.error({ err: passErrorFields(error) }, 'writing usage counts and visitor turns failed; they are kept and tried again'),
  );
  services.backups.reportTo((run) =>
    run.ok
      ? log.info({ file: run.file, bytes: run.bytes, removed: run.removed, ms: run.finishedAt - run.startedAt }, 'backup written')
      : log.warn({ error: run.error }, 'backup failed'),
  );
  const runner = new PassRunner(backgroundPasses(services, config, log), {
    failed: (pass, error) => log.error({ pass, err: passErrorFields(error) }, 'background pass failed; its next run tries again'),
    recovered: (pass, failedRuns) => log.info({ pass, failedRuns }, 'background pass works again'),
  });
  runner.start();
  return runner;
}

/** An error as the log may hold it: no field beyond what says what went wrong and where. */
export function passErrorFields(error: unknown): { type: string; message: string; code?: string; stack?: string } {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    type: error.name,
    message: error.message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(error.stack ? { stack: error.stack } : {}),
  };
}
