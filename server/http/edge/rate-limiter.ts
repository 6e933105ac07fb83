/**
 * Token bucket per API key: `burst` requests at once, refilled at `perSecond`. In memory on
 * purpose: limits protect this process, and a restart forgiving everyone is harmless.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Takes one token; returns 0 when allowed, else the whole seconds to wait before retrying. */
  take(key: string): number {
    const now = this.clock();
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }

  /**
   * Takes `tokens` more from a key that made the server do that much work for nothing. The bucket
   * may go below zero, down to one burst's worth of debt: the key then waits until it is repaid.
   */
  charge(key: string, tokens: number): void {
    const now = this.clock();
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.max(-this.burst, Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond) - tokens);
    bucket.at = now;
    this.buckets.set(key, bucket);
  }
}
