import path from 'node:path';
import type { FileStoreReason, SecretStoreKind } from './secrets/server-secret.ts';

/**
 * Lines `localiq serve` prints at start-up beyond where it listens: what a new owner does next,
 * and where the server secret is kept and why.
 */

/** While no dashboard account exists, the first one (the Owner) is made in the browser. */
export function ownerSetupLine(dashboardUrl: string): string {
  return `No dashboard account yet: open ${dashboardUrl}/ in a browser to create the first one, the Owner.`;
}

const SECRET_FILE = 'server-secret';

/**
 * Said as information, not a warning: a secret in the 0600 file is a supported set-up (README), and
 * the reason lets the owner change it if they meant the keychain.
 */
export function secretStoreNote(dataDir: string, store: SecretStoreKind, reason: FileStoreReason | null): string {
  if (store === 'keychain') return 'Server secret: in the OS keychain (service LocalIQ).';
  const where = `Server secret: in ${path.join(dataDir, SECRET_FILE)} (mode 0600)`;
  switch (reason?.kind) {
    case 'requested':
      return `${where}, as LOCALIQ_SECRET_STORE=file asks.`;
    case 'keychain-unreachable':
      return (
        `${where}, because the OS keychain did not answer: ${reason.detail}. This data folder keeps its secret in that file ` +
        'from now on (API keys are made with it). For a new data folder to use the keychain, start LocalIQ the first time in a ' +
        'desktop session, or on a headless server inside a D-Bus session with an unlocked gnome-keyring (README, "Running it as a service").'
      );
    default:
      return `${where}: this data folder has kept it there since its first start, when no OS keychain answered (a data folder's store never changes, as its API keys are made with the secret).`;
  }
}
