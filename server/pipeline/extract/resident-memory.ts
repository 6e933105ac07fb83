import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/**
 * Resident memory of another process in MB, everything it holds (JavaScript heap, ArrayBuffers,
 * WebAssembly memories, its threads'): Linux's /proc, `ps` on other Unix systems; null where it
 * cannot be read (Windows, or the process has ended).
 */
export async function residentMb(pid: number): Promise<number | null> {
  if (process.platform === 'linux') {
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => null);
    const kb = status && /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : null;
  }
  if (process.platform === 'win32') return null;
  return new Promise((resolve) => {
    execFile('ps', ['-o', 'rss=', '-p', String(pid)], (error, stdout) => {
      const kb = Number(stdout.trim());
      resolve(error || !Number.isFinite(kb) || kb === 0 ? null : kb / 1024);
    });
  });
}
