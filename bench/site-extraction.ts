/**
 * How well a website source keeps a page's main content: each page layout in
 * test/fixtures/pages/ (HTML modelled on WordPress, WooCommerce, Shopify, Squarespace, Wix-like,
 * Drupal, Ghost, Webflow and plain sites) through extractMainContent, its text against the
 * hand-marked expected text beside it (`<name>.txt`): word-level precision, recall and F1 (words
 * in lower case, counted with repeats). Goal: mean F1 ≥ 0.9.
 *
 *   npm run bench:site-extraction [-- --show NAME]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { extractMainContent } from '../server/sources/main-content.ts';
import { wordF1 } from './lib/word-f1.ts';

const FOLDER = path.resolve(import.meta.dirname, '../test/fixtures/pages');
const { values } = parseArgs({ options: { show: { type: 'string' } } });

{
  const rows = fs
    .readdirSync(FOLDER)
    .filter((name) => name.endsWith('.html'))
    .sort()
    .map((name) => {
      const html = fs.readFileSync(path.join(FOLDER, name), 'utf8');
      const expected = fs.readFileSync(path.join(FOLDER, name.replace(/\.html$/, '.txt')), 'utf8');
      const page = extractMainContent(html, `https://shop.example/${name}`);
      if (values.show && name.startsWith(values.show)) console.error(`--- ${name}\n${page.text}\n---`);
      // The main text is scored; the title is the item's title field apart from it.
      const { precision, recall, f1 } = wordF1(page.text, expected);
      const round = (value: number) => Number(value.toFixed(3));
      return { page: name.replace(/\.html$/, ''), precision: round(precision), recall: round(recall), f1: round(f1) };
    });
  const mean = (key: 'precision' | 'recall' | 'f1') => Number((rows.reduce((sum, row) => sum + row[key], 0) / rows.length).toFixed(3));
  console.log(JSON.stringify({ pages: rows.length, meanF1: mean('f1'), meanPrecision: mean('precision'), meanRecall: mean('recall'), rows }, null, 2));
}
