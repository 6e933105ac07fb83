/**
 * Packs consecutive units (sentences, or words of an over-long sentence) into groups that fit a
 * token budget, each group after the first opening with the tail of the one before (the overlap).
 */
import type { Span } from '../../language/segment-text.ts';

/** How a unit was cut: overlap only repeats whole sentences or whole words. */
export type Level = 'sentence' | 'word' | 'piece' | 'fragment';
export type Unit = Span & { level: Level; cost: number };

export class GreedyPacker {
  private readonly groups: Unit[][] = [];
  private current: Unit[] = [];
  private used = 0;
  /** Units added since the last flush; the rest of `current` is overlap. */
  private fresh = 0;
  /** Groups finished when the current paragraph started (whole-paragraph packing). */
  private groupsAtParagraph = 0;

  constructor(
    private readonly budget: number,
    private readonly overlapBudget: number,
  ) {}

  /**
   * A paragraph that would not fit in what is left, but would fit whole in the next group, starts
   * that group instead of being cut, unless this group is not yet half full: then filling it with
   * the paragraph's first sentences beats leaving a stub.
   */
  startParagraph(cost: number): void {
    if (this.fresh === 0 || this.used + cost <= this.budget || this.used < this.budget / 2) return;
    const carried = sumCosts(this.overlapOf(this.current));
    if (carried + cost <= this.budget) this.flush();
  }

  /**
   * Whole-paragraph packing: a paragraph joins the group only whole, and only after whole
   * paragraphs; otherwise it starts a group of its own, carrying nothing of the one before.
   */
  startWholeParagraph(cost: number): void {
    const previousWasCut = this.groups.length > this.groupsAtParagraph;
    if (this.fresh > 0 && (previousWasCut || this.used + cost > this.budget)) this.groups.push(this.current);
    if (this.fresh === 0 || previousWasCut || this.used + cost > this.budget) {
      this.current = [];
      this.used = 0;
      this.fresh = 0;
    }
    this.groupsAtParagraph = this.groups.length;
  }

  add(unit: Unit): void {
    if (this.fresh > 0 && this.used + unit.cost > this.budget) this.flush();
    // Overlap gives way when it leaves no room for the unit: every group must bring something new.
    while (this.current.length > 0 && this.used + unit.cost > this.budget) this.used -= this.current.shift()!.cost;
    this.current.push(unit);
    this.used += unit.cost;
    this.fresh++;
  }

  finish(): Unit[][] {
    if (this.fresh > 0) this.groups.push(this.current);
    this.current = [];
    this.fresh = 0;
    return this.groups;
  }

  private flush(): void {
    this.groups.push(this.current);
    this.current = this.overlapOf(this.current);
    this.used = sumCosts(this.current);
    this.fresh = 0;
  }

  /** The longest run of whole sentences (or words) ending the group that fits the overlap budget. */
  private overlapOf(group: Unit[]): Unit[] {
    let first = group.length;
    let cost = 0;
    // Never the whole group (index 0 stays out), or the next group would contain this one.
    while (first > 1) {
      const unit = group[first - 1]!;
      if (unit.level === 'piece' || unit.level === 'fragment' || cost + unit.cost > this.overlapBudget) break;
      cost += unit.cost;
      first--;
    }
    return group.slice(first);
  }
}

export function sumCosts(units: Unit[]): number {
  let total = 0;
  for (const unit of units) total += unit.cost;
  return total;
}
