/** Requests at a time to one host: what the issue and most crawlers' etiquette ask. */
export const REQUESTS_PER_HOST = 2;

export type Clock = { now(): number; sleep(ms: number): Promise<void> };

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * At most `perHost` requests under way to one host, and with a crawl delay, one request at a time
 * started at least that long after the one before (a site that asks for a delay asks to be read
 * one page at a time).
 */
export class HostLimiter {
  private readonly hosts = new Map<string, { active: number; waiting: Array<() => void>; nextStart: number }>();

  constructor(
    private readonly clock: Clock = systemClock,
    private readonly perHost = REQUESTS_PER_HOST,
  ) {}

  async run<T>(host: string, delaySeconds: number | null, task: () => Promise<T>): Promise<T> {
    let state = this.hosts.get(host);
    if (!state) {
      state = { active: 0, waiting: [], nextStart: 0 };
      this.hosts.set(host, state);
    }
    const limit = delaySeconds ? 1 : this.perHost;
    while (state.active >= limit) await new Promise<void>((resolve) => state!.waiting.push(resolve));
    state.active++;
    try {
      if (delaySeconds) {
        const wait = state.nextStart - this.clock.now();
        if (wait > 0) await this.clock.sleep(wait);
        state.nextStart = this.clock.now() + delaySeconds * 1000;
      }
      return await task();
    } finally {
      state.active--;
      state.waiting.shift()?.();
    }
  }
}
