/**
 * Property-based and mutation fuzzing of every route in routes.ts: bodies (valid, mutated,
 * byte-flipped, truncated, arbitrary JSON, random bytes), headers (content type, key, extra
 * headers), path parameters and query strings. The same generator drives the quick CI run
 * (in-process through inject) and the long run (a real server process over HTTP).
 */
import fc from 'fast-check';
import { checkErrorShape } from './fixture.ts';
import { ADMIN_ROUTES, ROUTES, type AdminRouteSpec, type RouteSpec } from './routes.ts';

export type FuzzRequest = {
  route: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Which strategies produced it, for the figures and for reading a failure. */
  kind: string;
  mutates: boolean;
};

export type FuzzResponse = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Strings that tend to break things: control characters, lone surrogates, NUL, long runs, odd ids. */
const nastyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\ud800', '\udfff', '..', '../..', '%00', '%2F', '\n', '\r\n', '\u202e', '𝔘𝔫𝔦', 'x'.repeat(257), 'y'.repeat(5_000), '__proto__', 'constructor', 'SELECT * FROM api_keys', "' OR 1=1 --", '"*"', 'NEAR(a b)', 'title:x'),
);

const anyValue: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 3, arbitrary: nastyString },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue> },
  fc.constantFrom<JsonValue>(null, true, false, 0, -1, 1e308, -0, 2 ** 53 + 1, [], {}, [[[[]]]]),
);

/** Every path (as a list of keys) inside a JSON value, the root included. */
function paths(value: JsonValue, prefix: Array<string | number> = []): Array<Array<string | number>> {
  const out = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...prefix, i])));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  return out;
}

type Mutation = { op: 'delete' | 'replace' | 'add' | 'wrap' | 'duplicate'; pick: number; value: JsonValue; key: string };

/** Applies one structural mutation at a chosen place of a valid body. */
function mutate(body: JsonValue, m: Mutation): JsonValue {
  const copy = structuredClone(body);
  const all = paths(copy);
  const where = all[m.pick % all.length]!;
  if (where.length === 0) return m.op === 'wrap' ? [copy] : m.op === 'replace' ? m.value : copy;
  const parent = where.slice(0, -1).reduce<any>((node, k) => node[k], copy);
  const last = where.at(-1)!;
  switch (m.op) {
    case 'delete':
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
      break;
    case 'replace':
      parent[last] = m.value;
      break;
    case 'add':
      if (parent && typeof parent === 'object' && !Array.isArray(parent)) parent[m.key] = m.value;
      break;
    case 'wrap':
      parent[last] = [parent[last]];
      break;
    case 'duplicate':
      if (Array.isArray(parent)) parent.push(structuredClone(parent[last as number]));
      break;
  }
  return copy;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom('delete', 'replace', 'add', 'wrap', 'duplicate'),
  pick: fc.nat(),
  value: anyValue,
  key: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'extra', 'data', 'items'), fc.string({ maxLength: 10 })),
});

/** Byte-level mutation of a serialized body: flip, insert, delete, truncate. */
const byteEditsArb = fc.array(
  fc.record({ op: fc.constantFrom('set', 'insert', 'delete'), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  { minLength: 1, maxLength: 6 },
);

function applyByteEdits(bytes: Buffer, edits: Array<{ op: string; at: number; byte: number }>): Buffer {
  const out = [...bytes];
  for (const e of edits) {
    const at = out.length ? e.at % out.length : 0;
    if (e.op === 'set' && out.length) out[at] = e.byte;
    else if (e.op === 'insert') out.splice(at, 0, e.byte);
    else if (e.op === 'delete') out.splice(at, 1);
  }
  return Buffer.from(out);
}

function bodyArb(route: RouteSpec): fc.Arbitrary<{ kind: string; body: Buffer | undefined }> {
  const valid = route.body ? (route.body() as JsonValue) : { query: 'x' };
  const json = (v: unknown) => Buffer.from(JSON.stringify(v));
  return fc.oneof(
    { weight: route.body ? 2 : 1, arbitrary: fc.constant({ kind: 'body:none', body: undefined }) },
    { weight: 2, arbitrary: fc.constant({ kind: 'body:valid', body: json(valid) }) },
    { weight: 6, arbitrary: fc.array(mutationArb, { minLength: 1, maxLength: 3 }).map((ms) => ({ kind: 'body:mutated', body: json(ms.reduce(mutate, valid)) })) },
    { weight: 3, arbitrary: byteEditsArb.map((edits) => ({ kind: 'body:bytes-edited', body: applyByteEdits(json(valid), edits) })) },
    { weight: 1, arbitrary: fc.nat().map((n) => { const b = json(valid); return { kind: 'body:truncated', body: b.subarray(0, n % b.length) }; }) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => ({ kind: 'body:any-json', body: json(v) })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => ({ kind: 'body:random-bytes', body: Buffer.from(b) })) },
    { weight: 1, arbitrary: fc.integer({ min: 30, max: 200 }).map((d) => ({ kind: 'body:deep', body: Buffer.from('['.repeat(d) + ']'.repeat(d)) })) },
  );
}

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 });

const contentTypeArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  { weight: 3, arbitrary: fc.constantFrom('application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json; charset=latin1', 'application/json;;;', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', '', '*/*', 'application/problem+json') },
  { weight: 1, arbitrary: printable },
  { weight: 1, arbitrary: fc.constant(null) },
);

/** Header names that change framing; the fuzzer leaves those to the raw-socket attack table. */
const RESERVED = new Set(['content-length', 'transfer-encoding', 'host', 'connection', 'expect', 'upgrade', 'content-type', 'x-api-key', 'te', 'trailer', 'keep-alive', 'content-encoding']);

const extraHeadersArb = fc.dictionary(
  fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/).filter((n) => !RESERVED.has(n)),
  printable,
  { maxKeys: 3 },
);

function keyArb(key: string): fc.Arbitrary<{ kind: string; value: string | null }> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant({ kind: 'key:valid', value: key }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'key:missing', value: null }) },
    { weight: 1, arbitrary: printable.map((v) => ({ kind: 'key:random', value: v })) },
    { weight: 1, arbitrary: fc.tuple(fc.nat(), fc.constantFrom('A', 'z', '0', '_', ' ')).map(([at, c]) => ({ kind: 'key:near-miss', value: key.slice(0, at % key.length) + c + key.slice((at % key.length) + 1) })) },
  );
}

/** Percent-encodes any string, including lone surrogates (which encodeURIComponent refuses). */
function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...Buffer.from(value, 'latin1')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
  }
}

const paramArb = (valid: string) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant({ raw: false, value: valid }) },
    { weight: 3, arbitrary: nastyString.map((value) => ({ raw: false, value })) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%E0%A4%A', '%ZZ', '%00', '%ED%A0%80', '..%2F..', '%C0%AF').map((value) => ({ raw: true, value })) },
  );

const queryArb = (route: RouteSpec) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(route.query ? new URLSearchParams(route.query).toString() : '') },
    { weight: 3, arbitrary: fc.dictionary(fc.constantFrom('limit', 'cursor', 'status', 'knowledgeBaseId', 'integrationId', 'sourceType', 'x', '__proto__'), nastyString.filter((s) => s.isWellFormed()), { maxKeys: 3 }).map((q) => new URLSearchParams(q).toString()) },
    { weight: 1, arbitrary: fc.constantFrom('limit=-1', 'limit=1e9', 'limit=NaN', 'limit=0x10', 'cursor=%FF%FE', 'a[b]=1', 'limit=1&limit=2', '%', '&&&', 'status[]=queued') },
  );

const methodArb = (route: RouteSpec) =>
  fc.oneof({ weight: 9, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS') });

/** One random request against one of the routes, with `key` as the valid API key. */
export function fuzzRequestArb(key: string, routes: RouteSpec[] = ROUTES): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...routes).chain((route) => {
    const paramNames = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
    return fc
      .record({
        method: methodArb(route),
        params: fc.tuple(...paramNames.map((n) => paramArb(route.params[n] ?? 'x'))),
        query: queryArb(route),
        body: bodyArb(route),
        contentType: contentTypeArb,
        key: keyArb(key),
        extra: extraHeadersArb,
      })
      .map((r) => {
        let i = 0;
        const pathname = route.path.replace(/:([A-Za-z]+)/g, () => {
          const p = r.params[i++]!;
          return p.raw ? p.value : encodeSegment(p.value);
        });
        const headers: Record<string, string> = { ...r.extra };
        if (r.key.value !== null) headers['x-api-key'] = r.key.value;
        if (r.body.body !== undefined && r.contentType !== null) headers['content-type'] = r.contentType;
        const edited = r.params.some((p, n) => p.raw || p.value !== route.params[paramNames[n]!]);
        const bodyless = r.method === 'GET' || r.method === 'DELETE' || r.method === 'OPTIONS';
        return {
          route: `${route.method} ${route.path}`,
          method: r.method,
          url: pathname + (r.query ? `?${r.query}` : ''),
          headers,
          ...(r.body.body === undefined || bodyless ? {} : { body: r.body.body }),
          kind: [r.body.kind, r.key.kind, edited ? 'params:fuzzed' : 'params:valid'].join(' '),
          mutates: route.mutates,
        };
      });
  });
}

