import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keywordCandidatesFirst, minMaxFusion } from '../../../../server/retrieval/fusion.ts';

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
});
