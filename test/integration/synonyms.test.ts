import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { spawnSync } from 'node:child_process';
import type { RunningServer } from '../../server/main.ts';
import { AdminClient, signedInAs } from '../helpers/admin-client.ts';
import { api, startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';
import { CLI, cliEnv } from '../helpers/server-process.ts';

type Server = RunningServer & { key: string; dataDir: string };
const KB = 'kb-synonym-shop';

const PRODUCTS = [
  { externalId: 'velvet-sofa', title: 'Velvet sofa', content: 'A three seat velvet sofa in green.' },
  { externalId: 'linen-sofa', title: 'Linen sofa', content: 'A two seat linen sofa, washable covers.' },
  { externalId: 'corner-sofa', title: 'Corner sofa', content: 'A corner sofa for large rooms.' },
  { externalId: 'leather-couch', title: 'Leather couch', content: 'A brown leather couch with deep cushions.' },
  { externalId: 'oak-settee', title: 'Oak settee', content: 'A small oak settee for the hall.' },
  { externalId: 'sweatshirt', title: 'Grey sweatshirt', content: 'A brushed cotton sweatshirt with a round neck.' },
  { externalId: 'jumper', title: 'Wool jumper', content: 'A lambswool jumper, knitted in Scotland.' },
  { externalId: 'kids-hoodie', title: 'Kids hoodie', content: 'A zip hoodie for children, in red.' },
  { externalId: 't-shirt', title: 'Cotton T-shirt', content: 'An organic cotton T-shirt with short sleeves.' },
  { externalId: 'tee', title: 'Graphic tee', content: 'A printed tee with a mountain drawing.' },
  { externalId: 'flannel', title: 'Flannel shirt', content: 'Style T: a checked flannel shirt with long sleeves.' },
];

describe('synonyms per knowledge base (real pipeline, real SQLite, real HTTP)', { timeout: 240_000 }, () => {
  let server: Server;
  let owner: AdminClient;
  before(async () => {
    server = await startPipelineServer();
    const items = PRODUCTS.map((p) => ({
      integrationId: 'shop',
      knowledgeBaseId: KB,
      sourceType: 'PRODUCT',
      externalId: p.externalId,
      data: { title: p.title, content: p.content },
    }));
    assert.equal((await api(server, 'POST', '/ingest/bulk', { items })).status, 200);
    await waitForIdle(server, 120_000);
    owner = new AdminClient(server.app);
    assert.equal((await owner.post('/setup', { username: 'owner', password: 'owner password 1' })).statusCode, 201);
  });
  after(() => server.stop());

  const search = (query: string, mode = 'keyword') => api(server, 'POST', `/knowledge-bases/${KB}/search`, { query, mode, topK: 10 });
  const ids = async (query: string, mode = 'keyword'): Promise<string[]> => {
    const res = await search(query, mode);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.results.map((r: any) => r.externalId);
  };
  const setSynonyms = async (sets: unknown[]) => {
    const res = await owner.put(`/knowledge-bases/${KB}/synonyms`, { sets });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  it('takes a change into account from the next query on, with no re-index', async () => {
    assert.deepEqual(await ids('couch'), ['leather-couch']);
    await setSynonyms([{ synonyms: ['sofa', 'couch', 'settee'] }]);
    assert.deepEqual((await ids('couch')).sort(), ['corner-sofa', 'leather-couch', 'linen-sofa', 'oak-settee', 'velvet-sofa']);
    await setSynonyms([]);
    assert.deepEqual(await ids('couch'), ['leather-couch'], 'removed: the next query is as before');
  });

  it('multi-way: each term finds the others; one-way: the root finds its synonyms, not the reverse', async () => {
    await setSynonyms([{ synonyms: ['sofa', 'couch', 'settee'] }, { root: 'hoodie', synonyms: ['sweatshirt', 'jumper'] }]);
    for (const query of ['sofa', 'couch', 'settee']) {
      assert.deepEqual((await ids(query)).sort(), ['corner-sofa', 'leather-couch', 'linen-sofa', 'oak-settee', 'velvet-sofa'], query);
    }
    assert.deepEqual((await ids('hoodie')).sort(), ['jumper', 'kids-hoodie', 'sweatshirt']);
    assert.deepEqual(await ids('sweatshirt'), ['sweatshirt'], 'one-way: a synonym does not find the root');
    assert.deepEqual(await ids('jumper'), ['jumper']);
  });

  it('ranks items holding the word as typed above those found through a synonym, a rarer synonym too', async () => {
    await setSynonyms([{ synonyms: ['sofa', 'couch', 'settee'] }]);
    // "settee" and "couch" are each in one item, "sofa" in three: without the IDF cap, their rarity
    // would outweigh the 0.8 weight and put them above an item holding "sofa" itself.
    const sofa = await ids('sofa');
    assert.deepEqual(sofa.slice(0, 3).sort(), ['corner-sofa', 'linen-sofa', 'velvet-sofa']);
    assert.deepEqual(sofa.slice(3).sort(), ['leather-couch', 'oak-settee']);
    assert.equal((await ids('settee'))[0], 'oak-settee');
    assert.equal((await ids('couch'))[0], 'leather-couch');
    assert.equal((await ids('oak couch', 'keyword'))[0], 'oak-settee', 'every word first: "oak" as typed and "couch" as a synonym');
    for (const mode of ['hybrid', 'semantic']) {
      const hybrid = await ids('couch', mode);
      assert.ok(hybrid.includes('oak-settee'), `${mode}: ${hybrid}`);
      if (mode === 'hybrid') assert.equal(hybrid[0], 'leather-couch', 'hybrid keeps the exact match first');
    }
  });

  it('matches phrases as phrases, both as a query and as a synonym', async () => {
    await setSynonyms([{ synonyms: ['tee', 'T-Shirt'] }]);
    const stored = (await owner.get(`/knowledge-bases/${KB}/synonyms`)).json();
    assert.deepEqual(stored, { knowledgeBaseId: KB, sets: [{ synonyms: ['tee', 't shirt'] }] }, 'stored normalized');
    const tee = await ids('tee');
    assert.deepEqual(tee, ['tee', 't-shirt'], 'the phrase synonym finds the T-shirt, below the tee; not the flannel shirt with a "T" apart');
    const res = await search('tee');
    const passage = res.body.results[1].passages[0]?.text ?? '';
    assert.match(passage, /T-shirt/, 'the passage shown is chosen by the synonym too');
    const tShirt = await ids('t-shirt');
    assert.equal(tShirt[0], 't-shirt');
    assert.ok(tShirt.includes('tee'), `the phrase in the query adds its synonym: ${tShirt}`);
    await setSynonyms([]);
    assert.equal((await ids('t-shirt')).includes('tee'), false);
    assert.deepEqual(await ids('tee'), ['tee']);
  });

  it('lets the assistant find an answer through a synonym', async () => {
    await setSynonyms([{ root: 'hoodie', synonyms: ['sweatshirt'] }]);
    const res = await api(server, 'POST', `/knowledge-bases/${KB}/ask`, { question: 'Is there a hoodie with a round neck?' });
    assert.equal(res.status, 200);
    assert.equal(res.body.answered, true, res.body.answer);
    assert.equal(res.body.citations[0]?.externalId, 'sweatshirt', JSON.stringify(res.body.citations));
    assert.equal('correctedQuery' in res.body, false, 'a word with synonyms is the shop\'s word: not corrected as a typo');
  });

  it('refuses invalid sets with the error shape, and keeps what was stored', async () => {
    await setSynonyms([{ synonyms: ['sofa', 'couch'] }]);
    const refused = async (sets: unknown, pattern: RegExp) => {
      const res = await owner.put(`/knowledge-bases/${KB}/synonyms`, { sets });
      assert.equal(res.statusCode, 400, res.body);
      const body = res.json();
      assert.equal(body.code, 'invalid_body', res.body);
      assert.match(JSON.stringify(body.details), pattern, res.body);
    };
    await refused([{ synonyms: ['sofa'] }], /at least two terms/);
    await refused([{ synonyms: ['sofa', '  '] }], /empty terms/);
    await refused([{ synonyms: ['sofa', '!!'] }], /letter or a digit/);
    await refused([{ root: 'hoodie', synonyms: [] }], /at least one synonym/);
    await refused([{ root: 'hoodie', synonyms: ['Hoodie'] }], /root among its synonyms/);
    await refused([{ synonyms: ['sofa', 'Sofa '] }], /appears twice/);
    await refused([{ synonyms: ['sofa', 'a very long phrase of words'] }], /at most 4 words/);
    await refused([{ synonyms: ['sofa', 'x'.repeat(61)] }], /at most 60 characters/);
    await refused([{ synonyms: Array.from({ length: 21 }, (_, i) => `term${i}`) }], /at most 20 terms/);
    await refused(Array.from({ length: 1001 }, (_, i) => ({ synonyms: [`a${i}`, `b${i}`] })), /at most 1000 synonym sets/);
    await refused([{ synonyms: ['sofa', 'couch'], extra: 1 }], /extra/);
    assert.deepEqual((await owner.get(`/knowledge-bases/${KB}/synonyms`)).json().sets, [{ synonyms: ['sofa', 'couch'] }], 'nothing stored was lost');
    assert.equal((await owner.get('/knowledge-bases/kb-nowhere/synonyms')).statusCode, 404);
    assert.equal((await owner.put('/knowledge-bases/kb-nowhere/synonyms', { sets: [] })).statusCode, 404);
  });

  it('are set, listed and deleted by `localiq synonyms` beside the running server, which uses them at the next query', async () => {
    const cli = (args: string[], input?: string) => spawnSync(process.execPath, [CLI, 'synonyms', ...args, '--knowledge-base', KB], { env: cliEnv(server.dataDir), encoding: 'utf8', input });
    await setSynonyms([]);
    const set = cli(['set', '-'], '# furniture\nsofa, couch\nhoodie => jumper\n');
    assert.equal(set.status, 0, set.stderr);
    assert.match(set.stdout, /2 synonym set\(s\)/);
    assert.deepEqual((await ids('hoodie')).sort(), ['jumper', 'kids-hoodie'], 'the server read the new sets at the next query');
    assert.equal(cli(['list']).stdout, 'sofa, couch\nhoodie => jumper\n');
    const refused = cli(['set', '-'], 'sofa\nsofa, couch, sofa\n');
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /Line 1: A multi-way set \(no root\) needs at least two terms\./);
    assert.match(refused.stderr, /Line 2: The term "sofa" appears twice in this set\./);
    assert.equal(JSON.parse(cli(['list', '--json']).stdout).sets.length, 2, 'a refused file changes nothing');
    const json = cli(['set', '-'], JSON.stringify({ sets: [{ root: 'hoodie', synonyms: ['sweatshirt'] }] }));
    assert.equal(json.status, 0, json.stderr);
    assert.deepEqual((await ids('hoodie')).sort(), ['kids-hoodie', 'sweatshirt']);
    assert.equal(cli(['delete']).status, 0);
    assert.deepEqual(await ids('hoodie'), ['kids-hoodie']);
    const unknown = spawnSync(process.execPath, [CLI, 'synonyms', 'list', '--knowledge-base', 'kb-nowhere'], { env: cliEnv(server.dataDir), encoding: 'utf8' });
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /no knowledge base "kb-nowhere"/);
  });

  it('lets Owners and Admins change synonyms, Members only read them', async () => {
    await setSynonyms([{ synonyms: ['sofa', 'couch'] }]);
    const member = await signedInAs(owner, server.app, 'member');
    const admin = await signedInAs(owner, server.app, 'admin');
    assert.equal((await member.get(`/knowledge-bases/${KB}/synonyms`)).statusCode, 200);
    assert.equal((await member.put(`/knowledge-bases/${KB}/synonyms`, { sets: [] })).statusCode, 403);
    assert.equal((await member.delete(`/knowledge-bases/${KB}/synonyms`)).statusCode, 403);
    assert.equal((await ids('couch')).length, 4, 'the member changed nothing');
    assert.equal((await admin.put(`/knowledge-bases/${KB}/synonyms`, { sets: [{ synonyms: ['sofa', 'settee'] }] })).statusCode, 200);
    const deleted = await admin.delete(`/knowledge-bases/${KB}/synonyms`);
    assert.equal(deleted.statusCode, 200);
    assert.deepEqual(deleted.json(), { knowledgeBaseId: KB, sets: [] });
    assert.deepEqual(await ids('settee'), ['oak-settee']);
    const anonymous = new AdminClient(server.app);
    assert.equal((await anonymous.get(`/knowledge-bases/${KB}/synonyms`)).statusCode, 401);
  });
});
