import { loadConfig, type Config } from '../../server/config.ts';
import { startServer, type RunningServer } from '../../server/main.ts';
import { tempDataDir } from './temp-data.ts';

/** The real server with its pipeline workers and the real default model, on a fresh data folder. */
/** `extraction` overrides only the caps it names; the others keep their defaults. */
type PipelineOverrides = Partial<Omit<Config, 'extraction'>> & { extraction?: Partial<Config['extraction']> };

export async function startPipelineServer(overrides: PipelineOverrides = {}, dataDir = tempDataDir()): Promise<RunningServer & { key: string; dataDir: string }> {
  const { extraction, ...rest } = overrides;
  const config = loadConfig(
    { LOCALIQ_DATA_DIR: dataDir, LOCALIQ_SECRET_STORE: 'file', LOCALIQ_LOG_LEVEL: 'silent', LOCALIQ_PORT: '0' },
    { workers: 1, ...rest },
  );
  if (extraction) config.extraction = { ...config.extraction, ...extraction };
  const server = await startServer(config);
  const key = server.services.keys.create({ name: 'pipeline test', scopes: ['iq:import', 'iq:read'] }).value;
  return Object.assign(server, { key, dataDir });
}

/** Polls until every job has reached a final state (or the time runs out). */
export async function waitForIdle(server: RunningServer, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const counts = server.services.jobs.countByStatus();
    if (counts.queued === 0 && counts.processing === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`jobs still pending: ${JSON.stringify(server.services.jobs.countByStatus())}`);
}

export async function api(server: RunningServer & { key: string }, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'x-api-key': server.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}
