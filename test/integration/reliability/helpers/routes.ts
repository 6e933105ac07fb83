/**
 * The one table of public routes that the fuzz, scope and attack suites walk. Adding a route
 * here puts it under every suite at once: fill in a valid sample request against the seeded
 * fixture (see fixture.ts) and say how a knowledge-base restriction applies to it.
 */
import type { Scope } from '../../../../common/contract/scopes.ts';
import type { AdminAccess } from '../../../../server/http/edge/admin-auth.ts';
import { FIXTURE } from './fixture-data.ts';

export type Method = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';

export type RouteSpec = {
  method: Method;
  /** Fastify-style template, e.g. /knowledge-bases/:knowledgeBaseId/items */
  path: string;
  /** The scope an API key needs. */
  scope: Scope;
  /** Valid path parameters on the seeded fixture. */
  params: Record<string, string>;
  /** A valid query string, if the route takes one. */
  query?: Record<string, string>;
  /** A valid body, if the route takes one (JSON). */
  body?: () => unknown;
  /** A valid multipart/form-data body instead, for the route that takes files. */
  form?: () => { contentType: string; payload: Buffer };
  /**
   * How a key restricted to other knowledge bases is kept out:
   * - 'forbidden': the knowledge base is in the path or body, the answer is 403 knowledge_base_forbidden
   * - 'hidden': the route lists or looks up across knowledge bases and must not show the fixture's one
   */
  kbRestriction: 'forbidden' | 'hidden';
  /** Statuses a well-formed request with the right key may get on the fixture. */
  ok: number[];
  /** Whether a successful request changes stored data (the fuzzers then re-take their snapshot). */
  mutates: boolean;
};

const { kb, integration, externalId } = FIXTURE;

export const ROUTES: RouteSpec[] = [
  {
    method: 'POST',
    path: '/ingest',
    scope: 'iq:import',
    params: {},
    body: () => FIXTURE.item(),
    kbRestriction: 'forbidden',
    ok: [200],
    mutates: true,
  },
  {
    method: 'POST',
    path: '/ingest/bulk',
    scope: 'iq:import',
    params: {},
    body: () => ({ items: [FIXTURE.item(), FIXTURE.item({ externalId: 'post-2' })] }),
    kbRestriction: 'forbidden',
    ok: [200],
    mutates: true,
  },
  {
    method: 'POST',
    path: '/knowledge-bases/:knowledgeBaseId/files',
    scope: 'iq:import',
    params: { knowledgeBaseId: kb },
    form: () => multipartForm([{ name: 'file', filename: 'notes.txt', value: 'Opening hours: nine to five.' }]),
    kbRestriction: 'forbidden',
    ok: [200],
    mutates: true,
  },
  {
    method: 'GET',
    path: '/jobs',
    scope: 'iq:import',
    params: {},
    query: { limit: '10' },
    kbRestriction: 'hidden',
    ok: [200],
    mutates: false,
  },
  {
    method: 'GET',
    path: '/jobs/:jobId',
    scope: 'iq:import',
    params: { jobId: `${integration}-${externalId}` },
    query: { knowledgeBaseId: kb },
    kbRestriction: 'hidden',
    ok: [200],
    mutates: false,
  },
  {
    method: 'POST',
    path: '/jobs/:jobId/retry',
    scope: 'iq:import',
    params: { jobId: `${integration}-${externalId}` },
    query: { knowledgeBaseId: kb },
    kbRestriction: 'hidden',
    // The fixture's job is queued, not failed: 409 job_not_retryable is the right answer.
    ok: [200, 409],
    mutates: true,
  },
  {
    method: 'DELETE',
    path: '/items/:knowledgeBaseId/:integrationId/:externalId',
    scope: 'iq:import',
    params: { knowledgeBaseId: kb, integrationId: integration, externalId },
    kbRestriction: 'forbidden',
    ok: [200, 404],
    mutates: true,
  },
  {
    method: 'GET',
    path: '/knowledge-bases',
    scope: 'iq:read',
    params: {},
    kbRestriction: 'hidden',
    ok: [200],
    mutates: false,
  },
  {
    method: 'GET',
    path: '/knowledge-bases/:knowledgeBaseId/items',
    scope: 'iq:read',
    params: { knowledgeBaseId: kb },
    query: { limit: '5' },
    kbRestriction: 'forbidden',
    ok: [200],
    mutates: false,
  },
  {
    method: 'GET',
    path: '/knowledge-bases/:knowledgeBaseId/items/:integrationId/:externalId',
    scope: 'iq:read',
    params: { knowledgeBaseId: kb, integrationId: integration, externalId },
    kbRestriction: 'forbidden',
    // Without a pipeline the fixture item is queued, not indexed yet.
    ok: [200, 404],
    mutates: false,
  },
  {
    method: 'POST',
    path: '/knowledge-bases/:knowledgeBaseId/ask',
    scope: 'iq:read',
    params: { knowledgeBaseId: kb },
    body: () => ({ question: 'When are you open?', topK: 3 }),
    kbRestriction: 'forbidden',
    ok: [200],
    mutates: false,
  },
  {
    method: 'GET',
    path: '/articles',
    scope: 'articles:read',
    params: {},
    query: { knowledgeBaseId: kb, limit: '5' },
    kbRestriction: 'forbidden',
    ok: [200],
    mutates: false,
  },
  {
    method: 'GET',
    path: '/articles/:id',
    scope: 'articles:read',
    params: { id: 'art_1' },
    // An article of a knowledge base the key may not see is reported absent.
    kbRestriction: 'hidden',
    ok: [200, 404],
    mutates: false,
  },
  {
    method: 'GET',
    path: '/usage',
    scope: 'usage:read',
    params: {},
    query: { knowledgeBaseId: kb },
    kbRestriction: 'forbidden',
    ok: [200],
    mutates: false,
  },
  {
    method: 'POST',
    path: '/knowledge-bases/:knowledgeBaseId/search',
    scope: 'iq:read',
    params: { knowledgeBaseId: kb },
    body: () => ({ query: 'opening hours', mode: 'keyword', topK: 5 }),
    kbRestriction: 'forbidden',
    ok: [200],
    mutates: false,
  },
];

