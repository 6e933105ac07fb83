/**
 * The attack table as tests (contract §3–§4): bad keys, scope escalation and knowledge-base
 * restriction on every route of helpers/routes.ts, key-check timing, keys in logs/bodies/files,
 * the listening address, and HTTP-level oddities sent as raw bytes.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hashSecret, secretMatches } from '../../../server/domain/api-keys.ts';
import { SCOPES, type Scope } from '../../../common/contract/scopes.ts';
import { openDatabase } from '../../../server/storage/db.ts';
import { CLI, cliEnv, startServerProcess, waitForExit, type ServerProcess } from '../../helpers/server-process.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';
import { tempDataDir } from '../../helpers/temp-data.ts';
import { FIXTURE, checkErrorShape, storedDigest } from './helpers/fixture.ts';
import { httpRequest, parseResponses, rawExchange } from './helpers/raw-http.ts';
import { ADMIN_ROUTES, ROUTES, UNGUARDED, VISITOR_ROUTES, routeBody, routeName, routeUrl, servedRoutes, type RouteSpec } from './helpers/routes.ts';
import { skipWhereMissing } from '../../helpers/skip-where-missing.ts';

const DAY = 86_400_000;

async function seededApp(): Promise<TestApp & { seed(): Promise<void> }> {
  const t = await createTestApp({ rateLimit: { perSecond: 1_000_000, burst: 1_000_000 } });
  const seedKey = t.key();
  const seed = async () => {
    for (const body of [FIXTURE.item(), FIXTURE.item({ knowledgeBaseId: FIXTURE.otherKb, externalId: 'other-1' })]) {
      const res = await t.app.inject({ method: 'POST', url: '/ingest', headers: { 'x-api-key': seedKey }, payload: body });
      assert.equal(res.statusCode, 200, res.body);
    }
  };
  await seed();
  return Object.assign(t, { seed });
}

function send(t: TestApp, route: RouteSpec, headers: Record<string, string>) {
  const body = routeBody(route);
  return t.app.inject({
    method: route.method,
    url: routeUrl(route),
    headers: { ...headers, ...(body ? { 'content-type': body.contentType } : {}) },
    ...(body ? { payload: body.payload } : {}),
  });
}

function assertShape(res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  const shape = checkErrorShape(res.statusCode, res.headers as Record<string, string>, res.body);
  assert.ok(shape.ok, shape.ok ? '' : shape.problem);
}

describe('the route tables cover the whole app', () => {
  it('every route the app serves is in ROUTES, ADMIN_ROUTES or VISITOR_ROUTES (or deliberately unguarded)', async () => {
    const t = await createTestApp();
    try {
      const served = servedRoutes(t.app.printRoutes({ commonPrefix: false }));
      assert.ok(served.length > 20, `read ${served.length} routes from the route tree`);
      const known = new Set([
        ...ROUTES.map((r) => `${r.method} ${r.path}`),
        ...ADMIN_ROUTES.map((r) => `${r.method} /admin/api${r.path}`),
        ...VISITOR_ROUTES.map((r) => `${r.method} ${r.path}`),
      ]);
      const missing = served
        .filter((r) => !UNGUARDED.some((re) => re.test(r.path)))
        .map((r) => `${r.method} ${r.path}`)
        .filter((r) => !known.has(r));
      assert.deepEqual(missing, [], 'add these to test/integration/reliability/helpers/routes.ts');
      const stale = [...known].filter((k) => !served.some((r) => `${r.method} ${r.path}` === k));
      assert.deepEqual(stale, [], 'these table entries match no served route');
    } finally {
      await t.close();
    }
  });
});

describe('attack table: the visitor routes', () => {
  it('from a foreign origin every visitor API route answers 403, whatever key or token comes along, and stores nothing', async () => {
    const t = await seededApp();
    try {
      const widgetId = t.services.widgets.create({ name: 'Shop', knowledgeBaseIds: [FIXTURE.kb], allowedOrigins: ['https://shop.example'] }).id;
      const session = await t.app.inject({ method: 'POST', url: `/v1/widget/${widgetId}/sessions`, headers: { origin: 'https://shop.example' } });
      const visitorRows = () =>
        ['visitor_sessions', 'visitor_turns', 'visitor_usage'].map((table) => (t.services.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
      const key = t.key();
      for (const route of VISITOR_ROUTES.filter((r) => r.path.startsWith('/v1/'))) {
        const digest = storedDigest(t.services.db);
        const rows = visitorRows();
        const body = route.body?.();
        const res = await t.app.inject({
          method: route.method,
          url: route.path.replace(':widgetId', widgetId),
          headers: {
            origin: 'https://evil.example',
            'x-api-key': key,
            authorization: `Bearer ${session.json().token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        });
        assert.equal(res.statusCode, 403, `${route.method} ${route.path}: ${res.body}`);
        assert.equal(res.json().code, 'origin_not_allowed');
        assertShape(res);
        // Only the configuration's refusal is readable there, so the widget can say why it does not appear.
        assert.equal(res.headers['access-control-allow-origin'], route.method === 'GET' ? 'https://evil.example' : undefined);
        assert.equal(storedDigest(t.services.db), digest);
        assert.deepEqual(visitorRows(), rows);
      }
    } finally {
      await t.close();
    }
  });
});

describe('attack table: bad keys on every route', () => {
  let t: Awaited<ReturnType<typeof seededApp>>;
  before(async () => {
    t = await seededApp();
  });
  after(() => t.close());

  const badKeys: Array<{ name: string; value: () => string | null; code: string }> = [
    { name: 'missing', value: () => null, code: 'missing_api_key' },
    { name: 'empty', value: () => '', code: 'missing_api_key' },
    { name: 'malformed', value: () => 'Bearer abc', code: 'invalid_api_key' },
    { name: 'unknown', value: () => `liq_${'Z'.repeat(12)}_${'q'.repeat(43)}`, code: 'invalid_api_key' },
    {
      name: 'known id, wrong secret',
      value: () => {
        const v = t.key();
        return v.slice(0, -1) + (v.endsWith('x') ? 'y' : 'x');
      },
      code: 'invalid_api_key',
    },
    {
      name: 'revoked',
      value: () => {
        const v = t.key();
        t.services.keys.revoke(v.split('_')[1]!);
        return v;
      },
      code: 'invalid_api_key',
    },
    { name: 'expired', value: () => t.key({ expiresAt: Date.now() - DAY }), code: 'api_key_expired' },
    {
      name: 'rotated, grace over',
      value: () => {
        const v = t.key();
        t.services.keys.rotate(v.split('_')[1]!, 0);
        return v;
      },
      code: 'invalid_api_key',
    },
  ];

  for (const route of ROUTES) {
    it(`${routeName(route)}: ${badKeys.length} bad keys → 401, nothing stored, key not echoed`, async () => {
      for (const bad of badKeys) {
        const value = bad.value();
        const before = storedDigest(t.services.db);
        const res = await send(t, route, value === null ? {} : { 'x-api-key': value });
        assert.equal(res.statusCode, 401, `${bad.name}: ${res.body}`);
        assertShape(res);
        assert.equal(res.json().code, bad.code, bad.name);
        if (value) assert.ok(!res.body.includes(value.slice(-20)), `${bad.name}: the key is echoed`);
        assert.equal(storedDigest(t.services.db), before, `${bad.name}: stored data changed`);
      }
    });
  }
});

describe('attack table: scope escalation and knowledge-base restriction on every route', () => {
  let t: Awaited<ReturnType<typeof seededApp>>;
  before(async () => {
    t = await seededApp();
  });
  after(() => t.close());

  for (const route of ROUTES) {
    it(`${routeName(route)}: every other scope → 403 insufficient_scope; its own scope alone is enough`, async () => {
      const others = SCOPES.filter((s) => s !== route.scope) as Scope[];
      for (const scopes of [others, ...others.map((s) => [s])]) {
        const key = t.key({ scopes });
        const before = storedDigest(t.services.db);
        const res = await send(t, route, { 'x-api-key': key });
        assert.equal(res.statusCode, 403, `${scopes.join(',')}: ${res.body}`);
        assertShape(res);
        assert.equal(res.json().code, 'insufficient_scope');
        assert.match(res.json().message, new RegExp(route.scope));
        assert.equal(storedDigest(t.services.db), before);
      }
      const res = await send(t, route, { 'x-api-key': t.key({ scopes: [route.scope] }) });
      assert.ok(route.ok.includes(res.statusCode), `own scope: ${res.statusCode} ${res.body}`);
      if (route.mutates) await t.seed();
    });

    it(`${routeName(route)}: a key restricted to another knowledge base is kept out (${route.kbRestriction})`, async () => {
      const restricted = t.key({ scopes: [route.scope], knowledgeBaseIds: [FIXTURE.otherKb] });
      const before = storedDigest(t.services.db);
      const res = await send(t, route, { 'x-api-key': restricted });
      if (route.kbRestriction === 'forbidden') {
        assert.equal(res.statusCode, 403, res.body);
        assertShape(res);
        assert.equal(res.json().code, 'knowledge_base_forbidden');
      } else {
        assert.ok([200, 404].includes(res.statusCode), res.body);
        if (res.statusCode === 404) assertShape(res);
        assert.ok(!res.body.includes(`"${FIXTURE.kb}"`), `leaks ${FIXTURE.kb}: ${res.body.slice(0, 300)}`);
      }
      assert.equal(storedDigest(t.services.db), before, 'stored data changed');
      const allowed = await send(t, route, { 'x-api-key': t.key({ scopes: [route.scope], knowledgeBaseIds: [FIXTURE.kb] }) });
      assert.ok(route.ok.includes(allowed.statusCode), `restricted to its own knowledge base: ${allowed.statusCode} ${allowed.body}`);
      if (route.mutates) await t.seed();
    });
  }
});

describe('attack table: key checks take the same time however close the guess', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  /**
   * Nanoseconds per call of `check` (the 10th percentile over rounds) for each guess, measured in
   * many short interleaved rounds: a round shorter than the scheduler's time slice often runs
   * without being interrupted, even on a machine busy with other work.
   */
  function timeGuesses(guesses: Record<string, string>, check: (guess: string) => boolean, perRound = 250): Record<string, number> {
    // Flat copies: a concatenated string would be flattened on first use and skew the first round.
    const flat = Object.entries(guesses).map(([name, g]) => [name, Buffer.from(g).toString()] as const);
    const samples: Record<string, number[]> = Object.fromEntries(flat.map(([k]) => [k, []]));
    for (const [, guess] of flat) for (let i = 0; i < 1_000; i++) check(guess); // warm up
    // Interleaved rounds, so drift from other work on the machine hits every guess alike.
    for (let round = 0; round < 200; round++) {
      // A fresh order each round: whichever guess runs first after a pause would otherwise pay for it.
      const order = [...flat].sort(() => Math.random() - 0.5);
      for (const [name, guess] of order) {
        const started = process.hrtime.bigint();
        for (let i = 0; i < perRound; i++) assert.equal(check(guess), false);
        samples[name]!.push(Number(process.hrtime.bigint() - started) / perRound);
      }
    }
    // A low percentile: interference from other work on a shared machine only ever adds time.
    return Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, s.sort((a, b) => a - b)[Math.floor(s.length / 10)]!]));
  }

  const spread = (medians: Record<string, number>) => Math.max(...Object.values(medians)) / Math.min(...Object.values(medians));
  const show = (medians: Record<string, number>) => JSON.stringify(Object.fromEntries(Object.entries(medians).map(([k, v]) => [k, Math.round(v)])));

  function nearMisses(value: string) {
    const [prefix, id, secret] = value.split('_') as [string, string, string];
    const flip = (c: string) => (c === 'a' ? 'b' : 'a');
    return {
      secret,
      guesses: {
        wrongFirst: `${prefix}_${id}_${flip(secret[0]!)}${secret.slice(1)}`,
        wrongLast: `${prefix}_${id}_${secret.slice(0, -1)}${flip(secret.at(-1)!)}`,
        wrongAll: `${prefix}_${id}_${[...secret].map(flip).join('')}`,
      },
    };
  }

  // An early exit on a 43-character compare would cost nanoseconds, below the noise of a whole
  // request; so the comparison itself is timed, with a tight bound, and the whole check with a
  // loose one that catches any path treating a near miss differently.
  it('the secret comparison takes the same time whether the first, the last or every character is wrong', () => {
    const value = t.key();
    const { guesses } = nearMisses(value);
    const serverSecret = (t.services.keys as unknown as { serverSecret: Buffer }).serverSecret;
    const stored = hashSecret(serverSecret, value.split('_')[2]!);
    const medians = timeGuesses(guesses, (g) => secretMatches(serverSecret, g.split('_')[2]!, stored), 100);
    console.log(`secret comparison, ns per call: ${show(medians)}; spread ${spread(medians).toFixed(3)}×`);
    assert.ok(spread(medians) < 1.25, `the comparison time depends on how much matched: ${show(medians)}`);
  });

  it('the whole key check: near misses cost the same, within the noise of a shared machine', () => {
    const { guesses } = nearMisses(t.key());
    const medians = timeGuesses(guesses, (g) => t.services.keys.authenticate(g).ok);
    console.log(`key check, ns per call: ${show(medians)}; spread ${spread(medians).toFixed(3)}×`);
    assert.ok(spread(medians) < 2, `near misses are handled differently: ${show(medians)}`);
  });

  it('an unknown key id costs the same to refuse as a known id with a wrong secret', () => {
    const value = t.key();
    assert.equal(t.services.keys.authenticate(value).ok, true, 'used once, so the key is in the verified cache');
    const { guesses } = nearMisses(value);
    const unknownId = `liq_${'Z'.repeat(12)}_${value.split('_')[2]!}`;
    const medians = timeGuesses({ knownIdWrongSecret: guesses.wrongLast, unknownId }, (g) => t.services.keys.authenticate(g).ok);
    console.log(`refusal, ns per call: ${show(medians)}; spread ${spread(medians).toFixed(3)}×`);
    assert.ok(spread(medians) < 1.5, `whether an id exists shows in the time: ${show(medians)}`);
  });
});

