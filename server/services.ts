import type { Config } from './config.ts';
import { ApiKeyService } from './domain/api-key-service.ts';
import { JobQueue } from './domain/job-queue.ts';
import { ThroughputMeter } from './domain/throughput.ts';
import { QueryEmbedder } from './embedders/query-embedder.ts';
import { EmbeddingModel } from './indexes/embedding-model.ts';
import { KeywordIndex } from './indexes/keyword-index.ts';
import { KeywordIndexes } from './indexes/keyword-indexes.ts';
import { KeywordReindexer } from './indexes/keyword-reindexer.ts';
import { SearchService } from './retrieval/search.ts';
import { SearchSettings } from './retrieval/search-settings.ts';
import { SynonymStore } from './retrieval/synonyms.ts';
import { ItemReadRepo } from './storage/item-read-repo.ts';
import { SearchRepo } from './storage/search-repo.ts';
import { type FileStoreReason, loadServerSecret, type SecretStoreKind } from './secrets/server-secret.ts';
import { ApiKeyRepo } from './storage/api-key-repo.ts';
import { type Db, openDatabase } from './storage/db.ts';
import { InProcessJobWriter } from './storage/in-process-job-writer.ts';
import { IngestWriter } from './storage/ingest-writer.ts';
import { ItemRepo } from './storage/item-repo.ts';
import { Originals } from './storage/originals.ts';
import { JobRepo } from './storage/jobs/job-repo.ts';
import { SettingsRepo } from './storage/settings-repo.ts';
import { backupInThread } from './storage/backup.ts';
import { ScheduledBackups } from './domain/scheduled-backups.ts';
import { WebsiteSources } from './sources/sync.ts';
import { WebsiteSourceRepo } from './storage/website-source-repo.ts';
import { DiskCondition } from './domain/disk-condition.ts';
import { MonitorService } from './domain/monitor.ts';
import { SessionService } from './domain/sessions.ts';
import { UserService } from './domain/users.ts';
import { MonitorRepo } from './storage/monitor-repo.ts';
import { SessionRepo } from './storage/session-repo.ts';
import { UserRepo } from './storage/user-repo.ts';
import { AskQuestion } from './retrieval/answer/ask-question.ts';
import { Assistant, DEFAULT_TUNING } from './retrieval/answer/assistant.ts';
import { ContextItemRepo } from './storage/context-item-repo.ts';
import { CuratedAnswers } from './retrieval/curated/curated-answers.ts';
import { CuratedAnswerRepo } from './storage/curated-answer-repo.ts';
import { DEFAULT_LLM_TIMEOUT_MS, LlmSettings } from './retrieval/answer/llm-settings.ts';
import { ArticleRepo } from './storage/article-repo.ts';
import { TermStatsRepo } from './storage/term-stats-repo.ts';
import { KnowledgeBaseLanguages } from './storage/knowledge-base-languages.ts';
import { UsageRepo } from './storage/usage-repo.ts';
import { VisitorConversations } from './domain/visitor-conversations.ts';
import { VisitorLimits } from './domain/visitor-limits.ts';
import { Handoffs } from './domain/handoffs.ts';
import { HandoffRepo } from './storage/handoff-repo.ts';
import { VisitorSessions } from './domain/visitor-sessions.ts';
import { WidgetService } from './domain/widgets.ts';
import { VisitorRepo } from './storage/visitor-repo.ts';
import { writeBehind } from './storage/write-behind.ts';
import { DashboardConversationRepo } from './storage/dashboard-conversation-repo.ts';
import { DashboardConversations } from './domain/dashboard-conversations.ts';
import { Conversations } from './domain/conversations.ts';
import { QuestionGroupRepo } from './storage/question-group-repo.ts';
import { VisitorAnalyticsRepo } from './storage/visitor-analytics-repo.ts';
import { QuestionGrouper } from './retrieval/question-groups.ts';
import { WidgetRepo } from './storage/widget-repo.ts';
import { WebhookRepo } from './storage/webhook-repo.ts';
import { SecretSeal } from './webhooks/sealed-secret.ts';
import { Webhooks } from './webhooks/webhooks.ts';

