// Runs the tests with node's test runner (TypeScript through tsx), in three groups (test/README.md):
//
//   node scripts/run-tests.js                  every group: unit, scale, then integration, then e2e
//   node scripts/run-tests.js --unit           one group (--unit, --scale, --integration, --e2e; combinable)
//   node scripts/run-tests.js test/a.test.ts   these files (or folders), one at a time, each in a process of its own
//   --typecheck --build                        also type-check and build the dashboard and widget,
//                                              alongside the unit group (npm test)
//
// Node 20's runner does not expand globs itself, hence this small launcher. On a headless
// machine with gnome-keyring installed, the run happens inside a private D-Bus session with an
// unlocked throwaway keyring, so the OS-keychain code path is tested for real.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const CPUS = os.availableParallelism();

/**
 * Unit files run as many at a time as there are CPUs, with their temporary data folders in
 * memory where the OS offers a tmpfs: their SQLite files are scratch, and each commit's disk sync
 * cost more than the test itself. They share processes (`sharedProcesses`, see `batchFiles`): a
 * process per file cost each file about 0.3 s of CPU to start node and tsx, and about a second more
 * to load fastify, zod and the services when it builds the app, three quarters of the group's CPU
 * time; a few processes, each importing a run of files in turn, pay that once each. Scale files
 * are unit tests over large inputs (a million characters, a file of 80 MB, indexes of thousands of
 * rows), apart so that the unit group stays quick; they run after it, as many at a time as there
 * are CPUs, each in its own process, as one measures the memory its read holds. Integration files
 * run two at a time: they spend much of their
 * time waiting on servers, processes and disk syncs, each uses its own port (0) and folders, and
 * none measures time tightly enough for a neighbour to upset it (two at a time passed the group
 * 3 times running on a 2-CPU machine, in about half the time). Their data folders stay on disk.
 * Each e2e file drives Chromium against a server of its own and waits on the page: one at a time.
 * A file that rebuilds out/ (which every `localiq` process the others start runs) goes alone,
 * before the rest of its group.
 */
const GROUPS = {
  unit: { folder: 'test/unit', concurrency: CPUS, tmpRoot: inMemoryTmp(), sharedProcesses: 2 * CPUS },
  scale: { folder: 'test/scale', concurrency: CPUS, tmpRoot: inMemoryTmp() },
  integration: { folder: 'test/integration', concurrency: 2, tmpRoot: os.tmpdir(), alone: ['build-if-changed.test.ts'] },
  e2e: { folder: 'test/e2e', concurrency: 1, tmpRoot: os.tmpdir() },
};

function inMemoryTmp() {
  try {
    fs.accessSync('/dev/shm', fs.constants.W_OK);
    return '/dev/shm';
  } catch {
    return os.tmpdir();
  }
}

function findTests(target) {
  if (!fs.statSync(target).isDirectory()) return [target];
  return fs.readdirSync(target, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(target, entry.name);
    if (entry.isDirectory()) return findTests(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

if (!process.env.DBUS_SESSION_BUS_ADDRESS && onPath('dbus-run-session') && onPath('gnome-keyring-daemon')) {
  const keyringHome = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-keyring-'));
  const script =
    'printf localiq-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"';
  const result = spawnSync('dbus-run-session', ['--', 'sh', '-c', script, 'sh', process.execPath, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, XDG_DATA_HOME: keyringHome, LOCALIQ_TEST_KEYCHAIN: 'required' },
  });
  fs.rmSync(keyringHome, { recursive: true, force: true });
  process.exit(result.status ?? 1);
}

const args = process.argv.slice(2);
const flags = new Set(args.filter((arg) => arg.startsWith('--')));
const targets = args.filter((arg) => !arg.startsWith('--'));
const known = ['--typecheck', '--build', ...Object.keys(GROUPS).map((name) => `--${name}`)];
for (const flag of flags) {
  if (!known.includes(flag)) {
    console.error(`Unknown option ${flag}; known: ${known.join(' ')}`);
    process.exit(2);
  }
}

/** Runs test files in one `node --test`; resolves with whether they all passed. */
function runTests(files, concurrency, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, ...files],
      { stdio: 'inherit', env },
    );
    child.on('close', (code) => resolve(code === 0));
  });
}

/** An npm script with its output held back until it ends, so it does not cut into the tests' output. */
function runQuietly(script) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ name: script, ok: code === 0, output, seconds: (Date.now() - started) / 1000 }));
  });
}

