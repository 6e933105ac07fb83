import { setImmediate as nextTurn } from 'node:timers/promises';
import type { KnowledgeBaseLanguages } from '../storage/knowledge-base-languages.ts';

/**
 * Items a re-index step writes in one transaction: a few milliseconds of stemming and FTS5
 * inserts, so pushes and searches wait little between two steps.
 */
const STEP_ITEMS = 100;

/**
 * Moves knowledge bases to the keyword language they were asked to be in, in the background
 * (KnowledgeBaseLanguages.reindexStep, a turn of the event loop between steps) while searches
 * keep reading the previous language. `start` takes up every re-index recorded in the database,
 * those cut short by a stop included; `idle` resolves once none is left.
 */
export class KeywordReindexer {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly languages: KnowledgeBaseLanguages,
    private readonly stepItems = STEP_ITEMS,
    private readonly onFinished: (knowledgeBaseId: string) => void = () => {},
  ) {}

  start(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.run().finally(() => {
      this.running = null;
    });
  }

  /** Resolves when no re-index is left to run (or the reindexer stopped). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** No step starts after this (the database may close). */
  stop(): void {
    this.stopped = true;
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      for (const knowledgeBaseId of this.languages.reindexing()) {
        for (;;) {
          await nextTurn();
          if (this.stopped) return;
          if (this.languages.reindexStep(knowledgeBaseId, this.stepItems).reindexing === null) break;
        }
        this.onFinished(knowledgeBaseId);
      }
    } while (this.again && !this.stopped);
  }
}
