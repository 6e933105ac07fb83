/**
 * Resident memory of a process and every process it started (Linux /proc), sampled on a timer:
 * a server's own RSS misses helper processes (a compiler service, a model runtime) that cost the
 * machine memory all the same.
 */
import fs from 'node:fs';

export type ProcessRss = { pid: number; name: string; rssMb: number };
/** `atSeconds`: when it was sampled, from the sampler's start. */
export type TreeRss = { totalMb: number; processes: ProcessRss[]; atSeconds?: number };

const PAGE_KB = 4;

export function read(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null; // the process ended between listing and reading
  }
}

/** The processes `pid` started that are still alive (any of its threads' children). */
export function childrenOf(pid: number): number[] {
  const tasks = (() => {
    try {
      return fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      return [];
    }
  })();
  return tasks.flatMap((tid) => (read(`/proc/${pid}/task/${tid}/children`) ?? '').split(' ').filter(Boolean).map(Number));
}

/** The process and its descendants, each with its RSS now. */
export function treeRss(rootPid: number): TreeRss {
  const processes: ProcessRss[] = [];
  const pending = [rootPid];
  while (pending.length > 0) {
    const pid = pending.pop()!;
    const statm = read(`/proc/${pid}/statm`);
    if (statm === null) continue;
    const name = (read(`/proc/${pid}/comm`) ?? '?').trim();
    processes.push({ pid, name, rssMb: (Number(statm.split(' ')[1]) * PAGE_KB) / 1024 });
    pending.push(...childrenOf(pid));
  }
  return { totalMb: processes.reduce((sum, p) => sum + p.rssMb, 0), processes };
}

/** Samples a process tree every `everyMs` and keeps the peak of each phase with what made it up. */
export class TreeRssSampler {
  private readonly timer: NodeJS.Timeout;
  private phase = 'start';
  private readonly started = performance.now();
  readonly peaks = new Map<string, TreeRss>();

  constructor(
    private readonly rootPid: number,
    everyMs = 200,
  ) {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
    this.sample();
  }

  /** Later samples count toward this phase's peak. */
  enter(phase: string): void {
    this.sample();
    this.phase = phase;
    this.sample();
  }

  sample(): void {
    const now: TreeRss = { ...treeRss(this.rootPid), atSeconds: Math.round((performance.now() - this.started) / 100) / 10 };
    if (now.processes.length === 0) return;
    const peak = this.peaks.get(this.phase);
    if (!peak || now.totalMb > peak.totalMb) this.peaks.set(this.phase, now);
  }

  stop(): void {
    this.sample();
    clearInterval(this.timer);
  }

  /** The highest sample over all phases. */
  overall(): TreeRss {
    return [...this.peaks.values()].reduce((a, b) => (b.totalMb > a.totalMb ? b : a), { totalMb: 0, processes: [] });
  }
}