export type FuzzStats = { cases: number; byStatus: Record<string, number>; byKind: Record<string, number> };

export function newStats(): FuzzStats {
  return { cases: 0, byStatus: {}, byKind: {} };
}

/**
 * The properties every answer must have. Returns a problem, or null. `digestBefore`/`digestAfter`
 * are digests of the stored data around the request.
 */
export function judge(req: FuzzRequest, res: FuzzResponse, digestBefore: string, digestAfter: string): string | null {
  if (res.status >= 500) return `answered ${res.status}: ${res.body.slice(0, 300)}`;
  if (res.status >= 400) {
    const shape = checkErrorShape(res.status, res.headers, res.body);
    if (!shape.ok) return shape.problem;
    if (digestAfter !== digestBefore) return `a refused request (${res.status}) changed stored data`;
  } else if (!req.mutates && digestAfter !== digestBefore) return 'a read-only request changed stored data';
  return null;
}

export function record(stats: FuzzStats, req: FuzzRequest, res: FuzzResponse): void {
  stats.cases++;
  stats.byStatus[res.status] = (stats.byStatus[res.status] ?? 0) + 1;
  for (const k of req.kind.split(' ')) stats.byKind[k] = (stats.byKind[k] ?? 0) + 1;
}

export function describeRequest(req: FuzzRequest): string {
  return JSON.stringify({ ...req, body: req.body?.toString('utf8').slice(0, 500) });
}

/** Admin routes the fuzzer leaves out: they end or replace its own session, or stream forever. */
const ADMIN_FUZZ_SKIP = new Set(['DELETE /session', 'POST /session', 'POST /session/password', 'GET /events']);

/**
 * One random request against the admin API, signed in as `session` (cookie + CSRF token): the
 * same body, parameter and query strategies, plus the admin gate's own headers (the CSRF token
 * valid, missing or mangled; now and then an Origin from elsewhere or an API key).
 */
export function adminFuzzRequestArb(session: { cookie: string; csrf: string }, apiKey: string, routes: AdminRouteSpec[] = ADMIN_ROUTES): fc.Arbitrary<FuzzRequest> {
  const usable = routes.filter((r) => !ADMIN_FUZZ_SKIP.has(`${r.method} ${r.path}`));
  return fc.constantFrom(...usable).chain((admin) => {
    const route: RouteSpec = {
      method: admin.method,
      path: admin.path,
      scope: 'iq:read',
      params: admin.params ?? {},
      ...(admin.body ? { body: admin.body } : {}),
      kbRestriction: 'hidden',
      ok: [200],
      mutates: admin.method !== 'GET',
    };
    const paramNames = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
    return fc
      .record({
        params: fc.tuple(...paramNames.map((n) => paramArb(route.params[n] ?? 'x'))),
        query: queryArb(route),
        body: bodyArb(route),
        contentType: contentTypeArb,
        csrf: fc.oneof(
          { weight: 8, arbitrary: fc.constant({ kind: 'csrf:valid', value: session.csrf as string | null }) },
          { weight: 1, arbitrary: fc.constant({ kind: 'csrf:missing', value: null }) },
          { weight: 1, arbitrary: printable.map((value) => ({ kind: 'csrf:random', value: value as string | null })) },
        ),
        extra: fc.oneof(
          { weight: 8, arbitrary: fc.constant({ kind: 'gate:plain', headers: {} as Record<string, string> }) },
          { weight: 1, arbitrary: fc.constant({ kind: 'gate:other-origin', headers: { origin: 'http://evil.example' } }) },
          { weight: 1, arbitrary: fc.constant({ kind: 'gate:api-key', headers: { 'x-api-key': apiKey } }) },
        ),
      })
      .map((r) => {
        let i = 0;
        const pathname = route.path.replace(/:([A-Za-z]+)/g, () => {
          const p = r.params[i++]!;
          return p.raw ? p.value : encodeSegment(p.value);
        });
        const headers: Record<string, string> = { cookie: session.cookie, ...r.extra.headers };
        if (r.csrf.value !== null) headers['x-localiq-csrf'] = r.csrf.value;
        const bodyless = route.method === 'GET' || route.method === 'DELETE';
        if (r.body.body !== undefined && !bodyless && r.contentType !== null) headers['content-type'] = r.contentType;
        return {
          route: `${route.method} /admin/api${route.path}`,
          method: route.method,
          url: `/admin/api${pathname}${r.query ? `?${r.query}` : ''}`,
          headers,
          ...(r.body.body === undefined || bodyless ? {} : { body: r.body.body }),
          kind: [r.body.kind, r.csrf.kind, r.extra.kind].join(' '),
          mutates: route.mutates,
        };
      });
  });
}