/** A route's path with its parameters filled in (URL-encoded), plus its query string if any. */
/** A multipart/form-data body written by hand: what a browser or curl -F sends. */
export function multipartForm(parts: Array<{ name: string; value: string; filename?: string }>): { contentType: string; payload: Buffer } {
  const boundary = '----localiq-test-boundary';
  const body = parts
    .map(({ name, value, filename }) => {
      const disposition = `form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}`;
      return `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${filename ? 'Content-Type: application/octet-stream\r\n' : ''}\r\n${value}\r\n`;
    })
    .join('');
  return { contentType: `multipart/form-data; boundary=${boundary}`, payload: Buffer.from(`${body}--${boundary}--\r\n`) };
}

/** The body of a route's valid request with its content type, or none. */
export function routeBody(route: Pick<RouteSpec, 'body' | 'form'>): { contentType: string; payload: string | Buffer } | null {
  if (route.form) return route.form();
  const body = route.body?.();
  return body === undefined ? null : { contentType: 'application/json', payload: JSON.stringify(body) };
}

export function routeUrl(route: Pick<RouteSpec, 'path' | 'params' | 'query'>, params = route.params, query = route.query): string {
  const pathname = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  const search = query && Object.keys(query).length ? `?${new URLSearchParams(query)}` : '';
  return pathname + search;
}

export function routeName(route: Pick<RouteSpec, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}


export type AdminRouteSpec = {
  method: Method;
  /** Under /admin/api. */
  path: string;
  access: AdminAccess;
  params?: Record<string, string>;
  /** A query string the route needs to answer (`?…`). */
  query?: string;
  body?: () => unknown;
  /** A valid multipart/form-data body instead, for the route that takes files. */
  form?: () => { contentType: string; payload: Buffer };
};

/**
 * The dashboard's admin API (session cookie + CSRF header, never an API key). Path parameters
 * need not exist: every refusal under test happens in the gate, before the route looks anything up.
 */
