import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

// One build for the desktop shell (main + preload) and the dashboard (renderer).
// The headless server serves out/renderer too, so the same UI runs in any browser.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      // server-entry runs in the utility process; it loads the server's TypeScript at run time
      // (tsx, like the CLI), so dependencies and native modules stay external.
      rollupOptions: {
        input: { index: resolve('electron/main.ts'), 'server-entry': resolve('electron/server-entry.ts') },
      },
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
