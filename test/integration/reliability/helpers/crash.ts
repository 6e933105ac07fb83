/**
 * The crash campaign shared by the CI test (a few kills) and bench/reliability/crash-suite.ts
 * (20+ kills, thousands of items): push items in bulk to a real `localiq serve` process, SIGKILL it
 * at random moments while pushes are being acknowledged or while the pipeline is processing,
 * check the files after every kill, restart, repeat; at the end let the queue drain and verify
 * everything against what was acknowledged.
 */
import { execFileSync } from 'node:child_process';
import { openDatabase } from '../../../../server/storage/db.ts';
import { CLI, cliEnv, startServerProcess, waitForExit, type ServerProcess } from '../../../helpers/server-process.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

export type CrashOptions = {
  items: number;
  kills: number;
  seed: number;
  /** Items per bulk request while pushing updates (the first push of each item uses 250). */
  bulkSize: [number, number];
  workers: number;
  /** Longest wait before a kill, in ms. */
  maxKillDelayMs: number;
  drainTimeoutMs: number;
  /**
   * Push one poison item among the others: one that kills the pipeline worker running it, every
   * time (POISON_TRIGGERS). It must end failed, alone, with its reason; everything else indexed.
   */
  poison?: boolean;
  log?: (line: string) => void;
};

/** The poison item's external id. */
export const POISON_ID = 'poison';

/**
 * How the poison kills a worker, for real and with nothing added to the server (as in
 * test/integration/worker-thread-crash.test.ts): triggers refuse its index write and then the
 * write recording that failure, a database error the worker does not expect, which ends its thread.
 */
const POISON_TRIGGERS = `
  CREATE TRIGGER poison_refuse_item BEFORE INSERT ON items WHEN NEW.external_id = '${POISON_ID}'
  BEGIN SELECT RAISE(ABORT, 'the poison item cannot be written'); END;
  CREATE TRIGGER poison_refuse_recording_its_failure BEFORE UPDATE OF status ON jobs
    WHEN OLD.external_id = '${POISON_ID}' AND OLD.status = 'processing' AND NEW.errors LIKE '%indexing failed%'
  BEGIN SELECT RAISE(ABORT, 'nor its failure recorded'); END;`;

/** The poison job's end: failed, its last error naming the crashes it was alone in. */
export type PoisonOutcome = { status: string; lastError: string | null; attempts: number };

export type KillRecord = {
  n: number;
  mode: 'ack' | 'processing';
  afterMs: number;
  inFlightRequests: number;
  processingJobsAtKill: number;
  queuedJobsAtKill: number;
  integrity: string;
  halfIndexed: number;
};

export type CrashReport = {
  seed: number;
  items: number;
  kills: KillRecord[];
  pushesAcknowledged: number;
  pushesLost: number;
  versionsAcknowledged: number;
  restartMs: number[];
  drainMs: number;
  final: FinalCheck;
  /** With `poison`: how its job ended. */
  poison?: PoisonOutcome;
  problems: string[];
};

type FinalCheck = {
  integrity: string;
  halfIndexed: number;
  indexedItems: number;
  pendingJobs: number;
  jobsByStatus: Record<string, number>;
  missing: number;
  stale: number;
  unexpectedVersion: number;
  duplicates: number;
  searchChecked: number;
  searchMisses: number;
  staleSearchHits: number;
};

/** A small seeded PRNG, so a campaign can be replayed from its seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)) };
}

const KB = 'kb-crash';
const TOPICS = ['invoices', 'delivery', 'warranty', 'opening hours', 'gift cards', 'repairs', 'parking', 'returns'];
/** A token that exists only in one version of one item, so search can tell versions apart. */
const token = (item: number, version: number) => `zq${item}v${version}`;

function itemBody(item: number, version: number) {
  return {
    integrationId: 'crash',
    knowledgeBaseId: KB,
    sourceType: 'PAGE',
    externalId: `page-${item}`,
    data: {
      title: `Page ${item} about ${TOPICS[item % TOPICS.length]}`,
      content: `Version ${version} of page ${item}, marker ${token(item, version)}. It explains ${TOPICS[(item + version) % TOPICS.length]} for customers.`,
    },
  };
}

