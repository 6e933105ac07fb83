import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KEYWORD_LANGUAGES } from '../../../../common/contract/knowledge.ts';
import { isAnalyzed, keywordTerms, keywordText } from '../../../../server/language/keyword-language.ts';

describe('keyword languages', () => {
  it('reduces inflected forms to one Snowball stem', () => {
    assert.deepEqual(keywordTerms('de', 'Jacke Jacken'), ['jack', 'jack']);
    assert.deepEqual(keywordTerms('fr', 'chaussure chaussures'), ['chaussur', 'chaussur']);
    assert.deepEqual(keywordTerms('es', 'zapato zapatos'), ['zapat', 'zapat']);
    assert.deepEqual(keywordTerms('it', 'scarpa scarpe'), ['scarp', 'scarp']);
    assert.deepEqual(keywordTerms('nl', 'schoen schoenen'), ['schoen', 'schoen']);
    assert.deepEqual(keywordTerms('pt', 'sapato sapatos'), ['sapat', 'sapat']);
    assert.deepEqual(keywordTerms('sv', 'jacka jackor'), ['jack', 'jack']);
  });

  it('folds diacritics where the language expects them to be left out, before stemming, so both spellings meet', () => {
    assert.deepEqual(keywordTerms('de', 'Öffnungszeiten'), keywordTerms('de', 'Offnungszeiten'));
    assert.deepEqual(keywordTerms('de', 'Straße'), keywordTerms('de', 'strasse'));
    assert.deepEqual(keywordTerms('fr', 'électricité'), keywordTerms('fr', 'electricite'));
    assert.deepEqual(keywordTerms('fr', 'œuvre'), keywordTerms('fr', 'oeuvre'));
    assert.deepEqual(keywordTerms('es', 'canción'), keywordTerms('es', 'cancion'));
    assert.deepEqual(keywordTerms('pt', 'informação'), keywordTerms('pt', 'informacao'));
  });

  it('keeps the Swedish letters å, ä and ö, and folds other accents there', () => {
    assert.notDeepEqual(keywordTerms('sv', 'får'), keywordTerms('sv', 'far'));
    assert.deepEqual(keywordTerms('sv', 'öppettider'), ['öppettid']);
    assert.deepEqual(keywordTerms('sv', 'café'), keywordTerms('sv', 'cafe'));
  });

  it("leaves out the language's stop words, written with or without their accents", () => {
    assert.deepEqual(keywordTerms('de', 'Die Jacke und der Rucksack für den Winter'), ['jack', 'rucksack', 'wint']);
    assert.deepEqual(keywordTerms('de', 'fur die'), [], '"für" typed without its umlaut is still a stop word');
    assert.deepEqual(keywordTerms('fr', 'les chaussures de la boutique'), ['chaussur', 'boutiqu']);
    assert.deepEqual(keywordTerms('es', 'el y de la'), []);
  });

  it('cuts words as FTS5 does and keeps numbers; a table row is the terms joined by spaces', () => {
    assert.equal(keywordText('de', 'SKU-42: 4,90 Euro!'), 'sku 42 4 90 euro');
    assert.equal(keywordText('fr', ''), '');
  });

  it('analyzes every language but English, which FTS5 stems itself', () => {
    assert.deepEqual(KEYWORD_LANGUAGES.filter(isAnalyzed), ['de', 'fr', 'es', 'it', 'nl', 'pt', 'sv']);
  });
});
