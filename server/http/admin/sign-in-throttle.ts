/**
 * Slows down password guessing: after a few failed sign-ins for one username from one address,
 * further tries wait. Kept in memory: a restart forgets, which costs a guesser a restart per batch.
 */
/** Username and address pairs tracked before expired ones are swept. */
const MAX_TRACKED = 10_000;

export class SignInThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly maxFailures = 5,
    private readonly windowMs = 15 * 60_000,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Seconds to wait before the next try, or 0. */
  retryAfter(key: string): number {
    const recent = this.recent(key);
    if (recent.length < this.maxFailures) return 0;
    return Math.max(1, Math.ceil((recent[0]! + this.windowMs - this.clock()) / 1000));
  }

  fail(key: string): void {
    this.failures.set(key, [...this.recent(key), this.clock()]);
    // Each new username tried adds an entry: old ones go before the map can grow without end.
    if (this.failures.size > MAX_TRACKED) for (const tracked of [...this.failures.keys()]) this.recent(tracked);
  }

  succeed(key: string): void {
    this.failures.delete(key);
  }

  private recent(key: string): number[] {
    const cutoff = this.clock() - this.windowMs;
    const list = (this.failures.get(key) ?? []).filter((t) => t > cutoff);
    if (list.length) this.failures.set(key, list);
    else this.failures.delete(key);
    return list;
  }
}
