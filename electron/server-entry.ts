/**
 * The local server inside the desktop app. main.ts forks this file as an Electron utility process;
 * it starts the same server `localiq serve` runs and reports over the parent port:
 * `{ type: 'ready', url }` once it listens, `{ type: 'failed', reason }` if it cannot start. On
 * `{ type: 'stop' }` it stops the server (HTTP closed first, workers finish their batches, the
 * database is closed; acknowledged jobs are already in SQLite) and exits.
 *
 * It is built with the server (out/server/server-entry.js, electron.vite.config.ts), so the app
 * runs JavaScript only, with the server's worker threads beside it.
 */
import type { RunningServer } from '../server/main.ts';
import type { ServerMessage, ShellMessage } from './server-supervisor.ts';

/** Electron's parentPort, typed here so server/ never depends on Electron. */
type ParentPort = {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
};

type Channel = { send(message: ServerMessage): Promise<void>; onMessage(listener: (message: unknown) => void): void };

/**
 * The utility process's parent port; under plain Node (a child forked with an IPC channel, as the
 * tests run it) the same messages travel over process.send.
 */
function connectToShell(): Channel {
  const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort;
  if (parentPort) {
    return {
      send: async (message) => parentPort.postMessage(message),
      onMessage: (listener) => parentPort.on('message', (event) => listener(event.data)),
    };
  }
  if (process.send) {
    return {
      send: (message) => new Promise((resolve) => process.send!(message, undefined, undefined, () => resolve())),
      onMessage: (listener) => process.on('message', listener),
    };
  }
  throw new Error('The LocalIQ server entry must be started by the desktop app.');
}

function isStop(message: unknown): message is ShellMessage {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'stop';
}

const shell = connectToShell();
let server: RunningServer | null = null;
let stopRequested = false;
let exiting = false;

async function shutdown(code: number): Promise<void> {
  if (exiting) return;
  exiting = true;
  try {
    await server?.stop();
  } catch (error) {
    process.stderr.write(`LocalIQ server did not stop cleanly: ${(error as Error).message}\n`);
    code = 1;
  }
  await shell.send({ type: 'stopped' }).catch(() => {});
  process.exit(code);
}

shell.onMessage((message) => {
  if (!isStop(message)) return;
  stopRequested = true;
  // A stop that arrives while the server is still starting is carried out once it has started.
  if (server) void shutdown(0);
});
process.on('SIGTERM', () => {
  stopRequested = true;
  if (server) void shutdown(0);
});

try {
  // Imported here, not above: a server that cannot even load (a native module built for another
  // runtime) is reported as failed with its reason like any other start-up error.
  const { loadConfig } = await import('../server/config.ts');
  const { startServer } = await import('../server/main.ts');
  const config = loadConfig(process.env);
  server = await startServer(config);
  process.stderr.write(`LocalIQ server listening on ${server.url}, data in ${config.dataDir}\n`);
  if (stopRequested) {
    await shutdown(0);
  } else {
    await shell.send({ type: 'ready', url: server.url });
  }
} catch (error) {
  const reason = error instanceof Error ? error.message : String(error);
  process.stderr.write(`LocalIQ server could not start: ${reason}\n`);
  await shell.send({ type: 'failed', reason }).catch(() => {});
  process.exit(1);
}
