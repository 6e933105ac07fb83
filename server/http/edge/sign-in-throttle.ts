/**
 * Slows down password guessing without locking anyone out (OWASP's authentication guidance):
 * tries are counted per username, whichever addresses they come from, and per address, whichever
 * usernames they name. The first few failures cost nothing (five per name; twenty per address, as
 * everyone on the machine itself or behind one router shares an address); after that each try must wait a delay
 * that doubles with every further failure, from one second up to a minute. A guesser gets about
 * one try a minute per name; the real user, whose name is being guessed, waits at most that
 * minute instead of a fixed lock-out. Failures older than the window are forgotten. Kept in
 * memory: a restart forgets, which costs a guesser a restart per batch.
 */
/** Names and addresses tracked before expired ones are swept. */
const MAX_TRACKED = 10_000;
const FREE_TRIES = { name: 5, address: 20 };
const FIRST_DELAY_MS = 1_000;
const LONGEST_DELAY_MS = 60_000;

export class SignInThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly windowMs = 15 * 60_000,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The keys a try is counted under. */
  static keys(username: string, address: string): string[] {
    return [`name:${username.toLowerCase()}`, `address:${address}`];
  }

  /** Seconds to wait before the next try counted under any of `keys`, or 0. */
  retryAfter(keys: string[]): number {
    const waits = keys.map((key) => {
      const recent = this.recent(key);
      const free = key.startsWith('address:') ? FREE_TRIES.address : FREE_TRIES.name;
      if (recent.length < free) return 0;
      const delay = Math.min(LONGEST_DELAY_MS, FIRST_DELAY_MS * 2 ** (recent.length - free));
      return recent.at(-1)! + delay - this.clock();
    });
    const wait = Math.max(...waits);
    return wait > 0 ? Math.ceil(wait / 1000) : 0;
  }

  fail(keys: string[]): void {
    for (const key of keys) this.failures.set(key, [...this.recent(key), this.clock()]);
    // Each new name tried adds an entry: old ones go before the map can grow without end.
    if (this.failures.size > MAX_TRACKED) for (const tracked of [...this.failures.keys()]) this.recent(tracked);
  }

  succeed(keys: string[]): void {
    for (const key of keys) this.failures.delete(key);
  }

  private recent(key: string): number[] {
    const cutoff = this.clock() - this.windowMs;
    const list = (this.failures.get(key) ?? []).filter((t) => t > cutoff);
    if (list.length) this.failures.set(key, list);
    else this.failures.delete(key);
    return list;
  }
}
