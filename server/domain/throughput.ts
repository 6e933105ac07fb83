/**
 * Measured processing rate (jobs finished per second), used for `estimatedTime`. Until the
 * pipeline has finished enough jobs, it uses a conservative prior from the default embedder's
 * measured speed on this class of machine.
 */
export class ThroughputMeter {
  private readonly finishedAt: number[] = [];

  constructor(
    private readonly priorJobsPerSecond = 2,
    private readonly windowMs = 60_000,
    private readonly clock: () => number = Date.now,
  ) {}

  record(count = 1): void {
    const now = this.clock();
    for (let i = 0; i < count; i++) this.finishedAt.push(now);
    this.prune(now);
  }

  jobsPerSecond(): number {
    const now = this.clock();
    this.prune(now);
    if (this.finishedAt.length < 10) return this.priorJobsPerSecond;
    const span = Math.max(1_000, now - this.finishedAt[0]!);
    return (this.finishedAt.length / span) * 1000;
  }

  private prune(now: number): void {
    const cutoff = now - this.windowMs;
    let drop = 0;
    while (drop < this.finishedAt.length && this.finishedAt[drop]! < cutoff) drop++;
    if (drop) this.finishedAt.splice(0, drop);
  }
}
