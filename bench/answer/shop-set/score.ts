/**
 * How the shop set scores an answer, and its tables. Right: every expected fact in the answer
 * (or abstained where that was expected). Partial: some of them. Wrong: none, or silent where the
 * content answers. Confidently wrong: an answer where silence was right, or one holding a fact
 * the question forbids (the other audience's terms, "Yes" where the content says no): what a
 * visitor would act on. Pure functions.
 */
import { factMatcher, type ShopSetQuestion } from './shop-set.ts';

export const VERDICTS = ['right', 'partial', 'wrong', 'confidently wrong'] as const;
export type Verdict = (typeof VERDICTS)[number];
export type Scored = { verdict: Verdict; found: string[]; missing: string[]; forbidden: string[] };

export function scoreAnswer(q: Pick<ShopSetQuestion, 'expect' | 'forbid'>, answer: { answered: boolean; answer: string }): Scored {
  if (q.expect === 'abstain') {
    return { verdict: answer.answered ? 'confidently wrong' : 'right', found: [], missing: [], forbidden: [] };
  }
  if (!answer.answered) return { verdict: 'wrong', found: [], missing: [...q.expect], forbidden: [] };
  const found = q.expect.filter((f) => factMatcher(f)(answer.answer));
  const missing = q.expect.filter((f) => !found.includes(f));
  const forbidden = (q.forbid ?? []).filter((f) => factMatcher(f)(answer.answer));
  const verdict: Verdict = forbidden.length > 0 ? 'confidently wrong' : missing.length === 0 ? 'right' : found.length > 0 ? 'partial' : 'wrong';
  return { verdict, found, missing, forbidden };
}

export type Tally = { questions: number } & Record<Verdict, number> & { rightShare: number; confidentlyWrongShare: number };

/** Counts of each verdict per group (business, kind), and over all. */
export function tally<T>(rows: T[], groupOf: (row: T) => string, verdictOf: (row: T) => Verdict): Record<string, Tally> {
  const groups = new Map<string, Verdict[]>();
  for (const row of rows) {
    for (const g of [groupOf(row), 'all']) {
      if (!groups.has(g)) groups.set(g, []);
      groups.get(g)!.push(verdictOf(row));
    }
  }
  const out: Record<string, Tally> = {};
  for (const [g, verdicts] of groups) {
    const count = (v: Verdict) => verdicts.filter((x) => x === v).length;
    const n = verdicts.length;
    out[g] = {
      questions: n,
      right: count('right'),
      partial: count('partial'),
      wrong: count('wrong'),
      'confidently wrong': count('confidently wrong'),
      rightShare: Math.round((count('right') / n) * 1000) / 1000,
      confidentlyWrongShare: Math.round((count('confidently wrong') / n) * 1000) / 1000,
    };
  }
  return out;
}

/** A fixed-width table of tallies, one row per group ("all" last). */
export function formatTally(title: string, t: Record<string, Tally>): string {
  const names = [...Object.keys(t).filter((k) => k !== 'all').sort(), 'all'];
  const width = Math.max(title.length, ...names.map((n) => n.length));
  const head = `${title.padEnd(width)}  ${['n', 'right', 'partial', 'wrong', 'conf-wr', 'right%', 'conf-wr%'].map((h) => h.padStart(8)).join(' ')}`;
  const lines = names.map((n) => {
    const r = t[n]!;
    const cells = [r.questions, r.right, r.partial, r.wrong, r['confidently wrong'], (r.rightShare * 100).toFixed(1), (r.confidentlyWrongShare * 100).toFixed(1)];
    return `${n.padEnd(width)}  ${cells.map((c) => String(c).padStart(8)).join(' ')}`;
  });
  return [head, ...lines].join('\n');
}
