import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SourceType } from '../../../../common/contract/ingest.ts';
import { normalizeItem } from '../../../../server/pipeline/normalize.ts';

const textOf = (content: string, sourceType: SourceType = 'PAGE') => normalizeItem(sourceType, { title: 'T', content }).text;
const factsOf = (sourceType: SourceType, sourceData: unknown, title = 'Item') =>
  normalizeItem(sourceType, { title, content: 'Body.', sourceData: sourceData as Record<string, unknown> })
    .text.split('\n\n')
    .slice(1)
    .join('\n\n')
    .split('\n')
    .filter(Boolean);

const CMS_PAGE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Ignored page title</title>
<style>body { font-family: sans-serif } .hero { color: red }</style>
<script>window.dataLayer = [{"event": "<p>not text</p>"}];</script></head>
<body>
<header class="site-header"><nav><ul><li><a href="/">Home</a></li><li><a href="/shop">Shop</a></li></ul></nav></header>
<main><div class="container"><div class="row"><div class="col">
  <h1>Caf&eacute; Sonnenschein &amp; Bakery</h1>
  <p>Welcome to   our <strong>family-run</strong> caf&eacute;.
     Visit our <a href="https://example.com/menu">menu page</a> or <a href="#hours">opening hours</a>.</p>
  <img src="/img/hero.jpg" alt="Our shop front">
  <h2 id="hours">Opening hours</h2>
  <ul>
    <li>Monday&ndash;Friday: 7:00&nbsp;&ndash;&nbsp;18:00</li>
    <li>Saturday: 8:00 &ndash; 14:00
      <ul><li>Brunch until 13:00</li></ul>
    </li>
  </ul>
  <h2>Prices</h2>
  <table class="prices">
    <thead><tr><th>Item</th><th>Price</th></tr></thead>
    <tbody>
      <tr><td>Espresso</td><td>3.50&nbsp;&euro;</td></tr>
      <tr><td>Croissant</td><td>2.90&nbsp;&euro;</td></tr>
    </tbody>
  </table>
  <ol><li>Order at the counter</li><li>Pay &amp; enjoy</li></ol>
  <blockquote><p>&ldquo;Best coffee in town&rdquo; &#8211; Local Times</p></blockquote>
  <div><div>Line one</div><div>Line two<br>Line three</div></div>
  <button type="button">Add to cart</button>
  <script type="application/ld+json">{"@type": "Cafe"}</script>
