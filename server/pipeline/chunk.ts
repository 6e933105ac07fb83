/**
 * Chunk stage: normalized text → passages whose embedText (title carried in, then the passage)
 * fits the embedder's token window, so no part of a passage is invisible to semantic search.
 *
 * Text is cut at paragraph breaks first, then sentences, then (for one over-long sentence) words;
 * with `wholeParagraphs` (documents) a passage never holds parts of two paragraphs.
 * Each unit is counted once and counts are summed (see token-costs.ts for why that is close
 * enough); every finished chunk is then recounted for real and split again if it is over, so the
 * limit holds whatever the tokenizer does. Passages are verbatim slices of the text, so they can
 * be cited and highlighted.
 */
import { halveSpan, paragraphSpans, sentenceSpans, type Span, wordPieceSpans, wordSpans } from '../language/segment-text.ts';
import { GreedyPacker, type Level, type Unit, sumCosts } from './text/greedy-packer.ts';
import { type TokenCosts, tokenCosts, truncateToTokens } from './text/token-costs.ts';
import type { Chunk, ChunkOptions, NormalizedItem } from './types.ts';

/** Most of the budget a carried title may take; a long title must not crowd out the passage. */
const TITLE_SHARE = 1 / 3;
const MAX_HEADING_CHARS = 100;

const FINER: Record<Level, { level: Level; split: (text: string, span: Span) => Span[] }> = {
  sentence: { level: 'word', split: wordSpans },
  word: { level: 'piece', split: wordPieceSpans },
  piece: { level: 'fragment', split: halveSpan },
  fragment: { level: 'fragment', split: halveSpan },
};

type Passage = Omit<Chunk, 'index'>;

export function chunkItem(item: NormalizedItem, options: ChunkOptions): Chunk[] {
  const { maxTokens, overlapTokens } = options;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) throw new RangeError(`maxTokens must be a positive integer, got ${maxTokens}`);
  if (!(overlapTokens >= 0)) throw new RangeError(`overlapTokens must be 0 or more, got ${overlapTokens}`);

  const passages = item.text.trim() ? new ItemChunker(item, options).passages() : titleOnly(item.title, options);
  return passages.map((passage, index) => ({ index, ...passage }));
}

/** An item with a title and no body is still findable by its title. */
function titleOnly(title: string, { maxTokens, countTokens }: ChunkOptions): Passage[] {
  const text = truncateToTokens(title.trim(), maxTokens, countTokens);
  return text ? [{ text, embedText: text, tokenCount: countTokens(text) }] : [];
}

class ItemChunker {
  private readonly text: string;
  private readonly prefix: string;
  private readonly costs: TokenCosts;
  private readonly budget: number;

  constructor(
    item: NormalizedItem,
    private readonly options: ChunkOptions,
  ) {
    const { maxTokens, countTokens } = options;
    this.text = item.text;
    this.costs = tokenCosts(countTokens);
    const titleLimit = Math.floor(maxTokens * TITLE_SHARE);
    const title = item.title.trim() ? truncateToTokens(item.title.trim(), titleLimit, (t) => countTokens(`${t}\n`)) : '';
    this.prefix = title ? `${title}\n` : '';
    this.budget = maxTokens - this.costs.fixed - this.costs.of(this.prefix);
    if (this.budget < 1) throw new RangeError(`maxTokens ${maxTokens} leaves no room for text`);
  }

  passages(): Passage[] {
    const overlapBudget = Math.min(this.options.overlapTokens, Math.floor(this.budget / 2));
    const packer = new GreedyPacker(this.budget, overlapBudget);
    const paragraphs = this.paragraphUnits();
    paragraphs.forEach((units, i) => {
      // A heading travels with the paragraph it introduces rather than ending a chunk on its own.
      const introduced = i > 0 && this.isHeading(paragraphs[i - 1]!);
      const section = this.isHeading(units) ? [...units, ...(paragraphs[i + 1] ?? [])] : units;
      if (introduced) {
        // The heading before it started the group.
      } else if (this.options.wholeParagraphs) packer.startWholeParagraph(sumCosts(section));
      else packer.startParagraph(sumCosts(section));
      for (const unit of units) packer.add(unit);
    });
    return packer.finish().flatMap((group) => this.withinLimit(group));
  }

  /** Units of each paragraph, each unit's cost including the separator before it. */
  private paragraphUnits(): Unit[][] {
    let previousEnd = 0;
    return paragraphSpans(this.text).map((paragraph) => {
      const units = sentenceSpans(this.text, paragraph).flatMap((sentence) => this.fit(sentence, 'sentence'));
      for (const unit of units) {
        unit.cost += this.costs.join(this.text.slice(previousEnd, unit.start));
        previousEnd = unit.end;
      }
      return units;
    });
  }

  /** One short line without closing punctuation: a heading, as HTML headings come out of normalize. */
  private isHeading(units: Unit[]): boolean {
    if (units.length !== 1) return false;
    const { start, end } = units[0]!;
    return end - start <= MAX_HEADING_CHARS && !/[.!?:;,…]$/.test(this.text.slice(end - 1, end));
  }

  /** The span as one unit if it fits the budget, else cut at the next finer boundaries until it does. */
  private fit(span: Span, level: Level): Unit[] {
    const unit = this.unit(span, level);
    if (unit.cost <= this.budget) return [unit];
    const parts = this.finer(unit);
    return parts.length === 1 ? parts : parts.flatMap((part) => this.fit(part, part.level));
  }

  /** The unit cut at the next finer kind of boundary that actually cuts it (a one-word sentence skips to pieces). */
  private finer(unit: Unit): Unit[] {
    let level = unit.level;
    for (;;) {
      const next = FINER[level];
      const spans = next.split(this.text, unit);
      if (spans.length > 1) return spans.map((span) => this.unit(span, next.level));
      if (level === 'fragment') return [unit];
      level = next.level;
    }
  }

  private unit(span: Span, level: Level): Unit {
    return { start: span.start, end: span.end, level, cost: this.costs.of(this.text.slice(span.start, span.end)) };
  }

  /** The real count decides: a group over the limit is halved (by cost) until each part fits. */
  private withinLimit(group: Unit[]): Passage[] {
    const text = this.text.slice(group[0]!.start, group.at(-1)!.end);
    const embedText = this.prefix + text;
    const tokenCount = this.options.countTokens(embedText);
    if (tokenCount <= this.options.maxTokens) return [{ text, embedText, tokenCount }];
    const parts = group.length > 1 ? group : this.finer(group[0]!);
    // A single character over the limit cannot be cut further; only a pathological counter gets here.
    if (parts.length === 1) return [{ text, embedText, tokenCount }];
    const cut = halfwayByCost(parts);
    return [...this.withinLimit(parts.slice(0, cut)), ...this.withinLimit(parts.slice(cut))];
  }
}

/** Index splitting the units into two non-empty runs of about equal cost. */
function halfwayByCost(units: Unit[]): number {
  const half = sumCosts(units) / 2;
  let cost = 0;
  for (let i = 0; i < units.length - 1; i++) {
    cost += units[i]!.cost;
    if (cost >= half) return i + 1;
  }
  return units.length - 1;
}