/** Everything that works on the data folder, wired once; the server and the CLI share it. */
export type Services = {
  db: Db;
  secretStore: SecretStoreKind;
  /** Why the secret is in the file store (null in the keychain): start-up says it. */
  fileStoreReason: FileStoreReason | null;
  keys: ApiKeyService;
  queue: JobQueue;
  jobs: JobRepo;
  items: ItemRepo;
  /** Uploaded files as they were sent (files as knowledge), in the data folder. */
  originals: Originals;
  throughput: ThroughputMeter;
  embedding: EmbeddingModel;
  queryEmbedder: QueryEmbedder;
  keywords: KeywordIndex;
  /** The in-memory keyword index of each language in use (English's is `keywords`). */
  keywordIndexes: KeywordIndexes;
  /** Re-indexes knowledge bases whose language changed, in the background; the server resumes it at start-up. */
  keywordReindexer: KeywordReindexer;
  reader: ItemReadRepo;
  search: SearchService;
  /** Dashboard users, their sessions, and the live ingestion monitor. */
  users: UserService;
  sessions: SessionService;
  monitor: MonitorService;
  /** Whether the data folder's disk is full, for the dashboard. */
  disk: DiskCondition;
  /** The question-answering assistant, its language model endpoint, published articles and usage counters. */
  assistant: Assistant;
  /** Asking a question, the API's, the dashboard's and visitors' one way (ask-question.ts). */
  askQuestion: AskQuestion;
  /** The owner's curated answers, matched before any retrieval (retrieval/curated/). */
  curatedAnswers: CuratedAnswers;
  llmSettings: LlmSettings;
  articles: ArticleRepo;
  usage: UsageRepo;
  /** Automatic backups; the server runs their pass (background-passes.ts). */
  backups: ScheduledBackups;
  /** Websites crawled into knowledge bases and kept in sync; the server runs their schedules' pass (background-passes.ts). */
  websiteSources: WebsiteSources;
  websiteSourceStore: WebsiteSourceRepo;
  /** The visitor assistant: widgets, visitors' signed sessions, their conversations and limits. */
  widgets: WidgetService;
  visitorSessions: VisitorSessions;
  visitorConversations: VisitorConversations;
  visitorLimits: VisitorLimits;
  /** Visitors' questions left for the shop, and the owner's replies (they tell the webhooks). */
  handoffs: Handoffs;
  /** The dashboard chat's conversations, and every conversation as the owner's screen lists them. */
  dashboardConversations: DashboardConversations;
  conversations: Conversations;
  /** The time every rule reads (key expiry, sessions, sign-in delays); tests move it. */
  clock: () => number;
  /** Visitors' questions grouped by meaning: content gaps and top questions. */
  questionGroups: QuestionGroupRepo;
  questionGrouper: QuestionGrouper;
  visitorAnalytics: VisitorAnalyticsRepo;
  /** Webhooks and the events they are sent (the server runs their delivery pass, background-passes.ts). */
  webhooks: Webhooks;
  webhookRepo: WebhookRepo;
  close(): void;
};

export type ServicesOptions = {
  /** The time API keys, dashboard sessions and sign-in delays are checked against. Tests move it. */
  clock?: () => number;
  /**
   * Where pushes are committed: the ingest writer's thread (the server), or this connection in
   * the event loop (`in-process`: the route tests of the unit group, which start no thread).
   */
  jobWriter?: 'thread' | 'in-process';
};

