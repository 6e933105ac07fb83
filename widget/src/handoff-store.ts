/**
 * The visitor sessions that left a question for the shop, kept in localStorage (unlike the
 * conversation, which lives for the tab): a visitor who comes back another day reads the shop's
 * reply with the token of the session that asked, which the server takes for reading after it
 * expired. A few sessions at most; a token the server no longer knows is forgotten.
 */
const KEPT = 5;

export class HandoffStore {
  private readonly key: string;

  constructor(widgetId: string) {
    this.key = `localiq-handoffs:${widgetId}`;
  }

  tokens(): string[] {
    try {
      const parsed = JSON.parse(localStorage.getItem(this.key) ?? '[]') as unknown;
      return Array.isArray(parsed) ? parsed.filter((t): t is string => typeof t === 'string') : [];
    } catch {
      return [];
    }
  }

  add(token: string): void {
    this.write([...this.tokens().filter((t) => t !== token), token].slice(-KEPT));
  }

  forget(token: string): void {
    this.write(this.tokens().filter((t) => t !== token));
  }

  private write(tokens: string[]): void {
    try {
      localStorage.setItem(this.key, JSON.stringify(tokens));
    } catch {
      // Refused (a sandboxed frame, some private modes): the reply is then read in this tab only.
    }
  }
}
