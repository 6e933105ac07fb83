import { readServerAddress, type ServerAddressLookup } from '../../storage/server-address.ts';

/** Where `localiq serve` listens with these settings; a wildcard address is reached on loopback. */
export function localServerUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

export type ServerTarget = {
  url: string;
  /** Said after "Cannot reach LocalIQ at …" when nothing answers there: where the URL came from and what to do. */
  unreachableHint: string;
};

type Settings = { dataDir: string; host: string; port: number };

/**
 * The server a CLI command sends to: `--url`, else `LOCALIQ_URL`, else `LOCALIQ_PORT` (with
 * `LOCALIQ_HOST`) when set, else the server running on the data folder (its `server.json`), else
 * the default address. A stale `server.json` (its process has ended) is passed over.
 */
export function resolveServerUrl(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  settings: Settings,
  lookup: (dataDir: string) => ServerAddressLookup = readServerAddress,
): ServerTarget {
  const orUrl = 'or give the address of a running one with --url or LOCALIQ_URL.';
  if (flag) return { url: flag, unreachableHint: 'That address came from --url: is a LocalIQ server running there?' };
  if (env.LOCALIQ_URL) return { url: env.LOCALIQ_URL, unreachableHint: 'That address came from LOCALIQ_URL: is a LocalIQ server running there?' };
  // Port 0 asks a server for any free port: it names no address a client could reach.
  if (env.LOCALIQ_PORT && Number(env.LOCALIQ_PORT) !== 0) {
    return {
      url: localServerUrl(settings.host, settings.port),
      unreachableHint: `That address came from LOCALIQ_PORT${env.LOCALIQ_HOST ? ' and LOCALIQ_HOST' : ''}: is \`localiq serve\` running with the same settings?`,
    };
  }
  const found = lookup(settings.dataDir);
  const start = `Start one with \`LOCALIQ_DATA_DIR=${settings.dataDir} npm start\` (or \`npx localiq serve\`) in the LocalIQ folder, ${orUrl}`;
  if (found.state === 'running') {
    return {
      url: localServerUrl(found.address.host, found.address.port),
      unreachableHint:
        `That address came from ${found.file}, written by the server of this data folder (process ${found.address.pid}), ` +
        'which is running but does not answer there. Wait for it, or restart it.',
    };
  }
  const default_ = localServerUrl(settings.host, settings.port);
  const looked =
    found.state === 'stale'
      ? `${found.file} names a server (process ${found.address.pid}, ${found.address.url}) that is no longer running`
      : `No server of the data folder ${settings.dataDir} is running (no ${found.file})`;
  return { url: default_, unreachableHint: `${looked}, so the default address was tried. ${start}` };
}