export async function openServices(
  config: Pick<Config, 'dataDir' | 'secretStore' | 'maxAttempts' | 'embedder'> & Partial<Pick<Config, 'llm'>>,
  { clock = Date.now, jobWriter = 'thread' }: ServicesOptions = {},
): Promise<Services> {
  const db = openDatabase(config.dataDir);
  try {
    const settings = new SettingsRepo(db);
    const secret = await loadServerSecret(config.dataDir, config.secretStore, settings);
    const jobs = new JobRepo(db);
    const embedding = new EmbeddingModel(db, settings, jobs, config.maxAttempts);
    const queryEmbedder = new QueryEmbedder(config.embedder);
    const throughput = new ThroughputMeter();
    const ingestWriter = jobWriter === 'thread' ? new IngestWriter(config.dataDir) : null;
    const queue = new JobQueue(jobs, ingestWriter ?? new InProcessJobWriter(db), throughput, config.maxAttempts, () => embedding.modelId());
    const userRepo = new UserRepo(db);
    const monitor = new MonitorService(new MonitorRepo(db), queue, throughput);
    const disk = new DiskCondition(config.dataDir);
    // Live dashboard viewers hear of pushes and retries (the pipeline subscribes to wake its workers).
    queue.onPushed(() => monitor.notify());
    const keywords = KeywordIndex.open(db);
    const keywordIndexes = new KeywordIndexes(db, keywords);
    const languages = new KnowledgeBaseLanguages(db);
    const keywordReindexer = new KeywordReindexer(languages);
    const searchSettings = new SearchSettings(settings, { store: languages, reindexer: keywordReindexer });
    const search = new SearchService({
      repo: new SearchRepo(db),
      keywords,
      embedding,
      queries: queryEmbedder,
      settings: searchSettings,
      languageIndex: (language) => keywordIndexes.of(language),
      synonyms: new SynonymStore(settings),
    });
    const llmSettings = new LlmSettings(settings, secret.secret, config.llm ?? { baseUrl: null, model: null, apiKey: null, timeoutMs: DEFAULT_LLM_TIMEOUT_MS });
    const usage = new UsageRepo(db);
    const backups = new ScheduledBackups(settings, config.dataDir, backupInThread);
    // Made on opening, so that naming a download, a read, never writes it.
    backups.label();
    const visitorRepo = new VisitorRepo(db);
    const originals = new Originals(config.dataDir);
    const items = new ItemRepo(db, originals);
    const websiteSourceStore = new WebsiteSourceRepo(db);
    const websiteSources = new WebsiteSources({
      store: websiteSourceStore,
      push: (pushed) => queue.push(pushed, null),
      originals,
      deleteItem: (identity, now) => void items.delete(identity, now, { websiteSourceId: identity.integrationId }),
      clock,
    });
    const visitorConversations = new VisitorConversations(visitorRepo, settings, clock);
    const dashboardConversations = new DashboardConversations(new DashboardConversationRepo(db), clock);
    const curatedAnswers = new CuratedAnswers(new CuratedAnswerRepo(db), search, clock);
    const assistant = new Assistant(search, embedding, new TermStatsRepo(db), llmSettings, DEFAULT_TUNING, curatedAnswers);
    const questionGroups = new QuestionGroupRepo(db);
    const questionGrouper = new QuestionGrouper({
      store: questionGroups,
      embed: (texts) => queryEmbedder.embed(texts),
      model: config.embedder.kind === 'use-lite' ? 'use-lite' : `onnx-folder:${config.embedder.path}`,
      clock,
    });
    const webhookRepo = new WebhookRepo(db);
    const webhooks = new Webhooks(webhookRepo, new SecretSeal(secret.secret), jobs, clock);
    const handoffs = new Handoffs(new HandoffRepo(db), visitorConversations, ({ at, ...event }) => webhooks.emitEvent('handoff.created', { ...event, at: new Date(at).toISOString() }), clock);
    return {
      db,
      secretStore: secret.store,
      fileStoreReason: secret.fileStoreReason,
      keys: new ApiKeyService(new ApiKeyRepo(db), secret.secret, clock),
      queue,
      jobs,
      items,
      originals,
      throughput,
      embedding,
      queryEmbedder,
      keywords,
      keywordIndexes,
      keywordReindexer,
      reader: new ItemReadRepo(db),
      search,
      assistant,
      askQuestion: new AskQuestion({ assistant, contextItems: new ContextItemRepo(db), usage, visitorConversations, dashboardConversations, curatedSuggestions: curatedAnswers }),
      curatedAnswers,
      llmSettings,
      articles: new ArticleRepo(db),
      usage,
      users: new UserService(userRepo),
      sessions: new SessionService(new SessionRepo(db), userRepo, clock),
      monitor,
      backups,
      websiteSources,
      websiteSourceStore,
      disk,
      widgets: new WidgetService(new WidgetRepo(db), Date.now, (knowledgeBaseId) => languages.requested(knowledgeBaseId)),
      visitorSessions: new VisitorSessions(secret.secret, clock),
      visitorConversations,
      visitorLimits: new VisitorLimits((widgetId, since) => visitorConversations.questionsSince(widgetId, since)),
      dashboardConversations,
      conversations: new Conversations(visitorConversations, dashboardConversations),
      clock,
      questionGroups,
      questionGrouper,
      visitorAnalytics: new VisitorAnalyticsRepo(db),
      webhooks,
      handoffs,
      webhookRepo,
      close: () => {
        // Syncs under way stop at their next step; what they did is kept and the next start continues them.
        void websiteSources.stop();
        void queryEmbedder.close();
        keywordReindexer.stop();
        embedding.close();
        keywordIndexes.close();
        // Usage counts and visitor turns that wait in memory (one owner for both, write-behind.ts).
        writeBehind(db).close();
        ingestWriter?.close();
        db.close();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
