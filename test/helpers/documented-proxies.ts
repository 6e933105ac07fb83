import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * nginx and Caddy configured exactly as docs/visitor-assistant.md shows (the README's nginx block
 * is the same text), started as non-daemon processes on a loopback port: what a shop runs in front
 * of LocalIQ's public listener, publishing it under `/assistant/`.
 */

export type ProxyKind = 'nginx' | 'caddy';
export const PROXIES: readonly ProxyKind[] = ['nginx', 'caddy'];

const DOC_FILE = new URL('../../docs/visitor-assistant.md', import.meta.url);
/** The port the documented configurations send to; a test's public listener replaces it. */
const DOCUMENTED_PORT = '7411';
/** Where the documented Caddyfile leaves room for the rest of the shop's site. */
const CADDY_SITE_PLACEHOLDER = "# … the rest of the shop's site";
/** The path prefix the documented configurations publish LocalIQ under. */
export const DOCUMENTED_PREFIX = '/assistant';

/** The first fenced block of a language in the doc: the configuration the shop copies. */
export function documentedConfig(language: ProxyKind): string {
  const block = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(fs.readFileSync(DOC_FILE, 'utf8'))?.[1];
  assert.ok(block, `docs/visitor-assistant.md shows a ${language} configuration`);
  assert.ok(block.includes(`127.0.0.1:${DOCUMENTED_PORT}`), `the ${language} configuration proxies to 127.0.0.1:${DOCUMENTED_PORT}`);
  assert.ok(block.includes(`${DOCUMENTED_PREFIX}/`), `the ${language} configuration publishes ${DOCUMENTED_PREFIX}/`);
  return block;
}

export const proxyInstalled = (binary: ProxyKind) => spawnSync('sh', ['-c', `command -v ${binary}`]).status === 0;

export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the proxy exited (${child.exitCode}): ${log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(true)).on('error', () => resolve(false));
      socket.unref();
      setTimeout(() => socket.destroy(), 200).unref();
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the proxy did not listen on ${port}: ${log()}`);
}

export type RunningProxy = {
  /** The proxy's own origin, `http://127.0.0.1:<port>` (the shop's origin in a test). */
  origin: string;
  /** Where LocalIQ is reached through it: the origin and `/assistant`. */
  base: string;
  output(): string;
  stop(): Promise<void>;
};

export type ProxyOptions = {
  /** The public listener's port, put where the docs say 7411. */
  upstreamPort: number;
  /** A folder served as the rest of the shop's site (its pages beside `/assistant/`), if any. */
  siteRoot?: string;
};

function nginxConfig(dir: string, port: number, { upstreamPort, siteRoot }: ProxyOptions): string {
  const location = documentedConfig('nginx').replaceAll(`127.0.0.1:${DOCUMENTED_PORT}`, `127.0.0.1:${upstreamPort}`);
  const site = siteRoot ? `    location / {\n        root ${siteRoot};\n    }\n` : '';
  // Started as root (as CI runs), nginx's workers would drop to an unprivileged user, who cannot
  // enter the test run's private temporary folder (0700) where the shop's pages are: they stay root.
  const user = process.getuid?.() === 0 ? ['user root;'] : [];
  return [
    ...user,
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    'events {}',
    'http {',
    '  access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/${t};`),
    `  server {\n    listen 127.0.0.1:${port};\n${location}\n${site}  }`,
    '}',
  ].join('\n');
}

function caddyConfig(port: number, { upstreamPort, siteRoot }: ProxyOptions): string {
  const documented = documentedConfig('caddy');
  assert.ok(documented.includes(CADDY_SITE_PLACEHOLDER), `the Caddyfile leaves room for the rest of the site (${CADDY_SITE_PLACEHOLDER})`);
  const site = documented
    .replaceAll(`127.0.0.1:${DOCUMENTED_PORT}`, `127.0.0.1:${upstreamPort}`)
    .replace(/^shop\.example \{/m, `http://127.0.0.1:${port} {`)
    .replace(CADDY_SITE_PLACEHOLDER, siteRoot ? `root * ${siteRoot}\n\tfile_server` : CADDY_SITE_PLACEHOLDER);
  return `{\n\tadmin off\n\tauto_https off\n}\n\n${site}`;
}

/** Starts the proxy on a free loopback port and resolves once it listens. */
export async function startDocumentedProxy(kind: ProxyKind, options: ProxyOptions): Promise<RunningProxy> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `localiq-${kind}-`));
  const port = await freePort();
  let child: ChildProcess;
  if (kind === 'nginx') {
    // nginx's workers drop to an unprivileged user when started as root: they must be able to write here.
    fs.chmodSync(dir, 0o777);
    const conf = path.join(dir, 'nginx.conf');
    fs.writeFileSync(conf, nginxConfig(dir, port, options));
    child = spawn('nginx', ['-p', dir, '-c', conf, '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  } else {
    const conf = path.join(dir, 'Caddyfile');
    fs.writeFileSync(conf, caddyConfig(port, options));
    child = spawn('caddy', ['run', '--config', conf, '--adapter', 'caddyfile'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
    });
  }
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  const origin = `http://127.0.0.1:${port}`;
  return { origin, base: `${origin}${DOCUMENTED_PREFIX}`, output: () => output, stop };
}
