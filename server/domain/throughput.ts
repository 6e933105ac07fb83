/** Batches the pipeline's capacity is measured over. */
const CAPACITY_BATCHES = 64;

/**
 * Measured processing rate (jobs finished per second), used for `estimatedTime`, and the
 * pipeline's capacity (work in jobCost units per second of its time, busy or not), used for the
 * queue's fair order. Until the pipeline has measured itself, they are conservative priors from
 * the default embedder's measured speed on this class of machine.
 */
export class ThroughputMeter {
  private readonly finishedAt: number[] = [];
  private readonly work: Array<{ cost: number; ms: number }> = [];

  constructor(
    private readonly priorJobsPerSecond = 2,
    private readonly windowMs = 60_000,
    private readonly clock: () => number = Date.now,
    private readonly priorCostPerSecond = 4_000,
  ) {}

  /**
   * A batch of `cost` that took `pipelineMs` of the pipeline's time: its worker's time divided by
   * the number of workers, since the others worked meanwhile. Idle time does not count, so a
   * trickle of pushes does not make the pipeline look slow.
   */
  recordWork(cost: number, pipelineMs: number): void {
    this.work.push({ cost, ms: pipelineMs });
    if (this.work.length > CAPACITY_BATCHES) this.work.shift();
  }

  costPerSecond(): number {
    let cost = 0;
    let ms = 0;
    for (const batch of this.work) {
      cost += batch.cost;
      ms += batch.ms;
    }
    return ms < 1_000 || cost <= 0 ? this.priorCostPerSecond : (cost / ms) * 1000;
  }

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
