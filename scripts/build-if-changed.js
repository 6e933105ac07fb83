// `npm start` builds LocalIQ (the server and command line, the desktop shell, the dashboard, the
// visitor widget) only
// when their sources changed since the last build: a stamp in out/ records the size and
// modification time of every input file.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const STAMP = path.join('out', '.build-stamp');
const INPUTS = ['common', 'server', 'renderer', 'widget', 'electron', 'electron.vite.config.ts', 'package-lock.json', 'tsconfig.json'];
// What `localiq` and the browser load: a build missing one of them is built again.
const OUTPUTS = [path.join('out', 'server', 'cli.js'), path.join('out', 'renderer', 'index.html'), path.join('out', 'widget', 'widget.js')];

function files(entry) {
  if (!fs.existsSync(entry)) return [];
  if (!fs.statSync(entry).isDirectory()) return [entry];
  return fs.readdirSync(entry, { recursive: true }).map((name) => path.join(entry, name)).filter((file) => fs.statSync(file).isFile());
}

function fingerprint() {
  const hash = crypto.createHash('sha256');
  for (const file of INPUTS.flatMap(files).sort()) {
    const { size, mtimeMs } = fs.statSync(file);
    hash.update(`${file}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('hex');
}

const current = fingerprint();
if (fs.existsSync(STAMP) && fs.readFileSync(STAMP, 'utf8') === current && OUTPUTS.every((file) => fs.existsSync(file))) {
  process.exit(0);
}
console.log('Building LocalIQ (its sources changed since the last build)…');
// The same two steps as `npm run build`: electron-vite (server, shell, dashboard), then the widget.
const steps = [
  [path.join('node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build', '--logLevel', 'warn'],
  [path.join('node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', path.join('widget', 'vite.config.ts'), '--logLevel', 'warn'],
];
for (const step of steps) {
  const build = spawnSync(process.execPath, step, { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
fs.writeFileSync(STAMP, current);
