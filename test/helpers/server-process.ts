import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(REPO_ROOT, 'bin/localiq.js');

export function cliEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LOCALIQ_DATA_DIR: dataDir,
    LOCALIQ_SECRET_STORE: 'file',
    LOCALIQ_LOG_LEVEL: 'warn',
    LOCALIQ_PORT: '0',
    // No pipeline unless a test asks for it: most tests look at the queue itself.
    LOCALIQ_WORKERS: '0',
    ...extra,
  };
}

/** Runs the CLI on a data folder, as an operator would beside the running server; its output (it must succeed). */
export function runCli(dataDir: string, args: string[]): string {
  const run = spawnSync(process.execPath, [CLI, ...args], { env: cliEnv(dataDir), encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

export type ServerProcess = { child: ChildProcess; url: string; output: () => string };

/** Starts `localiq serve` as a real process and resolves with the URL it prints. */
export function startServerProcess(dataDir: string, extra: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [CLI, 'serve'], { env: cliEnv(dataDir, extra), stdio: ['ignore', 'pipe', 'pipe'] });
  child.once('close', () => closed.add(child));
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+?) /.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1]!, output: () => output });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

const closed = new WeakSet<ChildProcess>();

/**
 * Resolves once a server process has ended and its output has been read to the end ('close'):
 * 'exit' can come before its last lines, which a test may be about to read.
 */
export function waitForExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (closed.has(child)) resolve();
    else child.once('close', () => resolve());
  });
}
