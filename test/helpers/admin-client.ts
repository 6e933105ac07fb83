import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/**
 * A dashboard client over inject: keeps the session cookie like a browser does and sends the
 * CSRF header on state-changing requests.
 */
export class AdminClient {
  cookie: string | null = null;
  csrf: string | null = null;

  constructor(private readonly app: FastifyInstance) {}

  async request(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const res = await this.app.inject({
      method,
      url: `/admin/api${url}`,
      headers: {
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(method !== 'GET' ? { 'x-localiq-csrf': this.csrf ?? 'setup' } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    const setCookie = res.headers['set-cookie'];
    const cookies = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
    for (const c of cookies) {
      const [pair] = c.split(';');
      if (pair!.startsWith('localiq_session=')) this.cookie = pair!.endsWith('=') ? null : pair!;
    }
    // application/json only: an export in JSON Lines (application/x-ndjson) is many documents.
    if (res.statusCode < 300 && String(res.headers['content-type'] ?? '').startsWith('application/json')) {
      const json = res.json() as { csrfToken?: string };
      if (json && typeof json.csrfToken === 'string') this.csrf = json.csrfToken;
    }
    return res;
  }

  get = (url: string, headers?: Record<string, string>) => this.request('GET', url, undefined, headers);
  post = (url: string, body: unknown = {}, headers?: Record<string, string>) => this.request('POST', url, body, headers);
  patch = (url: string, body: unknown, headers?: Record<string, string>) => this.request('PATCH', url, body, headers);
  put = (url: string, body: unknown, headers?: Record<string, string>) => this.request('PUT', url, body, headers);
  delete = (url: string, headers?: Record<string, string>) => this.request('DELETE', url, undefined, headers);
}

/** Adds a user named after `role` through the Owner's client, and returns a client signed in as them. */
export async function signedInAs(owner: AdminClient, app: FastifyInstance, role: 'admin' | 'member'): Promise<AdminClient> {
  const password = `${role} password 1`;
  assert.equal((await owner.post('/users', { username: role, password, role })).statusCode, 201);
  const client = new AdminClient(app);
  assert.equal((await client.post('/session', { username: role, password })).statusCode, 200);
  return client;
}
