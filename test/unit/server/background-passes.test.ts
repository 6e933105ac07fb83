/**
 * The server's list of background passes (server/background-passes.ts) over real services on a
 * SQLite file (pushes committed in the event loop, no thread): every pass is in it once, they
 * start and stop together, and a failing pass is logged once, without the fields an error may
 * carry beyond what went wrong, while the others go on.
 */
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, it, mock } from 'node:test';
import { backgroundPasses, passErrorFields, startBackgroundPasses } from '../../../server/background-passes.ts';
import { loadConfig } from '../../../server/config.ts';
import { createLogs } from '../../../server/logging.ts';
import { openServices, type Services } from '../../../server/services.ts';
import { tempDataDir } from '../../helpers/temp-data.ts';

async function services(): Promise<{ services: Services; config: ReturnType<typeof loadConfig> }> {
  const config = loadConfig({ LOCALIQ_DATA_DIR: tempDataDir(), LOCALIQ_SECRET_STORE: 'file', LOCALIQ_LOG_LEVEL: 'info' });
  return { services: await openServices(config, { jobWriter: 'in-process' }), config };
}

describe('the background passes of the server', () => {
  const opened: Services[] = [];
  afterEach(() => {
    mock.timers.reset();
    for (const s of opened.splice(0)) s.close();
  });

  it('lists every pass once', async () => {
    const { services: s, config } = await services();
    opened.push(s);
    const lines: string[] = [];
    const names = backgroundPasses(s, config, createLogs(config, { write: (line) => void lines.push(line) }).logger).map((pass) => pass.name);
    assert.deepEqual(names, [
      'index-follow',
      'job-history-retention',
      'conversation-retention',
      'question-grouping',
      'webhook-delivery',
      'scheduled-backups',
      'website-sync',
    ]);
  });

  it('starts and stops them together; a failing pass is logged once without its extra fields, and the others run on', async () => {
    const { services: s, config } = await services();
    opened.push(s);
    const lines: string[] = [];
    const logger = createLogs(config, { write: (line) => void lines.push(line) }).logger;
    const secret = 'Bearer sk-live-do-not-log';
    let dueCalls = 0;
    s.webhookRepo.due = () => {
      dueCalls += 1;
      throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY', headers: { authorization: secret } });
    };
    let follows = 0;
    const follow = s.keywords.follow.bind(s.keywords);
    s.keywords.follow = () => {
      follows += 1;
      follow();
    };
    mock.timers.enable({ apis: ['setInterval'] });
    const runner = startBackgroundPasses(s, config, logger);
    for (let i = 0; i < 6; i++) {
      mock.timers.tick(500);
      for (let turn = 0; turn < 5; turn++) await nextTurn();
    }
    await runner.stop();
    assert.equal(dueCalls, 6, 'the webhook pass ran at each of its ticks');
    assert.equal(follows, 3, 'the index-follow pass ran on beside it');
    const failed = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((record) => record.msg === 'background pass failed; its next run tries again');
    assert.equal(failed.length, 1, 'logged once for the streak');
    assert.equal(failed[0]!.pass, 'webhook-delivery');
    assert.deepEqual(Object.keys(failed[0]!.err as object).sort(), ['code', 'message', 'stack', 'type']);
    assert.ok(!lines.join('\n').includes(secret), 'no field beyond what went wrong reaches the log');
  });
});

describe('passErrorFields', () => {
  it('keeps what went wrong and where, and nothing else an error carries', () => {
    const error = Object.assign(new TypeError('fetch failed'), { code: 'ECONNREFUSED', body: '{"password":"x"}', cause: { headers: { cookie: 'c' } } });
    const fields = passErrorFields(error);
    assert.deepEqual({ ...fields, stack: undefined }, { type: 'TypeError', message: 'fetch failed', code: 'ECONNREFUSED', stack: undefined });
    assert.match(fields.stack!, /^TypeError: fetch failed/);
    assert.deepEqual(passErrorFields('a string'), { type: 'string', message: 'a string' });
  });
});
