/**
 * Long fuzz run: at least 10,000 generated requests (the generator of
 * test/integration/reliability/helpers/fuzz.ts)
 * against a real `localiq serve` process over real HTTP on loopback, one at a time so every answer
 * can be judged against the stored data around it. Never a 5xx, always the contract's error shape,
 * a refused request changes nothing stored, the process never dies.
 * The admin API gets its own cases (default half as many), signed in as the Owner.
 * Usage: npm run reliability:fuzz [-- --cases 10000 --admin-cases 5000 --seed 42]
 */
import http from 'node:http';
import os from 'node:os';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { openDatabase } from '../../server/storage/db.ts';
import { FIXTURE, storedDigest } from '../../test/integration/reliability/helpers/fixture.ts';
import { adminFuzzRequestArb, describeRequest, fuzzRequestArb, judge, newStats, record, type FuzzRequest, type FuzzResponse } from '../../test/integration/reliability/helpers/fuzz.ts';
import { ADMIN_ROUTES, ROUTES } from '../../test/integration/reliability/helpers/routes.ts';
import { startServerChild, stopServerChild, tempDir } from '../lib/server-child.ts';
import { allScopesKey } from './lib.ts';

const { values } = parseArgs({
  options: { cases: { type: 'string', default: '10000' }, 'admin-cases': { type: 'string' }, seed: { type: 'string' } },
});
const cases = Number(values.cases);
const adminCases = Number(values['admin-cases'] ?? Math.round(cases / 2));
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);

const dataDir = tempDir();
const key = await allScopesKey(dataDir);
const server = await startServerChild(dataDir, { LOCALIQ_WORKERS: '0' });
let died: string | null = null;
const onExit = (code: number | null, signal: string | null) => (died = `exited with ${code ?? signal}`);
server.child.once('exit', onExit);
const { port } = new URL(server.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function send(req: FuzzRequest): Promise<FuzzResponse> {
  return new Promise((resolve, reject) => {
    const r = http.request(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    r.on('error', reject);
    r.end(req.body);
  });
}

for (const body of [FIXTURE.item(), FIXTURE.item({ knowledgeBaseId: FIXTURE.otherKb, externalId: 'other-1' })]) {
  const res = await send({ route: 'seed', method: 'POST', url: '/ingest', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)), kind: 'seed', mutates: true });
  if (res.status !== 200) throw new Error(`seeding failed: ${res.status} ${res.body}`);
}

const db = openDatabase(dataDir);
// The admin API's state too: users and settings (sessions change their last-seen time on every request).
const digest = () =>
  [storedDigest(db), ...['SELECT id, username, role, password_hash FROM users ORDER BY id', 'SELECT * FROM settings ORDER BY key'].map((sql) => JSON.stringify(db.prepare(sql).all()))].join('|');
const stats = newStats();
const adminStats = newStats();
const failures: string[] = [];
const started = performance.now();

async function run(requests: FuzzRequest[], into: typeof stats) {
  for (const req of requests) {
    const before = digest();
    let res: FuzzResponse;
    try {
      res = await send(req);
    } catch (error) {
      failures.push(`transport error ${(error as Error).message}: ${describeRequest(req)}`);
      if (died) return;
      continue;
    }
    record(into, req, res);
    const problem = judge(req, res, before, digest());
    if (problem) failures.push(`${problem}: ${describeRequest(req)}`);
    if (died) return;
  }
}

await run(fc.sample(fuzzRequestArb(key), { numRuns: cases, seed }), stats);

// Sign in as the Owner over HTTP, as the dashboard does, then fuzz the admin API.
const setup = await send({
  route: 'setup', method: 'POST', url: '/admin/api/setup', mutates: true, kind: 'setup',
  headers: { 'content-type': 'application/json', 'x-localiq-csrf': 'setup' },
  body: Buffer.from(JSON.stringify({ username: 'owner', password: 'owner password 1' })),
});
if (setup.status !== 201) throw new Error(`admin setup failed: ${setup.status} ${setup.body}`);
const cookie = String(setup.headers['set-cookie']).split(';')[0]!;
const csrf = (JSON.parse(setup.body) as { csrfToken: string }).csrfToken;
if (!died && adminCases > 0) await run(fc.sample(adminFuzzRequestArb({ cookie, csrf }, key), { numRuns: adminCases, seed }), adminStats);
const seconds = (performance.now() - started) / 1000;
const health = died ? null : (await fetch(`${server.url}/health`)).status;
db.close();
agent.destroy();
server.child.off('exit', onExit);
if (!died) await stopServerChild(server);

console.log(
  JSON.stringify(
    {
      when: new Date().toISOString(),
      machine: `${os.cpus().length} cores, node ${process.version} (shared)`,
      seed,
      routes: ROUTES.length,
      cases: stats.cases,
      seconds: Math.round(seconds),
      casesPerSecond: Math.round((stats.cases + adminStats.cases) / seconds),
      byStatus: stats.byStatus,
      byKind: stats.byKind,
      adminRoutes: ADMIN_ROUTES.length,
      adminCases: adminStats.cases,
      adminByStatus: adminStats.byStatus,
      adminByKind: adminStats.byKind,
      serverDied: died,
      healthAfter: health,
      failures: failures.length,
      firstFailures: failures.slice(0, 5),
    },
    null,
    2,
  ),
);
process.exit(failures.length || died ? 1 : 0);
