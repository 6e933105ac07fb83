import fs from 'node:fs';
import type { FileExtractor } from '../../server/pipeline/extract/extractor.ts';

/** Clock ticks a second of /proc/<pid>/stat's CPU times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * The peak resident memory (VmHWM) and CPU time of an extractor's reader process, read every
 * 20 ms while it lives (Linux /proc): the extractor may end its reader as soon as a file is read,
 * and a process's own resource usage leaves its children out. Zero where there is no process.
 */
export function watchReader(extractor: FileExtractor): { stop(): { peakMb: number; cpuMs: number } } {
  const seen = new Map<number, { peakMb: number; cpuMs: number }>();
  const look = () => {
    const pid = extractor.readerPid;
    if (pid === null) return;
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const line = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const stat = line.slice(line.lastIndexOf(')') + 2).split(' ');
      // Fields 14 and 15 (utime, stime), counted from the state (field 3) here.
      const cpuMs = ((Number(stat[11]) + Number(stat[12])) / TICKS_PER_SECOND) * 1000;
      seen.set(pid, { peakMb: Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)![1]) / 1024), cpuMs });
    } catch {
      // ended between two looks
    }
  };
  const timer = setInterval(look, 20);
  look();
  return {
    stop() {
      look();
      clearInterval(timer);
      const all = [...seen.values()];
      return { peakMb: Math.max(0, ...all.map((r) => r.peakMb)), cpuMs: all.reduce((sum, r) => sum + r.cpuMs, 0) };
    },
  };
}
