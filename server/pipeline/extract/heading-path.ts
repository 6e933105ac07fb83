/** The headings above the current place in a document, outermost first, by heading level. */
export class HeadingPath {
  private readonly stack: Array<{ level: number; text: string }> = [];

  /** A heading of this level (1 outermost) closes every heading at its level or deeper. */
  enter(level: number, text: string): void {
    while (this.stack.length > 0 && this.stack.at(-1)!.level >= level) this.stack.pop();
    this.stack.push({ level, text });
  }

  current(): string[] {
    return this.stack.map((heading) => heading.text);
  }
}

/** How a heading path is written in citations and carried into passages: "Returns › Damaged goods". */
export const HEADING_SEPARATOR = ' › ';
