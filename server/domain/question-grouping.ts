/**
 * Grouping visitors' questions by meaning, so "do you deliver to Bern?" and "can you ship my
 * order to Bern" count as one question asked twice. A question's likeness to a group mixes the
 * cosine of its vector with the group's running mean vector and the overlap of its content words
 * with the group's first question:
 *
 *   score = (1 − keywordWeight) · cos(question, centroid) + keywordWeight · jaccard(words, group words)
 *
 * Questions are placed one at a time, oldest first (leader clustering): into the most alike
 * group when its score reaches the threshold, else into a new group of their own. The threshold
 * and the weight are measured on labelled public data (bench/question-grouping.ts,
 * docs/content-gaps.md), not guessed.
 */

export type GroupingSettings = { threshold: number; keywordWeight: number };

/**
 * Measured for USE-lite (docs/content-gaps.md, bench/question-grouping.ts): the best pair F1 on
 * 1,249 StackFAQ rephrasings and 557 SQuAD questions grouped together, over keyword weights 0 to
 * 0.6 and thresholds 0.4 to 0.85. Shared words weigh more than the model's vectors: USE-lite
 * puts questions on one subject close whatever they ask.
 */
export const GROUPING: GroupingSettings = { threshold: 0.45, keywordWeight: 0.6 };

export type QuestionGroupCandidate = {
  id: number;
  /** Unit-length running mean of the members' vectors. */
  centroid: Float32Array;
  /** The content-word stems of the group's first question. */
  stems: ReadonlySet<string>;
  members: number;
};

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const word of a) if (b.has(word)) shared++;
  return shared / (a.size + b.size - shared);
}

export function unit(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  return norm === 0 ? Float32Array.from(vector) : vector.map((x) => x / norm);
}

/** The groups of one knowledge base, and where a new question belongs among them. */
export class QuestionGrouping {
  readonly groups: QuestionGroupCandidate[] = [];

  constructor(private readonly settings: GroupingSettings = GROUPING) {}

  score(vector: Float32Array, stems: ReadonlySet<string>, group: QuestionGroupCandidate): number {
    const w = this.settings.keywordWeight;
    return (1 - w) * cosine(vector, group.centroid) + w * jaccard(stems, group.stems);
  }

  /** The most alike group at or above the threshold, or null: the question starts a group. */
  place(vector: Float32Array, stems: ReadonlySet<string>): QuestionGroupCandidate | null {
    let best: QuestionGroupCandidate | null = null;
    let bestScore = this.settings.threshold;
    for (const group of this.groups) {
      const score = this.score(vector, stems, group);
      if (score >= bestScore) {
        best = group;
        bestScore = score;
      }
    }
    return best;
  }

  /** Adds the question to the group: its centroid moves toward the question by 1/(members+1). */
  join(group: QuestionGroupCandidate, vector: Float32Array): void {
    const v = unit(vector);
    const n = group.members;
    group.centroid = unit(group.centroid.map((x, i) => (x * n + v[i]!) / (n + 1)));
    group.members = n + 1;
  }

  add(group: Omit<QuestionGroupCandidate, 'centroid'> & { centroid: Float32Array }): QuestionGroupCandidate {
    const candidate = { ...group, centroid: unit(group.centroid) };
    this.groups.push(candidate);
    return candidate;
  }
}

/** Groups questions in order, as the grouping pass does; returns each question's group number. */
export function groupQuestions(questions: Array<{ vector: Float32Array; stems: ReadonlySet<string> }>, settings: GroupingSettings = GROUPING): number[] {
  const grouping = new QuestionGrouping(settings);
  return questions.map(({ vector, stems }) => {
    const found = grouping.place(vector, stems);
    if (found) {
      grouping.join(found, vector);
      return found.id;
    }
    return grouping.add({ id: grouping.groups.length, centroid: vector, stems, members: 1 }).id;
  });
}

/**
 * Pair precision and recall of a grouping against labels: of the pairs put together, the share
 * that belong together; of the pairs that belong together, the share put together.
 */
export function pairScores(groups: number[], labels: string[]): { precision: number; recall: number; f1: number } {
  let together = 0;
  let same = 0;
  let both = 0;
  for (let i = 0; i < groups.length; i++) {
    for (let j = i + 1; j < groups.length; j++) {
      const g = groups[i] === groups[j];
      const l = labels[i] === labels[j];
      if (g) together++;
      if (l) same++;
      if (g && l) both++;
    }
  }
  const precision = together === 0 ? 1 : both / together;
  const recall = same === 0 ? 1 : both / same;
  return { precision, recall, f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall) };
}
