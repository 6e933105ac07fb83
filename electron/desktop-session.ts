import { randomBytes } from 'node:crypto';

/**
 * How the desktop window signs in as the Owner: each server start gets a fresh random token in its
 * environment, and the window opens the sign-in link once; the server accepts the token a single
 * time, sets the session cookie and redirects to the dashboard.
 */

export const SIGN_IN_TOKEN_ENV = 'LOCALIQ_DESKTOP_SIGN_IN_TOKEN';
export const SIGN_IN_PATH = '/admin/api/session/desktop';

export function mintSignInToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The address the window and integrations on this machine use. With LAN access on, the server
 * listens on every interface (0.0.0.0 or ::), which is not an address to connect to; the
 * loopback address reaches the same server.
 */
export function localServerUrl(serverUrl: string): string {
  const url = new URL(serverUrl);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  if (url.hostname === '[::]') url.hostname = '[::1]';
  return url.origin;
}

export function signInUrl(serverUrl: string, token: string): string {
  const url = new URL(SIGN_IN_PATH, serverUrl);
  url.searchParams.set('token', token);
  return url.href;
}

/**
 * The server process's environment: the user's own LOCALIQ_* settings still apply, but the data
 * folder is the app's and the sign-in token is this start's.
 */
export function serverEnvironment(
  base: NodeJS.ProcessEnv,
  options: { dataDir: string; token: string },
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined) env[name] = value;
  env.LOCALIQ_DATA_DIR = base.LOCALIQ_DATA_DIR ?? options.dataDir;
  env[SIGN_IN_TOKEN_ENV] = options.token;
  return env;
}