/**
 * Splits files, in their sorted order, into `count` runs of neighbours, and writes for each run a
 * test file that imports them one after the other: a process then runs each file's tests as if it
 * ran that file alone (node's runner starts a file's top-level tests in order, one at a time),
 * and neighbours in one folder load the same modules once. Twice as many runs as the concurrency
 * lets the runner even out a slow run. A file that fails to load fails as a test named after it
 * instead of stopping the files after it. Such files must leave no global state changed behind them
 * (test/README.md).
 */
function batchFiles(files, count, dir) {
  const size = Math.ceil(files.length / count);
  const runs = [];
  for (let start = 0; start < files.length; start += size) runs.push(files.slice(start, start + size));
  return runs.map((run, index) => {
    const entry = path.join(dir, `files-${index + 1}-of-${runs.length}.test.mjs`);
    const imports = run.map((file) => {
      const url = JSON.stringify(pathToFileURL(path.resolve(file)).href);
      const name = JSON.stringify(`${file} loads`);
      return `try { await import(${url}); } catch (error) { test(${name}, () => { throw error; }); }`;
    });
    fs.writeFileSync(entry, [`// ${run.join(', ')}: scripts/run-tests.js`, "import { test } from 'node:test';", ...imports, ''].join('\n'));
    return entry;
  });
}

/** Runs a group with a temporary folder of its own, removed afterwards unless a test failed. */
async function runGroup(name) {
  const group = GROUPS[name];
  const files = findTests(group.folder).sort();
  const tmp = fs.mkdtempSync(path.join(group.tmpRoot, `localiq-${name}-`));
  const alone = files.filter((file) => group.alone?.includes(path.basename(file)));
  const together = files.filter((file) => !alone.includes(file));
  const entries = group.sharedProcesses ? batchFiles(together, group.sharedProcesses, tmp) : together;
  const shared = group.sharedProcesses ? ` in ${entries.length} processes` : '';
  console.log(`\n# ${name}: ${files.length} files${shared}, ${group.concurrency} at a time, temporary files in ${tmp}\n`);
  const started = Date.now();
  const env = { ...process.env, TMPDIR: tmp };
  const aloneOk = alone.length ? await runTests(alone, 1, env) : true;
  const ok = (await runTests(entries, group.concurrency, env)) && aloneOk;
  if (ok) fs.rmSync(tmp, { recursive: true, force: true });
  else console.log(`\n# ${name} failed; its temporary files are kept in ${tmp}`);
  return { name, ok, seconds: (Date.now() - started) / 1000 };
}

if (targets.length) {
  if (flags.size) {
    console.error('Give either files and folders or options, not both.');
    process.exit(2);
  }
  const ok = await runTests(targets.flatMap(findTests), 1);
  process.exit(ok ? 0 : 1);
}

// A test file outside the three folders would be run by no group: say so rather than skip it.
const grouped = Object.values(GROUPS).map((group) => path.join(group.folder) + path.sep);
const strays = findTests('test').filter((file) => !grouped.some((folder) => file.startsWith(folder)));
if (strays.length) {
  console.error(`In no group: ${strays.join(', ')}. Move each to test/unit, test/integration or test/e2e (test/README.md).`);
  process.exit(2);
}

const chosen = Object.keys(GROUPS).filter((name) => flags.has(`--${name}`));
const groups = chosen.length ? chosen : Object.keys(GROUPS);
const results = [];
// The unit and scale tests need neither the type-check nor the build, so they run beside them.
const BESIDE_CHECKS = ['unit', 'scale'];
const checks = [flags.has('--typecheck') && runQuietly('typecheck'), flags.has('--build') && runQuietly('build')].filter(Boolean);
for (const name of groups.filter((name) => BESIDE_CHECKS.includes(name))) results.push(await runGroup(name));
const checked = await Promise.all(checks);
results.push(...checked);
const failedChecks = checked.filter((check) => !check.ok);
for (const check of failedChecks) console.error(`\n# npm run ${check.name} failed:\n${check.output}`);
if (!failedChecks.length) for (const name of groups.filter((name) => !BESIDE_CHECKS.includes(name))) results.push(await runGroup(name));

console.log(`\n# ${results.map((r) => `${r.name} ${r.ok ? 'passed' : 'FAILED'} in ${r.seconds.toFixed(1)} s`).join('; ')}`);
process.exit(results.some((r) => !r.ok) ? 1 : 0);
