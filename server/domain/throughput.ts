/**
 * Measured processing rate over the last minute: jobs finished per second (for `estimatedTime`)
 * and work done per second in cost units (jobCost, for the queue's fair order). Until the
 * pipeline has finished enough jobs, it uses conservative priors from the default embedder's
 * measured speed on this class of machine.
 */
export class ThroughputMeter {
  private readonly batches: Array<{ at: number; jobs: number; cost: number }> = [];

  constructor(
    private readonly priorJobsPerSecond = 2,
    private readonly windowMs = 60_000,
    private readonly clock: () => number = Date.now,
    private readonly priorCostPerSecond = 4_000,
  ) {}

  /** `count` jobs finished, together costing `cost` (jobCost of each). */
  record(count = 1, cost = 0): void {
    const now = this.clock();
    this.batches.push({ at: now, jobs: count, cost });
    this.prune(now);
  }

  jobsPerSecond(): number {
    return this.rate('jobs', this.priorJobsPerSecond);
  }

  costPerSecond(): number {
    return this.rate('cost', this.priorCostPerSecond);
  }

  private rate(measure: 'jobs' | 'cost', prior: number): number {
    const now = this.clock();
    this.prune(now);
    let jobs = 0;
    let total = 0;
    for (const batch of this.batches) {
      jobs += batch.jobs;
      total += batch[measure];
    }
    if (jobs < 10 || total <= 0) return prior;
    const span = Math.max(1_000, now - this.batches[0]!.at);
    return (total / span) * 1000;
  }

  private prune(now: number): void {
    const cutoff = now - this.windowMs;
    let drop = 0;
    while (drop < this.batches.length && this.batches[drop]!.at < cutoff) drop++;
    if (drop) this.batches.splice(0, drop);
  }
}
