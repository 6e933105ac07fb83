import fs from 'node:fs';
import path from 'node:path';

/**
 * Where a running `localiq serve` listens, written into its data folder once it listens and
 * removed when it stops cleanly, so that the CLI finds it from the data folder alone (a server on
 * another port than the default, or on port 0). A crash leaves the file behind: the process it
 * names is then gone, and readers ignore it.
 */
const SERVER_ADDRESS_FILE = 'server.json';

export type ServerAddress = {
  /** The process that listens. */
  pid: number;
  /** The dashboard and API listener, as `http://host:port`. */
  url: string;
  host: string;
  port: number;
  /** The public listener (visitor side), when it is on. */
  publicUrl: string | null;
  startedAt: string;
};

export type ServerAddressLookup =
  | { state: 'running'; file: string; address: ServerAddress }
  /** The file names a process that has ended (a crash or a kill): nothing listens there. */
  | { state: 'stale'; file: string; address: ServerAddress }
  | { state: 'absent'; file: string };

export function serverAddressFile(dataDir: string): string {
  return path.join(dataDir, SERVER_ADDRESS_FILE);
}

/** Written under a temporary name, then renamed: a reader never sees half a file. */
export function writeServerAddress(dataDir: string, address: ServerAddress): void {
  const file = serverAddressFile(dataDir);
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(address, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temporary, file);
}

/** Removes the file if this process wrote it (a later server's file is left alone). */
export function removeServerAddress(dataDir: string, pid: number = process.pid): void {
  const lookup = readServerAddress(dataDir, () => true);
  if (lookup.state !== 'absent' && lookup.address.pid === pid) fs.rmSync(lookup.file, { force: true });
}

/** Whether a process with this id exists (EPERM: it does, under another user). */
function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readServerAddress(dataDir: string, isAlive: (pid: number) => boolean = processIsAlive): ServerAddressLookup {
  const file = serverAddressFile(dataDir);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'absent', file };
    throw error;
  }
  const address = parseAddress(text);
  // A file that is not one of ours (damaged, edited by hand) tells nothing: as if absent.
  if (!address) return { state: 'absent', file };
  return { state: isAlive(address.pid) ? 'running' : 'stale', file, address };
}

function parseAddress(text: string): ServerAddress | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const a = value as Partial<ServerAddress> | null;
  if (!a || typeof a !== 'object') return null;
  if (!Number.isInteger(a.pid) || (a.pid as number) <= 0 || typeof a.url !== 'string' || !/^https?:\/\//.test(a.url)) return null;
  if (typeof a.host !== 'string' || !Number.isInteger(a.port)) return null;
  return {
    pid: a.pid as number,
    url: a.url,
    host: a.host,
    port: a.port as number,
    publicUrl: typeof a.publicUrl === 'string' ? a.publicUrl : null,
    startedAt: typeof a.startedAt === 'string' ? a.startedAt : '',
  };
}