export const ADMIN_ROUTES: AdminRouteSpec[] = [
  { method: 'GET', path: '/setup', access: 'public' },
  { method: 'POST', path: '/setup', access: 'public', body: () => ({ username: 'intruder', password: 'intruder password 1' }) },
  { method: 'GET', path: '/session', access: 'public' },
  { method: 'POST', path: '/session', access: 'public', body: () => ({ username: 'owner', password: 'owner password 1' }) },
  { method: 'GET', path: '/session/desktop', access: 'public', params: {}, query: '?token=guess' },
  { method: 'DELETE', path: '/session', access: 'member' },
  { method: 'POST', path: '/session/password', access: 'member', body: () => ({ currentPassword: 'owner password 1', newPassword: 'another password 2' }) },
  { method: 'GET', path: '/users', access: 'member' },
  { method: 'POST', path: '/users', access: 'manager', body: () => ({ username: 'mallory', password: 'mallory password 1', role: 'admin' }) },
  { method: 'PATCH', path: '/users/:userId', access: 'manager', params: { userId: 'u1' }, body: () => ({ role: 'admin' }) },
  { method: 'DELETE', path: '/users/:userId', access: 'manager', params: { userId: 'u1' } },
  { method: 'GET', path: '/keys', access: 'member' },
  { method: 'POST', path: '/keys', access: 'manager', body: () => ({ name: 'stolen', scopes: ['iq:import'] }) },
  { method: 'POST', path: '/keys/:keyId/revoke', access: 'manager', params: { keyId: 'k1' } },
  { method: 'POST', path: '/keys/:keyId/rotate', access: 'manager', params: { keyId: 'k1' }, body: () => ({ graceHours: 0 }) },
  { method: 'GET', path: '/knowledge-bases', access: 'member' },
  { method: 'GET', path: '/knowledge-bases/:knowledgeBaseId/items', access: 'member', params: { knowledgeBaseId: 'kb-main' } },
  { method: 'GET', path: '/knowledge-bases/:knowledgeBaseId/integrations', access: 'member', params: { knowledgeBaseId: 'kb-main' } },
  { method: 'GET', path: '/knowledge-bases/:knowledgeBaseId/settings', access: 'member', params: { knowledgeBaseId: 'kb-main' } },
  { method: 'PATCH', path: '/knowledge-bases/:knowledgeBaseId/settings', access: 'manager', params: { knowledgeBaseId: 'kb-main' }, body: () => ({ typoTolerance: false }) },
  { method: 'GET', path: '/knowledge-bases/:knowledgeBaseId/synonyms', access: 'member', params: { knowledgeBaseId: 'kb-main' } },
  { method: 'PUT', path: '/knowledge-bases/:knowledgeBaseId/synonyms', access: 'manager', params: { knowledgeBaseId: 'kb-main' }, body: () => ({ sets: [{ synonyms: ['planted', 'attack'] }] }) },
  { method: 'DELETE', path: '/knowledge-bases/:knowledgeBaseId/synonyms', access: 'manager', params: { knowledgeBaseId: 'kb-main' } },
  { method: 'GET', path: '/knowledge-bases/:knowledgeBaseId/items/:integrationId/:externalId', access: 'member', params: { knowledgeBaseId: 'kb-main', integrationId: 'cms', externalId: 'post-1' } },
  { method: 'DELETE', path: '/knowledge-bases/:knowledgeBaseId/items/:integrationId/:externalId', access: 'manager', params: { knowledgeBaseId: 'kb-main', integrationId: 'cms', externalId: 'post-1' } },
  { method: 'POST', path: '/knowledge-bases/:knowledgeBaseId/ask', access: 'member', params: { knowledgeBaseId: 'kb-main' }, body: () => ({ question: 'When are you open?' }) },
  {
    method: 'POST',
    path: '/ingest/bulk',
    access: 'manager',
    body: () => ({ items: [{ integrationId: 'cms', knowledgeBaseId: 'kb-main', sourceType: 'ARTICLE', externalId: 'planted', data: { title: 'Planted', content: 'Pushed without a session.' } }] }),
  },
  {
    method: 'POST',
    path: '/knowledge-bases/:knowledgeBaseId/files',
    access: 'manager',
    params: { knowledgeBaseId: 'kb-main' },
    form: () => multipartForm([{ name: 'file', filename: 'planted.txt', value: 'Uploaded without a session.' }]),
  },
  {
    method: 'GET',
    path: '/knowledge-bases/:knowledgeBaseId/items/:integrationId/:externalId/original',
    access: 'member',
    params: { knowledgeBaseId: 'kb-main', integrationId: 'files', externalId: 'price-list.pdf' },
  },
  { method: 'GET', path: '/jobs', access: 'member' },
  { method: 'GET', path: '/jobs/:jobId', access: 'member', params: { jobId: 'cms-post-1' }, query: '?knowledgeBaseId=kb-main' },
  { method: 'POST', path: '/jobs/retry', access: 'manager', body: () => ({ knowledgeBaseId: 'kb-main', integrationId: 'cms', externalId: 'post-1' }) },
  { method: 'GET', path: '/monitor', access: 'member' },
  { method: 'GET', path: '/events', access: 'member' },
  { method: 'GET', path: '/settings', access: 'member' },
  { method: 'GET', path: '/usage', access: 'member' },
  { method: 'GET', path: '/settings/llm', access: 'member' },
  { method: 'GET', path: '/disk', access: 'member' },
  { method: 'PUT', path: '/settings/llm', access: 'manager', body: () => ({ endpoint: 'http://127.0.0.1:1/v1', model: 'x' }) },
  { method: 'GET', path: '/backup', access: 'owner' },
  { method: 'GET', path: '/backup/schedule', access: 'owner' },
  { method: 'PUT', path: '/backup/schedule', access: 'owner', body: () => ({ enabled: true, folder: '/tmp', hour: 3, keep: 7 }) },
  { method: 'POST', path: '/backup/run', access: 'owner' },
  { method: 'GET', path: '/widgets', access: 'member' },
  { method: 'POST', path: '/widgets', access: 'manager', body: () => ({ name: 'planted', knowledgeBaseIds: ['kb-main'], allowedOrigins: ['https://evil.example'] }) },
  { method: 'GET', path: '/widgets/:widgetId', access: 'member', params: { widgetId: 'wgt_00000000000000000000' } },
  { method: 'PATCH', path: '/widgets/:widgetId', access: 'manager', params: { widgetId: 'wgt_00000000000000000000' }, body: () => ({ allowedOrigins: ['https://evil.example'] }) },
  { method: 'DELETE', path: '/widgets/:widgetId', access: 'manager', params: { widgetId: 'wgt_00000000000000000000' } },
  { method: 'GET', path: '/conversations', access: 'member' },
  { method: 'GET', path: '/conversations/export', access: 'member', query: '?format=csv' },
  { method: 'POST', path: '/conversations/delete-older', access: 'manager', body: () => ({ before: '2020-01-01T00:00:00Z' }) },
  { method: 'GET', path: '/conversations/:conversationId', access: 'member', params: { conversationId: 'vs_0' } },
  { method: 'DELETE', path: '/conversations/:conversationId', access: 'manager', params: { conversationId: 'vs_0' } },
  {
    method: 'PUT',
    path: '/conversations/:conversationId/answers/:answerId/feedback',
    access: 'member',
    params: { conversationId: 'dc_0', answerId: 'ans_0' },
    body: () => ({ rating: 'down' }),
  },
  { method: 'GET', path: '/sources', access: 'member' },
  { method: 'POST', path: '/sources', access: 'manager', body: () => ({ startUrl: 'https://evil.example/', knowledgeBaseId: 'kb-main' }) },
  { method: 'GET', path: '/sources/:sourceId', access: 'member', params: { sourceId: 'src_0' } },
  { method: 'DELETE', path: '/sources/:sourceId', access: 'manager', params: { sourceId: 'src_0' } },
  { method: 'POST', path: '/sources/:sourceId/sync', access: 'manager', params: { sourceId: 'src_0' } },
  { method: 'GET', path: '/sources/:sourceId/syncs/:syncId', access: 'member', params: { sourceId: 'src_0', syncId: 'sync_0' } },
  { method: 'GET', path: '/knowledge-bases/:knowledgeBaseId/answers', access: 'member', params: { knowledgeBaseId: 'kb-main' } },
  {
    method: 'POST',
    path: '/knowledge-bases/:knowledgeBaseId/answers',
    access: 'manager',
    params: { knowledgeBaseId: 'kb-main' },
    body: () => ({ question: 'Planted question?', answer: 'Written without a session.' }),
  },
  { method: 'GET', path: '/knowledge-bases/:knowledgeBaseId/answers/:answerId', access: 'member', params: { knowledgeBaseId: 'kb-main', answerId: '1' } },
  {
    method: 'PUT',
    path: '/knowledge-bases/:knowledgeBaseId/answers/:answerId',
    access: 'manager',
    params: { knowledgeBaseId: 'kb-main', answerId: '1' },
    body: () => ({ question: 'Planted question?', answer: 'Written without a session.' }),
  },
  {
    method: 'PATCH',
    path: '/knowledge-bases/:knowledgeBaseId/answers/:answerId',
    access: 'manager',
    params: { knowledgeBaseId: 'kb-main', answerId: '1' },
    body: () => ({ answer: 'Written without a session.' }),
  },
  {
    method: 'POST',
    path: '/knowledge-bases/:knowledgeBaseId/answers/:answerId/also-asked',
    access: 'manager',
    params: { knowledgeBaseId: 'kb-main', answerId: '1' },
    body: () => ({ question: 'Planted wording?' }),
  },
  { method: 'DELETE', path: '/knowledge-bases/:knowledgeBaseId/answers/:answerId', access: 'manager', params: { knowledgeBaseId: 'kb-main', answerId: '1' } },
  { method: 'GET', path: '/handoffs', access: 'member', query: '?status=all' },
  { method: 'GET', path: '/handoffs/count', access: 'member' },
  { method: 'POST', path: '/handoffs/:handoffId/reply', access: 'member', params: { handoffId: 'hnd_00000000000000000000' }, body: () => ({ text: 'Written without a session.' }) },
  { method: 'GET', path: '/webhooks', access: 'manager' },
  { method: 'POST', path: '/webhooks', access: 'manager', body: () => ({ url: 'https://evil.example/hook', events: ['job.succeeded'] }) },
  { method: 'DELETE', path: '/webhooks/:webhookId', access: 'manager', params: { webhookId: 'wh_0' } },
  { method: 'GET', path: '/webhooks/:webhookId/deliveries', access: 'manager', params: { webhookId: 'wh_0' } },
  { method: 'GET', path: '/content-gaps', access: 'member' },
  { method: 'POST', path: '/content-gaps/:groupId/answer', access: 'manager', params: { groupId: '1' }, body: () => ({ title: 'Planted', content: 'Written without a session.' }) },
  { method: 'POST', path: '/content-gaps/:groupId/linked-answer', access: 'manager', params: { groupId: '1' }, body: () => ({ curatedAnswerId: 1 }) },
];

