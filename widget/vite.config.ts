import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'vite';

// The visitor chat widget: one self-contained, minified script (an IIFE that defines nothing but
// window.LocalIQWidget), out/widget/widget.js, served by LocalIQ at /widget.js.
const root = resolve(import.meta.dirname, '..');
const { version } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { version: string };

export default defineConfig({
  root: import.meta.dirname,
  publicDir: false,
  define: { __LOCALIQ_WIDGET_VERSION__: JSON.stringify(version) },
  build: {
    outDir: resolve(root, 'out/widget'),
    emptyOutDir: true,
    minify: true,
    // Browsers of the last few years; a shop's visitors are not all on the newest one.
    target: 'es2020',
    lib: {
      entry: resolve(import.meta.dirname, 'src/widget.ts'),
      formats: ['iife'],
      name: 'LocalIQWidget',
      fileName: () => 'widget.js',
    },
  },
});
