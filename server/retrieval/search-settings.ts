import {
  DEFAULT_KNOWLEDGE_BASE_SETTINGS,
  type KeywordIndexState,
  type KnowledgeBaseSettings,
  knowledgeBaseSettingsSchema,
} from '../../common/contract/knowledge.ts';
import type { KeywordReindexer } from '../indexes/keyword-reindexer.ts';
import type { KnowledgeBaseLanguages } from '../storage/knowledge-base-languages.ts';
import type { SettingsRepo } from '../storage/settings-repo.ts';

/** One settings row per knowledge base that has changed any, as JSON: later settings join it. */
const KEY_PREFIX = 'knowledge-base-search:';
/** Settings kept elsewhere than the JSON row: the language is the keyword index's own state. */
const STORED_APART = ['language'];

/**
 * Each knowledge base's search settings, in the settings table; defaults until changed. The
 * language lives with the keyword index it picks (knowledge_base_languages): asking for another
 * one starts a re-index in the background, and `keywordIndex` tells how far it is.
 */
export class SearchSettings {
  constructor(
    private readonly settings: SettingsRepo,
    private readonly languages: { store: KnowledgeBaseLanguages; reindexer: KeywordReindexer } | null = null,
  ) {}

  of(knowledgeBaseId: string): KnowledgeBaseSettings {
    const language = this.languages?.store.requested(knowledgeBaseId) ?? DEFAULT_KNOWLEDGE_BASE_SETTINGS.language;
    const stored = this.settings.get(KEY_PREFIX + knowledgeBaseId);
    if (stored === null) return { ...DEFAULT_KNOWLEDGE_BASE_SETTINGS, language };
    // A setting this version does not know (written by a later one) is ignored, not an error.
    const known = knowledgeBaseSettingsSchema.partial().safeParse(pick(JSON.parse(stored) as Record<string, unknown>));
    return { ...DEFAULT_KNOWLEDGE_BASE_SETTINGS, ...(known.success ? known.data : {}), language };
  }

  update(knowledgeBaseId: string, changes: Partial<KnowledgeBaseSettings>): KnowledgeBaseSettings {
    const { language, ...rest } = changes;
    if (language !== undefined) {
      if (!this.languages) throw new Error('these search settings were made without the keyword languages');
      if (this.languages.store.request(knowledgeBaseId, language)) this.languages.reindexer.start();
    }
    this.settings.set(KEY_PREFIX + knowledgeBaseId, JSON.stringify(pick({ ...this.of(knowledgeBaseId), ...rest })));
    return this.of(knowledgeBaseId);
  }

  /** The keyword index's language now, and the re-index into the one asked for while it runs. */
  keywordIndex(knowledgeBaseId: string): KeywordIndexState {
    return this.languages?.store.state(knowledgeBaseId) ?? { language: 'en', reindexing: null };
  }
}

function pick(stored: Record<string, unknown>): Record<string, unknown> {
  const known = Object.keys(DEFAULT_KNOWLEDGE_BASE_SETTINGS).filter((key) => !STORED_APART.includes(key));
  return Object.fromEntries(Object.entries(stored).filter(([key]) => known.includes(key)));
}
