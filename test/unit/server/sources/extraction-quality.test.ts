import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { wordF1 } from '../../../../bench/lib/word-f1.ts';
import { extractMainContent } from '../../../../server/sources/main-content.ts';

const FOLDER = path.resolve(import.meta.dirname, '../../../fixtures/pages');

describe('main-content extraction on 20 page layouts (test/fixtures/pages)', () => {
  const pages = fs.readdirSync(FOLDER).filter((name) => name.endsWith('.html'));
  const scores = pages.map((name) => {
    const expected = fs.readFileSync(path.join(FOLDER, name.replace(/\.html$/, '.txt')), 'utf8');
    return { name, ...wordF1(extractMainContent(fs.readFileSync(path.join(FOLDER, name), 'utf8'), `https://shop.example/${name}`).text, expected) };
  });

  it('has at least 20 layouts, each with its expected text', () => {
    assert.ok(pages.length >= 20, `${pages.length} layouts`);
  });
  it('keeps the main content at a mean word F1 of at least 0.9, and no layout below 0.8', () => {
    const mean = scores.reduce((sum, score) => sum + score.f1, 0) / scores.length;
    assert.ok(mean >= 0.9, `mean F1 ${mean.toFixed(3)}`);
    for (const score of scores) assert.ok(score.f1 >= 0.8, `${score.name}: F1 ${score.f1.toFixed(3)}`);
  });
  it('scores a text against itself 1 and against nothing 0', () => {
    assert.equal(wordF1('Open Monday to Friday', 'open monday to friday').f1, 1);
    assert.equal(wordF1('', 'open monday').f1, 0);
  });
});