</div></div></div></main>
<footer><p>&copy; 2024 Sonnenschein</p></footer>
</body></html>`;

describe('normalizeItem: HTML content', () => {
  it('turns a CMS page into clean text with its paragraph, list and table structure', () => {
    assert.equal(
      textOf(CMS_PAGE),
      [
        'Café Sonnenschein & Bakery',
        'Welcome to our family-run café. Visit our menu page or opening hours.',
        'Opening hours',
        '- Monday–Friday: 7:00 – 18:00\n- Saturday: 8:00 – 14:00\n- Brunch until 13:00',
        'Prices',
        'Item | Price\nEspresso | 3.50 €\nCroissant | 2.90 €',
        '1. Order at the counter\n2. Pay & enjoy',
        '“Best coffee in town” – Local Times',
        'Line one\nLine two\nLine three',
        '© 2024 Sonnenschein',
      ].join('\n\n'),
    );
  });

  it('leaves out scripts, styles, images, navigation, buttons, link targets and hidden elements', () => {
    const text = textOf(CMS_PAGE);
    for (const noise of ['dataLayer', 'font-family', 'hero.jpg', 'shop front', 'Home', 'Add to cart', 'http', '[', '@type', 'Ignored page title']) {
      assert.ok(!text.includes(noise), `"${noise}" leaked into: ${text}`);
    }
    assert.equal(textOf('<p>Shown</p><p hidden>Hidden</p><span aria-hidden="true">★</span>'), 'Shown');
  });

  it('keeps headings as written instead of upper-casing them', () => {
    assert.equal(textOf('<h2>Our Story</h2><p>Since 1999.</p>'), 'Our Story\n\nSince 1999.');
  });

  it('writes a layout table (cells holding blocks) as paragraphs, not as one line', () => {
    const html = '<table><tr><td><p>Main column</p><p>More text</p></td><td>Sidebar</td></tr></table>';
    assert.equal(textOf(html), 'Main column\n\nMore text\n\nSidebar');
  });

  it('separates definition lists and horizontal rules instead of running words together', () => {
    assert.equal(textOf('<dl><dt>Weight</dt><dd>2 kg</dd></dl>before<hr>after'), 'Weight\n2 kg\n\nbefore\n\nafter');
  });

  it('treats an HTML fragment without blocks as one paragraph', () => {
    assert.equal(textOf('Tom &amp; Jerry are <em>back</em>!'), 'Tom & Jerry are back!');
  });

  it('keeps the blank-line paragraphs of text with inline tags, as WordPress stores posts', () => {
    const content = 'Our <strong>spring</strong> menu is here.\n\nOrder by <a href="https://x.example/">phone</a> or online.';
    assert.equal(textOf(content), 'Our spring menu is here.\n\nOrder by phone or online.');
    assert.equal(textOf('<p>One.</p>\n\n<p>Two\ncontinues.</p>'), 'One.\n\nTwo continues.', 'in block markup, whitespace is one space');
  });

  it('keeps a "<" that opens no HTML element as text, beside real markup', () => {
    assert.equal(textOf('Declare <code>List<String> items</code> first.'), 'Declare List<String> items first.');
  });
});

describe('normalizeItem: plain text', () => {
  it('passes plain text through, folding whitespace inside lines and between paragraphs', () => {
    const content = '  First   paragraph\twith tabs.  \r\nSecond line.\r\n\r\n\r\n\r\n  Second paragraph.  \n\n\n';
    assert.equal(textOf(content), 'First paragraph with tabs.\nSecond line.\n\nSecond paragraph.');
  });

  it('does not mistake angle brackets in prose for markup', () => {
    const content = 'Press <Enter> to continue.\n\nIf x<y and y>z, then x<z; keep <3 as is.';
    assert.equal(textOf(content), content);
  });

  it('decodes entities in escaped plain text and keeps its line structure', () => {
    assert.equal(textOf('Fish &amp; chips &#8211; &euro;9\n\nCaf&eacute; <Enter> AT&T'), 'Fish & chips – €9\n\nCafé <Enter> AT&T');
  });

  it('converts HTML that was escaped once too often', () => {
    assert.equal(textOf('&lt;h2&gt;Returns&lt;/h2&gt;&lt;p&gt;Within 30 days.&lt;/p&gt;'), 'Returns\n\nWithin 30 days.');
  });

  it('composes decomposed characters (NFC)', () => {
    const item = normalizeItem('PAGE', { title: 'Cafe\u0301', content: 'Cre\u0300me bru\u0302le\u0301e' });
    assert.equal(item.title, 'Caf\u00e9');
    assert.equal(item.text, 'Cr\u00e8me br\u00fbl\u00e9e');
  });

  it('strips control and invisible characters, keeping newlines; odd breaks become regular ones', () => {
    const content = 'bell\u0007 esc\u001b[0m\u0000 in\u00advis\u200bible\ufeff\u0085next line\u000cnew page\u2028line\u2029para';
    assert.equal(textOf(content), 'bell esc[0m invisible\nnext line\n\nnew page\nline\n\npara');
  });

  it('makes the title one clean line, decoding HTML in it', () => {
    const item = normalizeItem('PAGE', { title: '  Caf&eacute;\n<b>Sonnenschein</b>\t ', content: 'x' });
    assert.equal(item.title, 'Café Sonnenschein');
    assert.equal(normalizeItem('PAGE', { title: 'Size  <  10\r\nitems', content: 'x' }).title, 'Size < 10 items');
  });
});

describe('normalizeItem: sourceData', () => {
  it('appends product facts as a final paragraph of "Label: value" lines, leaving out noise', () => {
    const item = normalizeItem('PRODUCT', {
      title: 'Linen Shirt',
      content: '<p>A light shirt.</p>',
      sourceData: {
        id: 4711, url: 'https://shop.example/p/4711', created_at: '2024-03-01T10:00:00Z', featured: false,
        name: 'Linen Shirt', price: 19.9, currency: 'EUR', sku: 'AB-12', brand: 'Acme', in_stock: true,
        color: 'red', size: 'M', material: 'linen', _edit_lock: '1700000000:1', image: 'shirt.jpg',
      },
    });
    assert.equal(
      item.text,
      'A light shirt.\n\nPrice: 19.90 EUR\nSKU: AB-12\nBrand: Acme\nAvailability: In stock\nColor: red\nSize: M\nMaterial: linen',
    );
  });

  it('reads WooCommerce-style products: attribute lists, category references, stock codes', () => {
    const facts = factsOf('PRODUCT', {
      id: 88, regular_price: '24.90', sale_price: '19.90', price_html: '<span class="amount">19.90</span>',
      stock_status: 'instock', categories: [{ id: 3, name: 'Shirts', slug: 'shirts' }, { id: 9, name: 'Sale', slug: 'sale' }],
      attributes: [
        { id: 1, name: 'Color', position: 0, visible: true, variation: true, options: ['Red', 'Blue'] },
        { id: 2, name: 'Material', position: 1, visible: true, variation: false, options: ['Linen'] },
      ],
      meta_data: [{ id: 5, key: '_edit_last', value: '1' }, { id: 6, key: 'care_instructions', value: 'Wash at 30 °C' }],
      images: [{ id: 7, src: 'https://shop.example/shirt.jpg' }],
      date_modified_gmt: '2024-03-01T10:00:00',
    });
    assert.deepEqual(facts, [
      'Sale price: 19.90',
      'Regular price: 24.90',
      'Categories: Shirts, Sale',
      'Availability: In stock',
      'Color: Red, Blue',
      'Material: Linen',
      'Care instructions: Wash at 30 °C',
    ]);
  });

  it('reads Shopify-style and schema.org-style shapes: price objects, options, offers', () => {
    assert.deepEqual(
      factsOf('PRODUCT', {
        vendor: 'Acme', product_type: 'Shirt', tags: ['summer', 'linen'],
        price: { amount: '19.9', currencyCode: 'EUR' },
        options: [{ id: 1, name: 'Size', position: 1, values: ['S', 'M', 'L'] }],
      }),
      ['Price: 19.90 EUR', 'Vendor: Acme', 'Product type: Shirt', 'Tags: summer, linen', 'Size: S, M, L'],
    );
    assert.deepEqual(
      factsOf('PRODUCT', {
        '@context': 'https://schema.org', '@type': 'Product', gtin13: '4006381333931',
        offers: { '@type': 'Offer', price: 19.9, priceCurrency: 'EUR', availability: 'https://schema.org/InStock' },
      }),
      ['Price: 19.90 EUR', 'Availability: In stock', 'GTIN: 4006381333931'],
    );
  });

  it('lists attributes given as an object or as name/value pairs', () => {
    const expected = ['Color: red', 'Size: M'];
    assert.deepEqual(factsOf('PRODUCT', { attributes: { color: 'red', size: 'M' } }), expected);
    assert.deepEqual(factsOf('PRODUCT', { attributes: [{ name: 'Color', value: 'red' }, { name: 'Size', value: 'M' }] }), expected);
    assert.deepEqual(factsOf('PRODUCT', { specs: [{ key: 'color', value: 'red' }, { label: 'Size', text: 'M' }] }), expected);
  });

  it('puts the most telling product facts first whatever the key order', () => {
    const facts = factsOf('PRODUCT', { weight: '2 kg', color: 'green', sku: 'Z-9', price: 5 });
    assert.deepEqual(facts, ['Price: 5', 'SKU: Z-9', 'Weight: 2 kg', 'Color: green']);
  });

  it('reads services: price, duration and location', () => {
    assert.deepEqual(
      factsOf('SERVICE', {
        category: 'Hair', location: { street: 'Main St 1', city: 'Berlin', zip: '10115', geo_id: 'x1' },
        duration_minutes: 45, price: 35, currency: 'EUR',
      }),
      ['Price: 35 EUR', 'Duration: 45 minutes', 'Location: Main St 1, Berlin, 10115', 'Category: Hair'],
    );
    assert.deepEqual(factsOf('SERVICE', { duration: 'PT1H30M' }), ['Duration: 1 hour 30 minutes']);
  });

  it('reads people: role, department, email, phone; sort positions and profile links are left out', () => {
    assert.deepEqual(
      factsOf(
        'PERSON',
        {
          name: 'Jane Doe', position: 3, linkedin_url: 'https://linkedin.com/in/jane', department: 'Support',
          contact: { email: 'jane@example.com', phone: '+49 30 1234567' }, jobTitle: 'Head of Support',
        },
        'Jane Doe',
      ),
      ['Role: Head of Support', 'Department: Support', 'Email: jane@example.com', 'Phone: +49 30 1234567'],
    );
  });

  it('never throws on odd shapes and caps what it adds', () => {
    const odd: unknown[] = [
      null, [], 'text', 42, { a: null, b: {}, c: [], d: [[1, [2, [3]]]], e: NaN },
      { deep: { a: { b: { c: { d: { e: { f: { g: 'too deep' } } } } } } } },
      { blob: 'A'.repeat(50_000), token: 'x', key: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N' },
      { mixed: [1, 'two', { name: 'three' }, null, true, [{ name: 'Four', value: 4 }]] },
    ];
    for (const sourceData of odd) assert.doesNotThrow(() => factsOf('PRODUCT', sourceData));
    assert.deepEqual(factsOf('PRODUCT', odd[6]), []);
    assert.ok(!factsOf('PRODUCT', odd[5]).some((line) => line.includes('too deep')));

    const many = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`field${i}`, `value number ${i}`]));
    const facts = factsOf('PRODUCT', many);
    assert.ok(facts.length <= 40, `${facts.length} lines`);
    assert.ok(facts.join('\n').length <= 2_000);
  });

  it('skips values repeating the title and keeps a body-less item searchable by its facts', () => {
    const item = normalizeItem('PRODUCT', { title: 'Mug', content: ' ', sourceData: { title: 'Mug', sku: 'MUG-1' } });
    assert.equal(item.text, 'SKU: MUG-1');
  });

  it('cleans HTML and entities inside sourceData values', () => {
    assert.deepEqual(factsOf('PRODUCT', { short_description: '<p>Soft &amp; <b>breathable</b></p>' }), [
      'Short description: Soft & breathable',
    ]);
  });
});
