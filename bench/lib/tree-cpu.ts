/**
 * CPU seconds used so far by a process and everything it started (Linux /proc): user and system
 * time of all its threads (the pipeline's worker threads are threads of the server), of every
 * descendant still alive, and of the descendants already ended and waited for (a reader process
 * that extracted a file and exited), which the kernel adds to their parent's cutime/cstime.
 * A process's own resource usage leaves the live children out, so it undercounts a server tree.
 */
import { childrenOf, read } from './tree-rss.ts';

/** Clock ticks a second of /proc/<pid>/stat's CPU times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

export function treeCpuSeconds(rootPid: number): number {
  let ticks = 0;
  const pending = [rootPid];
  while (pending.length > 0) {
    const pid = pending.pop()!;
    const line = read(`/proc/${pid}/stat`);
    if (line === null) continue; // ended between listing and reading: its parent's cutime holds it next time
    // After the command name: field 3 (state) is index 0, so utime..cstime (14..17) are 11..14.
    const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    pending.push(...childrenOf(pid));
  }
  return ticks / TICKS_PER_SECOND;
}
