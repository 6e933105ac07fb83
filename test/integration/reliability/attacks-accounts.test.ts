/**
 * The attack table for what one dashboard user can take from another: the language model's key
 * sent to an address an Admin chose, a redirect that carries it elsewhere, and what a failed
 * endpoint tells about the hosts and ports behind it.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AdminClient, signedInAs } from '../../helpers/admin-client.ts';
import { type OpenAiTestServer, startOpenAiTestServer } from '../../helpers/openai-test-server.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';

const OWNER_KEY = 'sk-owner-only-secret';

describe("attack table: the language model's key stays with its address", () => {
  let t: TestApp;
  let owner: AdminClient;
  let admin: AdminClient;
  let ownersEndpoint: OpenAiTestServer;
  let adminsEndpoint: OpenAiTestServer;
  let logged: string[];
  before(async () => {
    logged = [];
    t = await createTestApp({ logLevel: 'info' }, undefined, { logStream: { write: (line: string) => logged.push(line) } });
    owner = new AdminClient(t.app);
    assert.equal((await owner.post('/setup', { username: 'owner', password: 'owner password 1' })).statusCode, 201);
    admin = await signedInAs(owner, t.app, 'admin');
    ownersEndpoint = await startOpenAiTestServer();
    adminsEndpoint = await startOpenAiTestServer();
  });
  after(async () => {
    await ownersEndpoint.close();
    await adminsEndpoint.close();
    await t.close();
  });

  const save = (client: AdminClient, body: Record<string, unknown>) => client.request('PUT', '/settings/llm', { model: 'm', ...body });

  it('saving tests the endpoint with the key it was given, and says it works', async () => {
    const res = await save(owner, { baseUrl: ownersEndpoint.baseUrl, apiKey: OWNER_KEY });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().test, { ok: true, message: 'The endpoint answered.' });
    assert.equal(ownersEndpoint.requests.at(-1)?.authorization, `Bearer ${OWNER_KEY}`);
  });

  it("an Admin who points the endpoint at another host or port does not get the Owner's key sent there", async () => {
    const res = await save(admin, { baseUrl: adminsEndpoint.baseUrl });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().apiKeyRemoved, true);
    assert.equal(res.json().hasApiKey, false);
    assert.ok(adminsEndpoint.requests.length > 0, 'the new endpoint was tested');
    assert.deepEqual(adminsEndpoint.requests.map((r) => r.authorization), adminsEndpoint.requests.map(() => undefined));
    assert.ok(!JSON.stringify(t.services.llmSettings.endpoint()).includes(OWNER_KEY));
  });

  it('a key given in the same request goes with the new address; a new path on the same address keeps the key', async () => {
    assert.equal((await save(owner, { baseUrl: ownersEndpoint.baseUrl, apiKey: OWNER_KEY })).json().hasApiKey, true);
    const samePlace = await save(admin, { baseUrl: `${ownersEndpoint.baseUrl}/` });
    assert.equal(samePlace.json().apiKeyRemoved, false);
    assert.equal(samePlace.json().hasApiKey, true);
    const moved = await save(owner, { baseUrl: adminsEndpoint.baseUrl, apiKey: 'sk-new-one' });
    assert.equal(moved.json().apiKeyRemoved, false);
    assert.equal(adminsEndpoint.requests.at(-1)?.authorization, 'Bearer sk-new-one');
  });

  it('a redirect from the endpoint is not followed with the key', async () => {
    const elsewhere = adminsEndpoint.requests.length;
    const redirector = http.createServer((_req, res) => res.writeHead(307, { location: `${adminsEndpoint.baseUrl}/chat/completions` }).end());
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    try {
      const res = await save(owner, { baseUrl: `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/v1`, apiKey: OWNER_KEY });
      assert.equal(res.json().test.ok, false);
      assert.match(res.json().test.message, /HTTP 307, a redirect, which is not followed/);
      assert.equal(adminsEndpoint.requests.length, elsewhere, 'nothing reached the address redirected to');
    } finally {
      redirector.close();
    }
  });

  it('why an endpoint fails is told to the Owner and the log only: an Admin cannot tell a closed port from an open one', async () => {
    const closedPort = 'http://127.0.0.1:9/v1';
    const openPort = `http://127.0.0.1:${new URL(ownersEndpoint.baseUrl).port}/not-an-api`;
    const messages = async (client: AdminClient) => [
      (await save(client, { baseUrl: closedPort })).json().test.message,
      (await save(client, { baseUrl: openPort })).json().test.message,
    ];
    const [closedToOwner, openToOwner] = await messages(owner);
    assert.match(closedToOwner, /could not be reached/);
    assert.match(openToOwner, /HTTP 404/);
    logged.length = 0;
    assert.deepEqual(await messages(admin), ['the language model could not be used.', 'the language model could not be used.']);
    const reasons = logged.map((line) => JSON.parse(line)).filter((l) => l.reason).map((l) => l.reason as string);
    assert.equal(reasons.length, 2);
    assert.match(reasons[0]!, /could not be reached/);
    assert.match(reasons[1]!, /HTTP 404/);
  });
});

describe('attack table: password guessing from many addresses', () => {
  let t: TestApp;
  // The throttle's delays are read on this clock: a slow password check on a loaded machine must
  // not let a second pass before the next guess.
  let now = Date.now();
  before(async () => {
    t = await createTestApp({}, undefined, { clock: () => now });
    const owner = new AdminClient(t.app);
    assert.equal((await owner.post('/setup', { username: 'owner', password: 'owner password 1' })).statusCode, 201);
  });
  after(() => t.close());

  const signIn = (password: string, remoteAddress: string) =>
    t.app.inject({
      method: 'POST',
      url: '/admin/api/session',
      remoteAddress,
      headers: { 'content-type': 'application/json', 'x-localiq-csrf': 'setup' },
      payload: JSON.stringify({ username: 'Owner', password }),
    });

  it('five guesses from each of ten addresses get five checked in all; the Owner then waits seconds, not 15 minutes', async () => {
    const statuses: number[] = [];
    for (let host = 2; host <= 11; host++) {
      for (let i = 0; i < 5; i++) statuses.push((await signIn(`guess ${host}-${i}`, `127.0.0.${host}`)).statusCode);
    }
    assert.equal(statuses.filter((s) => s === 401).length, 5, statuses.join());
    assert.equal(statuses.filter((s) => s === 429).length, 45);
    const refused = await signIn('owner password 1', '127.0.0.1');
    assert.equal(refused.statusCode, 429);
    const wait = Number(refused.headers['retry-after']);
    assert.ok(wait >= 1 && wait <= 2, `the Owner is asked to wait ${wait} s`);
    now += wait * 1000;
    assert.equal((await signIn('owner password 1', '127.0.0.1')).statusCode, 200);
  });
});