/**
 * The visitor side (server/http/public): no API key or session cookie, but a widget that exists
 * and is on, an allowed `Origin`, and on `ask` and `feedback` a visitor session
 * (test/integration/visitor-api.test.ts walks these against origins, widgets and sessions).
 */
export type VisitorRouteSpec = { method: Method | 'OPTIONS'; path: string; body?: () => unknown };

export const VISITOR_ROUTES: VisitorRouteSpec[] = [
  { method: 'GET', path: '/widget.js' },
  { method: 'GET', path: '/w/:widgetId' },
  { method: 'GET', path: '/v1/widget/:widgetId/config' },
  { method: 'POST', path: '/v1/widget/:widgetId/sessions' },
  { method: 'POST', path: '/v1/widget/:widgetId/ask', body: () => ({ question: 'When are you open?' }) },
  { method: 'POST', path: '/v1/widget/:widgetId/feedback', body: () => ({ answerId: 'ans_x', rating: 'up' }) },
  { method: 'POST', path: '/v1/widget/:widgetId/handoffs', body: () => ({ question: 'Can someone call me?', email: 'planted@example.com', consent: true }) },
  { method: 'GET', path: '/v1/widget/:widgetId/handoffs' },
  ...['config', 'sessions', 'ask', 'feedback', 'handoffs'].map((path) => ({ method: 'OPTIONS' as const, path: `/v1/widget/:widgetId/${path}` })),
];

/** Routes no API key or session guards on purpose: the docs, the dashboard's files, the health check. */
export const UNGUARDED = [/^\/$/, /^\/\*$/, /^\/docs/, /^\/health$/];

/**
 * Every method + path the app serves, read from Fastify's route tree (HEAD, which Fastify adds
 * to every GET, left out), so a test can tell when a new route is missing from the tables above.
 */
export function servedRoutes(tree: string): Array<{ method: string; path: string }> {
  const stack: string[] = [];
  const out: Array<{ method: string; path: string }> = [];
  for (const line of tree.split('\n')) {
    const m = /^(.*?)[├└]── (.*) \(([A-Z, ]+)\)$/.exec(line);
    if (!m) continue;
    const depth = [...m[1]!].length / 4;
    stack.length = depth;
    const segment = m[2]!;
    const parent = stack.join('');
    // A child's segment continues its parent's text as printed: `/sync` then `s/:syncId` is `/syncs/:syncId`.
    const full = depth === 0 ? segment : parent + segment;
    stack.push(full.slice(parent.length));
    for (const method of m[3]!.split(', ')) if (method !== 'HEAD') out.push({ method, path: full });
  }
  return out;
}
