/**
 * Curated answers end to end, on the real server with its pipeline and the real model: the owner
 * writes an answer through the admin API (roles, CSRF, bad input, edit, delete); a rephrasing of
 * its question then gets it as written, on the integration API's ask and on the visitor's ask,
 * said to be the owner's (`source: "owner"`, no citations), while an unrelated question is still
 * answered by retrieval. Writing a content gap's answer makes one too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { askResponseSchema } from '../../common/contract/ask.ts';
import type { AdminContentGapReport, WriteAnswerResult } from '../../common/contract/content-gaps.ts';
import type { CuratedAnswerList, CuratedAnswerView } from '../../common/contract/curated-answers.ts';
import { visitorSessionSchema } from '../../common/contract/widget.ts';
import type { WidgetRecord } from '../../server/domain/widgets.ts';
import type { RunningServer } from '../../server/main.ts';
import { AdminClient } from '../helpers/admin-client.ts';
import { BAKERY_ORIGIN, KB, readEvents, startBakeryShop } from '../helpers/ask-fixtures.ts';
import { api } from '../helpers/pipeline-app.ts';
import { answersCommand } from '../../server/cli/answers-command.ts';
import { CuratedAnswerRepo } from '../../server/storage/curated-answer-repo.ts';

const ORIGIN = BAKERY_ORIGIN;
const SOURDOUGH_ANSWER = 'Yes. Our sourdough loaves are baked on Fridays and cost 6 euros.';
const PARKING_ANSWER = 'Park for free in the yard behind the shop.';

describe('curated answers: the owner\'s own answers win before retrieval (real server, real model)', { timeout: 300_000 }, () => {
  let server: RunningServer & { key: string };
  let widget: WidgetRecord;
  let owner: AdminClient;
  let member: AdminClient;
  let visitors = 0;
  let sourdough: CuratedAnswerView;

  before(async () => {
    ({ server, widget, owner, member } = await startBakeryShop());
  });
  after(() => server.stop());

  async function visitorAsks(question: string) {
    const headers = { origin: ORIGIN, 'x-forwarded-for': `10.2.0.${++visitors}`, 'content-type': 'application/json' };
    const session = await fetch(`${server.url}/v1/widget/${widget.id}/sessions`, { method: 'POST', headers });
    assert.equal(session.status, 201);
    const { token } = visitorSessionSchema.parse(await session.json());
    const res = await fetch(`${server.url}/v1/widget/${widget.id}/ask`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${token}` }, body: JSON.stringify({ question }) });
    assert.equal(res.status, 200);
    return (await readEvents(res)).find((e) => e.event === 'done')!.data as { answered: boolean; answer: string; citations: unknown[]; source?: string };
  }
  const apiAsks = async (question: string) => {
    const res = await api(server, 'POST', `/knowledge-bases/${KB}/ask`, { question });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return askResponseSchema.parse(res.body);
  };

  it('lets the Owner add, edit and delete answers; Members only read; bad input is refused in the error shape', async () => {
    const body = { question: 'Do you sell sourdough bread?', answer: SOURDOUGH_ANSWER };
    assert.equal((await member.post(`/knowledge-bases/${KB}/answers`, body)).statusCode, 403);
    const wrongCsrf = await owner.post(`/knowledge-bases/${KB}/answers`, body, { 'x-localiq-csrf': 'not-the-token' });
    assert.equal(wrongCsrf.statusCode, 403, 'a write without the session\'s CSRF token is refused');
    const empty = await owner.post(`/knowledge-bases/${KB}/answers`, { question: 'x', answer: '' });
    assert.equal(empty.statusCode, 400);
    assert.equal(empty.json().code, 'invalid_body');
    assert.equal((await owner.post('/knowledge-bases/no-such-kb/answers', body)).statusCode, 404);

    const created = await owner.post(`/knowledge-bases/${KB}/answers`, body);
    assert.equal(created.statusCode, 201, created.body);
    sourdough = created.json() as CuratedAnswerView;
    assert.deepEqual({ question: sourdough.question, answer: sourdough.answer, alsoAsked: sourdough.alsoAsked }, { ...body, alsoAsked: [] });
    const parking = (await owner.post(`/knowledge-bases/${KB}/answers`, { question: 'Where can I park?', answer: 'Ask inside.', alsoAsked: ['Is there a car park?'] })).json() as CuratedAnswerView;
    const patched = await owner.patch(`/knowledge-bases/${KB}/answers/${parking.id}`, { answer: PARKING_ANSWER });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual((patched.json() as CuratedAnswerView).alsoAsked, ['Is there a car park?'], 'PATCH keeps what it was not sent');
    const listed = (await member.get(`/knowledge-bases/${KB}/answers`)).json() as CuratedAnswerList;
    assert.deepEqual(listed.data.map((a) => a.answer), [SOURDOUGH_ANSWER, PARKING_ANSWER]);

    const doomed = (await owner.post(`/knowledge-bases/${KB}/answers`, { question: 'Do you sell coffee?', answer: 'No.' })).json() as CuratedAnswerView;
    assert.equal((await member.delete(`/knowledge-bases/${KB}/answers/${doomed.id}`)).statusCode, 403);
    assert.equal((await owner.delete(`/knowledge-bases/${KB}/answers/${doomed.id}`)).statusCode, 204);
    const gone = await owner.delete(`/knowledge-bases/${KB}/answers/${doomed.id}`);
    assert.equal(gone.statusCode, 404);
    assert.equal(gone.json().code, 'not_found');
    assert.equal((await owner.put(`/knowledge-bases/${KB}/answers/${doomed.id}`, { question: 'q', answer: 'a' })).statusCode, 404);
  });

  it('answers a rephrasing with the curated answer on the API ask, without retrieval', async () => {
    const res = await apiAsks('is there any sourdough bread for sale?');
    assert.deepEqual({ answer: res.answer, answered: res.answered, source: res.source, citations: res.citations }, { answer: SOURDOUGH_ANSWER, answered: true, source: 'owner', citations: [] });
    const byAlsoAsked = await apiAsks('is there a car park nearby?');
    assert.equal(byAlsoAsked.answer, PARKING_ANSWER);
  });

  it('answers a rephrasing with the curated answer on the visitor ask', async () => {
    const done = await visitorAsks('Can I buy sourdough bread from you?');
    assert.deepEqual({ answer: done.answer, answered: done.answered, source: done.source, citations: done.citations }, { answer: SOURDOUGH_ANSWER, answered: true, source: 'owner', citations: [] });
  });

  it('learns a visitor\'s wording the owner confirms: it joins alsoAsked and is matched from the next question', async () => {
    const parking = ((await member.get(`/knowledge-bases/${KB}/answers`)).json() as CuratedAnswerList).data.find((a) => a.answer === PARKING_ANSWER)!;
    const wording = 'Where do I leave my van while I am buying bread?';
    assert.notEqual((await apiAsks(wording)).source, 'owner', 'not matched before the owner confirms it');
    const link = `/knowledge-bases/${KB}/answers/${parking.id}/also-asked`;
    assert.equal((await member.post(link, { question: wording })).statusCode, 403);
    const learned = await owner.post(link, { question: wording });
    assert.equal(learned.statusCode, 200, learned.body);
    assert.deepEqual((learned.json() as CuratedAnswerView).alsoAsked, ['Is there a car park?', wording]);
    const again = await owner.post(link, { question: `  ${wording.toUpperCase()} ` });
    assert.deepEqual((again.json() as CuratedAnswerView).alsoAsked, ['Is there a car park?', wording], 'a wording it holds changes nothing');
    const done = await visitorAsks('where do I leave my van while I am buying bread');
    assert.deepEqual({ answer: done.answer, source: done.source }, { answer: PARKING_ANSWER, source: 'owner' });

    const empty = await owner.post(link, { question: ' ' });
    assert.deepEqual([empty.statusCode, empty.json().code], [400, 'invalid_body']);
    const missing = await owner.post(`/knowledge-bases/${KB}/answers/999999/also-asked`, { question: wording });
    assert.deepEqual([missing.statusCode, missing.json().code], [404, 'not_found']);
    const full = (await owner.post(`/knowledge-bases/${KB}/answers`, { question: 'Do you sell rye?', answer: 'Yes.', alsoAsked: Array.from({ length: 50 }, (_, i) => `Rye bread ${i}?`) })).json() as CuratedAnswerView;
    const refused = await owner.post(`/knowledge-bases/${KB}/answers/${full.id}/also-asked`, { question: 'Any rye today?' });
    assert.deepEqual([refused.statusCode, refused.json().code], [409, 'conflict']);
    assert.equal((await owner.delete(`/knowledge-bases/${KB}/answers/${full.id}`)).statusCode, 204);
  });

  it('leaves an unrelated question to retrieval, on both asks', async () => {
    const res = await apiAsks('When does the bakery open on Sundays?');
    assert.equal(res.source, undefined);
    assert.equal(res.answered, true);
    assert.ok(res.citations.some((c) => c.title === 'Opening hours'), JSON.stringify(res.citations));
    const done = await visitorAsks('How much does delivery cost?');
    assert.equal(done.source, undefined);
    assert.ok(done.citations.length > 0 && done.answer !== PARKING_ANSWER && done.answer !== SOURDOUGH_ANSWER);
  });

  it('gives the edited answer after an edit, and retrieval again after a delete', async () => {
    const edited = 'Sourdough is sold out until March.';
    assert.equal((await owner.put(`/knowledge-bases/${KB}/answers/${sourdough.id}`, { question: sourdough.question, answer: edited })).statusCode, 200);
    assert.equal((await apiAsks('is there any sourdough bread for sale?')).answer, edited);
    assert.equal((await owner.delete(`/knowledge-bases/${KB}/answers/${sourdough.id}`)).statusCode, 204);
    assert.equal((await apiAsks('is there any sourdough bread for sale?')).source, undefined);
  });

  it('makes a curated answer when the owner writes a content gap\'s answer', async () => {
    const question = 'Do you bake croissants?';
    assert.equal((await visitorAsks(question)).answered, false);
    const report = (await member.get('/content-gaps')).json() as AdminContentGapReport;
    const group = report.data.find((g) => g.examples.some((e) => e.question === question))!;
    assert.ok(group, JSON.stringify(report.data));
    const content = 'Yes, butter croissants every morning from 7.';
    const res = await owner.post(`/content-gaps/${group.id}/answer`, { title: 'Croissants', content });
    assert.equal(res.statusCode, 202, res.body);
    const written = res.json() as WriteAnswerResult;
    assert.ok(written.curatedAnswerId);
    const listed = (await member.get(`/knowledge-bases/${KB}/answers`)).json() as CuratedAnswerList;
    assert.deepEqual(listed.data.find((a) => a.id === written.curatedAnswerId)?.answer, content);
    const done = await visitorAsks('do you make croissants?');
    assert.deepEqual({ answer: done.answer, source: done.source }, { answer: content, source: 'owner' });
  });

  it('are listed, added and deleted by `localiq answers` on the same database; the running server matches with them at the next question', async () => {
    /** The command as the CLI runs it, on this server's services; its output captured. */
    const cli = async (...args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const [write, writeErr] = [process.stdout.write, process.stderr.write];
      process.stdout.write = ((chunk: string) => out.push(chunk) > 0) as typeof process.stdout.write;
      process.stderr.write = ((chunk: string) => err.push(chunk) > 0) as typeof process.stderr.write;
      try {
        const status = await answersCommand(args, async (run) => run(server.services), (message) => new Error(message));
        return { status, stdout: out.join(''), stderr: err.join('') };
      } finally {
        process.stdout.write = write;
        process.stderr.write = writeErr;
      }
    };
    const added = await cli('add', '--knowledge-base', KB, '--question', 'Do you take cards?', '--answer', 'Yes, all cards and cash.', '--also-asked', 'Can I pay by card?');
    assert.equal(added.status, 0, added.stderr);
    const id = Number(/curated answer (\d+)/.exec(added.stdout)![1]);
    assert.match((await cli('list', '--knowledge-base', KB)).stdout, /Do you take cards\? \(also asked: Can I pay by card\?\)\n\tYes, all cards and cash\./);
    assert.equal((await apiAsks('can i pay with a credit card?')).answer, 'Yes, all cards and cash.');
    const refused = await cli('add', '--knowledge-base', KB, '--question', 'No answer?');
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /--answer: /);
    assert.match((await cli('list', '--knowledge-base', 'kb-nowhere')).stderr, /no knowledge base "kb-nowhere"/);
    await assert.rejects(cli('delete', '--knowledge-base', KB), /needs the id/);
    assert.equal((await cli('delete', '--knowledge-base', KB, String(id))).status, 0);
    assert.equal((await cli('delete', '--knowledge-base', KB, String(id))).status, 1);
    assert.equal((await apiAsks('can i pay with a credit card?')).source, undefined, 'deleted: retrieval answers again');
  });

  it('notices answers written to the database by another process (the CLI beside a running server)', async () => {
    // Another repo on the database, as `localiq answers` in its own process has: the server's matcher is not told.
    const elsewhere = new CuratedAnswerRepo(server.services.db);
    assert.equal((await apiAsks('do you have a gift card?')).source, undefined);
    const record = elsewhere.insert(KB, { question: 'Do you sell gift cards?', answer: 'Gift cards of 10 to 100 euros, at the till.', alsoAsked: [] }, Date.now());
    assert.equal((await apiAsks('do you have a gift card?')).answer, record.answer);
    elsewhere.update(KB, record.id, { ...record, answer: 'Gift cards at the till.' }, record.updatedAt);
    assert.equal((await apiAsks('do you have a gift card?')).answer, 'Gift cards at the till.', 'an edit in the same millisecond is noticed too');
    elsewhere.delete(KB, record.id);
    assert.equal((await apiAsks('do you have a gift card?')).source, undefined);
  });
});
