/**
 * What bodies built to be expensive cost everyone else: a real `localiq serve` (pipeline off, so
 * only the HTTP path is measured) takes `--senders` connections that each send a body of about
 * 10 MB, over and over, while one client sends normal requests one after another (a small
 * `POST /ingest`, then `GET /jobs/{id}` of it) and times them. Scenarios: none (the baseline),
 * `one-object` (one object of 600,000 unknown keys, refused while parsing) and `spread` (the same
 * number of keys spread over bulk items each under the per-object key limit, so it is parsed and
 * validated in full). Reports the normal requests' p50/p99/max and what the senders got back.
 * `--nice-senders` runs the senders at the lowest CPU priority: on a small machine shared with the
 * load generator, what the server costs then shows apart from what sending 10 MB bodies costs.
 * Usage: node --import tsx bench/hostile-bodies.ts [--seconds 20 --senders 4 --scenarios none,one-object,spread] [--nice-senders]
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { LIMITS } from '../common/contract/limits.ts';
import { createKey, percentile, startServerChild, stopServerChild, tempDir, type ServerChild } from './lib/server-child.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    senders: { type: 'string', default: '4' },
    scenarios: { type: 'string', default: 'none,one-object,spread' },
    'nice-senders': { type: 'boolean', default: false },
    // Internal: this script run as one sender process (so the senders' work is not the prober's).
    'send-to': { type: 'string' },
    key: { type: 'string' },
    until: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const senders = Number(values.senders);
const TARGET_BYTES = 10 * 1_000_000;

const keysOf = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `"key_${String(from + i).padStart(7, '0')}":1`).join(',');

/** The hostile bodies, each close to 10 MB, with the route they are sent to. */
const BODIES: Record<string, { path: string; body: Buffer }> = {
  'one-object': { path: '/ingest', body: Buffer.from(`{${keysOf(600_000)}}`) },
  spread: (() => {
    const perItem = LIMITS.objectKeys - 100;
    const item = `{${keysOf(perItem)}}`;
    const count = Math.floor(TARGET_BYTES / (item.length + 1));
    return { path: '/ingest/bulk', body: Buffer.from(`{"items":[${Array(count).fill(item).join(',')}]}`) };
  })(),
};

/** status 0: the connection closed before an answer was read. */
type Answer = { status: number; bytes: number; ms: number };

function request(server: ServerChild, agent: http.Agent, method: string, path: string, body?: Buffer): Promise<Answer> {
  const url = new URL(path, server.url);
  const started = performance.now();
  return new Promise((resolve) => {
    let status = 0;
    let bytes = 0;
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: { 'x-api-key': server.key, ...(body ? { 'content-type': 'application/json', 'content-length': body.length } : {}) },
      },
      (res) => {
        status = res.statusCode!;
        res.on('data', (d: Buffer) => (bytes += d.length));
        res.on('end', () => resolve({ status, bytes, ms: performance.now() - started }));
      },
    );
    // A server may answer a refused body before reading all of it, and close the connection.
    req.on('error', () => resolve({ status, bytes, ms: performance.now() - started }));
    req.end(body);
  });
}

async function sendHostile(server: ServerChild, scenario: string, until: number): Promise<Answer[]> {
  const { path, body } = BODIES[scenario]!;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const answers: Answer[] = [];
  while (Date.now() < until) answers.push(await request(server, agent, 'POST', path, body));
  agent.destroy();
  return answers;
}

/** One sender in its own process, reporting its answers when the time is up. */
function senderProcess(server: ServerChild, scenario: string, until: number): Promise<Answer[]> {
  const args = ['--send-to', server.url, '--key', server.key, '--until', String(until), '--scenarios', scenario, ...(values['nice-senders'] ? ['--nice-senders'] : [])];
  const child = fork(import.meta.filename, args, {
    execArgv: ['--import', 'tsx'],
  });
  return new Promise((resolve) => child.once('message', (answers) => resolve(answers as Answer[])));
}

if (values['send-to']) {
  if (values['nice-senders']) os.setPriority(19);
  const answers = await sendHostile({ url: values['send-to'], key: values.key! } as ServerChild, values.scenarios!, Number(values.until));
  process.send!(answers, () => process.exit(0));
}

async function sendNormal(server: ServerChild, until: number): Promise<Answer[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const answers: Answer[] = [];
  for (let n = 0; Date.now() < until; n++) {
    const item = { integrationId: 'probe', knowledgeBaseId: 'kb-probe', sourceType: 'ARTICLE', externalId: `p-${n}`, data: { title: `Probe ${n}`, content: 'Opening hours are nine to five.' } };
    answers.push(await request(server, agent, 'POST', '/ingest', Buffer.from(JSON.stringify(item))));
    answers.push(await request(server, agent, 'GET', `/jobs/probe-p-${n}`));
    await new Promise((r) => setTimeout(r, 20));
  }
  agent.destroy();
  return answers;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** CPU time the server process has used so far, in ms (Linux: user + system, all threads). */
function serverCpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
if (!values['send-to']) await main();

async function main() {
  // The senders hold a key of their own, and the server its default rate limits: what a key
  // sending costly bodies takes from the other keys' requests is what is measured.
  const dataDir = tempDir();
  const sendersKey = await createKey(dataDir);
  const server = await startServerChild(dataDir, {
    LOCALIQ_WORKERS: '0',
    LOCALIQ_LOG_LEVEL: 'error',
    LOCALIQ_RATE_LIMIT_PER_SECOND: '100',
    LOCALIQ_RATE_LIMIT_BURST: '500',
  });
  const results: Record<string, unknown> = {};
  try {
    for (const scenario of values.scenarios!.split(',')) {
      // The senders start, build their bodies, then all send until the same moment.
      const until = Date.now() + 3_000 + seconds * 1000;
      const hostile = scenario === 'none' ? [] : Array.from({ length: senders }, () => senderProcess({ ...server, key: sendersKey }, scenario, until));
      await new Promise((r) => setTimeout(r, 3_000));
      const cpuBefore = serverCpuMs(server.child.pid!);
      const normal = await sendNormal(server, until);
      const sent = (await Promise.all(hostile)).flat();
      const serverCpu = serverCpuMs(server.child.pid!) - cpuBefore;
      const ms = normal.map((a) => a.ms);
      results[scenario] = {
        ...(scenario === 'none' ? {} : { bodyMB: round(BODIES[scenario]!.body.length / 1_048_576) }),
        serverCpuPercentOfOneCore: Math.round((serverCpu / (seconds * 10))),
        normal: {
          requests: normal.length,
          notOk: normal.filter((a) => a.status !== 200).length,
          p50: round(percentile(ms, 50)),
          p99: round(percentile(ms, 99)),
          max: round(Math.max(...ms)),
        },
        ...(sent.length === 0
          ? {}
          : {
              hostile: {
                requests: sent.length,
                statuses: [...new Set(sent.map((a) => a.status))],
                answerBytesMax: Math.max(...sent.map((a) => a.bytes)),
                answerMsP50: round(percentile(sent.map((a) => a.ms), 50)),
              serverCpuMsPerRequest: round(serverCpu / sent.length),
              },
            }),
      };
    }
  } finally {
    await stopServerChild(server);
  }
  console.log(
    JSON.stringify({ when: new Date().toISOString(), machine: `${os.cpus().length} cores, node ${process.version} (shared with other work)`, seconds, senders, niceSenders: values['nice-senders'], results }, null, 2),
  );
}
