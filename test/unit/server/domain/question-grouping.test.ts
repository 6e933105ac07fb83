/**
 * Grouping quality on a small labelled sample from public data, inside the repository
 * (test/fixtures/question-groups.json, written by bench/question-grouping.ts): StackFAQ
 * rephrasings labelled by their thread and SQuAD questions labelled by their paragraph, with their
 * USE-lite vectors. The full measurement, over 1,806 questions, is in docs/content-gaps.md.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cosine, GROUPING, groupQuestions, jaccard, pairScores } from '../../../../server/domain/question-grouping.ts';
import { questionStems } from '../../../../server/retrieval/question-groups.ts';

type Fixture = { model: string; questions: Array<{ text: string; label: string; vector: string }> };
const fixture = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../../fixtures/question-groups.json'), 'utf8')) as Fixture;
const questions = fixture.questions.map((q) => ({
  ...q,
  vector: Float32Array.from(new Int8Array(Buffer.from(q.vector, 'base64')), (x) => x / 127),
  stems: questionStems(q.text),
}));
const labels = questions.map((q) => q.label);
/** What the sample gives at the shipped setting (precision 1.0, recall 0.36), with a margin. */
const PRECISION_AT_LEAST = 0.9;
const RECALL_AT_LEAST = 0.3;
const score = (settings = GROUPING) => pairScores(groupQuestions(questions, settings), labels);

describe('grouping questions by meaning (labelled sample, USE-lite vectors)', () => {
  it('holds questions of several threads and paragraphs', () => {
    assert.equal(fixture.model, 'use-lite');
    assert.ok(questions.length >= 50);
    assert.ok(new Set(labels).size >= 14);
  });

  it('at the measured setting, puts paraphrases together far more often than chance, and keeps most unrelated pairs apart', () => {
    const { precision, recall } = score();
    // Chance: the share of pairs that belong together.
    let same = 0;
    let pairs = 0;
    for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++, pairs++) if (labels[i] === labels[j]) same++;
    assert.ok(precision >= PRECISION_AT_LEAST, `pair precision ${precision.toFixed(3)} (chance ${(same / pairs).toFixed(3)})`);
    assert.ok(recall >= RECALL_AT_LEAST, `pair recall ${recall.toFixed(3)}`);
  });

  it('does better than a threshold far too low (everything merges) or far too high (nothing does)', () => {
    const measured = score();
    const low = score({ ...GROUPING, threshold: 0.2 });
    const high = score({ ...GROUPING, threshold: 0.95 });
    assert.ok(measured.f1 > low.f1 && measured.f1 > high.f1, JSON.stringify({ measured, low, high }));
    assert.ok(low.precision < measured.precision);
    assert.ok(high.recall < measured.recall);
  });

  it('scores by cosine and shared words', () => {
    assert.equal(jaccard(new Set(['deliv', 'bern']), new Set(['deliv', 'zurich'])), 1 / 3);
    assert.equal(jaccard(new Set(), new Set()), 0);
    assert.ok(Math.abs(cosine(Float32Array.of(1, 0), Float32Array.of(1, 1)) - Math.SQRT1_2) < 1e-6);
    assert.equal(cosine(Float32Array.of(0, 0), Float32Array.of(1, 1)), 0);
  });
});
