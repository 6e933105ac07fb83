import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keywordCandidatesFirst, minMaxFusion, reciprocalRankFusion } from '../../../../server/retrieval/fusion.ts';

describe('hybrid fusion', () => {
  const keyword = [
    { id: 1, score: 9 },
    { id: 2, score: 4 },
    { id: 3, score: 1 },
  ];
  const semantic = [
    { id: 4, score: 0.9 },
    { id: 3, score: 0.8 },
    { id: 1, score: 0.5 },
  ];
  const fused = minMaxFusion([keyword, semantic], [0.6, 0.4]);

  it('min-max fusion lets a strong semantic-only item displace keyword matches', () => {
    assert.deepEqual(fused.map((r) => r.id), [1, 4, 3, 2]);
  });

  it('keyword-first keeps every keyword candidate ahead, in fused order, then the semantic-only ones', () => {
    assert.deepEqual(keywordCandidatesFirst(fused, keyword).map((r) => r.id), [1, 3, 2, 4]);
    const semanticOnly = minMaxFusion([[], semantic], [0.6, 0.4]);
    assert.deepEqual(keywordCandidatesFirst(semanticOnly, []).map((r) => r.id), [4, 3, 1]);
  });

  describe('an item the semantic side cannot score (text indexed, vectors still to come)', () => {
    // 7 has no vectors yet: the semantic list cannot hold it.
    const kw = [
      { id: 7, score: 10 },
      { id: 1, score: 9 },
      { id: 2, score: 1 },
    ];
    const sem = [
      { id: 1, score: 0.9 },
      { id: 2, score: 0.2 },
    ];

    it('is fused by its keyword score alone, not as if it were dissimilar: first when keywords put it first', () => {
      const fused = minMaxFusion([kw, sem], [0.8, 0.2], new Set([7]));
      assert.deepEqual(fused.map((r) => r.id), [7, 1, 2]);
      assert.equal(fused[0]!.score, 1);
      // Read as dissimilar (0 on the semantic side), it was buried under item 1: 0.8 against 0.92.
      assert.deepEqual(minMaxFusion([kw, sem], [0.8, 0.2]).map((r) => r.id), [1, 7, 2]);
    });

    it('is not lifted either: below an item both sides rank first', () => {
      const fused = minMaxFusion(
        [
          [
            { id: 1, score: 10 },
            { id: 7, score: 9 },
            { id: 2, score: 1 },
          ],
          sem,
        ],
        [0.8, 0.2],
        new Set([7]),
      );
      assert.deepEqual(fused.map((r) => r.id), [1, 7, 2]);
      assert.ok(Math.abs(fused[1]!.score - 0.8 / 0.8 * (8 / 9)) < 1e-9, 'its scaled keyword score, 8/9');
    });

    it('rank fusion reads it the same way', () => {
      const fused = reciprocalRankFusion([kw, sem], [0.8, 0.2], 60, new Set([7]));
      assert.equal(fused[0]!.id, 7);
      assert.ok(Math.abs(fused[0]!.score - 1 / 61) < 1e-12, 'its keyword rank term, over the keyword weight');
    });
  });
});
