import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { mapRecord, parseMapping, parseMappingSpec, titleFromContent, type ImportTarget } from '../../../../common/import/import-mapping.ts';
import { ingestItemSchema, SOURCE_TYPES } from '../../../../common/contract/ingest.ts';
import { SAMPLE_ITEMS } from '../../../../common/import/sample-items.ts';
import { delimiterFromName, formatFromName } from '../../../../common/import/formats.ts';
import { FileFormatError, readJsonArray, type ReadRecord } from '../../../../common/import/json-array-stream.ts';
import { openRecords } from '../../../../server/cli/import/readers.ts';

const FIXTURES = path.join(import.meta.dirname, '../../../fixtures/import');
const target: ImportTarget = { integrationId: 'shop', knowledgeBaseId: 'main', sourceType: 'PRODUCT' };

async function readAll(file: string, format: 'csv' | 'json' | 'jsonl'): Promise<ReadRecord[]> {
  const out: ReadRecord[] = [];
  for await (const record of openRecords(file, format).records) out.push(record);
  return out;
}

function tempFile(name: string, content: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-import-unit-')), name);
  fs.writeFileSync(file, content);
  return file;
}

/** Feeds text in pieces of `size` characters, so element boundaries fall inside chunks. */
async function* pieces(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function collect(iterable: AsyncIterable<ReadRecord>): Promise<ReadRecord[]> {
  const out: ReadRecord[] = [];
  for await (const r of iterable) out.push(r);
  return out;
}

describe('mapping spec', () => {
  it('parses field=column pairs with sourceData keys', () => {
    assert.deepEqual(parseMappingSpec('title=question, content=answers,externalId=id,url=link,sourceData.price=price,sourceData.tags=meta.tags'), {
      title: 'question',
      content: 'answers',
      externalId: 'id',
      url: 'link',
      sourceData: { price: 'price', tags: 'meta.tags' },
    });
  });

  it('names what is wrong with a spec', () => {
    assert.throws(() => parseMappingSpec('title=question,content=answers'), /externalId/);
    assert.throws(() => parseMappingSpec('externalId=id,content=a,body=b'), /"body" is not an item field/);
    assert.throws(() => parseMappingSpec('externalId=id,content=a,content=b'), /mapped twice/);
    assert.throws(() => parseMappingSpec('externalId=id,content'), /not field=column/);
    assert.throws(() => parseMapping({ externalId: 'id', content: 'a', colour: 'c' }), /Invalid mapping/);
  });
});

describe('mapRecord', () => {
  const mapping = parseMappingSpec('externalId=sku,title=name,content=description,url=link,sourceData.price=price,sourceData.tags=meta.tags');

  it('builds an item the ingest schema accepts, with nested columns and lists as paragraphs', () => {
    const result = mapRecord(
      { sku: ' A-1 ', name: 'Rain jacket', description: ['Waterproof.', 'Packable hood.'], link: 'https://shop.example.com/a-1', price: 89, meta: { tags: ['rain'] } },
      mapping,
      { ...target, priority: 'high' },
      2,
    );
    assert.ok('item' in result, JSON.stringify(result));
    assert.deepEqual(result.item, {
      integrationId: 'shop',
      knowledgeBaseId: 'main',
      sourceType: 'PRODUCT',
      externalId: 'A-1',
      data: {
        title: 'Rain jacket',
        content: 'Waterproof.\n\nPackable hood.',
        url: 'https://shop.example.com/a-1',
        sourceData: { price: 89, tags: ['rain'] },
      },
      options: { priority: 'high' },
    });
    assert.ok(ingestItemSchema.safeParse(result.item).success);
  });

  it('leaves empty optional cells out instead of sending empty values', () => {
    const result = mapRecord({ sku: 'A-2', name: 'Hat', description: 'Warm.', link: '', price: '' }, mapping, target, 3);
    assert.ok('item' in result);
    assert.deepEqual(result.item.data, { title: 'Hat', content: 'Warm.' });
  });

  it('takes the title of a row without one from its content, and says so', () => {
    const named = mapRecord({ sku: 'A-3', name: 'Hat', description: 'Warm.' }, mapping, target, 4);
    assert.ok('item' in named);
    assert.equal(named.titleFromContent, false);
    const blank = mapRecord({ sku: 'A-4', name: '  ', description: '<p>Spelt rolls, <b>gluten free</b></p>\nBaked daily.' }, mapping, target, 5);
    assert.ok('item' in blank);
    assert.equal(blank.item.data.title, 'Spelt rolls, gluten free');
    assert.equal(blank.titleFromContent, true);
    const unmapped = mapRecord({ sku: 'A-7', description: 'Sourdough '.repeat(20) }, parseMappingSpec('externalId=sku,content=description'), target, 6);
    assert.ok('item' in unmapped);
    assert.equal(unmapped.titleFromContent, true);
    assert.ok(unmapped.item.data.title.length <= 81, unmapped.item.data.title);
    assert.match(unmapped.item.data.title, /^Sourdough( Sourdough)+…$/, 'cut at a word');
    assert.equal(titleFromContent('\n\n  Line two  \nmore'), 'Line two');
  });

  it('reports the row and every reason: empty id, empty content, schema failures', () => {
    const noId = mapRecord({ sku: '', name: 'x', description: '' }, mapping, target, 7);
    assert.deepEqual(noId, {
      error: { row: 7, reason: 'externalId: column "sku" is empty or missing; content: column "description" is empty or missing' },
    });
    const badUrl = mapRecord({ sku: 'A-5', name: 'Scarf', description: 'Soft.', link: 'ftp://files.example.com/a' }, mapping, target, 6);
    assert.ok('error' in badUrl);
    assert.equal(badUrl.error.row, 6);
    assert.equal(badUrl.error.externalId, 'A-5');
    assert.match(badUrl.error.reason, /^data\.url: /);
    const longTitle = mapRecord({ sku: 'A-6', name: 'x'.repeat(1_001), description: 'ok' }, mapping, target, 8);
    assert.ok('error' in longTitle);
    assert.match(longTitle.error.reason, /^data\.title: /);
    const objectContent = mapRecord({ sku: 'A-8', description: { nested: true } }, mapping, target, 9);
    assert.ok('error' in objectContent);
    assert.match(objectContent.error.reason, /content: column "description" is not text/);
  });
});

describe('sample items', () => {
  it('has one valid sample per source type', () => {
    assert.deepEqual(Object.keys(SAMPLE_ITEMS).sort(), [...SOURCE_TYPES].sort());
    for (const [sourceType, sample] of Object.entries(SAMPLE_ITEMS)) {
      const parsed = ingestItemSchema.safeParse(sample);
      assert.ok(parsed.success, `${sourceType}: ${JSON.stringify(parsed.error?.issues)}`);
      assert.equal(sample.sourceType, sourceType);
    }
  });
});

describe('readers', () => {
  it('tells the format from the file name', () => {
    assert.equal(formatFromName('a/b.CSV'), 'csv');
    assert.equal(formatFromName('x.ndjson'), 'jsonl');
    assert.equal(formatFromName('x.json'), 'json');
    assert.equal(formatFromName('x.txt'), null);
    assert.equal(formatFromName('exports.json/notes'), null, 'a dot in a folder name makes no extension');
    assert.equal(formatFromName('.csv'), null, "nor does a hidden file's leading dot");
    assert.equal(delimiterFromName('a/b.TSV'), '\t');
    assert.equal(delimiterFromName('b.csv'), undefined);
  });

  it('CSV: BOM, CRLF, quoted commas, line breaks and quotes in cells; rows as a spreadsheet numbers them', async () => {
    const rows = await readAll(path.join(FIXTURES, 'products.csv'), 'csv');
    assert.deepEqual(rows.map((r) => r.row), [2, 3, 4, 5, 6, 7, 8]);
    assert.equal(rows[0]!.row, 2);
    assert.deepEqual({ ...(rows[0] as { record: object }).record }, {
      sku: 'A-1', name: 'Rain jacket', description: 'Waterproof, with taped seams.\r\nPackable hood.', link: 'https://shop.example.com/a-1', price: '89.00',
    });
    assert.deepEqual(rows[2], { row: 4, error: 'has 3 fields, the header has 5' });
    assert.ok('record' in rows[6]! && rows[6].record.name === 'Quoted "name"');
  });

  it('CSV: a header naming a column twice, and a broken quote, stop the import', async () => {
    await assert.rejects(readAll(tempFile('dup.csv', 'id,id\n1,2\n'), 'csv'), (e) => e instanceof FileFormatError && /"id" twice/.test(e.message));
    await assert.rejects(readAll(tempFile('quote.csv', 'id,text\n1,"open\n2,b\n'), 'csv'), FileFormatError);
  });

  it('CSV: a column named __proto__ is an ordinary column', async () => {
    const rows = await readAll(tempFile('proto.csv', 'id,__proto__\n1,x\n'), 'csv');
    assert.ok('record' in rows[0]!);
    assert.equal(Object.getPrototypeOf(rows[0].record), null);
    assert.equal(rows[0].record['__proto__'], 'x');
  });

  it('JSONL: line numbers, blank lines skipped, bad lines reported without stopping', async () => {
    const rows = await readAll(path.join(FIXTURES, 'products.jsonl'), 'jsonl');
    assert.deepEqual(rows.map((r) => [r.row, 'error' in r ? r.error.split(' (')[0] : r.record.sku]), [
      [1, 'A-1'],
      [3, 'not valid JSON'],
      [4, 'is not a JSON object'],
      [5, 'A-5'],
    ]);
  });

  it('JSON: a top-level array read element by element, the same whatever the chunk size', async () => {
    const text = fs.readFileSync(path.join(FIXTURES, 'products.json'), 'utf8');
    const whole = await readAll(path.join(FIXTURES, 'products.json'), 'json');
    assert.deepEqual(whole.map((r) => r.row), [1, 2, 3, 4]);
    assert.deepEqual(whole[2], { row: 3, error: 'is not a JSON object' });
    assert.ok('record' in whole[0]!);
    assert.equal(whole[0].record.description, 'Waterproof, with [taped] seams and {braces} and "quotes".');
    for (const size of [1, 2, 3, 7, 64]) assert.deepEqual(await collect(readJsonArray(pieces(text, size))), whole, `chunk size ${size}`);
  });

  it('JSON: escapes, unicode, empty arrays, broken elements and broken files', async () => {
    const rows = await collect(readJsonArray(pieces('\uFEFF [ {"a":"x\\"]},\\\\","b":"é😀"} , {"a":tru} ,{"c":[1,[2,{"d":"]"}]]}]  ', 3)));
    assert.deepEqual(rows[0], { row: 1, record: { a: 'x"]},\\', b: 'é😀' } });
    assert.equal(rows[1]!.row, 2);
    assert.ok('error' in rows[1]! && rows[1].error.startsWith('not valid JSON'));
    assert.deepEqual(rows[2], { row: 3, record: { c: [1, [2, { d: ']' }]] } });
    assert.deepEqual(await collect(readJsonArray(pieces('[ ]', 1))), []);
    await assert.rejects(collect(readJsonArray(pieces('{"a":1}', 4))), /top-level array/);
    await assert.rejects(collect(readJsonArray(pieces('[{"a":1},', 4))), /not closed/);
    await assert.rejects(collect(readJsonArray(pieces('[{"a":1}] x', 4))), /after the top-level/);
    await assert.rejects(collect(readJsonArray(pieces('[{"a":1},]', 4))), /Misplaced/);
    await assert.rejects(collect(readJsonArray(pieces('[,{"a":1}]', 4))), /Misplaced/);
  });
});
