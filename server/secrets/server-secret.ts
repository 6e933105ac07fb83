import { createHash, randomBytes } from 'node:crypto';
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

export type ServerSecret = { secret: Buffer; store: SecretStoreKind };

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
    result = { secret: readOrCreateSecretFile(dataDir), store: 'file' };
  } else {
    try {
      result = { secret: await readOrCreateKeychainSecret(dataDir, recorded === 'keychain'), store: 'keychain' };
    } catch (error) {
      if (choice === 'keychain' || recorded === 'keychain') throw error;
      result = { secret: readOrCreateSecretFile(dataDir), store: 'file' };
    }
  }
  if (recorded !== result.store) settings.set(STORE_SETTING, result.store);
  return result;
}

/** One keychain entry per data folder, so two LocalIQ data folders never share a secret. */
export function keychainAccount(dataDir: string): string {
  const digest = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16);
  return `server-secret:${digest}`;
}

async function readOrCreateKeychainSecret(dataDir: string, mustExist: boolean): Promise<Buffer> {
  const entry = new AsyncEntry(KEYCHAIN_SERVICE, keychainAccount(dataDir));
  const existing = await entry.getPassword(AbortSignal.timeout(KEYCHAIN_TIMEOUT_MS));
  if (existing) return Buffer.from(existing, 'hex');
  if (mustExist) {
    throw new Error('The server secret of this data folder is missing from the OS keychain; API keys cannot be verified.');
  }
  const secret = randomBytes(32);
  await entry.setPassword(secret.toString('hex'), AbortSignal.timeout(KEYCHAIN_TIMEOUT_MS));
  const readBack = await entry.getPassword(AbortSignal.timeout(KEYCHAIN_TIMEOUT_MS));
  if (readBack !== secret.toString('hex')) throw new Error('The OS keychain did not keep the server secret.');
  return secret;
}

function readOrCreateSecretFile(dataDir: string): Buffer {
  const file = path.join(dataDir, SECRET_FILE);
  try {
    fs.writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
  if (secret.length !== 32) throw new Error(`The server secret file ${file} is damaged.`);
  return secret;
}
