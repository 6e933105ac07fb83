import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Locator, Page } from 'playwright-core';
import { VISITOR_CONVERSATION_MAX_TURNS } from '../../common/contract/visitor-limits.ts';
import type { PublicWidgetConfig } from '../../common/contract/widget.ts';
import { ENGLISH_WIDGET_TEXTS, WIDGET_LANGUAGES, WIDGET_MESSAGES, WIDGET_TEXTS } from '../../common/contract/widget-texts.ts';
import { BOT_BACKGROUND, contrastRatio, deriveTheme } from '../../widget/src/theme.ts';
import { type FakeWidgetApi, startFakeWidgetApi, WIDGET_BUNDLE } from '../helpers/fake-widget-api.ts';
import { launchChromium } from './browser.ts';
import { until } from './until.ts';
import { widgetOverflow } from './widget-overflow.ts';

/**
 * The visitor chat widget (widget/, built to out/widget/widget.js) in real Chromium, on a shop's
 * page served from another origin than the API, against the FAKE public API of
 * test/helpers/fake-widget-api.ts (the real server side is tested with the server).
 */

const WIDGET = 'wgt_AbCdEfGhIjKlMnOpQrSt';
const REFUSED = 'wgt_RefusedOrigin00000';
const MISSING = 'wgt_NoSuchWidget000000';
const GERMAN = 'wgt_GermanWidget000000';
const OLDER = 'wgt_OlderServer0000000';
/** A widget id for each built-in language: wgt_Language…de. */
const languageWidget = (language: string) => `wgt_Language0000000000${language}`;
const SHOTS = '/tmp/widget-shots';
const S = ENGLISH_WIDGET_TEXTS;
const PACKAGE_VERSION = (JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

function widgetConfig(id: string, overrides: Partial<PublicWidgetConfig> = {}): PublicWidgetConfig {
  return {
    id,
    language: 'en',
    greeting: 'Hello! Ask me anything about our bakery.',
    starterQuestions: ['When do you open?', 'Do you deliver?'],
    fallbackMessage: "I could not find that in our information. Please contact us and we'll be glad to help.",
    themeColor: '#1f5fbf',
    position: 'bottom-right',
    strings: { ...S },
    questionMaxLength: 500,
    sendPageUrl: true,
    ...overrides,
  };
}

/** CSS a careless theme might ship: it must change nothing in the widget. */
const HOSTILE_CSS = `
  * { font-size: 40px !important; line-height: 3 !important; color: red !important; box-sizing: content-box !important; }
  div { display: none !important; }
  button { font-size: 50px !important; padding: 40px !important; background: lime !important; border: 9px solid black !important; }
  input { width: 900px !important; }
  p, li, a, h2 { margin: 60px !important; }
`;

/** The shop's page: another origin than the API, embedding the one-line snippet. */
async function startShopSite(apiUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://shop');
    const widget = url.searchParams.get('widget');
    const mode = url.searchParams.get('mode');
    const snippet = widget
      ? `<script src="${apiUrl}/widget.js" data-widget="${widget}"${mode ? ` data-mode="${mode}"` : ''} async></script>`
      : `<script src="${apiUrl}/widget.js"></script>`;
    const style = url.searchParams.has('hostile') ? `<style>${HOSTILE_CSS}</style>` : '';
    const body = url.pathname === '/preview' ? '<div id="host" style="width:400px;height:640px"></div>' : '<main><h1>Rye &amp; Co. bakery</h1><p>Fresh bread every morning.</p></main>';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Rye &amp; Co.</title>${style}</head><body>${body}${snippet}</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe('visitor chat widget in Chromium (fake public API, page on another origin)', { timeout: 180_000 }, () => {
  let api: FakeWidgetApi;
  let shop: { url: string; close(): Promise<void> };
  let browser: Browser;
  const pageErrors: string[] = [];

  before(async () => {
    assert.ok(fs.existsSync(WIDGET_BUNDLE), 'out/widget/widget.js exists: run `npm run build:widget` first');
    api = await startFakeWidgetApi();
    shop = await startShopSite(api.url);
    api.addWidget({ config: widgetConfig(WIDGET), allowedOrigins: [shop.url] });
    api.addWidget({ config: widgetConfig(REFUSED), allowedOrigins: ['https://elsewhere.example'] });
    api.addWidget({ config: widgetConfig(GERMAN, { language: 'de', greeting: 'Moin!', strings: { ...WIDGET_TEXTS.de } }), allowedOrigins: [shop.url] });
    for (const language of WIDGET_LANGUAGES) {
      const { greeting, fallbackMessage } = WIDGET_MESSAGES[language];
      api.addWidget({ config: widgetConfig(languageWidget(language), { language, greeting, fallbackMessage, strings: { ...WIDGET_TEXTS[language] } }), allowedOrigins: [shop.url] });
    }
    // A server from before a text existed sends no such key: the widget shows the English one.
    const { inputLabel: _missing, ...olderStrings } = S;
    api.addWidget({ config: widgetConfig(OLDER, { strings: olderStrings as typeof S }), allowedOrigins: [shop.url] });
    browser = await launchChromium();
    fs.mkdirSync(SHOTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await shop?.close();
    await api?.close();
    assert.deepEqual(pageErrors, [], 'no uncaught script errors in any page');
  });

  /** A fresh tab (its own sessionStorage) on the shop's page. */
  async function visit(query = `widget=${WIDGET}`, viewport = { width: 1280, height: 800 }, path = '/'): Promise<Page> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${shop.url}${path}?${query}`);
    return page;
  }

  const launcher = (page: Page) => page.getByRole('button', { name: S.launcherLabel });
  const panel = (page: Page) => page.getByRole('dialog', { name: S.title });
  const input = (page: Page) => page.getByRole('textbox', { name: S.inputLabel });
  const sendButton = (page: Page) => page.getByRole('button', { name: S.send, exact: true });
  const lastAnswer = (page: Page) => page.locator('localiq-widget .msg.bot').last();
  const notice = (page: Page) => page.locator('localiq-widget .notice');
  const focusedLabel = (page: Page) =>
    page.evaluate(() => {
      const active = document.querySelector('localiq-widget')?.shadowRoot?.activeElement;
      return active ? `${active.tagName.toLowerCase()}:${active.getAttribute('aria-label') ?? active.textContent}` : 'none';
    });

  async function openAndAsk(page: Page, question: string): Promise<void> {
    // Page mode has no launcher: the chat is always open.
    await launcher(page).or(panel(page)).first().waitFor();
    if ((await launcher(page).count()) && (await launcher(page).getAttribute('aria-expanded')) !== 'true') await launcher(page).click();
    await input(page).fill(question);
    await input(page).press('Enter');
  }

  async function closeTab(page: Page): Promise<void> {
    await page.context().close();
  }

  it('the launcher opens a dialog and moves focus to the question box; Esc closes it and focus returns', async () => {
    const page = await visit();
    await launcher(page).waitFor();
    assert.equal(await launcher(page).getAttribute('aria-expanded'), 'false');
    assert.equal(await panel(page).isVisible(), false);
    await launcher(page).focus();
    await page.keyboard.press('Enter');
    await panel(page).waitFor();
    assert.equal(await launcher(page).getAttribute('aria-expanded'), 'true');
    assert.equal(await focusedLabel(page), `input:${S.inputLabel}`);
    await panel(page).getByText('Hello! Ask me anything about our bakery.').waitFor();
    await panel(page).getByRole('button', { name: 'Do you deliver?' }).waitFor();
    await page.keyboard.press('Escape');
    await panel(page).waitFor({ state: 'hidden' });
    assert.equal(await launcher(page).getAttribute('aria-expanded'), 'false');
    assert.equal(await focusedLabel(page), `button:${S.launcherLabel}`);
    const exposed = await page.evaluate(() => ({
      version: window.LocalIQWidget?.version,
      globals: Object.keys(window).filter((key) => /localiq/i.test(key)),
    }));
    // LocalIQ is the page's own handle: LocalIQ.setContext({ externalId }) names the item it shows.
    assert.deepEqual(exposed, { version: PACKAGE_VERSION, globals: ['LocalIQWidget', 'LocalIQ'] });
    await closeTab(page);
  });

  it('streams an answer in pieces, then shows its sources: http(s) links open safely, others are text', async () => {
    const page = await visit();
    api.nextAsks({
      kind: 'answer',
      delayMs: 400,
      deltas: ['Our sourdough rye ', 'is baked every morning ', 'at 6 am [1].\n\n- **Rye** loaf\n- Spelt loaf'],
      citations: [
        { number: 1, title: 'Sourdough rye loaf', url: 'https://shop.example.com/rye' },
        { number: 2, title: 'Opening hours', url: null },
        { number: 3, title: 'Sneaky link', url: 'javascript:alert(1)' },
      ],
    });
    await openAndAsk(page, 'When is the rye baked?');
    await panel(page).getByText('When is the rye baked?').waitFor();
    await lastAnswer(page).getByText('Our sourdough rye').waitFor();
    const partial = await lastAnswer(page).innerText();
    assert.ok(!partial.includes('at 6 am'), `the first piece shows before the rest arrives: ${partial}`);
    assert.equal(await sendButton(page).isDisabled(), true, 'no second question while one is answered');
    await lastAnswer(page).getByText('Spelt loaf').waitFor();
    assert.equal(await lastAnswer(page).locator('strong').innerText(), 'Rye');
    assert.equal(await lastAnswer(page).locator('ul li').count(), 2);

    const link = lastAnswer(page).getByRole('link', { name: 'Sourdough rye loaf' });
    assert.equal(await link.getAttribute('href'), 'https://shop.example.com/rye');
    assert.equal(await link.getAttribute('target'), '_blank');
    assert.equal(await link.getAttribute('rel'), 'noopener noreferrer nofollow');
    assert.equal(await lastAnswer(page).getByRole('link').count(), 1, 'no link without an http(s) URL');
    await lastAnswer(page).getByText('Opening hours').waitFor();
    await lastAnswer(page).getByText('Sneaky link').waitFor();
    await lastAnswer(page).getByText(S.sources).waitFor();
    // Announced once, complete.
    await until(async () => (await page.locator('localiq-widget [aria-live=polite]').textContent())?.includes('Spelt loaf') ?? false, 'the answer is announced', { ms: 5_000 });

    const [popup] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
    assert.equal(await popup.evaluate(() => window.opener), null, 'the source opens without access to the shop page');
    await popup.close();
    await closeTab(page);
  });

  it("names the page or section of an uploaded file's passage after its title, linked where the item has a URL", async () => {
    const page = await visit();
    api.nextAsks({
      kind: 'answer',
      deltas: ['Gift cards never expire [1]. Damaged goods are replaced [2]. We open at 7 [3].'],
      citations: [
        { number: 1, title: 'Price list 2026', url: null, page: 2 },
        { number: 2, title: 'Care guide', url: 'https://shop.example.com/care', section: 'Returns › Damaged goods' },
        { number: 3, title: 'Opening hours', url: 'https://shop.example.com/hours' },
      ],
    });
    await openAndAsk(page, 'Do gift cards expire?');
    await lastAnswer(page).getByText(S.sources).waitFor();
    const sources = lastAnswer(page).locator('.sources li');
    assert.deepEqual(await sources.allInnerTexts(), ['Price list 2026, page 2', 'Care guide, Returns › Damaged goods', 'Opening hours']);
    assert.equal(await sources.nth(0).getByRole('link').count(), 0, 'no link without a URL');
    assert.equal(await sources.nth(1).getByRole('link', { name: 'Care guide' }).getAttribute('href'), 'https://shop.example.com/care');
    await page.reload();
    await launcher(page).click();
    assert.equal(await lastAnswer(page).locator('.sources li').first().innerText(), 'Price list 2026, page 2', 'kept with the conversation');
    await closeTab(page);
  });

  it('shows the fallback message on an abstention, and thumbs down posts feedback and thanks', async () => {
    const page = await visit();
    api.nextAsks({ kind: 'answer', deltas: ['The knowledge base does not say.'], answered: false });
    await openAndAsk(page, 'Do you sell bicycles?');
    await lastAnswer(page).getByText('I could not find that in our information.', { exact: false }).waitFor();
    assert.ok(!(await lastAnswer(page).innerText()).includes('does not say'), 'the fallback replaces the text');

    api.nextAsks({ kind: 'answer', deltas: ['We open at 7 am.'] });
    await openAndAsk(page, 'When do you open?');
    await lastAnswer(page).getByText('We open at 7 am.').waitFor();
    const before = api.feedback.length;
    await lastAnswer(page).getByRole('button', { name: S.notHelpful }).click();
    await lastAnswer(page).getByText(S.thanks).waitFor();
    assert.equal(api.feedback.length, before + 1);
    assert.deepEqual(api.feedback.at(-1), { answerId: `ans_${api.asks.length}`, rating: 'down' });
    assert.equal(await lastAnswer(page).getByRole('button', { name: S.helpful }).count(), 0, 'rated once');
    await closeTab(page);
  });

  it('says plainly when the assistant is busy, rate-limited (send waits for Retry-After) or unreachable', async () => {
    const page = await visit();
    api.nextAsks({ kind: 'busy' });
    await openAndAsk(page, 'Are you busy?');
    await notice(page).getByText(S.busy).waitFor();
    assert.equal(await input(page).inputValue(), 'Are you busy?', 'the question is back in the box');

    api.nextAsks({ kind: 'rate-limited', retryAfter: 2 });
    await sendButton(page).click();
    await notice(page).getByText(S.rateLimited).waitFor();
    const limitedAt = Date.now();
    assert.equal(await sendButton(page).isDisabled(), true, 'send waits');
    await until(async () => !(await sendButton(page).isDisabled()), 'send is possible again', { ms: 5_000 });
    assert.ok(Date.now() - limitedAt > 1_200, 'send waited about Retry-After');

    api.nextAsks({ kind: 'drop' });
    await sendButton(page).click();
    await notice(page).getByText(S.unreachable).waitFor();
    assert.equal(await panel(page).getByText('Let me see').count(), 0, 'a broken-off answer is not left half');
    assert.equal(await input(page).inputValue(), 'Are you busy?');

    // No answer at all: the network fails before any response.
    await page.route('**/v1/widget/*/ask', (route) => route.abort('internetdisconnected'));
    await input(page).fill('Anyone there?');
    await sendButton(page).click();
    await notice(page).getByText(S.unreachable).waitFor();
    assert.equal(await input(page).inputValue(), 'Anyone there?');
    await page.unroute('**/v1/widget/*/ask');
    await input(page).fill('Are you busy?');

    await sendButton(page).click();
    await lastAnswer(page).getByText('You asked: Are you busy?').waitFor();
    assert.equal(await notice(page).isVisible(), false, 'the notice goes with the next answer');
    await closeTab(page);
  });

  it('renews an expired visitor session once, silently', async () => {
    const page = await visit();
    await openAndAsk(page, 'First question');
    await lastAnswer(page).getByText('You asked: First question').waitFor();
    const sessions = api.sessionsCreated;
    api.nextAsks({ kind: 'session-expired' }, { kind: 'answer', deltas: ['Still here.'] });
    await openAndAsk(page, 'Second question');
    await lastAnswer(page).getByText('Still here.').waitFor();
    assert.equal(api.sessionsCreated, sessions + 1);
    assert.equal(await notice(page).isVisible(), false);
    await closeTab(page);
  });

  it('keeps the conversation for the tab, sends at most the last turns, and starts over on request', async () => {
    const page = await visit();
    for (let i = 1; i <= 6; i++) {
      await openAndAsk(page, `Question ${i}`);
      await lastAnswer(page).getByText(`You asked: Question ${i}`).waitFor();
    }
    const last = api.asks.at(-1)!.body;
    assert.equal(last.conversation?.length, VISITOR_CONVERSATION_MAX_TURNS);
    assert.deepEqual(last.conversation?.at(-1), { role: 'assistant', content: 'You asked: Question 5' });
    assert.deepEqual(last.conversation?.at(-2), { role: 'user', content: 'Question 5' });

    await page.reload();
    await launcher(page).click();
    await panel(page).getByText('You asked: Question 6').waitFor();
    assert.equal(await panel(page).getByRole('button', { name: 'Do you deliver?' }).count(), 0, 'starters only at the start');

    await panel(page).getByRole('button', { name: S.newConversation }).click();
    assert.equal(await panel(page).getByText('You asked: Question 6').count(), 0);
    await panel(page).getByRole('button', { name: 'Do you deliver?' }).click();
    await lastAnswer(page).getByText('You asked: Do you deliver?').waitFor();
    // The page goes with the question, without its query (which may carry a visitor's own data).
    assert.deepEqual(api.asks.at(-1)!.body, { question: 'Do you deliver?', conversation: [], context: { url: `${shop.url}/` } });
    await closeTab(page);
  });

  it('shows markup and javascript: in an answer as text', async () => {
    const page = await visit();
    const hostile = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> [click](javascript:alert(1))';
    api.nextAsks({ kind: 'answer', deltas: [hostile], citations: [{ number: 1, title: '<b>bold?</b>', url: 'javascript:window.__pwned=3' }] });
    await openAndAsk(page, 'Show me markup');
    await lastAnswer(page).getByText('<b>bold?</b>').waitFor();
    assert.equal((await lastAnswer(page).locator('p').first().innerText()).trim(), hostile);
    assert.equal(await lastAnswer(page).locator('script, img, b, a').count(), 0);
    assert.equal(await page.evaluate(() => (window as { __pwned?: number }).__pwned), undefined);
    await closeTab(page);
  });

  it('looks the same on a page with hostile CSS', async () => {
    const measure = async (query: string) => {
      const page = await visit(query);
      await launcher(page).click();
      await panel(page).waitFor();
      const boxes = await Promise.all([launcher(page), panel(page), input(page), sendButton(page)].map((l: Locator) => l.boundingBox()));
      const fonts = await launcher(page).evaluate((b) => [getComputedStyle(b).fontSize, getComputedStyle(b).color, getComputedStyle(b).backgroundColor]);
      await closeTab(page);
      return { boxes, fonts };
    };
    const plain = await measure(`widget=${WIDGET}`);
    const hostile = await measure(`widget=${WIDGET}&hostile`);
    assert.deepEqual(hostile, plain);
  });

  it('fills the screen with the open panel at 390 px, and fills the page in page mode', async () => {
    const phone = await visit(`widget=${WIDGET}`, { width: 390, height: 844 });
    api.nextAsks({
      kind: 'answer',
      deltas: ['Our sourdough rye loaf is baked every morning at 6 am [1]. It costs 4.20 EUR [2].'],
      citations: [
        { number: 1, title: 'Sourdough rye loaf', url: 'https://shop.example.com/rye' },
        { number: 2, title: 'Price list 2025', url: null },
      ],
    });
    await openAndAsk(phone, 'When is the rye baked?');
    await lastAnswer(phone).getByText('Price list 2025').waitFor();
    assert.deepEqual(await panel(phone).boundingBox(), { x: 0, y: 0, width: 390, height: 844 });
    await phone.screenshot({ path: `${SHOTS}/mobile-390.png` });
    await closeTab(phone);

    const kiosk = await visit(`widget=${WIDGET}&mode=page`);
    await panel(kiosk).waitFor();
    assert.equal(await launcher(kiosk).count(), 0, 'no launcher in page mode');
    assert.deepEqual(await panel(kiosk).boundingBox(), { x: 0, y: 0, width: 1280, height: 800 });
    await openAndAsk(kiosk, 'Hello kiosk');
    await lastAnswer(kiosk).getByText('You asked: Hello kiosk').waitFor();
    await kiosk.keyboard.press('Escape');
    assert.equal(await panel(kiosk).isVisible(), true, 'Esc does not close the page');
    await kiosk.screenshot({ path: `${SHOTS}/page-mode.png` });
    await closeTab(kiosk);
  });

  it('renders nothing and warns once in the console when the origin is refused or the widget is unknown', async () => {
    for (const [id, expected] of [
      [REFUSED, `LocalIQ widget: this site's origin ${shop.url} is not allowed for widget ${REFUSED}; add it in LocalIQ's Widgets screen.`],
      [MISSING, `LocalIQ widget: widget ${MISSING} does not exist or is disabled on ${api.url}`],
    ] as const) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const warnings: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'warning') warnings.push(message.text());
      });
      await page.goto(`${shop.url}/?widget=${id}`);
      await until(async () => warnings.length > 0, 'the widget warns', { ms: 5_000 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(warnings.length, 1, warnings.join('\n'));
      assert.ok(warnings[0]!.startsWith(expected), warnings[0]);
      assert.equal(await page.locator('localiq-widget').count(), 0);
      await context.close();
    }
  });

  it('previews a given config in the dashboard without calling the API, and redraws on a changed config', async () => {
    const page = await visit('', { width: 1280, height: 800 }, '/preview');
    const requestsBefore = api.requests.length;
    await page.evaluate((config) => window.LocalIQWidget!.preview(document.getElementById('host')!, config), widgetConfig(WIDGET));
    const previewPanel = page.getByRole('dialog', { name: S.title });
    await previewPanel.waitFor();
    assert.equal(await previewPanel.getByRole('button', { name: S.send, exact: true }).isDisabled(), true);
    assert.equal(await previewPanel.getByRole('button', { name: 'When do you open?' }).getAttribute('aria-disabled'), 'true');
    const changed = widgetConfig(WIDGET, { themeColor: '#ffd23f', position: 'bottom-left', strings: { ...S, title: 'Frag uns' } });
    await page.evaluate((config) => window.LocalIQWidget!.preview(document.getElementById('host')!, config), changed);
    await page.getByRole('dialog', { name: 'Frag uns' }).waitFor();
    assert.equal(await page.getByRole('dialog').count(), 1);
    // A light theme colour gets near-black text.
    const header = page.locator('#host .head');
    assert.equal(await header.evaluate((h) => getComputedStyle(h).color), 'rgb(17, 17, 17)');
    assert.deepEqual(api.requests.slice(requestsBefore), [], 'the preview asks nothing');
    await page.locator('#host').screenshot({ path: `${SHOTS}/preview.png` });
    await closeTab(page);
  });

  it("speaks the config's language: lang on its root, labels, notices and buttons in German, accessible (axe)", async () => {
    const DE = WIDGET_TEXTS.de;
    const page = await visit(`widget=${GERMAN}`);
    const germanLauncher = page.getByRole('button', { name: DE.launcherLabel });
    await germanLauncher.click();
    const dialog = page.getByRole('dialog', { name: DE.title });
    await dialog.waitFor();
    assert.equal(await page.locator('localiq-widget .root').getAttribute('lang'), 'de');
    const box = page.getByRole('textbox', { name: DE.inputLabel });
    assert.equal(await box.getAttribute('placeholder'), DE.placeholder);
    assert.ok(await dialog.getByRole('button', { name: DE.close }).isVisible());

    api.nextAsks({ kind: 'busy' });
    await box.fill('Habt ihr offen?');
    await box.press('Enter');
    await notice(page).getByText(DE.busy).waitFor();
    api.nextAsks({ kind: 'rate-limited', retryAfter: 1 });
    await dialog.getByRole('button', { name: DE.send, exact: true }).click();
    await notice(page).getByText(DE.rateLimited).waitFor();
    await until(async () => !(await dialog.getByRole('button', { name: DE.send, exact: true }).isDisabled()), 'send is possible again', { ms: 5_000 });
    api.nextAsks({ kind: 'answer', deltas: ['Wir öffnen um 7 Uhr.'], citations: [{ number: 1, title: 'Preisliste', url: null, page: 2 }] });
    await dialog.getByRole('button', { name: DE.send, exact: true }).click();
    const answer = lastAnswer(page);
    await answer.getByText('Wir öffnen um 7 Uhr.').waitFor();
    assert.equal((await answer.locator('.sources p').innerText()).trim(), DE.sources);
    assert.equal((await answer.locator('.sources li').innerText()).trim(), `Preisliste, ${DE.page} 2`);
    await answer.getByRole('button', { name: DE.helpful, exact: true }).waitFor();
    await answer.getByRole('button', { name: DE.notHelpful, exact: true }).click();
    await answer.getByText(DE.thanks).waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SHOTS}/german-390.png` });

    const results = await new AxeBuilder({ page }).include('localiq-widget').analyze();
    const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), []);
    await closeTab(page);

    const older = await visit(`widget=${OLDER}`);
    await older.getByRole('button', { name: S.launcherLabel }).click();
    await older.getByRole('textbox', { name: ENGLISH_WIDGET_TEXTS.inputLabel }).waitFor();
    await closeTab(older);
  });

  it('in each built-in language, nothing sticks out of the widget at 390 or 1280 px', async () => {
    for (const language of WIDGET_LANGUAGES) {
      const T = WIDGET_TEXTS[language];
      for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 800 }]) {
        const page = await visit(`widget=${languageWidget(language)}`, viewport);
        await page.getByRole('button', { name: T.launcherLabel }).click();
        const box = page.getByRole('textbox', { name: T.inputLabel });
        api.nextAsks({ kind: 'busy' });
        await box.fill('?');
        await box.press('Enter');
        await notice(page).getByText(T.busy).waitFor();
        assert.deepEqual(await widgetOverflow(page), [], `${language} at ${viewport.width} px, with the busy notice`);
        api.nextAsks({ kind: 'answer', deltas: ['7'], citations: [{ number: 1, title: 'Preisliste', url: null, page: 2 }], answered: true });
        await page.getByRole('button', { name: T.send, exact: true }).click();
        await lastAnswer(page).getByRole('button', { name: T.notHelpful, exact: true }).waitFor();
        api.nextAsks({ kind: 'answer', deltas: ['-'], answered: false });
        await box.fill('??');
        await box.press('Enter');
        await lastAnswer(page).getByText(WIDGET_MESSAGES[language].fallbackMessage).waitFor();
        assert.deepEqual(await widgetOverflow(page), [], `${language} at ${viewport.width} px`);
        // The offer under the fallback, and the handoff form it opens, in the same language.
        await lastAnswer(page).getByText(T.handoffOfferHint).waitFor();
        await lastAnswer(page).getByRole('button', { name: T.handoffOffer, exact: true }).click();
        const form = page.getByRole('form', { name: T.handoffOffer });
        await form.getByRole('checkbox', { name: T.handoffConsent }).waitFor();
        await form.getByLabel(T.handoffQuestion).waitFor();
        assert.deepEqual(await widgetOverflow(page), [], `${language} at ${viewport.width} px, with the handoff form`);
        await page.screenshot({ path: `${SHOTS}/language-${language}-${viewport.width}.png` });
        await closeTab(page);
      }
    }
  });

  it('has no serious or critical accessibility violation with an answer open (axe)', async () => {
    const page = await visit();
    api.nextAsks({
      kind: 'answer',
      deltas: ['Our sourdough rye loaf is baked every morning at 6 am [1]. ', 'We deliver within 5 km [2].'],
      citations: [
        { number: 1, title: 'Sourdough rye loaf', url: 'https://shop.example.com/rye' },
        { number: 2, title: 'Delivery area', url: null },
      ],
    });
    await openAndAsk(page, 'When is the rye baked and do you deliver?');
    await lastAnswer(page).getByText('Delivery area').waitFor();
    await page.screenshot({ path: `${SHOTS}/desktop-1280.png` });
    const results = await new AxeBuilder({ page }).include('localiq-widget').analyze();
    const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(
      serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      [],
    );
    assert.ok(results.passes.some((p) => p.id === 'color-contrast'), 'contrast was checked inside the shadow root');
    await closeTab(page);
  });
});

describe('widget colours from any theme colour', () => {
  it('keep every text at 4.5:1 or more: on the theme colour, and links on white and on the answer bubble', () => {
    const steps = [0x00, 0x33, 0x66, 0x76, 0x80, 0x99, 0xcc, 0xff];
    for (const r of steps) for (const g of steps) for (const b of steps) {
      const hex = `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
      const { theme, onTheme, accent } = deriveTheme(hex);
      assert.ok(contrastRatio(theme, onTheme) >= 4.5, `${onTheme} on ${hex}`);
      assert.ok(contrastRatio(accent, '#ffffff') >= 4.5 && contrastRatio(accent, BOT_BACKGROUND) >= 4.5, `${accent} (from ${hex}) on light`);
    }
    assert.equal(deriveTheme('#1f5fbf').onTheme, '#ffffff');
    assert.equal(deriveTheme('#ffd23f').onTheme, '#111111');
    assert.equal(deriveTheme('not a colour').theme, '#1f5fbf');
  });
});
