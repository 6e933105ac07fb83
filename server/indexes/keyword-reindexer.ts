import { setImmediate as nextTurn } from 'node:timers/promises';
import type { KnowledgeBaseLanguages } from '../storage/knowledge-base-languages.ts';

/**
 * How long one re-index step (one transaction) should take: searches and pushes wait for it, as
 * they wait for the in-memory indexes' background work while a search waits for a load
 * (followed-index.ts). Measured, 100 SciFact abstracts took about 55 ms (docs/retrieval.md).
 */
const STEP_MS = 8;
/** Items of the first step, and the bounds of the steps that follow (each sized by the last one's time). */
const FIRST_STEP_ITEMS = 10;
const MOST_STEP_ITEMS = 1_000;

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
    private readonly stepMs = STEP_MS,
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
        let items = FIRST_STEP_ITEMS;
        for (;;) {
          await nextTurn();
          if (this.stopped) return;
          const started = performance.now();
          if (this.languages.reindexStep(knowledgeBaseId, items).reindexing === null) break;
          // The next step sized to take about stepMs, from this one's pace.
          const ms = Math.max(performance.now() - started, 0.1);
          items = Math.max(1, Math.min(MOST_STEP_ITEMS, Math.round((items * this.stepMs) / ms)));
        }
      }
    } while (this.again && !this.stopped);
  }
}
