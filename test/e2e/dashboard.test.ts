import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { backupContents, openBackup } from '../../server/storage/backup.ts';
import { startOpenAiTestServer } from '../helpers/openai-test-server.ts';
import { tempDataDir } from '../helpers/temp-data.ts';
import { OWNER, useDashboardSession } from './dashboard-session.ts';

const MEMBER = { username: 'milo', password: 'member password 1' };
const KB = 'shop';
const ITEMS = [
  {
    externalId: 'hours',
    sourceType: 'ARTICLE',
    data: {
      title: 'Opening hours',
      content: 'Our shop in Utrecht is open Monday to Friday from 9:00 to 17:30. On Saturday we open from 10:00 to 16:00. We are closed on Sunday.',
    },
  },
  {
    externalId: 'jacket',
    sourceType: 'PRODUCT',
    data: { title: 'Rain jacket', content: 'Waterproof jacket with taped seams, breathable membrane and a detachable hood.', sourceData: { price: '89.00 EUR' } },
  },
  {
    externalId: 'returns',
    sourceType: 'PAGE',
    data: { title: 'Returns policy', content: 'You can return any product within 30 days of delivery for a full refund.' },
  },
].map((item) => ({ integrationId: 'web', knowledgeBaseId: KB, ...item }));

describe('dashboard end to end (real server, real Chromium)', { timeout: 240_000 }, () => {
  const desktopToken = randomBytes(32).toString('base64url');
  const app = useDashboardSession({ env: { LOCALIQ_DESKTOP_SIGN_IN_TOKEN: desktopToken } });
  let keyValue = '';

  const nav = (name: string) => app.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();

  /** Every form control on the page has an accessible name (a label or aria-label). */
  const assertLabelled = async () => {
    const unlabelled = await app.page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLInputElement>('input, select, textarea'))
        .filter((el) => el.type !== 'hidden' && el.labels?.length === 0 && !el.getAttribute('aria-label'))
        .map((el) => el.outerHTML),
    );
    assert.deepEqual(unlabelled, []);
  };

  /** A browser of its own, signed in as the Member at `route`. */
  const memberPage = async (route: string) => {
    const context = await app.browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${app.server.url}/${route}`);
    await page.getByLabel('Username').fill(MEMBER.username);
    await page.getByLabel('Password').fill(MEMBER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    return { page, close: () => context.close() };
  };

  const pushBulk = (value: string, items: unknown[]) =>
    fetch(`${app.server.url}/ingest/bulk`, {
      method: 'POST',
      headers: { 'x-api-key': value, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    });

  it('first run asks for the Owner, then shows a getting-started empty state with a curl example', async () => {
    await app.page.goto(app.server.url);
    await app.page.getByRole('heading', { name: 'Create the Owner account' }).waitFor();
    await app.page.getByLabel('Username').fill(OWNER.username);
    await app.page.getByLabel(/^Password/).fill(OWNER.password);
    await app.page.getByLabel('Repeat the password').fill(OWNER.password);
    await app.page.getByRole('button', { name: 'Create Owner and sign in' }).click();
    await app.page.getByRole('heading', { name: 'Knowledge bases' }).waitFor();
    await app.page.getByRole('heading', { name: 'Nothing here yet' }).waitFor();
    assert.match(await app.page.getByLabel('curl example').innerText(), /curl -s http:\/\/127\.0\.0\.1:\d+\/ingest/);
    const cookie = (await app.context.cookies()).find((c) => c.name === 'localiq_session')!;
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
  });

  it('signs out and signs in with the password', async () => {
    await app.page.getByRole('button', { name: 'Sign out' }).click();
    await app.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal(await app.page.getByText('Your session ended').count(), 0, 'signing out is no surprise to explain');
    await app.page.getByLabel('Username').fill(OWNER.username);
    await app.page.getByLabel('Password').fill('wrong password here');
    await app.page.getByRole('button', { name: 'Sign in' }).click();
    await app.page.getByRole('alert').filter({ hasText: 'wrong' }).waitFor();
    await app.page.getByLabel('Password').fill(OWNER.password);
    await app.page.getByRole('button', { name: 'Sign in' }).click();
    await app.page.getByRole('navigation', { name: 'Main' }).getByText(OWNER.username).waitFor();
  });

  it('says why it asks to sign in again when the session ended elsewhere', async () => {
    await app.context.clearCookies();
    await nav('API keys');
    await app.page.getByRole('status').filter({ hasText: 'Your session ended' }).waitFor();
    await app.page.getByLabel('Username').fill(OWNER.username);
    await app.page.getByLabel('Password').fill(OWNER.password);
    await app.page.getByRole('button', { name: 'Sign in' }).click();
    await app.page.getByRole('navigation', { name: 'Main' }).getByText(OWNER.username).waitFor();
  });

  it('creates a key and shows its value once, with a copy button and a warning', async () => {
    await nav('API keys');
    await app.page.getByRole('heading', { name: 'No API keys yet' }).waitFor();
    // Keyboard: Enter opens the dialog with focus on its first field, Escape closes it.
    await app.page.getByRole('button', { name: 'Create key' }).first().focus();
    await app.page.keyboard.press('Enter');
    const dialog = app.page.getByRole('dialog', { name: 'Create an API key' });
    await dialog.waitFor();
    assert.equal(await app.page.evaluate(() => document.activeElement?.id), 'key-name');
    await assertLabelled();
    await app.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await app.page.getByRole('button', { name: 'Create key' }).first().click();
    await dialog.getByLabel('Name').fill('Shop sync');
    await dialog.getByLabel('Description').fill('Nightly catalogue push');
    await dialog.getByRole('checkbox', { name: /iq:read/ }).check();
    await dialog.getByRole('radio', { name: '30 days' }).check();
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const shown = app.page.getByRole('dialog', { name: 'Key "Shop sync" created' });
    await shown.getByText('shown only this once').waitFor();
    await shown.getByRole('button', { name: 'Copy key' }).waitFor();
    keyValue = (await shown.getByTestId('key-value').innerText()).trim();
    assert.match(keyValue, /^liq_[0-9A-Za-z]{12}_[0-9A-Za-z]{43}$/);
    await shown.getByRole('button', { name: 'I have stored the key' }).click();
    const row = app.page.getByRole('row').filter({ hasText: 'Shop sync' });
    await row.waitFor();
    const rowText = await row.innerText();
    assert.match(rowText, new RegExp(`liq_${keyValue.split('_')[1]}`));
    assert.match(rowText, /iq:import/);
    assert.match(rowText, /olivia/);
    assert.match(rowText, /never/, 'not used yet');
    assert.match(rowText, /expires in (30|29) days/);
    // Read once: the value is gone from the page and was never stored in the browser.
    assert.ok(!(await app.page.content()).includes(keyValue.split('_')[2]!));
    const stored = await app.page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
    assert.equal(stored, '{}{}');
  });

  it('items pushed over real HTTP appear live in the monitor and in the knowledge-base view', async () => {
    await nav('Ingestion');
    await app.page.getByText('Live', { exact: true }).waitFor();
    const monitorRequests: string[] = [];
    app.page.on('request', (r) => {
      if (r.url().includes('/admin/api/monitor')) monitorRequests.push(r.url());
    });
    const res = await pushBulk(keyValue, ITEMS);
    assert.equal(res.status, 200);
    // The page updates from the event stream: no reload, no polling.
    await app.page.waitForFunction(() => document.querySelector('[data-testid="count-succeeded"]')?.textContent === '3', null, {
      timeout: 90_000,
    });
    assert.deepEqual(monitorRequests, []);
    await app.page.getByText('All caught up.').waitFor();
    await app.page.getByRole('link', { name: 'web-hours' }).first().waitFor();

    await nav('Knowledge');
    await app.page.getByTestId(`kb-items-${KB}`).filter({ hasText: '3' }).waitFor();
    await app.page.getByRole('link', { name: KB, exact: true }).click();
    for (const item of ITEMS) await app.page.getByRole('link', { name: item.data.title }).waitFor();
    // The integration filter offers the integrations that have items here, nothing to type.
    const integration = app.page.getByLabel('Integration');
    await integration.locator('option', { hasText: 'web (3)' }).waitFor({ state: 'attached' });
    assert.deepEqual(await integration.locator('option').allInnerTexts(), ['All', 'web (3)']);
    await app.page.getByLabel('Search').fill('refund');
    await app.page.getByRole('button', { name: 'Apply' }).click();
    await app.page.getByRole('link', { name: 'Rain jacket' }).waitFor({ state: 'detached' });
    // A found item shows its chunk count as the list does.
    const found = app.page.getByRole('row').filter({ has: app.page.getByRole('link', { name: 'Returns policy' }) });
    assert.match(await found.getByRole('cell').nth(4).innerText(), /^\d+$/);
    await app.page.getByRole('link', { name: 'Returns policy' }).click();
    await app.page.getByRole('heading', { name: 'Returns policy' }).waitFor();
    await app.page.getByRole('heading', { name: /Chunks \(\d+\)/ }).waitFor();
    await app.page.getByText('within 30 days of delivery').first().waitFor();
    const history = app.page.getByRole('table', { name: 'Job history' });
    await history.getByText('succeeded').waitFor();
    await assertLabelled();
  });

  it('shows a failed job with its error and retries it from the monitor', async () => {
    // A real failure needs a broken model; the job's row is set to what its last failed attempt
    // leaves behind, directly in the server's database file (WAL lets both write).
    const db = new Database(path.join(app.dataDir, 'localiq.db'));
    db.pragma('busy_timeout = 5000');
    const now = Date.now();
    db.prepare(
      `UPDATE jobs SET status = 'failed', attempts = max_attempts, last_error = 'embedding model crashed',
         finished_at = ?, updated_at = ? WHERE external_id = 'jacket'`,
    ).run(now, now);
    db.close();
    await nav('Ingestion');
    const failures = app.page.getByRole('table', { name: 'Failed jobs' });
    await failures.getByText('embedding model crashed').waitFor();
    await app.page.getByRole('button', { name: 'Retry web/jacket' }).click();
    await failures.waitFor({ state: 'detached', timeout: 60_000 });
    await app.page.getByText('No failed jobs.').waitFor();
    await app.page.getByText('All caught up.').waitFor({ timeout: 60_000 });
    // The row made failed above was a job that had succeeded, so the item already holds its
    // version: the retried run ends cancelled as superseded, without failing. The item's job
    // history shows that note in the Note column, and no error any more.
    await app.page.goto(`${app.server.url}/#/knowledge/${KB}/items/web/jacket`);
    const history = app.page.getByRole('table', { name: 'Job history' });
    const cancelled = history.getByRole('row').filter({ hasText: 'superseded by a newer version' });
    await cancelled.waitFor();
    const columns = await history.getByRole('columnheader').allInnerTexts();
    const cells = await cancelled.getByRole('cell').allInnerTexts();
    assert.deepEqual([cells[columns.indexOf('Last error')], cells[columns.indexOf('Note')]], ['', 'superseded by a newer version']);
    assert.equal(await history.getByText('embedding model crashed').count(), 0);
    assert.equal(await history.locator('.error-text').count(), 0);
  });

  it('chat answers with a citation that opens the cited item', async () => {
    await nav('Chat');
    await app.page.getByLabel('Knowledge base').selectOption(KB);
    await app.page.getByLabel('Your question').fill('When is the shop open on Saturday?');
    await app.page.getByRole('button', { name: 'Ask' }).click();
    const citation = app.page.getByTestId('citation').filter({ hasText: 'Opening hours' }).first();
    await citation.waitFor({ timeout: 60_000 });
    assert.match(await app.page.getByTestId('answer').last().innerText(), /10:00/);
    await citation.click();
    await app.page.getByRole('heading', { name: 'Opening hours' }).waitFor();
    assert.match(app.page.url(), /#\/knowledge\/shop\/items\/web\/hours$/);
    await app.page.goBack();
    await app.page.getByLabel('Your question').waitFor();
    await assertLabelled();

    // Same conversation, a subject the shop's knowledge base knows nothing of.
    await app.page.getByLabel('Your question').fill('Who won Super Bowl 50?');
    await app.page.getByRole('button', { name: 'Ask' }).click();
    const abstention = app.page.getByTestId('answer').nth(1);
    await abstention.getByText('Try other words, or choose another knowledge base above.').waitFor({ timeout: 60_000 });
    assert.match(await abstention.innerText(), /does not contain the answer/);
    assert.equal(await abstention.getByTestId('citation').count(), 0);
    assert.doesNotMatch(await abstention.innerText(), /Taken from the sources/);
  });

  it('usage shows requests, items and questions per day in a chart', async () => {
    await nav('Usage');
    await app.page.getByRole('heading', { name: 'Per day' }).waitFor();
    await app.page.locator('figure.chart svg.recharts-surface').first().waitFor();
    const totals = app.page.getByRole('definition').filter({ hasText: /^\d/ });
    assert.ok((await totals.count()) > 0);
    const text = await app.page.getByLabel('Totals for the period', { exact: true }).innerText();
    assert.match(text, /Items pushed\s*3/);
    assert.match(text, /Questions\s*2/);
    // The bulk push named no single knowledge base: its row points to a note saying what such
    // requests are (under the table, so the row stays one line).
    const unnamed = app.page.getByRole('table', { name: 'Usage by knowledge base' }).getByRole('row').filter({ hasText: 'None named' });
    const note = await unnamed.locator('[aria-describedby]').evaluate((cell) => document.getElementById(cell.getAttribute('aria-describedby')!)?.textContent ?? '');
    assert.match(note, /bulk pushes/);
    assert.doesNotMatch(await app.page.getByRole('table', { name: 'Usage by knowledge base' }).innerText(), /—/);
  });

  it('an item deleted through the API shows as deleted, by which key, with no Delete button', async () => {
    const flyer = { ...ITEMS[2]!, externalId: 'flyer' };
    assert.equal((await pushBulk(keyValue, [flyer])).status, 200);
    const deleted = await fetch(`${app.server.url}/items/${KB}/web/flyer`, { method: 'DELETE', headers: { 'x-api-key': keyValue } });
    assert.equal(deleted.status, 200);
    await app.page.goto(`${app.server.url}/#/knowledge/${KB}/items/web/flyer`);
    await app.page.getByText(/This item was deleted on .* by the API key "Shop sync"/).waitFor();
    assert.equal(await app.page.getByText('not indexed (yet)').count(), 0);
    assert.equal(await app.page.getByRole('button', { name: 'Delete item' }).count(), 0);
  });

  it('revoking the key makes the API refuse it', async () => {
    await nav('API keys');
    await app.page.getByRole('button', { name: 'Revoke Shop sync' }).click();
    const confirm = app.page.getByRole('dialog', { name: 'Revoke this key?' });
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await app.page.getByRole('row').filter({ hasText: 'Shop sync' }).getByText('revoked', { exact: true }).waitFor();
    const res = await pushBulk(keyValue, ITEMS.slice(0, 1));
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { code: string }).code, 'invalid_api_key');
  });

  it('a Member sees keys but cannot manage them', async () => {
    await nav('Settings');
    assert.equal(await app.page.getByTestId('data-dir').innerText(), app.dataDir);
    await assertLabelled();
    await app.page.getByLabel('Username').fill(MEMBER.username);
    await app.page.getByLabel('Initial password').fill(MEMBER.password);
    await app.page.getByLabel('Role', { exact: true }).selectOption('member');
    await app.page.getByRole('button', { name: 'Add user' }).click();
    await app.page.getByRole('cell', { name: MEMBER.username, exact: true }).waitFor();

    const { page: member, close } = await memberPage('#/keys');
    await member.getByRole('heading', { name: 'API keys' }).waitFor();
    await member.getByRole('row').filter({ hasText: 'Shop sync' }).waitFor();
    await member.getByText('only the Owner and Admins can create').waitFor();
    assert.equal(await member.getByRole('button', { name: 'Create key' }).count(), 0);
    assert.equal(await member.getByRole('button', { name: /^(Revoke|Rotate) / }).count(), 0);
    // Going around the UI does not help: the admin API refuses the Member.
    const status = await member.evaluate(async () => {
      const session = (await (await fetch('/admin/api/session')).json()) as { csrfToken: string };
      const res = await fetch('/admin/api/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-localiq-csrf': session.csrfToken },
        body: JSON.stringify({ name: 'sneaky', scopes: ['iq:import'] }),
      });
      return res.status;
    });
    assert.equal(status, 403);
    await close();
  });

  it('synonyms are edited by keyboard on the knowledge base screen, the next search uses them, and a Member only reads them', async () => {
    await nav('Knowledge');
    await app.page.getByRole('link', { name: KB, exact: true }).click();
    await app.page.getByRole('heading', { name: 'Synonyms' }).waitFor();
    const field = app.page.getByLabel('Synonym sets');
    await field.focus();
    await app.page.keyboard.type('raincoat');
    await app.page.keyboard.press('Tab');
    await app.page.keyboard.press('Enter');
    await app.page.getByRole('alert').filter({ hasText: 'Line 1: A multi-way set (no root) needs at least two terms.' }).waitFor();
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    await field.focus();
    await app.page.keyboard.press('ControlOrMeta+a');
    await app.page.keyboard.type('# what visitors call it\nRaincoat => jacket');
    await app.page.keyboard.press('Tab');
    await app.page.keyboard.press('Enter');
    await app.page.getByRole('status').filter({ hasText: 'Saved 1 synonym set. The next search uses them.' }).waitFor();
    assert.equal(await field.inputValue(), 'raincoat => jacket', 'stored normalized, notes dropped');
    await app.page.getByLabel('Search').fill('raincoat');
    await app.page.getByRole('button', { name: 'Apply' }).click();
    await app.page.getByRole('link', { name: 'Rain jacket' }).waitFor();
    await assertLabelled();

    const { page: member, close } = await memberPage(`#/knowledge/${KB}`);
    await member.getByRole('heading', { name: 'Synonyms' }).waitFor();
    const memberField = member.getByLabel('Synonym sets');
    await member.getByText('Only the Owner and Admins change synonyms.').waitFor();
    assert.equal(await memberField.inputValue(), 'raincoat => jacket');
    assert.equal(await memberField.getAttribute('readonly'), '');
    assert.equal(await member.getByRole('button', { name: 'Save synonyms' }).count(), 0);
    await close();
  });

  it('the Owner downloads a backup from Settings and sets automatic backups; a Member is offered neither', async () => {
    await nav('Settings');
    const [download] = await Promise.all([
      app.page.waitForEvent('download'),
      app.page.getByRole('link', { name: 'Download a backup' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^localiq-backup-[a-z0-9-]+-[0-9a-f]{6}-\d{4}-\d\d-\d\dT[\d-]+\.db$/);
    const file = path.join(tempDataDir(), download.suggestedFilename());
    await download.saveAs(file);
    const backup = openBackup(file);
    try {
      const contents = backupContents(backup);
      assert.ok(contents.items >= ITEMS.length, `${contents.items} items in the backup`);
      assert.equal(contents.apiKeys, 1);
    } finally {
      backup.close();
    }

    // Automatic backups: a folder that is not a full path is refused, a good one saved, then used now.
    const folder = tempDataDir();
    await app.page.getByLabel('Back up every day').check();
    await app.page.getByLabel(/^Folder/).fill('backups');
    await app.page.getByRole('button', { name: 'Save schedule' }).click();
    await app.page.getByRole('alert').filter({ hasText: 'full path' }).waitFor();
    await app.page.getByLabel(/^Folder/).fill(folder);
    await app.page.getByLabel(/^At/).selectOption('2');
    await app.page.getByLabel('Backups to keep').fill('5');
    await app.page.getByRole('button', { name: 'Save schedule' }).click();
    await app.page.getByText('Schedule saved.', { exact: true }).waitFor();
    await app.page.getByText(/^Next backup: /).waitFor();
    await app.page.getByRole('button', { name: 'Back up to the folder now' }).click();
    await app.page.getByTestId('backup-status').getByText(/^Last backup: /).waitFor();
    const written = fs.readdirSync(folder);
    assert.equal(written.length, 1);
    assert.match(written[0]!, /^localiq-backup-[a-z0-9-]+-[0-9a-f]{6}-\d{4}-\d\d-\d\dT[\d-]+\.db$/);
    assert.ok(await app.page.getByTestId('backup-status').getByText(written[0]!).isVisible());
    openBackup(path.join(folder, written[0]!)).close();

    // A failed backup: shown in the panel, and to the Owner on every other screen until one succeeds.
    fs.rmSync(folder, { recursive: true });
    await app.page.getByRole('button', { name: 'Back up to the folder now' }).click();
    const failure = `${folder} is not there. Is its drive connected?`;
    await app.page.getByTestId('backup-status').getByRole('alert').filter({ hasText: failure }).waitFor();
    await nav('Ingestion');
    await app.page.getByRole('alert').filter({ hasText: `failed: The backup folder ${failure}` }).waitFor();
    await app.page.getByRole('link', { name: 'Backup settings' }).click();
    await app.page.getByRole('heading', { name: 'Automatic backups' }).waitFor();
    fs.mkdirSync(folder);
    await app.page.getByRole('button', { name: 'Back up to the folder now' }).click();
    // The failure leaves the panel once the new backup is written. Its name may equal the first
    // one's: names count whole seconds, and these steps can take less than one.
    await app.page.getByTestId('backup-status').getByRole('alert').waitFor({ state: 'detached' });
    const rewritten = fs.readdirSync(folder);
    assert.equal(rewritten.length, 1);
    openBackup(path.join(folder, rewritten[0]!)).close();
    await nav('Ingestion');
    await app.page.getByRole('heading', { name: 'Ingestion', exact: true }).waitFor();
    assert.equal(await app.page.getByRole('alert').filter({ hasText: 'backup' }).count(), 0, 'the warning is gone');

    const { page: member, close } = await memberPage('#/settings');
    await member.getByRole('heading', { name: 'Your password' }).waitFor();
    assert.equal(await member.getByRole('heading', { name: 'Backup' }).count(), 0);
    await close();
  });

  it('saving the language model tries it and says so; a new address drops the stored key', async () => {
    const first = await startOpenAiTestServer();
    const second = await startOpenAiTestServer();
    try {
      await nav('Settings');
      await app.page.getByLabel('Endpoint base URL').fill(first.baseUrl);
      await app.page.getByLabel('Model', { exact: true }).fill('test-double-model');
      await app.page.getByLabel(/^API key of the endpoint/).fill('sk-e2e-secret');
      await app.page.getByRole('button', { name: 'Save language model' }).click();
      await app.page.getByText('Tested: The endpoint answered.').waitFor();
      assert.equal(first.requests.at(-1)?.authorization, 'Bearer sk-e2e-secret');
      await app.page.getByText(/The stored key is only sent to this address/).waitFor();
      await app.page.getByLabel('Endpoint base URL').fill(second.baseUrl);
      await app.page.getByRole('button', { name: 'Save language model' }).click();
      await app.page.getByText(/its stored API key was removed/).waitFor();
      await app.page.getByText('Tested: The endpoint answered.').waitFor();
      assert.equal(second.requests.at(-1)?.authorization, undefined);
      await app.page.getByLabel('Endpoint base URL').fill('http://127.0.0.1:9/v1');
      await app.page.getByRole('button', { name: 'Save language model' }).click();
      await app.page.getByText(/Tested, and it does not work: the language model endpoint could not be reached/).waitFor();
      await assertLabelled();
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('the desktop sign-in link opens the dashboard as the Owner, once', async () => {
    const desktop = await app.browser.newContext();
    const window = await desktop.newPage();
    window.setDefaultTimeout(20_000);
    await window.goto(`${app.server.url}/admin/api/session/desktop?token=${desktopToken}`);
    await window.getByRole('navigation', { name: 'Main' }).getByText(OWNER.username).waitFor();
    assert.ok(!window.url().includes(desktopToken));
    await desktop.close();
    const again = await fetch(`${app.server.url}/admin/api/session/desktop?token=${desktopToken}`, { redirect: 'manual' });
    assert.equal(again.status, 401);
  });

  it('had no script errors on any page', () => {
    assert.deepEqual(app.pageErrors, []);
  });
});
