import {
  DEFAULT_KNOWLEDGE_BASE_SETTINGS,
  type KnowledgeBaseSettings,
  knowledgeBaseSettingsSchema,
} from '../../common/contract/knowledge.ts';
import type { SettingsRepo } from '../storage/settings-repo.ts';

/** One settings row per knowledge base that has changed any, as JSON: later settings join it. */
const KEY_PREFIX = 'knowledge-base-search:';

/** Each knowledge base's search settings, in the settings table; defaults until changed. */
export class SearchSettings {
  constructor(private readonly settings: SettingsRepo) {}

  of(knowledgeBaseId: string): KnowledgeBaseSettings {
    const stored = this.settings.get(KEY_PREFIX + knowledgeBaseId);
    if (stored === null) return DEFAULT_KNOWLEDGE_BASE_SETTINGS;
    // A setting this version does not know (written by a later one) is ignored, not an error.
    const known = knowledgeBaseSettingsSchema.partial().safeParse(pick(JSON.parse(stored) as Record<string, unknown>));
    return { ...DEFAULT_KNOWLEDGE_BASE_SETTINGS, ...(known.success ? known.data : {}) };
  }

  update(knowledgeBaseId: string, changes: Partial<KnowledgeBaseSettings>): KnowledgeBaseSettings {
    const settings = { ...this.of(knowledgeBaseId), ...changes };
    this.settings.set(KEY_PREFIX + knowledgeBaseId, JSON.stringify(settings));
    return settings;
  }
}

function pick(stored: Record<string, unknown>): Record<string, unknown> {
  const known = Object.keys(DEFAULT_KNOWLEDGE_BASE_SETTINGS);
  return Object.fromEntries(Object.entries(stored).filter(([key]) => known.includes(key)));
}
