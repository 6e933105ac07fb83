/**
 * Files in the dashboard, in Debian's Chromium against a real `localiq serve`: files dropped on a
 * knowledge base (a PDF and a Word document written in code, Markdown, a kind LocalIQ does not
 * read), a folder chosen with hidden and unsupported files in it, "Choose files" from the
 * keyboard; each upload followed to indexed or skipped; the document view by page and the
 * original it opens; a chat answer citing "page N" that opens the document at that page.
 * Screenshots at 1280, 768 and 390 px go to /tmp/files-shots.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import { docxFile, pdfFile } from '../helpers/document-fixtures.ts';
import { scannedTextPdf } from '../helpers/scanned-fixtures.ts';
import { useDashboardSession } from './dashboard-session.ts';

const SHOTS = '/tmp/files-shots';
const KB = 'shop-docs';
const PAGES = [
  ['Our catalogue lists every product we sell in the shop.', 'Prices include VAT and are valid for the whole season.'],
  ['The alpine rain jacket costs 189 euros and has taped seams.', 'Hiking boots with a waterproof membrane cost 149 euros.'],
  ['Delivery within Germany is free for orders above 50 euros.', 'Parcels to Austria cost 9 euros.'],
];
const CARE = '# Care guide\n\nWash the jackets at 30 degrees.\n\n## Boots\n\nClean the boots with a soft brush and let them dry slowly.\n';

type DropFile = { name: string; base64: string; type: string };
const asDrop = (name: string, bytes: Buffer | string, type = 'application/octet-stream'): DropFile => ({
  name,
  base64: Buffer.from(bytes).toString('base64'),
  type,
});

describe('files in the dashboard: drop, progress, document view, original, cited page (real server, real Chromium)', { timeout: 400_000 }, () => {
  const app = useDashboardSession({ signInOwner: true });
  let pdf: Buffer;
  let docx: Buffer;
  let folder: string;
  fs.mkdirSync(SHOTS, { recursive: true });

  before(async () => {
    pdf = await pdfFile(PAGES, { title: 'Price list 2026' });
    docx = await docxFile(
      [
        { heading: 1, text: 'Returns' },
        { text: 'You may return any product within 30 days of delivery.' },
        { heading: 2, text: 'Damaged goods' },
        { text: 'Damaged goods are replaced free of charge; send us a photo of the damage first.' },
      ],
      'Customer policy',
    );
    // A folder as a user keeps one: a guide, a hidden file, and a picture LocalIQ does not read.
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-files-e2e-'));
    fs.mkdirSync(path.join(folder, 'guide'));
    fs.writeFileSync(path.join(folder, 'guide', 'opening-hours.md'), '# Opening hours\n\nThe shop opens at nine on weekdays.\n');
    fs.writeFileSync(path.join(folder, 'guide', '.draft.md'), '# Draft\n\nNot ready.\n');
    fs.writeFileSync(path.join(folder, 'guide', 'logo.gif'), Buffer.from('GIF89a'));
  });
  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  const shot = async (name: string) => {
    for (const width of [1280, 768, 390]) {
      await app.page.setViewportSize({ width, height: 900 });
      await app.page.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: true });
      assert.ok((await app.page.evaluate(() => document.documentElement.scrollWidth)) <= width, `${name} is wider than ${width} px`);
    }
    await app.page.setViewportSize({ width: 1280, height: 900 });
  };
  const axe = async (include: string) => {
    const results = await new AxeBuilder({ page: app.page }).include(include).analyze();
    const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), []);
  };
  const upload = (file: string) => app.page.locator(`[data-testid="upload"][data-path="${file}"]`);
  const stateOf = async (file: string) => (await upload(file).getByTestId('upload-state').innerText()).trim();
  const waitFor = (file: string, phase: string, timeout = 120_000) =>
    app.page.locator(`[data-testid="upload"][data-path="${file}"][data-phase="${phase}"]`).waitFor({ timeout });

  /** Follows a link that opens a new tab, and waits for Chromium's PDF viewer to show the file there (screenshot `name`). */
  const openedInPdfViewer = async (click: () => Promise<void>, href: string, name: string) => {
    const [tab] = await Promise.all([app.context.waitForEvent('page'), click()]);
    await tab.waitForLoadState('domcontentloaded');
    const url = new URL(tab.url());
    assert.equal(url.pathname + url.hash, href);
    for (let tries = 0; !tab.frames().some((f) => f.url().startsWith('chrome-extension://')); tries++) {
      assert.ok(tries < 200, `no PDF viewer in the tab; its frames: ${tab.frames().map((f) => f.url()).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // the viewer draws the page
    await tab.screenshot({ path: `${SHOTS}/${name}.png` });
    await tab.close();
  };

  /** Drops files on the drop zone as a browser does: a drop event whose DataTransfer holds them. */
  const drop = async (files: DropFile[]) => {
    const dataTransfer = await app.page.evaluateHandle((list: DropFile[]) => {
      const transfer = new DataTransfer();
      for (const f of list) {
        const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
        transfer.items.add(new File([bytes], f.name, { type: f.type }));
      }
      return transfer;
    }, files);
    const zone = app.page.getByTestId('dropzone');
    await zone.dispatchEvent('dragover', { dataTransfer });
    await zone.dispatchEvent('drop', { dataTransfer });
  };

  it('drops a PDF, a Word document, Markdown and a picture: per-file progress to indexed, the picture skipped with its reason', async () => {
    await app.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Knowledge', exact: true }).click();
    await app.page.getByLabel('Name').fill(KB);
    await app.page.getByRole('button', { name: 'Continue' }).click();
    await app.page.getByRole('heading', { name: 'Add files' }).waitFor();
    await shot('new-knowledge-base');
    // The 50 MiB limit in the units it is defined in, as the API's refusal says it (not "52.4 MB").
    await app.page.getByText('up to 50 MB each.', { exact: false }).waitFor();
    const uploadRequests: Array<{ path: string; apiKey: string | undefined; type: string | undefined }> = [];
    app.page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/files')) uploadRequests.push({ path: new URL(r.url()).pathname, apiKey: r.headers()['x-api-key'], type: r.headers()['content-type'] });
    });
    // Every state each upload shows, as the page shows them.
    await app.page.evaluate(`(() => {
      window.seenPhases = {};
      const note = (el) => {
        const list = (window.seenPhases[el.dataset.path] ??= []);
        if (list.at(-1) !== el.dataset.phase) list.push(el.dataset.phase);
      };
      new MutationObserver(() => document.querySelectorAll('[data-testid="upload"]').forEach(note))
        .observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-phase'] });
    })()`);
    await drop([
      asDrop('price-list.pdf', pdf, 'application/pdf'),
      asDrop('policy.docx', docx),
      asDrop('care.md', CARE, 'text/markdown'),
      asDrop('photo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'image/png'),
    ]);
    await waitFor('photo.png', 'not sent');
    assert.match(await stateOf('photo.png'), /^Skipped: not a kind of file LocalIQ reads \(\.pdf, \.docx/);
    // While it goes: a progress bar, then the pipeline's states, then indexed.
    for (const file of ['price-list.pdf', 'policy.docx', 'care.md']) await waitFor(file, 'indexed');
    for (const file of ['price-list.pdf', 'policy.docx', 'care.md']) assert.equal(await stateOf(file), 'Indexed');
    await app.page.getByTestId('upload-summary').filter({ hasText: 'All 4 files done: 3 indexed, 1 skipped, 0 failed.' }).waitFor();
    const seen = (await app.page.evaluate('window.seenPhases')) as Record<string, string[]>;
    for (const file of ['price-list.pdf', 'policy.docx', 'care.md']) {
      // Sent with its progress shown, then followed through the pipeline to indexed.
      assert.ok(seen[file]!.includes('uploading'), `${file}: ${seen[file]}`);
      assert.ok(seen[file]!.includes('queued') || seen[file]!.includes('processing'), `${file}: ${seen[file]}`);
      assert.equal(seen[file]!.at(-1), 'indexed');
    }
    assert.deepEqual(seen['photo.png'], ['not sent']);
    // One request per file, to the dashboard's route, with the session and no key; the picture never left.
    assert.deepEqual(
      uploadRequests.map((r) => ({ ...r, type: r.type?.split(';')[0] })).sort((a, b) => a.path.localeCompare(b.path)),
      Array(3).fill({ path: `/admin/api/knowledge-bases/${KB}/files`, apiKey: undefined, type: 'multipart/form-data' }),
    );
    // The item list was refreshed with the new items.
    await app.page.getByRole('table', { name: 'Items' }).getByRole('link', { name: 'Price list 2026' }).waitFor();
    await shot('upload');
    await axe('.upload');
  });

  it('the same PDF again is skipped as identical; a folder is walked, its hidden and unsupported files skipped', async () => {
    // Listened for from here: Playwright takes over the file picker only once the listener is set up in the browser.
    const chooserOpened = app.page.waitForEvent('filechooser', { timeout: 120_000 });
    await drop([asDrop('price-list.pdf', pdf, 'application/pdf')]);
    await app.page.locator('[data-testid="upload"][data-path="price-list.pdf"][data-phase="unchanged"]').waitFor({ timeout: 60_000 });
    assert.equal(await app.page.locator('[data-testid="upload"][data-phase="unchanged"]').getByTestId('upload-state').innerText(), 'Skipped: identical to the file already indexed');

    // A larger file on a slow link: its bar shows the bytes sent so far.
    const cdp = await app.context.newCDPSession(app.page);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
    // Large in bytes, short in text (blank lines), so indexing it stays quick.
    const notes = `# Receipts\n\nThe shop keeps its receipts for ten years.\n${'\n'.repeat(400_000)}`;
    await drop([asDrop('receipts.txt', notes, 'text/plain')]);
    const bar = upload('receipts.txt').getByRole('progressbar', { name: 'Upload of receipts.txt' });
    let midway: { value: number; max: number; state: string } | null = null;
    for (let tries = 0; !midway && tries < 400; tries++) {
      const seen = await bar.evaluate((el: HTMLProgressElement) => ({ value: el.value, max: el.max, state: el.parentElement!.querySelector('[data-testid="upload-state"]')!.textContent! })).catch(() => null);
      if (seen && seen.value > 0 && seen.value < seen.max) midway = seen;
      else await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.ok(midway, 'the bar never showed a part of the file sent');
    assert.equal(midway.max, Buffer.byteLength(notes));
    assert.match(midway.state, /^Uploading \d{1,2}%$/);
    await app.page.screenshot({ path: `${SHOTS}/uploading-1280.png` });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await cdp.detach();
    await waitFor('receipts.txt', 'indexed');

    // A file the server refuses shows the server's reason; one whose extraction fails, the job's.
    await drop([asDrop('broken.pdf', 'this is not a PDF at all', 'application/pdf'), asDrop('tab\there.md', '# Tab\n\nx\n')]);
    await waitFor('broken.pdf', 'failed');
    assert.equal(await stateOf('broken.pdf'), 'Failed: broken.pdf: its name says it is a PDF, but its content is text');
    await waitFor('tab\there.md', 'failed');
    assert.match(await stateOf('tab\there.md'), /^Failed: .*control characters/);

    // A dropped folder is walked through its entries. Headless Chromium cannot drag a folder from
    // the desktop, so this drop's entries are a FAKE of the browser's FileSystemEntry API (the
    // shapes Chromium hands over: batches from readEntries until an empty one, nested folders).
    // (A string, not a function: the test's TypeScript compiler would add helpers the page lacks.)
    await app.page.evaluate(`(() => {
      const file = (path, content) => ({
        isFile: true, isDirectory: false, name: path.split('/').pop(), fullPath: '/' + path,
        file: (ok) => setTimeout(() => ok(new File([content], path.split('/').pop(), { type: 'text/markdown' }))),
      });
      const folder = (path, batches) => ({
        isFile: false, isDirectory: true, name: path.split('/').pop(), fullPath: '/' + path,
        createReader: () => {
          let next = 0;
          return { readEntries: (ok) => setTimeout(() => ok(batches[next++] ?? [])) };
        },
      });
      const handbook = folder('handbook', [
        [file('handbook/returns-policy.md', '# Returns policy\\n\\nReturns are accepted for 30 days.\\n'),
         folder('handbook/.git', [[file('handbook/.git/config.md', '# Config\\n\\nx\\n')]])],
        [folder('handbook/shipping', [[file('handbook/shipping/zones.md', '# Shipping zones\\n\\nZone one is Germany.\\n')]])],
      ]);
      const real = DataTransferItem.prototype.webkitGetAsEntry;
      DataTransferItem.prototype.webkitGetAsEntry = function () {
        DataTransferItem.prototype.webkitGetAsEntry = real;
        return handbook;
      };
    })()`);
    await drop([asDrop('handbook', '')]);
    await waitFor('handbook/returns-policy.md', 'indexed');
    await waitFor('handbook/shipping/zones.md', 'indexed');
    assert.equal(await stateOf('handbook/.git/config.md'), 'Skipped: hidden');

    await app.page.getByTestId('choose-folder').setInputFiles(path.join(folder, 'guide'));
    await waitFor('guide/opening-hours.md', 'indexed');
    await waitFor('guide/.draft.md', 'not sent');
    assert.equal(await stateOf('guide/.draft.md'), 'Skipped: hidden');
    assert.match(await stateOf('guide/logo.gif'), /^Skipped: not a kind of file LocalIQ reads/);

    // "Choose files" works from the keyboard: the button takes the focus and Enter opens the picker.
    const markdown = path.join(folder, 'returns.md');
    fs.writeFileSync(markdown, '# Returns\n\nReturns are free within 30 days.\n');
    const button = app.page.getByRole('button', { name: 'Choose files' });
    await button.focus();
    assert.equal(await app.page.evaluate(() => document.activeElement?.textContent), 'Choose files');
    await app.page.keyboard.press('Enter');
    const chooser = await chooserOpened;
    assert.equal(chooser.isMultiple(), true);
    await chooser.setFiles([markdown]);
    await waitFor('returns.md', 'indexed');

    // A scan (no text layer) is read by OCR: indexed, with the job's note saying which page.
    await drop([asDrop('scan.pdf', await scannedTextPdf([['Gift cards are valid for three years.']]), 'application/pdf')]);
    await waitFor('scan.pdf', 'indexed');
    assert.equal(await stateOf('scan.pdf'), 'Indexed: text read by OCR (text recognition) from 1 scanned page(s) without a text layer: page(s) 1');
  });

  it('opens the PDF as a document by page, and "Open original" serves the file as uploaded', async () => {
    await upload('price-list.pdf').first().getByRole('link', { name: 'price-list.pdf' }).click();
    await app.page.getByRole('heading', { name: 'Price list 2026', level: 1 }).waitFor();
    const toc = app.page.getByRole('navigation', { name: 'Pages' });
    assert.deepEqual(await toc.getByRole('link').allInnerTexts(), ['Page 1', 'Page 2', 'Page 3']);
    const parts = app.page.getByTestId('document-part');
    assert.equal(await parts.count(), 3);
    assert.match(await parts.nth(1).innerText(), /Page 2[\s\S]*alpine rain jacket costs 189 euros/);
    const open = app.page.getByRole('link', { name: 'Open original' });
    const href = (await open.getAttribute('href'))!;
    assert.equal(href, `/admin/api/knowledge-bases/${KB}/items/files/price-list.pdf/original`);
    assert.equal(await open.getAttribute('target'), '_blank');

    // Following the link: the browser gets the stored file with its headers.
    const response = await app.page.request.get(new URL(href, app.server.url).toString());
    assert.equal(response.status(), 200);
    const headers = response.headers();
    assert.equal(headers['content-type'], 'application/pdf');
    assert.equal(headers['content-disposition'], `inline; filename="price-list.pdf"; filename*=UTF-8''price-list.pdf`);
    assert.equal(headers['x-content-type-options'], 'nosniff');
    assert.match(headers['content-security-policy']!, /^sandbox; default-src 'none'/);
    const bytes = await response.body();
    assert.equal(createHash('sha256').update(bytes).digest('hex'), createHash('sha256').update(pdf).digest('hex'));
    // The click itself opens a tab on that address, where Chromium's PDF viewer shows the file
    // (the sandbox of the response does not keep the viewer out).
    await openedInPdfViewer(() => open.click(), href, 'original');
    await shot('document');
    await axe('main');

    // The item's own page links to the document view and lists each chunk's page.
    await app.page.getByRole('link', { name: 'Item details' }).click();
    await app.page.getByRole('heading', { name: 'Chunks (3)' }).waitFor();
    assert.match(await app.page.locator('#chunks ~ ol li').nth(1).innerText(), /tokens, page 2$/);
    await app.page.getByRole('link', { name: 'Read as a document' }).click();
    await app.page.getByRole('navigation', { name: 'Pages' }).waitFor();

    // The scan's job history: the OCR note in the Note column, no error.
    await app.page.goto(`${app.server.url}/#/knowledge/${KB}/items/files/scan.pdf`);
    const history = app.page.getByRole('table', { name: 'Job history' });
    const succeeded = history.getByRole('row').filter({ hasText: 'succeeded' });
    await succeeded.waitFor();
    const columns = await history.getByRole('columnheader').allInnerTexts();
    const cells = await succeeded.getByRole('cell').allInnerTexts();
    assert.equal(cells[columns.indexOf('Last error')], '');
    assert.match(cells[columns.indexOf('Note')]!, /^text read by OCR \(text recognition\) from 1 scanned page\(s\) without a text layer: page\(s\) 1$/);
    assert.equal(await history.locator('.error-text').count(), 0, 'nothing in red');
    await shot('scan-job-history');

    // The Word document reads by its sections.
    await app.page.goto(`${app.server.url}/#/knowledge/${KB}/items/files/policy.docx/document`);
    const sections = app.page.getByRole('navigation', { name: 'Sections' });
    await sections.getByRole('link', { name: 'Returns › Damaged goods' }).waitFor();
    // Browsers do not show Word documents: its original is offered as a download.
    assert.equal(await app.page.getByRole('link', { name: 'Download original' }).getAttribute('download'), 'policy.docx');
    await shot('sections');
  });

  it('the chat answers from the PDF citing "page 2", and the citation opens the document at page 2', async () => {
    await app.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chat', exact: true }).click();
    await app.page.getByLabel('Knowledge base').selectOption(KB);
    await app.page.getByLabel('Your question').fill('How much does the alpine rain jacket cost?');
    await app.page.getByRole('button', { name: 'Ask' }).click();
    const citation = app.page.getByTestId('citation').filter({ hasText: 'Price list 2026, page 2' });
    await citation.first().waitFor({ timeout: 60_000 });
    await shot('chat');
    await citation.first().click();
    await app.page.getByRole('heading', { name: 'Price list 2026', level: 1 }).waitFor();
    assert.equal(new URL(app.page.url()).hash, `#/knowledge/${KB}/items/files/price-list.pdf/document/page/2`);
    const current = app.page.locator('[data-testid="document-part"].current');
    assert.match(await current.innerText(), /^Page 2\s+Cited/);
    assert.equal(await app.page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Page 2' }).getAttribute('aria-current'), 'location');
    // The cited page has the focus, and "Open original" opens the PDF at that page.
    assert.equal(await app.page.evaluate(() => document.activeElement?.querySelector('h2')?.textContent), 'Page 2');
    const atPage = (await app.page.getByRole('link', { name: 'Open original' }).getAttribute('href'))!;
    assert.match(atPage, /\/original#page=2$/);
    await openedInPdfViewer(() => app.page.getByRole('link', { name: 'Open original' }).click(), atPage, 'original-page-2');
    await shot('cited-page');
    await axe('main');
  });

  it('a Member reads the document and opens the original, but is offered no upload and refused one', async () => {
    const member = { username: 'mia', password: 'member password 1' };
    await app.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
    await app.page.getByLabel('Username').fill(member.username);
    await app.page.getByLabel('Initial password').fill(member.password);
    await app.page.getByLabel('Role', { exact: true }).selectOption('member');
    await app.page.getByRole('button', { name: 'Add user' }).click();
    await app.page.getByRole('cell', { name: member.username, exact: true }).waitFor();

    const context = await app.browser.newContext();
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(`${app.server.url}/#/knowledge/${KB}`);
      await page.getByLabel('Username').fill(member.username);
      await page.getByLabel('Password').fill(member.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('table', { name: 'Items' }).getByRole('link', { name: 'Price list 2026' }).waitFor();
      assert.equal(await page.getByRole('heading', { name: 'Add files' }).count(), 0);
      await page.goto(`${app.server.url}/#/knowledge/${KB}/items/files/price-list.pdf/document/page/3`);
      await page.locator('[data-testid="document-part"].current').filter({ hasText: 'Delivery within Germany' }).waitFor();
      const href = (await page.getByRole('link', { name: 'Open original' }).getAttribute('href'))!;
      assert.equal((await page.request.get(new URL(href, app.server.url).toString())).status(), 200);
      // Going around the UI does not help: the route refuses a Member's upload.
      const status = await page.evaluate(async (kb) => {
        const session = (await (await fetch('/admin/api/session')).json()) as { csrfToken: string };
        const form = new FormData();
        form.append('file', new File(['# Sneaky\n\nx\n'], 'sneaky.md'));
        const res = await fetch(`/admin/api/knowledge-bases/${kb}/files`, { method: 'POST', headers: { 'x-localiq-csrf': session.csrfToken }, body: form });
        return res.status;
      }, KB);
      assert.equal(status, 403);
    } finally {
      await context.close();
    }
    assert.deepEqual(app.pageErrors, []);
  });
});
