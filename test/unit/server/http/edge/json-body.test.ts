import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonShapeScan, jsonShapeProblem } from '../../../../../server/http/edge/json-body.ts';
import { LIMITS } from '../../../../../common/contract/limits.ts';

describe('JSON shape before parsing', () => {
  const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
  const withKeys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":1`).join(',')}}`;
  it('counts brackets outside strings only', () => {
    assert.equal(jsonShapeProblem(deep(LIMITS.jsonDepth)), null);
    assert.match(jsonShapeProblem(deep(LIMITS.jsonDepth + 1))!, /nested deeper/);
    assert.equal(jsonShapeProblem(`{"a":"${'['.repeat(40)}"}`), null);
    assert.equal(jsonShapeProblem(`{"a":"\\"${'['.repeat(40)}"}`), null);
    assert.equal(jsonShapeProblem('1'), null);
  });
  it('counts keys per object, outside strings, and refuses past the most a valid body holds', () => {
    assert.equal(jsonShapeProblem(withKeys(LIMITS.objectKeys)), null);
    assert.match(jsonShapeProblem(withKeys(LIMITS.objectKeys + 1))!, /more than \d+ keys/);
    // Keys of sibling and nested objects are counted apart, and colons inside strings are text.
    const half = Math.ceil(LIMITS.objectKeys / 2) + 1;
    assert.equal(jsonShapeProblem(`[${withKeys(half)},${withKeys(half)}]`), null);
    assert.equal(jsonShapeProblem(`{"a":${withKeys(half)},${withKeys(half).slice(1)}`), null);
    assert.equal(jsonShapeProblem(`{"a":"${':'.repeat(LIMITS.objectKeys + 1)}"}`), null);
  });
  it('reads the body in any pieces: a string, an escape or a run of backslashes split between them', () => {
    const colons = ':'.repeat(LIMITS.objectKeys + 1);
    const texts = [`{"a\\\\":"\\"${colons}\\\\"}`, `{"a":"x\\\\\\"${colons}"}`, withKeys(LIMITS.objectKeys + 1)];
    for (const text of texts) {
      const whole = jsonShapeProblem(text);
      for (const size of [1, 2, 3, 7]) {
        const scan = new JsonShapeScan();
        const bytes = Buffer.from(text);
        let problem: string | null = null;
        for (let at = 0; at < bytes.length && !problem; at += size) problem = scan.feed(bytes.subarray(at, at + size));
        assert.equal(problem, whole, `${text.slice(0, 20)} in pieces of ${size}`);
      }
    }
    assert.equal(jsonShapeProblem(texts[0]!), null);
    assert.equal(jsonShapeProblem(texts[1]!), null);
  });
});
