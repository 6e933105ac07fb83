import { setImmediate as nextTurn } from 'node:timers/promises';
import type { BackgroundPass } from '../domain/background-pass.ts';
import type { GroupAssignment, QuestionGroupStore } from '../domain/content-gaps.ts';
import { GROUPING, type GroupingSettings, type QuestionGroupCandidate, QuestionGrouping } from '../domain/question-grouping.ts';
import { contentTerms } from '../language/content-terms.ts';

/** The content-word stems the grouping compares ("deliver", "bern" of "Do you deliver to Bern?"). */
export function questionStems(question: string): Set<string> {
  return new Set(contentTerms(question));
}

/** Questions embedded per call: small, so visitors' own query embeddings never wait long behind one. */
const BATCH = 32;
/** How often new turns are grouped in the background. */
const PASS_EVERY_MS = 10_000;
/** Empty groups removed per statement after retention. */
const PRUNE_PAGE = 500;

export type QuestionGrouperOptions = {
  store: QuestionGroupStore;
  /** Vectors of questions, as the query embedder makes them. */
  embed: (texts: string[]) => Promise<Float32Array[]>;
  /** Identity of the model `embed` uses; groups made with another are regrouped. */
  model: string;
  clock?: () => number;
  settings?: GroupingSettings;
};

/**
 * The grouping pass: each visitor question is embedded once, after it was answered, and placed
 * in a group of its knowledge base (question-grouping.ts); the groups' centroids are kept in
 * memory per knowledge base. It runs every 10 seconds, and before a report (`catchUp`) so the
 * report holds the questions of a moment ago. One pass runs at a time. A background pass
 * (background-pass.ts): a failed run (the model could not load, the database was busy) is logged.
 */
export class QuestionGrouper implements BackgroundPass {
  readonly name = 'question-grouping';
  readonly intervalMs = PASS_EVERY_MS;
  private readonly groupings = new Map<string, QuestionGrouping>();
  private chain: Promise<unknown> = Promise.resolve();
  private checkedModel = false;
  private readonly clock: () => number;
  private readonly settings: GroupingSettings;

  constructor(private readonly options: QuestionGrouperOptions) {
    this.clock = options.clock ?? Date.now;
    this.settings = options.settings ?? GROUPING;
  }

  /** The background pass's run: groups every turn not grouped yet. */
  run(): Promise<number> {
    return this.catchUp();
  }

  /** Waits for the pass or pruning under way. */
  async stop(): Promise<void> {
    await this.chain.catch(() => undefined);
  }

  /** Groups up to `max` turns not grouped yet (after any pass under way); resolves with how many. */
  catchUp(max = Number.POSITIVE_INFINITY): Promise<number> {
    const run = this.chain.catch(() => undefined).then(() => this.group(max));
    this.chain = run;
    return run;
  }

  /** Turns still waiting to be grouped. */
  pending(): number {
    return this.options.store.countUngrouped();
  }

  /** After retention: removes groups no kept turn names (their questions are gone). */
  prune(): Promise<number> {
    const run = this.chain.catch(() => undefined).then(() => {
      let removed = 0;
      for (let n = PRUNE_PAGE; n === PRUNE_PAGE; removed += n) n = this.options.store.pruneEmpty(PRUNE_PAGE);
      if (removed > 0) this.groupings.clear();
      return removed;
    });
    this.chain = run;
    return run;
  }

  private groupingOf(knowledgeBaseId: string): QuestionGrouping {
    let grouping = this.groupings.get(knowledgeBaseId);
    if (!grouping) {
      grouping = new QuestionGrouping(this.settings);
      for (const g of this.options.store.groupsOf(knowledgeBaseId, this.options.model)) {
        grouping.add({ id: g.id, centroid: g.centroid, stems: new Set(g.stems), members: g.members });
      }
      this.groupings.set(knowledgeBaseId, grouping);
    }
    return grouping;
  }

  private async group(max: number): Promise<number> {
    const { store, model } = this.options;
    if (!this.checkedModel) {
      if (store.resetIfModelChanged(model)) this.groupings.clear();
      this.checkedModel = true;
    }
    let grouped = 0;
    while (grouped < max) {
      const turns = store.ungrouped(Math.min(BATCH, max - grouped));
      if (turns.length === 0) break;
      const vectors = await this.options.embed(turns.map((t) => t.question));
      // Groups made in this batch have negative ids until the database gives them theirs.
      const made = new Map<number, { candidate: QuestionGroupCandidate; label: string; stems: string[] }>();
      const moved = new Map<number, QuestionGroupCandidate>();
      const placed: Array<{ turn: (typeof turns)[number]; candidate: QuestionGroupCandidate }> = [];
      turns.forEach((turn, i) => {
        const grouping = this.groupingOf(turn.knowledgeBaseId);
        const stems = questionStems(turn.question);
        const vector = vectors[i]!;
        let candidate = grouping.place(vector, stems);
        if (candidate) {
          grouping.join(candidate, vector);
          if (candidate.id > 0) moved.set(candidate.id, candidate);
        } else {
          candidate = grouping.add({ id: -(made.size + 1), centroid: vector, stems, members: 1 });
          made.set(candidate.id, { candidate, label: turn.question, stems: [...stems] });
        }
        placed.push({ turn, candidate });
      });
      const assignments: GroupAssignment[] = placed.map(({ turn, candidate }) => {
        const fresh = made.get(candidate.id);
        return {
          turn,
          group: fresh
            ? { kind: 'new', ref: candidate.id, label: fresh.label, stems: fresh.stems, centroid: candidate.centroid, members: candidate.members }
            : { kind: 'existing', id: candidate.id },
        };
      });
      try {
        const ids = store.save(assignments, [...moved.values()].map((c) => ({ id: c.id, centroid: c.centroid, members: c.members })), model, this.clock());
        placed.forEach(({ candidate }, i) => {
          if (candidate.id < 0) candidate.id = ids[i]!;
        });
      } catch (error) {
        // The in-memory groups moved with what was not written: read them again next time.
        this.groupings.clear();
        throw error;
      }
      grouped += turns.length;
      await nextTurn();
    }
    return grouped;
  }
}
