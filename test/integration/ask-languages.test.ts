import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { askResponseSchema } from '../../common/contract/ask.ts';
import type { RunningServer } from '../../server/main.ts';
import { type CatalogueItem, pushedItems, FRENCH_ITEMS, FRENCH_KB, GERMAN_ITEMS, GERMAN_KB } from '../helpers/language-fixtures.ts';
import { api, startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';

type Server = RunningServer & { key: string };

/** A product with a price sentence, beside the catalogue's own items. */
const SOCKS: CatalogueItem = {
  externalId: 'socken',
  sourceType: 'PRODUCT',
  title: 'Wandersocken',
  content: 'Socken aus Merinowolle, an den Fersen verstärkt. Ein Paar kostet 14 Euro.',
};

/** Questions each catalogue answers: the item to cite first and what its quoted sentence says. */
const GERMAN_ANSWERS: Array<[question: string, item: string, says: RegExp]> = [
  ['Was kosten die Socken?', 'socken', /Ein Paar kostet 14 Euro\. \[1\]/],
  ['Was kostet der Versand?', 'versand', /sonst kostet er 4,90 Euro/],
  ['Wann haben die Filialen an Feiertagen geöffnet?', 'feiertage', /von 10 bis 16 Uhr geöffnet/],
  ['Kann ich ungetragene Artikel zurückgeben?', 'rueckgabe', /innerhalb von 30 Tagen zurück/],
  ['Bis wie viel Grad wärmt der Schlafsack?', 'schlafsack', /minus 10 Grad/],
];
const FRENCH_ANSWERS: Array<[question: string, item: string, says: RegExp]> = [
  ['Combien coûte la livraison ?', 'livraison', /elle coûte 4,90 euros/],
  ['Êtes-vous ouverts les jours fériés ?', 'feries', /de 10 h à 16 h les jours fériés/],
  ['Puis-je renvoyer un article non porté ?', 'retours', /sous 30 jours/],
  ['La lampe frontale est-elle rechargeable ?', 'lampe', /puissante et rechargeable/],
];
/** Questions in the catalogue's language that nothing in it answers. */
const GERMAN_UNANSWERABLE = ['Liefern Sie nach Island?', 'Verkaufen Sie Fahrräder?', 'Gibt es einen Kundenparkplatz?'];
const FRENCH_UNANSWERABLE = ['Livrez-vous en Islande ?', 'Vendez-vous des vélos ?', 'Avez-vous un parking pour les clients ?'];

describe('the extractive assistant in a knowledge base\'s language (real pipeline, model and SQLite)', { timeout: 240_000 }, () => {
  let server: Server;
  before(async () => {
    server = await startPipelineServer();
    const items = [...pushedItems(GERMAN_KB, [...GERMAN_ITEMS, SOCKS]), ...pushedItems(FRENCH_KB, FRENCH_ITEMS)];
    assert.equal((await api(server, 'POST', '/ingest/bulk', { items })).status, 200);
    await waitForIdle(server, 120_000);
  });
  after(() => server.stop());

  const ask = async (kb: string, question: string) => {
    const res = await api(server, 'POST', `/knowledge-bases/${kb}/ask`, { question });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return askResponseSchema.parse(res.body);
  };
  const setLanguage = async (kb: string, language: 'de' | 'fr') => {
    server.services.search.updateKnowledgeBaseSettings(kb, { language });
    await server.services.keywordReindexer.idle();
    assert.equal(server.services.search.keywordIndex(kb).language, language);
  };

  it('answers German and French questions by quoting the right item\'s sentence and citing it', async () => {
    await setLanguage(GERMAN_KB, 'de');
    await setLanguage(FRENCH_KB, 'fr');
    for (const [kb, questions] of [[GERMAN_KB, GERMAN_ANSWERS], [FRENCH_KB, FRENCH_ANSWERS]] as const) {
      for (const [question, item, says] of questions) {
        const res = await ask(kb, question);
        assert.equal(res.answered, true, `${question} → ${res.answer}`);
        assert.equal(res.method, 'extractive');
        assert.equal(res.citations[0]?.externalId, item, `${question} → ${res.answer}`);
        assert.match(res.answer, says, question);
        assert.ok(res.answer.length < 400, `quoted sentences, not the catalogue: ${res.answer}`);
      }
    }
  });

  it('abstains on questions in the language that the catalogue cannot answer', async () => {
    for (const [kb, questions] of [[GERMAN_KB, GERMAN_UNANSWERABLE], [FRENCH_KB, FRENCH_UNANSWERABLE]] as const) {
      for (const question of questions) {
        const res = await ask(kb, question);
        assert.equal(res.answered, false, `${question} → ${res.answer}`);
        assert.deepEqual(res.citations, []);
      }
    }
  });
});
