/**
 * The page a question is asked on (`context: { url?, externalId? }`) and the one way to ask, on
 * the real server with its pipeline and model, over real HTTP: the API, the dashboard's chat and
 * a widget's visitors, each answering "how long is this?" about the page's product; synonyms
 * changing answers as they change search; each knowledge base searched once per question.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { errorSchema } from '../../common/contract/errors.ts';
import { visitorSessionSchema } from '../../common/contract/widget.ts';
import type { WidgetRecord } from '../../server/domain/widgets.ts';
import type { RunningServer } from '../../server/main.ts';
import { AdminClient } from '../helpers/admin-client.ts';
import { readEvents, type SseEvent } from '../helpers/ask-fixtures.ts';
import { api, startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';

type Server = RunningServer & { key: string; dataDir: string };

const KB = 'kb-scarf-shop';
const OTHER_KB = 'kb-scarf-journal';
const ORIGIN = 'https://shop.example';
const ROOMY = { visitorQuestionsPerMinute: 600, widgetQuestionsPerMinute: 6_000, dailyQuestions: 1_000_000 };

const ITEMS = [
  {
    sourceType: 'PRODUCT', externalId: 'alpine-scarf',
    data: {
      title: 'Alpine wool scarf',
      content: 'A warm merino scarf knitted in the Alps, with fringed ends. It is 180 cm long and 30 cm wide.',
      url: 'https://shop.example/products/alpine-scarf',
      sourceData: { price: 49, currency: 'EUR' },
    },
  },
  {
    sourceType: 'PRODUCT', externalId: 'coastal-scarf',
    data: {
      title: 'Coastal linen scarf',
      content: 'A light linen scarf for summer evenings by the sea. It is 150 cm long and 45 cm wide.',
      url: 'https://shop.example/products/coastal-scarf',
      sourceData: { price: '29.00 EUR' },
    },
  },
  {
    sourceType: 'PRODUCT', externalId: 'floor-lamp',
    data: {
      title: 'Brass floor lamp',
      content: 'A brass reading lamp with a linen shade and a dimmer in the cord. It comes with two warm white bulbs.\n\nShade: linen\nOutdoor use: no\nBulbs: 2 x E27 LED',
      url: 'https://shop.example/products/floor-lamp',
      sourceData: { price: '189 EUR', height: '150 cm', weight: '6.5 kg' },
    },
  },
  {
    sourceType: 'PRODUCT', externalId: 'cinnamon-bun',
    data: { title: 'Cinnamon bun', content: 'A soft cinnamon bun with cardamom sugar, baked every morning. A cinnamon bun costs 3.20 EUR.' },
  },
  {
    sourceType: 'ARTICLE', externalId: 'delivery',
    data: { title: 'Delivery', content: 'We deliver every order within three working days. Delivery is free from 40 EUR.', url: 'https://shop.example/delivery' },
  },
];

describe('asking with the page as context, one way for every asker (real server, real model)', { timeout: 300_000 }, () => {
  let server: Server;
  let owner: AdminClient;
  let widget: WidgetRecord;
  before(async () => {
    server = await startPipelineServer();
    const items = [
      ...ITEMS.map((item) => ({ integrationId: 'shop', knowledgeBaseId: KB, ...item })),
      {
        integrationId: 'blog', knowledgeBaseId: OTHER_KB, sourceType: 'ARTICLE', externalId: 'knitting',
        data: { title: 'How our scarves are knitted', content: 'Every scarf is knitted on a hand-driven machine in a small workshop.' },
      },
    ];
    assert.equal((await api(server, 'POST', '/ingest/bulk', { items })).status, 200);
    await waitForIdle(server, 120_000);
    owner = new AdminClient(server.app);
    assert.equal((await owner.post('/setup', { username: 'owner', password: 'owner password 1' })).statusCode, 201);
    widget = server.services.widgets.create({ name: 'Scarves', knowledgeBaseIds: [KB, OTHER_KB], allowedOrigins: [ORIGIN], limits: ROOMY });
  });
  after(() => server.stop());

  const ask = (body: object) => api(server, 'POST', `/knowledge-bases/${KB}/ask`, body);
  const visitorCall = async (widgetId: string, route: string, body: unknown, token?: string) =>
    fetch(`${server.url}/v1/widget/${widgetId}/${route}`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  const visitorAsk = async (w: WidgetRecord, body: object): Promise<any> => {
    const session = await visitorCall(w.id, 'sessions', {});
    assert.equal(session.status, 201);
    const { token } = visitorSessionSchema.parse(await session.json());
    const res = await visitorCall(w.id, 'ask', body, token);
    assert.equal(res.status, 200, await res.clone().text());
    const events: SseEvent[] = await readEvents(res);
    return events.find((e) => e.event === 'done')!.data;
  };

  describe('the API', () => {
    it('answers "how long is this?" about the page\'s item, found by its address as written in any case, with a slash, query or fragment', async () => {
      for (const [url, expected, length] of [
        ['HTTPS://Shop.Example/products/coastal-scarf/?utm_source=mail#reviews', 'coastal-scarf', /150 cm/],
        ['https://shop.example/products/alpine-scarf', 'alpine-scarf', /180 cm/],
      ] as const) {
        const res = await ask({ question: 'how long is this?', context: { url } });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.answered, true, `${url} → ${res.body.answer}`);
        assert.match(res.body.answer, length);
        assert.doesNotMatch(res.body.answer, expected === 'alpine-scarf' ? /150 cm/ : /180 cm/, 'the other product is not mixed in');
        assert.deepEqual(res.body.citations.map((c: any) => c.externalId), [expected], 'the answer says which item it is about');
      }
    });

    it('answers "how tall/heavy is it?" with the page item\'s attribute for that dimension, though they share no word', async () => {
      for (const [question, expected] of [['how tall is it?', /Height: 150 cm/], ['How heavy is this?', /Weight: 6\.5 kg/]] as const) {
        const res = await ask({ question, context: { externalId: 'floor-lamp' } });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.answered, true, `${question} → ${res.body.answer}`);
        assert.match(res.body.answer, expected);
        assert.deepEqual(res.body.citations.map((c: any) => c.externalId), ['floor-lamp']);
      }
    });

    it('answers "can this go outdoors?" with the page item\'s attribute whose label holds what is asked', async () => {
      const res = await ask({ question: 'can this go outdoors?', context: { externalId: 'floor-lamp' } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.answered, true, res.body.answer);
      assert.match(res.body.answer, /Outdoor use: no/);
      assert.deepEqual(res.body.citations.map((c: any) => c.externalId), ['floor-lamp']);
    });

    it('keeps a sentence of the item that already says what is asked before its label line', async () => {
      const res = await ask({ question: 'does it come with bulbs?', context: { externalId: 'floor-lamp' } });
      assert.equal(res.body.answered, true, res.body.answer);
      assert.match(res.body.answer, /comes with two warm white bulbs/);
    });

    it('names the item by its external id, which wins over the address', async () => {
      const res = await ask({ question: 'Is it long?', context: { externalId: 'alpine-scarf', url: 'https://shop.example/products/coastal-scarf' } });
      assert.equal(res.body.citations[0]?.externalId, 'alpine-scarf', res.body.answer);
      assert.match(res.body.answer, /180 cm/);
    });

    it("answers \"and how wide is it?\" about the page's item, not the one the conversation was about", async () => {
      const conversation = [
        { role: 'user', content: 'How long is the alpine scarf?' },
        { role: 'assistant', content: 'It is 180 cm long and 30 cm wide. [1]' },
      ];
      const res = await ask({ question: 'and how wide is it?', conversation, context: { externalId: 'coastal-scarf' } });
      assert.equal(res.body.citations[0]?.externalId, 'coastal-scarf', res.body.answer);
      assert.match(res.body.answer, /45 cm wide/);
      assert.doesNotMatch(res.body.answer, /30 cm/);
    });

    it('still searches the whole knowledge base for a question that names its own subject', async () => {
      const res = await ask({ question: 'How many working days does delivery take?', context: { externalId: 'alpine-scarf' } });
      assert.equal(res.body.answered, true, res.body.answer);
      assert.match(res.body.answer, /three working days/);
      assert.equal(res.body.citations[0]?.externalId, 'delivery');
      // "it" points back, yet the question names its own subject: searched like any other.
      const own = await ask({ question: 'Can you deliver it within three working days?', context: { externalId: 'alpine-scarf' } });
      assert.equal(own.body.answered, true, own.body.answer);
      assert.match(own.body.answer, /three working days/);
      assert.equal(own.body.citations[0]?.externalId, 'delivery');
    });

    it('ignores an item no one pushed and an address no item has: the question is answered from the whole knowledge base', async () => {
      const plain = await ask({ question: 'How long is the coastal linen scarf?' });
      for (const context of [{ externalId: 'no-such-item' }, { url: 'https://shop.example/products/gone' }]) {
        const res = await ask({ question: 'How long is the coastal linen scarf?', context });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.answer, plain.body.answer);
        assert.deepEqual(res.body.citations, plain.body.citations);
      }
    });

    it('refuses an address over 2,048 characters, or one that is not http(s), in the error shape', async () => {
      for (const url of [`https://shop.example/${'a'.repeat(2_048)}`, 'javascript:alert(1)', 'not a url']) {
        const res = await ask({ question: 'how long is this?', context: { url } });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        errorSchema.parse(res.body);
        assert.equal(res.body.code, 'invalid_body');
        assert.match(JSON.stringify(res.body.details ?? res.body.message), /context/);
      }
      const unknownField = await ask({ question: 'how long is this?', context: { sku: 'x' } });
      assert.equal(unknownField.status, 400);
    });
  });

  it("the dashboard's chat answers from the page's item too, and keeps the turn", async () => {
    const res = await owner.post(`/knowledge-bases/${KB}/ask`, { question: 'how long is this?', context: { externalId: 'coastal-scarf' } });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.match(body.answer, /150 cm/);
    assert.equal(body.citations[0].externalId, 'coastal-scarf');
    assert.match(body.conversationId, /^dc_/);
    assert.match(body.answerId, /^ans_/);
  });

  describe('a visitor', () => {
    it('on a product page is answered about that product, with the product card (title, price, link)', async () => {
      const done = await visitorAsk(widget, { question: 'how long is this?', context: { url: 'https://shop.example/products/coastal-scarf' } });
      assert.equal(done.answered, true, done.answer);
      assert.match(done.answer, /150 cm/);
      assert.deepEqual(done.product, { title: 'Coastal linen scarf', price: '29.00 EUR', url: 'https://shop.example/products/coastal-scarf' });
      const byId = await visitorAsk(widget, { question: 'how long is this?', context: { externalId: 'alpine-scarf' } });
      assert.deepEqual(byId.product, { title: 'Alpine wool scarf', price: '49.00 EUR', url: 'https://shop.example/products/alpine-scarf' });
    });

    it("whose widget does not send the page's address is answered as if no address were given", async () => {
      const quiet = server.services.widgets.create({ name: 'Quiet', knowledgeBaseIds: [KB], allowedOrigins: [ORIGIN], limits: ROOMY, sendPageUrl: false });
      const question = 'how long is this?';
      const plain = await visitorAsk(quiet, { question });
      const withUrl = await visitorAsk(quiet, { question, context: { url: 'https://shop.example/products/coastal-scarf' } });
      assert.equal(withUrl.answer, plain.answer);
      assert.deepEqual(withUrl.citations, plain.citations);
      const named = await visitorAsk(quiet, { question, context: { externalId: 'coastal-scarf' } });
      assert.match(named.answer, /150 cm/, 'an item the snippet names is still used');
    });

    it('reads the fallback message when not answered, told so by the outcome rather than the wording', async () => {
      const done = await visitorAsk(widget, { question: 'Which NFL team won Super Bowl 50?' });
      assert.equal(done.answered, false);
      assert.equal(done.answer, widget.fallbackMessage);
      assert.deepEqual(done.citations, []);
      assert.equal(done.product, undefined);
    });
  });

  describe('one way to ask', () => {
    it("answers with the owner's synonyms as search reads them: \"cinammon => cinnamon\"", async () => {
      server.services.search.replaceSynonyms(KB, [{ root: 'cinammon', synonyms: ['cinnamon'] }]);
      try {
        const search = await api(server, 'POST', `/knowledge-bases/${KB}/search`, { query: 'how much is a cinammon bun', mode: 'keyword' });
        assert.equal(search.body.results[0]?.externalId, 'cinnamon-bun');
        const res = await ask({ question: 'how much is a cinammon bun' });
        assert.equal(res.body.answered, true, res.body.answer);
        assert.match(res.body.answer, /3\.20 EUR/);
        assert.equal(res.body.citations[0]?.externalId, 'cinnamon-bun');
      } finally {
        server.services.search.replaceSynonyms(KB, []);
      }
    });

    it('searches each knowledge base once per question: the API one, a widget with two both', async () => {
      const search = server.services.search;
      const original = search.searchWithVector.bind(search);
      const searched: string[] = [];
      search.searchWithVector = (knowledgeBaseId, ...rest) => {
        searched.push(knowledgeBaseId);
        return original(knowledgeBaseId, ...rest);
      };
      try {
        await ask({ question: 'How wide is the alpine wool scarf?' });
        assert.deepEqual(searched, [KB]);
        searched.length = 0;
        const done = await visitorAsk(widget, { question: 'How wide is the alpine wool scarf?' });
        assert.match(done.answer, /30 cm wide/);
        assert.deepEqual(searched.sort(), [OTHER_KB, KB].sort());
      } finally {
        search.searchWithVector = original;
      }
    });
  });
});
