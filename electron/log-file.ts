import fs from 'node:fs';
import path from 'node:path';

/** Log files grow to this size, then the previous run's file is kept as <name>.1 and a new one begins. */
export const MAX_LOG_BYTES = 5 * 1024 * 1024;

/** Opens <dir>/<name> for appending, first moving it aside to <name>.1 when it has grown too big. */
export function openLogFile(dir: string, name: string, maxBytes = MAX_LOG_BYTES): fs.WriteStream {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  try {
    if (fs.statSync(file).size > maxBytes) fs.renameSync(file, `${file}.1`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return fs.createWriteStream(file, { flags: 'a', mode: 0o600 });
}

export function logLine(stream: NodeJS.WritableStream, message: string): void {
  stream.write(`${new Date().toISOString()} ${message}\n`);
}
