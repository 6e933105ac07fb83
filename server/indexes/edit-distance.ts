/** Rows of the distance table, reused (words are short; a search compares a few dozen). */
let previous = new Int32Array(64);
let current = new Int32Array(64);
let beforePrevious = new Int32Array(64);

/**
 * Damerau–Levenshtein distance in its optimal-string-alignment form (an insertion, deletion,
 * substitution or swap of two neighbouring letters each counts 1; no letter is edited twice)
 * between two words given as code points, or `max + 1` as soon as it must exceed `max`: typo
 * tolerance only asks whether a word is within 1 or 2 edits of another.
 */
export function editDistance(a: ArrayLike<number>, b: ArrayLike<number>, max: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  if (m + 1 > previous.length) {
    previous = new Int32Array(2 * (m + 1));
    current = new Int32Array(2 * (m + 1));
    beforePrevious = new Int32Array(2 * (m + 1));
  }
  for (let j = 0; j <= m; j++) previous[j] = j;
  for (let i = 1; i <= n; i++) {
    current[0] = i;
    let rowBest = i;
    const ai = a[i - 1]!;
    for (let j = 1; j <= m; j++) {
      const bj = b[j - 1]!;
      let cost = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b[j - 2] && a[i - 2] === bj) cost = Math.min(cost, beforePrevious[j - 2]! + 1);
      current[j] = cost;
      if (cost < rowBest) rowBest = cost;
    }
    if (rowBest > max) return max + 1;
    const oldest = beforePrevious;
    beforePrevious = previous;
    previous = current;
    current = oldest;
  }
  return Math.min(previous[m]!, max + 1);
}
