// Runs every test file under test/ with node's test runner (TypeScript through tsx).
// Node 20's runner does not expand globs itself, hence this small launcher. On a headless
// machine with gnome-keyring installed, the run happens inside a private D-Bus session with an
// unlocked throwaway keyring, so the OS-keychain code path is tested for real.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function findTests(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findTests(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

const args = process.argv.slice(2);
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

const files = args.length ? args : findTests('test').sort();
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=1', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
