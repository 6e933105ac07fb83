import { type SynonymSet, synonymSetSchema, synonymWords } from '../../common/contract/synonyms.ts';
import type { SettingsRepo } from '../storage/settings-repo.ts';

/** One settings row per knowledge base with synonyms: the sets as JSON. */
const KEY_PREFIX = 'knowledge-base-synonyms:';

/** A term a query may hold (its words) and the terms it adds to the search. */
type Entry = { words: string[]; adds: string[] };
/** Entries by their first word: a query word is looked up once, its phrases checked from there. */
export type SynonymLookup = Map<string, Entry[]>;

/**
 * Each knowledge base's synonym sets, in the settings table. Read at every search (one indexed
 * row), so a change, made here or by another process on the same database (the CLI), holds from
 * the next query on; the lookup built from a row is kept until the row changes.
 */
export class SynonymStore {
  private readonly lookups = new Map<string, { stored: string; lookup: SynonymLookup }>();

  constructor(private readonly settings: SettingsRepo) {}

  sets(knowledgeBaseId: string): SynonymSet[] {
    const stored = this.settings.get(KEY_PREFIX + knowledgeBaseId);
    return stored === null ? [] : parse(stored);
  }

  /** Replaces a knowledge base's sets (validated by the contract's schema); an empty list removes the row. */
  replace(knowledgeBaseId: string, sets: SynonymSet[]): SynonymSet[] {
    if (sets.length === 0) this.settings.delete(KEY_PREFIX + knowledgeBaseId);
    else this.settings.set(KEY_PREFIX + knowledgeBaseId, JSON.stringify(sets));
    return sets;
  }

  /** The lookup of a knowledge base's synonyms, or null when it has none. */
  lookup(knowledgeBaseId: string): SynonymLookup | null {
    const stored = this.settings.get(KEY_PREFIX + knowledgeBaseId);
    if (stored === null) {
      this.lookups.delete(knowledgeBaseId);
      return null;
    }
    const cached = this.lookups.get(knowledgeBaseId);
    if (cached?.stored === stored) return cached.lookup;
    const lookup = buildLookup(parse(stored));
    this.lookups.set(knowledgeBaseId, { stored, lookup });
    return lookup;
  }
}

/** Stored sets as this version reads them: a set it cannot read (written by a later one) is skipped. */
function parse(stored: string): SynonymSet[] {
  const raw = JSON.parse(stored) as unknown;
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((set) => {
    const read = synonymSetSchema.safeParse(set);
    return read.success ? [read.data] : [];
  });
}

/** Multi-way: each term adds the others; one-way: the root adds its synonyms. */
export function buildLookup(sets: SynonymSet[]): SynonymLookup {
  const adds = new Map<string, Set<string>>();
  const add = (from: string, to: string[]) => {
    const list = adds.get(from) ?? new Set<string>();
    for (const term of to) if (term !== from) list.add(term);
    adds.set(from, list);
  };
  for (const set of sets) {
    if (set.root !== undefined) add(set.root, set.synonyms);
    else for (const term of set.synonyms) add(term, set.synonyms);
  }
  const lookup: SynonymLookup = new Map();
  for (const [term, terms] of adds) {
    const words = term.split(' ');
    const entries = lookup.get(words[0]!) ?? [];
    entries.push({ words, adds: [...terms] });
    lookup.set(words[0]!, entries);
  }
  return lookup;
}

/**
 * The synonyms a query adds, by search word: for every term of the lookup that the query holds
 * (a word, or a phrase as consecutive words), its added terms go to the first of its words that
 * keyword search looks for (`searchWords`, stopwords aside). Terms the query holds itself, as one of
 * its search words, are left out: they are searched as typed already.
 */
export function querySynonyms(query: string, searchWords: string[], lookup: SynonymLookup): string[][] {
  const all = synonymWords(query);
  const bySearchWord = searchWords.map(() => new Set<string>());
  const own = new Set(searchWords);
  for (let i = 0; i < all.length; i++) {
    for (const entry of lookup.get(all[i]!) ?? []) {
      if (!entry.words.every((word, k) => all[i + k] === word)) continue;
      const target = entry.words.map((word) => searchWords.indexOf(word)).find((index) => index >= 0);
      if (target === undefined) continue;
      for (const term of entry.adds) if (!own.has(term)) bySearchWord[target]!.add(term);
    }
  }
  return bySearchWord.map((terms) => [...terms]);
}
