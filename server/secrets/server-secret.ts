import { createHash, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AsyncEntry } from '@napi-rs/keyring';
import type { SettingsRepo } from '../storage/settings-repo.ts';

/**
 * The server secret keys the HMAC of every API key. It lives in the OS keychain; where no
 * keychain answers (a headless server without a secret service) it lives in a 0600 file in the
 * data folder. The store that holds it is recorded in the database, so a keychain that stops
 * answering is reported instead of silently replaced (which would invalidate every key).
 */
export type SecretStoreChoice = 'auto' | 'keychain' | 'file';
export type SecretStoreKind = 'keychain' | 'file';

const KEYCHAIN_SERVICE = 'LocalIQ';
const KEYCHAIN_TIMEOUT_MS = 5_000;
const SECRET_FILE = 'server-secret';
const STORE_SETTING = 'secret_store';
/** A value derived from the secret, kept in the database: it tells which secret made its keys. */
const CHECK_SETTING = 'secret_check';

/** Why the secret is in the file store rather than the OS keychain; start-up says it. */
export type FileStoreReason =
  /** LOCALIQ_SECRET_STORE=file. */
  | { kind: 'requested' }
  /** The data folder has kept it in the file since an earlier start: the store never changes by itself. */
  | { kind: 'recorded' }
  /** On this start, the first of the data folder, no keychain answered: `detail` says what failed. */
  | { kind: 'keychain-unreachable'; detail: string };

export type ServerSecret = { secret: Buffer; store: SecretStoreKind; fileStoreReason: FileStoreReason | null };

export async function loadServerSecret(
  dataDir: string,
  choice: SecretStoreChoice,
  settings: SettingsRepo,
): Promise<ServerSecret> {
  const recorded = settings.get(STORE_SETTING) as SecretStoreKind | null;
  if (choice === 'file' && recorded === 'keychain') {
    throw new Error('The server secret of this data folder is in the OS keychain, but the file store was requested.');
  }
  const useFile = choice === 'file' || recorded === 'file';
  let result: ServerSecret;
  if (useFile) {
    const fileStoreReason: FileStoreReason = choice === 'file' ? { kind: 'requested' } : { kind: 'recorded' };
    result = { secret: readOrCreateSecretFile(dataDir), store: 'file', fileStoreReason };
  } else {
    try {
      result = { secret: await readOrCreateKeychainSecret(dataDir, recorded === 'keychain'), store: 'keychain', fileStoreReason: null };
    } catch (error) {
      if (choice === 'keychain' || recorded === 'keychain') throw error;
      const detail = keychainFailure(error);
      result = { secret: readOrCreateSecretFile(dataDir), store: 'file', fileStoreReason: { kind: 'keychain-unreachable', detail } };
    }
  }
  if (recorded !== result.store) settings.set(STORE_SETTING, result.store);
  if (settings.get(CHECK_SETTING) === null) settings.set(CHECK_SETTING, secretCheck(result.secret));
  return result;
}

/**
 * Whether this data folder's secret store holds the secret a database's API keys were made with
 * (a restored backup): the folder the backup came from, on the same machine, does; another
 * machine's keychain, or a file store without the backup's `server-secret` file, does not.
 * Reads only; creates nothing.
 */
export async function secretFits(dataDir: string, settings: SettingsRepo): Promise<boolean> {
  const store = settings.get(STORE_SETTING) as SecretStoreKind | null;
  // No secret was ever made for this database, so it holds no keys either.
  if (store === null) return true;
  const secret = store === 'file' ? readSecretFile(dataDir) : await readKeychainSecret(dataDir).catch(() => null);
  if (!secret) return false;
  const check = settings.get(CHECK_SETTING);
  return check === null || check === secretCheck(secret);
}

/** The next start takes (or makes) a secret for this folder as if the database had none. */
export function forgetServerSecret(settings: SettingsRepo): void {
  settings.delete(STORE_SETTING);
  settings.delete(CHECK_SETTING);
}

/**
 * What kept the keychain from answering, in the owner's terms. On Linux the keychain is the Secret
 * Service, reached over the D-Bus session bus: without a session (a service, ssh, a container)
 * there is none to ask, which the bare error does not say.
 */
export function keychainFailure(error: unknown, env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const message = ((error as Error)?.message ?? String(error)).trim();
  if (platform === 'linux' && !env.DBUS_SESSION_BUS_ADDRESS) return `no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set), so there is no keyring to ask (${message})`;
  if ((error as Error)?.name === 'TimeoutError') return `it gave no answer within ${KEYCHAIN_TIMEOUT_MS / 1000} s (a locked keyring waiting for its password?)`;
  if (platform === 'linux' && /no result found|locked|ServiceUnknown|not provided/i.test(message)) {
    return `the D-Bus session has no unlocked keyring: gnome-keyring-daemon is not running there, or its keyring is locked (${message})`;
  }
  return message;
}

function secretCheck(secret: Buffer): string {
  return createHmac('sha256', secret).update('localiq server secret check').digest('hex');
}

/** One keychain entry per data folder, so two LocalIQ data folders never share a secret. */
export function keychainAccount(dataDir: string): string {
  const digest = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16);
  return `server-secret:${digest}`;
}

async function readKeychainSecret(dataDir: string): Promise<Buffer | null> {
  const existing = await keychainEntry(dataDir).getPassword(AbortSignal.timeout(KEYCHAIN_TIMEOUT_MS));
  return existing ? Buffer.from(existing, 'hex') : null;
}

function keychainEntry(dataDir: string): AsyncEntry {
  return new AsyncEntry(KEYCHAIN_SERVICE, keychainAccount(dataDir));
}

async function readOrCreateKeychainSecret(dataDir: string, mustExist: boolean): Promise<Buffer> {
  const existing = await readKeychainSecret(dataDir);
  if (existing) return existing;
  if (mustExist) {
    throw new Error('The server secret of this data folder is missing from the OS keychain; API keys cannot be verified.');
  }
  const secret = randomBytes(32);
  const entry = keychainEntry(dataDir);
  await entry.setPassword(secret.toString('hex'), AbortSignal.timeout(KEYCHAIN_TIMEOUT_MS));
  const readBack = await entry.getPassword(AbortSignal.timeout(KEYCHAIN_TIMEOUT_MS));
  if (readBack !== secret.toString('hex')) throw new Error('The OS keychain did not keep the server secret.');
  return secret;
}

function readOrCreateSecretFile(dataDir: string): Buffer {
  try {
    fs.writeFileSync(path.join(dataDir, SECRET_FILE), randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readSecretFile(dataDir)!;
}

function readSecretFile(dataDir: string): Buffer | null {
  const file = path.join(dataDir, SECRET_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const secret = Buffer.from(text.trim(), 'hex');
  if (secret.length !== 32) throw new Error(`The server secret file ${file} is damaged.`);
  return secret;
}
