import type { ServerChild } from './server-child.ts';

/** The dashboard's Owner, signed in: the session cookie and its CSRF token. */
export type Owner = { cookie: string; csrf: string };

/** The first Owner of a fresh server (its setup, from loopback, signs in). */
export async function signInOwner(server: ServerChild): Promise<Owner> {
  const setup = await fetch(`${server.url}/admin/api/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-localiq-csrf': 'setup' },
    body: JSON.stringify({ username: 'owner', password: 'bench owner password' }),
  });
  if (setup.status !== 201) throw new Error(`setup answered ${setup.status}`);
  const { csrfToken } = (await setup.json()) as { csrfToken: string };
  return { cookie: setup.headers.get('set-cookie')!.split(';')[0]!, csrf: csrfToken };
}

/** A call to the admin API as the Owner. */
export function adminCall(server: ServerChild, owner: Owner, method: string, route: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}/admin/api${route}`, {
    method,
    headers: { cookie: owner.cookie, 'x-localiq-csrf': owner.csrf, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/**
 * The Owner's "Back up to the folder now" (the automatic backup's path) into `folder`, which
 * becomes the schedule's folder, with automatic backups off. Resolves with the backup's file.
 */
export async function backUpToFolder(server: ServerChild, owner: Owner, folder: string): Promise<string> {
  const saved = await adminCall(server, owner, 'PUT', '/backup/schedule', { enabled: false, folder, hour: 3, keep: 1 });
  if (saved.status !== 200) throw new Error(`the schedule answered ${saved.status}: ${await saved.text()}`);
  const ran = await adminCall(server, owner, 'POST', '/backup/run');
  const { lastRun } = (await ran.json()) as { lastRun: { ok: boolean; file: string | null; error: string | null } };
  if (!lastRun.ok) throw new Error(`the backup failed: ${lastRun.error}`);
  return lastRun.file!;
}