/** Consistency of the files, read with the server dead (or alive: WAL readers see a commit point). */
export function inspect(dataDir: string, full = true) {
  const db = openDatabase(dataDir);
  try {
    const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const vec = (db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'chunk_vectors_%' AND sql LIKE '%vec0%'").get() as { name: string } | undefined)?.name;
    // Every indexed item has all its chunks, its keyword row and every chunk's keyword row, and
    // once complete every chunk's vector (an item between its two phases, indexing 'text', waits
    // for them: docs/pipeline.md); nothing in an index belongs to no item. Any violation is a
    // half-indexed item.
    const complete = "SELECT c.id FROM chunks c JOIN items i ON i.id = c.item_id WHERE i.indexing = 'complete'";
    const halfIndexed =
      n('SELECT count(*) AS n FROM items i WHERE chunk_count != (SELECT count(*) FROM chunks c WHERE c.item_id = i.id)') +
      n('SELECT count(*) AS n FROM items WHERE id NOT IN (SELECT rowid FROM items_fts)') +
      n('SELECT count(*) AS n FROM items_fts WHERE rowid NOT IN (SELECT id FROM items)') +
      n('SELECT count(*) AS n FROM chunks WHERE id NOT IN (SELECT rowid FROM chunks_fts)') +
      n('SELECT count(*) AS n FROM chunks_fts WHERE rowid NOT IN (SELECT id FROM chunks)') +
      n('SELECT count(*) AS n FROM chunks WHERE item_id NOT IN (SELECT id FROM items)') +
      (vec
        ? n(`SELECT count(*) AS n FROM (${complete}) WHERE id NOT IN (SELECT chunk_id FROM ${vec})`) +
          n(`SELECT count(*) AS n FROM ${vec} WHERE chunk_id NOT IN (SELECT id FROM chunks)`)
        : n(`SELECT count(*) AS n FROM (${complete})`));
    const byStatus = Object.fromEntries(
      (db.prepare('SELECT status, count(*) AS n FROM jobs GROUP BY status').all() as Array<{ status: string; n: number }>).map((r) => [r.status, r.n]),
    );
    const items = db.prepare('SELECT external_id, content FROM items WHERE knowledge_base_id = ?').all(KB) as Array<{ external_id: string; content: string }>;
    return {
      integrity: String(db.pragma(full ? 'integrity_check' : 'quick_check', { simple: true })),
      halfIndexed,
      byStatus,
      items,
      duplicates: n("SELECT count(*) AS n FROM (SELECT 1 FROM items GROUP BY knowledge_base_id, integration_id, external_id HAVING count(*) > 1)"),
      /** Items whose text is indexed and whose vectors are still to come. */
      textPhase: n("SELECT count(*) AS n FROM items WHERE indexing = 'text'"),
    };
  } finally {
    db.close();
  }
}

/** Jobs by status: cheap enough to poll. */
function jobCounts(dataDir: string): Record<string, number> {
  const db = openDatabase(dataDir);
  try {
    return Object.fromEntries(
      (db.prepare('SELECT status, count(*) AS n FROM jobs GROUP BY status').all() as Array<{ status: string; n: number }>).map((r) => [r.status, r.n]),
    );
  } finally {
    db.close();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runCrashCampaign(options: CrashOptions): Promise<CrashReport> {
  const log = options.log ?? (() => {});
  const rand = prng(options.seed);
  const dataDir = tempDataDir();
  const key = JSON.parse(
    execFileSync(process.execPath, [CLI, 'keys', 'create', '--name', 'crash', '--scopes', 'iq:import,iq:read', '--json'], { env: cliEnv(dataDir) }).toString(),
  ).value as string;
  const env = {
    LOCALIQ_WORKERS: String(options.workers),
    LOCALIQ_RATE_LIMIT_PER_SECOND: '1000000',
    LOCALIQ_RATE_LIMIT_BURST: '1000000',
    // The default attempts (5): a kill charges no job an attempt unless that job was alone in
    // flight at two crashes (storage/jobs/recover-stale.ts), so no limit is raised here.
  };
  if (options.poison) {
    const db = openDatabase(dataDir);
    db.exec(POISON_TRIGGERS);
    db.close();
  }
  let poisonPushed = false;

  let version = 0;
  const acked = new Map<number, number>(); // item → latest acknowledged version
  const ackedHistory = new Map<number, number[]>(); // item → every acknowledged version
  const unknown = new Map<number, Set<number>>(); // item → versions sent whose answer never came
  const report: CrashReport = {
    seed: options.seed, items: options.items, kills: [], pushesAcknowledged: 0, pushesLost: 0, versionsAcknowledged: 0,
    restartMs: [], drainMs: 0, final: undefined as unknown as FinalCheck, problems: [],
  };
  const fresh = [0, 1]; // per lane: the next item never sent yet (lane 0 even items, lane 1 odd)
  const allSent = () => fresh.every((f) => f >= options.items);

  /** Items for one bulk from one of two disjoint lanes, so no item is ever in two requests at once. */
  function pick(lane: number): number[] {
    const first: number[] = [];
    while (fresh[lane]! < options.items && first.length < 250) {
      first.push(fresh[lane]!);
      fresh[lane]! += 2;
    }
    if (first.length) return first;
    const laneSize = Math.floor((options.items - lane + 1) / 2);
    const size = Math.min(laneSize, rand.int(options.bulkSize[0], options.bulkSize[1]));
    const chosen = new Set<number>();
    while (chosen.size < size) {
      const i = rand.int(0, options.items - 1);
      if (i % 2 === lane) chosen.add(i);
    }
    return [...chosen];
  }

  async function push(server: ServerProcess, items: number[], inFlight: { n: number }): Promise<boolean> {
    const v = ++version;
    for (const i of items) {
      if (!unknown.has(i)) unknown.set(i, new Set());
      unknown.get(i)!.add(v);
    }
    inFlight.n++;
    try {
      const res = await fetch(`${server.url}/ingest/bulk`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ items: items.map((i) => itemBody(i, v)) }),
      });
      const body = (await res.json()) as { jobIds?: string[] };
      if (res.status !== 200) throw new Error(`bulk answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
      for (const i of items) {
        acked.set(i, v);
        ackedHistory.set(i, [...(ackedHistory.get(i) ?? []), v]);
        unknown.get(i)!.delete(v);
      }
      report.pushesAcknowledged++;
      report.versionsAcknowledged += items.length;
      return true;
    } catch (error) {
      if (!/fetch failed|ECONNRESET|ECONNREFUSED|other side closed|terminated/i.test(String((error as Error).message) + String((error as { cause?: Error }).cause?.message))) {
        report.problems.push(`push failed unexpectedly: ${(error as Error).message}`);
      }
      report.pushesLost++;
      return false;
    } finally {
      inFlight.n--;
    }
  }

  for (let k = 1; k <= options.kills; k++) {
    const t0 = Date.now();
    const server = await startServerProcess(dataDir, env);
    report.restartMs.push(Date.now() - t0);
    const alive = () => server.child.exitCode === null && server.child.signalCode === null;
    // Until every item has been sent once, and every third kill after that, the kill lands
    // while bulks are being acknowledged; the others land while the pipeline is processing.
    const mode: KillRecord['mode'] = !allSent() || k % 3 === 0 ? 'ack' : 'processing';
    const inFlight = { n: 0 };
    let inFlightAtKill = 0;
    let stop = false;
    const startedAt = Date.now();
    if (options.poison && !poisonPushed) {
      const res = await fetch(`${server.url}/ingest`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ ...itemBody(0, 0), externalId: POISON_ID }),
      });
      if (res.status !== 200) report.problems.push(`the poison item was refused: ${res.status}`);
      poisonPushed = true;
    }
    if (mode === 'ack') {
      const lanes = [0, 1].map(async (lane) => {
        while (!stop && alive()) await push(server, pick(lane), inFlight);
      });
      await sleep(rand.int(50, options.maxKillDelayMs));
      inFlightAtKill = inFlight.n;
      server.child.kill('SIGKILL');
      stop = true;
      await Promise.all(lanes);
    } else {
      await Promise.all([0, 1].map((lane) => push(server, pick(lane), inFlight)));
      // Kill once the workers are into the work, at a random point of it.
      const before = jobCounts(dataDir);
      const done = (s: Record<string, number>) => (s.succeeded ?? 0) + (s.skipped ?? 0) + (s.cancelled ?? 0);
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && done(jobCounts(dataDir)) === done(before) && (before.queued ?? 0) > 0) await sleep(100);
      await sleep(rand.int(0, options.maxKillDelayMs));
      server.child.kill('SIGKILL');
    }
    await waitForExit(server.child);
    const after = inspect(dataDir);
    const record: KillRecord = {
      n: k,
      mode,
      afterMs: Date.now() - startedAt,
      inFlightRequests: inFlightAtKill,
      processingJobsAtKill: after.byStatus.processing ?? 0,
      queuedJobsAtKill: after.byStatus.queued ?? 0,
      integrity: after.integrity,
      halfIndexed: after.halfIndexed,
    };
    report.kills.push(record);
    if (after.integrity !== 'ok') report.problems.push(`kill ${k}: integrity_check says ${after.integrity}`);
    if (after.halfIndexed) report.problems.push(`kill ${k}: ${after.halfIndexed} half-indexed rows`);
    log(`kill ${k}/${options.kills} (${mode}) after ${record.afterMs} ms: ${record.inFlightRequests} requests in flight, ${record.processingJobsAtKill} jobs processing, ${record.queuedJobsAtKill} queued; integrity ${after.integrity}`);
  }

  // The last start: nothing more is pushed; the queue must drain by itself.
  const server = await startServerProcess(dataDir, env);
  // Items whose every push was cut off by a kill are pushed once more, so all of them take part.
  const neverAcked = Array.from({ length: options.items }, (_, i) => i).filter((i) => !acked.has(i));
  for (let i = 0; i < neverAcked.length; i += 250) {
    if (!(await push(server, neverAcked.slice(i, i + 250), { n: 0 }))) report.problems.push('a push to the final server failed');
  }
  const drainStart = Date.now();
  const pending = () => {
    const s = jobCounts(dataDir);
    return (s.queued ?? 0) + (s.processing ?? 0);
  };
  while (pending() > 0 && Date.now() - drainStart < options.drainTimeoutMs) await sleep(250);
  report.drainMs = Date.now() - drainStart;
  log(`drained in ${report.drainMs} ms`);

  const end = inspect(dataDir);
  const indexed = new Map(end.items.filter((row) => row.external_id !== POISON_ID).map((row) => [Number(row.external_id.slice('page-'.length)), row.content]));
  let missing = 0;
  let stale = 0;
  let unexpectedVersion = 0;
  const latestVersion = new Map<number, number>();
  for (const [item, content] of indexed) {
    const v = Number(/^Version (\d+) /.exec(content)?.[1]);
    latestVersion.set(item, v);
    const ackedVersion = acked.get(item);
    const possible = new Set([...(unknown.get(item) ?? [])].filter((u) => ackedVersion === undefined || u > ackedVersion));
    if (ackedVersion !== undefined) possible.add(ackedVersion);
    if (!possible.has(v)) {
      if (ackedVersion !== undefined && v < ackedVersion) stale++;
      else unexpectedVersion++;
    }
  }
  for (const item of acked.keys()) if (!indexed.has(item)) missing++;

  // Search sees each item by its latest version's marker, and no longer by an older acknowledged one.
  let searchChecked = 0;
  let searchMisses = 0;
  let staleSearchHits = 0;
  const sample = [...acked.keys()].sort(() => rand.next() - 0.5).slice(0, 150);
  const search = async (query: string) => {
    const res = await fetch(`${server.url}/knowledge-bases/${KB}/search`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ query, mode: 'keyword', topK: 5 }),
    });
    return ((await res.json()) as { results: Array<{ externalId: string }> }).results.map((r) => r.externalId);
  };
  for (const item of sample) {
    const v = latestVersion.get(item);
    if (v === undefined) continue;
    searchChecked++;
    const hits = await search(token(item, v));
    if (hits.length !== 1 || hits[0] !== `page-${item}`) searchMisses++;
    const older = (ackedHistory.get(item) ?? []).filter((a) => a < v).at(-1);
    if (older !== undefined && (await search(token(item, older))).includes(`page-${item}`)) staleSearchHits++;
  }
  server.child.kill('SIGTERM');
  await waitForExit(server.child);
  const closed = inspect(dataDir);
  if (options.poison) {
    const db = openDatabase(dataDir);
    report.poison = db
      .prepare('SELECT status, last_error AS lastError, attempts FROM jobs WHERE external_id = ? ORDER BY id DESC LIMIT 1')
      .get(POISON_ID) as PoisonOutcome;
    db.close();
  }

  report.final = {
    integrity: closed.integrity,
    halfIndexed: closed.halfIndexed,
    indexedItems: indexed.size,
    pendingJobs: (closed.byStatus.queued ?? 0) + (closed.byStatus.processing ?? 0),
    jobsByStatus: closed.byStatus,
    missing,
    stale,
    unexpectedVersion,
    duplicates: closed.duplicates,
    searchChecked,
    searchMisses,
    staleSearchHits,
  };
  const f = report.final;
  if (f.integrity !== 'ok') report.problems.push(`final integrity_check: ${f.integrity}`);
  if (f.halfIndexed) report.problems.push(`${f.halfIndexed} half-indexed rows at the end`);
  if (closed.textPhase) report.problems.push(`${closed.textPhase} items never got their vectors`);
  if (f.pendingJobs) report.problems.push(`${f.pendingJobs} jobs never reached a final state`);
  const poisonFailed = report.poison?.status === 'failed' ? 1 : 0;
  if ((closed.byStatus.failed ?? 0) > poisonFailed) report.problems.push(`${(closed.byStatus.failed ?? 0) - poisonFailed} acknowledged jobs failed`);
  if (report.poison && (report.poison.status !== 'failed' || !/^crashed the pipeline each of the \d+ times it ran alone/.test(report.poison.lastError ?? ''))) {
    report.problems.push(`the poison job did not end failed with its reason: ${JSON.stringify(report.poison)}`);
  }
  if (missing) report.problems.push(`${missing} acknowledged items are not indexed`);
  if (stale) report.problems.push(`${stale} items hold content older than their last acknowledged version`);
  if (unexpectedVersion) report.problems.push(`${unexpectedVersion} items hold a version that was never sent for them`);
  if (f.duplicates) report.problems.push(`${f.duplicates} items indexed more than once`);
  if (searchMisses) report.problems.push(`${searchMisses} of ${searchChecked} items not found by their latest marker`);
  if (staleSearchHits) report.problems.push(`${staleSearchHits} items still found by an older version's marker`);
  return report;
}
