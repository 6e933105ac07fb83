import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitSentences } from '../../../../../server/retrieval/answer/sentences.ts';

describe('sentences an answer quotes', () => {
  it('keeps a web address whole and still ends sentences at "?", "!" and full-width marks', () => {
    assert.deepEqual(splitSentences('A direct link: https://drive.example.com/uc?export=download&id=F1 works. Is it free? Yes!'), [
      'A direct link: https://drive.example.com/uc?export=download&id=F1 works.',
      'Is it free?',
      'Yes!',
    ]);
    assert.deepEqual(splitSentences('今日は晴れ。明日は雨？はい！'), ['今日は晴れ。', '明日は雨？', 'はい！']);
  });

  it('reads text as customers write it: lower case, no final full stop, emoji', () => {
    assert.deepEqual(splitSentences('works great. fits my phone. would buy again'), ['works great.', 'fits my phone.', 'would buy again']);
    assert.deepEqual(splitSentences('love it 😀 fits my phone perfectly'), ['love it 😀', 'fits my phone perfectly']);
    assert.deepEqual(splitSentences('I ❤️ this bread'), ['I ❤️ this bread']);
    assert.deepEqual(splitSentences('Is it vegan? yes it is.'), ['Is it vegan?', 'yes it is.']);
    assert.deepEqual(splitSentences('order 7 days ahead. 3 sizes are available.'), ['order 7 days ahead.', '3 sizes are available.']);
  });

  it('does not end a sentence at an initial or an abbreviation', () => {
    assert.deepEqual(splitSentences('It followed the assassination of John F. Kennedy in 1963. it shocked everyone.'), [
      'It followed the assassination of John F. Kennedy in 1963.',
      'it shocked everyone.',
    ]);
    assert.deepEqual(splitSentences('The T. T. Tsui Gallery shows Chinese art.'), ['The T. T. Tsui Gallery shows Chinese art.']);
    assert.deepEqual(splitSentences('The cake weighs approx. 3 kg. No. 5 is our best seller.'), ['The cake weighs approx. 3 kg.', 'No. 5 is our best seller.']);
    assert.deepEqual(splitSentences('We take cards, e.g. Visa and Mastercard. The U.S. Army band played in St. Louis.'), [
      'We take cards, e.g. Visa and Mastercard.',
      'The U.S. Army band played in St. Louis.',
    ]);
    assert.deepEqual(splitSentences('We bake rolls, buns etc. every day. Bread etc. We also cater.'), ['We bake rolls, buns etc. every day.', 'Bread etc.', 'We also cater.']);
  });

  it('keeps bullet fragments apart and joins the lines a PDF wrapped', () => {
    assert.deepEqual(splitSentences('- rye flour\n- caraway\n- sea salt'), ['- rye flour', '- caraway', '- sea salt']);
    assert.deepEqual(splitSentences('open monday to friday\nclosed on sunday'), ['open monday to friday', 'closed on sunday']);
    assert.deepEqual(splitSentences('Our layer cakes are made to order and need a lead time of\n7 days, so please order early.'), [
      'Our layer cakes are made to order and need a lead time of 7 days, so please order early.',
    ]);
  });
});