describe('attack table: a real server process', () => {
  let dataDir: string;
  let server: ServerProcess;
  let port: number;
  let key: string;
  let digest: () => string;
  let db: ReturnType<typeof openDatabase>;
  before(async () => {
    dataDir = tempDataDir();
    key = JSON.parse(
      execFileSync(process.execPath, [CLI, 'keys', 'create', '--name', 'attack', '--scopes', 'iq:import,iq:read', '--json'], {
        env: cliEnv(dataDir),
      }).toString(),
    ).value;
    // The most talkative log level: if a key leaks anywhere into the log, it leaks here.
    server = await startServerProcess(dataDir, { LOCALIQ_LOG_LEVEL: 'trace' });
    port = Number(new URL(server.url).port);
    db = openDatabase(dataDir);
    digest = () => storedDigest(db);
  });
  after(async () => {
    db.close();
    server.child.kill('SIGTERM');
    await waitForExit(server.child);
  });

  const json = JSON.stringify(FIXTURE.item());
  const post = (headers: string[], body: string) =>
    httpRequest(['POST /ingest HTTP/1.1', 'Host: 127.0.0.1', 'Connection: close', ...headers], body);

  type Oddity = { name: string; request: () => string; status: number; code?: string; stores?: boolean };
  const oddities: Oddity[] = [
    { name: 'Content-Length and Transfer-Encoding together (CL.TE)', request: () => post(['Content-Type: application/json', `x-api-key: ${key}`, `Content-Length: ${json.length}`, 'Transfer-Encoding: chunked'], `0\r\n\r\n${json}`), status: 400 },
    { name: 'two different Content-Length headers', request: () => post(['Content-Type: application/json', `x-api-key: ${key}`, `Content-Length: ${json.length}`, `Content-Length: ${json.length - 5}`], json), status: 400 },
    { name: 'Transfer-Encoding: xchunked', request: () => post(['Content-Type: application/json', `x-api-key: ${key}`, 'Transfer-Encoding: xchunked'], json), status: 400 },
    { name: 'chunked with a bad chunk size', request: () => post(['Content-Type: application/json', `x-api-key: ${key}`, 'Transfer-Encoding: chunked'], `zz\r\n${json}\r\n0\r\n\r\n`), status: 400 },
    { name: 'CR inside a header value', request: () => `POST /ingest HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\rX-Evil: 1\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\n\r\n${json}`, status: 400 },
    { name: 'a 20 KB header', request: () => post([`x-api-key: ${key}`, `X-Big: ${'a'.repeat(20_000)}`, 'Content-Type: application/json', `Content-Length: ${json.length}`], json), status: 431 },
    { name: 'not HTTP at all', request: () => 'HELLO THERE\r\n\r\n', status: 400 },
    { name: 'two x-api-key headers, both valid', request: () => post(['Content-Type: application/json', `x-api-key: ${key}`, `x-api-key: ${key}`, `Content-Length: ${json.length}`], json), status: 401, code: 'invalid_api_key' },
    { name: 'two x-api-key headers, bad then valid', request: () => post(['Content-Type: application/json', 'x-api-key: liq_bad', `x-api-key: ${key}`, `Content-Length: ${json.length}`], json), status: 401, code: 'invalid_api_key' },
    { name: 'two Content-Type headers, text/plain first', request: () => post(['Content-Type: text/plain', 'Content-Type: application/json', `x-api-key: ${key}`, `Content-Length: ${json.length}`], json), status: 415, code: 'unsupported_media_type' },
    { name: 'Content-Type application/jsonx', request: () => post(['Content-Type: application/jsonx', `x-api-key: ${key}`, `Content-Length: ${json.length}`], json), status: 415, code: 'unsupported_media_type' },
    { name: 'multipart body', request: () => post(['Content-Type: multipart/form-data; boundary=x', `x-api-key: ${key}`, 'Content-Length: 10'], '--x--\r\n\r\n'), status: 415, code: 'unsupported_media_type' },
    { name: 'Content-Length longer than the body (client gives up)', request: () => post(['Content-Type: application/json', `x-api-key: ${key}`, `Content-Length: ${json.length + 50}`], json), status: 0 },
    { name: 'chunked JSON body, properly framed', request: () => post(['Content-Type: application/json', `x-api-key: ${key}`, 'Transfer-Encoding: chunked'], `${(10).toString(16)}\r\n${json.slice(0, 10)}\r\n${(json.length - 10).toString(16)}\r\n${json.slice(10)}\r\n0\r\n\r\n`), status: 200, stores: true },
  ];

  for (const o of oddities) {
    it(`${o.name} → ${o.status || 'no answer'}${o.code ? ` ${o.code}` : ''}${o.stores ? ', stored' : ', nothing stored'}`, async () => {
      const before = digest();
      const responses = parseResponses(await rawExchange(port, o.request(), o.status === 0 ? 300 : 400));
      if (o.status === 0) assert.equal(responses.length, 0, 'the server waits for the rest of the body');
      else {
        assert.equal(responses.length, 1, 'exactly one response');
        const res = responses[0]!;
        assert.equal(res.status, o.status, res.body);
        if (o.status >= 400) {
          const shape = checkErrorShape(res.status, res.headers, res.body);
          assert.ok(shape.ok, shape.ok ? '' : shape.problem);
          if (o.code) assert.equal(JSON.parse(res.body).code, o.code);
        }
      }
      if (o.stores) assert.notEqual(digest(), before);
      else assert.equal(digest(), before, 'stored data changed');
      const health = await fetch(`${server.url}/health`);
      assert.equal(health.status, 200, 'the server is still up');
    });
  }

  it('two pipelined requests in one write get two answers, in order', async () => {
    const first = post(['Content-Type: application/json', `x-api-key: ${key}`, `Content-Length: ${json.length}`], json).replace('Connection: close\r\n', '');
    const second = httpRequest(['GET /jobs/cms-post-1?knowledgeBaseId=kb-main HTTP/1.1', 'Host: x', `x-api-key: ${key}`, 'Connection: close']);
    const responses = parseResponses(await rawExchange(port, first + second));
    assert.deepEqual(responses.map((r) => r.status), [200, 200]);
    assert.equal(JSON.parse(responses[1]!.body).jobId, 'cms-post-1');
  });

  it('the key appears in no log line, no response body and no file of the data folder', async () => {
    const secret = key.split('_')[2]!;
    const nearMiss = `${key.slice(0, -1)}${key.endsWith('z') ? 'y' : 'z'}`;
    const bodies: string[] = [];
    const call = async (k: string, pathname: string, body?: string, contentType = 'application/json') => {
      const res = await fetch(`${server.url}${pathname}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'x-api-key': k, ...(body === undefined ? {} : { 'content-type': contentType }) },
        ...(body === undefined ? {} : { body }),
      });
      bodies.push(await res.text());
    };
    await call(key, '/ingest', json);
    await call(key, '/ingest', '{"broken":');
    await call(key, '/ingest', json, 'text/plain');
    await call(nearMiss, '/ingest', json);
    await call(`${key}x`, '/jobs');
    await call(key, '/jobs?limit=9999');
    await call(key, '/no-such-route');
    for (const body of bodies) assert.ok(!body.includes(secret.slice(0, 24)), `a response echoes the key: ${body.slice(0, 200)}`);
    server.child.kill('SIGTERM');
    await waitForExit(server.child);
    const log = server.output();
    assert.ok(log.length > 0, 'the trace log said something');
    const leaks = log.split('\n').filter((line) => line.includes(secret.slice(0, 24)));
    assert.deepEqual(leaks, [], 'the key reached the log');
    for (const file of fs.readdirSync(dataDir)) {
      const bytes = fs.readFileSync(path.join(dataDir, file));
      assert.equal(bytes.includes(Buffer.from(secret)), false, `${file} holds the key in plain text`);
      assert.equal(bytes.includes(Buffer.from(key)), false, `${file} holds the key in plain text`);
    }
    server = await startServerProcess(dataDir, { LOCALIQ_LOG_LEVEL: 'trace' });
    port = Number(new URL(server.url).port);
  });
});

describe('attack table: where the server listens', () => {
  /** A non-loopback IPv4 address of this machine, if it has one. */
  const external = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

  const canConnect = (host: string, port: number) =>
    new Promise<boolean>((resolve) => {
      const socket = net.connect({ host, port });
      socket.setTimeout(1_000, () => (socket.destroy(), resolve(false)));
      socket.on('connect', () => (socket.destroy(), resolve(true)));
      socket.on('error', () => resolve(false));
    });

  /** Local addresses of the listening TCP sockets on this port, from /proc (Linux). */
  const listeners = (port: number) =>
    ['/proc/net/tcp', '/proc/net/tcp6']
      .filter((f) => fs.existsSync(f))
      .flatMap((f) => fs.readFileSync(f, 'utf8').trim().split('\n').slice(1))
      .map((line) => line.trim().split(/\s+/))
      .filter((cols) => cols[3] === '0A' && parseInt(cols[1]!.split(':')[1]!, 16) === port)
      .map((cols) => cols[1]!.split(':')[0]!);

  it('binds 127.0.0.1 only by default', async () => {
    const server = await startServerProcess(tempDataDir());
    try {
      const url = new URL(server.url);
      assert.equal(url.hostname, '127.0.0.1');
      const port = Number(url.port);
      if (process.platform === 'linux') assert.deepEqual(listeners(port), ['0100007F'], 'one listening socket, on 127.0.0.1');
      assert.equal(await canConnect('127.0.0.1', port), true);
      if (external) assert.equal(await canConnect(external, port), false, `reachable on ${external}`);
    } finally {
      server.child.kill('SIGTERM');
      await waitForExit(server.child);
    }
  });

  it('listens on the network only when LOCALIQ_HOST says so (and then the probe above would see it)', async (ctx) => {
    if (!external) return skipWhereMissing(ctx, 'this machine has no non-loopback IPv4 address');
    const server = await startServerProcess(tempDataDir(), { LOCALIQ_HOST: '0.0.0.0' });
    try {
      assert.equal(await canConnect(external, Number(new URL(server.url).port)), true);
    } finally {
      server.child.kill('SIGTERM');
      await waitForExit(server.child);
    }
  });
});
