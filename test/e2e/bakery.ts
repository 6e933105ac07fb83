import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { until } from './until.ts';

/** The bakery both conversation e2e tests push and ask about, and the shop origin its widget allows. */
export const KB = 'bakery';
export const ORIGIN = 'https://shop.example';
export const ITEMS = [
  { externalId: 'hours', title: 'Opening hours', content: 'The bakery opens at 7 in the morning from Monday to Saturday and closes at 6 in the evening. On Sundays it opens at 8 and closes at noon.' },
  { externalId: 'delivery', title: 'Delivery', content: 'Bread and pastries are delivered by bicycle within five kilometres. Delivery is free for orders above 30 euros.' },
];

/** Pushes the bakery's items with the API key and waits until they are indexed. */
export async function pushBakery(serverUrl: string, apiKey: string): Promise<void> {
  const items = ITEMS.map((i) => ({ integrationId: 'web', knowledgeBaseId: KB, sourceType: 'ARTICLE', externalId: i.externalId, data: { title: i.title, content: i.content, url: `${ORIGIN}/${i.externalId}` } }));
  const pushed = await fetch(`${serverUrl}/ingest/bulk`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ items }) });
  assert.equal(pushed.status, 200, await pushed.text());
  await until(async () => {
    const job = await fetch(`${serverUrl}/jobs/web-delivery?knowledgeBaseId=${KB}`, { headers: { 'x-api-key': apiKey } });
    return job.ok && ((await job.json()) as { status: string }).status === 'succeeded';
  }, 'the items are indexed', { ms: 120_000 });
}

/** Creates the bakery's widget (allowing ORIGIN) through the dashboard's own API in a signed-in page; its id. */
export async function createBakeryWidget(page: Page, limits?: { visitorQuestionsPerMinute: number; widgetQuestionsPerMinute: number }): Promise<string> {
  return page.evaluate(
    async ({ kb, origin, limits }) => {
      const session = await (await fetch('/admin/api/session')).json();
      const res = await fetch('/admin/api/widgets', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-localiq-csrf': session.csrfToken },
        body: JSON.stringify({ name: 'Bakery shop', knowledgeBaseIds: [kb], allowedOrigins: [origin], ...(limits ? { limits } : {}) }),
      });
      return (await res.json()).id as string;
    },
    { kb: KB, origin: ORIGIN, limits },
  );
}
