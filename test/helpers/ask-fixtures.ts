import type { RunningServer } from '../../server/main.ts';
import { AdminClient, signedInAs } from './admin-client.ts';
import { api, startPipelineServer, waitForIdle } from './pipeline-app.ts';

/** A small bakery knowledge base: distinct topics, so each question has one right source. */
export const BAKERY = [
  {
    externalId: 'hours',
    title: 'Opening hours',
    content:
      'The bakery on Market Street opens at 7 in the morning from Monday to Saturday and closes at 6 in the evening. ' +
      'On Sundays the shop opens at 8 and closes at noon. We are closed on public holidays.',
  },
  {
    externalId: 'wedding-cakes',
    title: 'Wedding cakes',
    content:
      'We bake tiered wedding cakes with sponge, chocolate or carrot layers. Please order a wedding cake at least six weeks ' +
      'ahead, because the decorations are made by hand. A tasting session with three sample flavours costs 25 euros.',
  },
  {
    externalId: 'delivery',
    title: 'Delivery',
    content:
      'Bread and pastries are delivered by bicycle within five kilometres of the shop. Delivery is free for orders above 30 euros; ' +
      'smaller orders pay a flat fee of 4 euros. Deliveries leave the bakery every morning at nine.',
  },
  {
    externalId: 'gluten',
    title: 'Gluten-free baking',
    content:
      'Our gluten-free loaves are baked on Tuesdays in a separate oven with buckwheat and rice flour. ' +
      'They are certified by the national coeliac society, and we keep them in sealed bags to avoid cross-contamination.',
  },
];

export const KB = 'kb-bakery';

export async function pushBakery(server: RunningServer & { key: string }): Promise<void> {
  const items = BAKERY.map((a) => ({
    integrationId: 'cms',
    knowledgeBaseId: KB,
    sourceType: 'ARTICLE',
    externalId: a.externalId,
    data: { title: a.title, content: a.content, url: `https://bakery.example/${a.externalId}` },
  }));
  const res = await api(server, 'POST', '/ingest/bulk', { items });
  if (res.status !== 200) throw new Error(`bulk push failed: ${JSON.stringify(res.body)}`);
  await waitForIdle(server, 120_000);
}

export type SseEvent = { event: string; data: any };

/** Reads a text/event-stream response into its events (event name + parsed JSON data). */
export async function readEvents(res: Response, onEvent?: (e: SseEvent) => boolean | void): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? 'message';
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? 'null');
      events.push({ event, data });
      if (onEvent?.({ event, data }) === true) {
        await reader.cancel();
        return events;
      }
    }
  }
  return events;
}

/** The origin of the bakery's website, as its widget allows it. */
export const BAKERY_ORIGIN = 'https://shop.example';

/**
 * A running bakery (real server, pipeline and model, the bakery pushed and indexed) with its
 * website's widget (limits high enough for a test's visitors), and two dashboard users: the
 * owner who set it up, and a member.
 */
export async function startBakeryShop() {
  const server = await startPipelineServer({ trustedProxies: ['127.0.0.1'] });
  await pushBakery(server);
  const widget = server.services.widgets.create({
    name: 'Bakery',
    knowledgeBaseIds: [KB],
    allowedOrigins: [BAKERY_ORIGIN],
    limits: { visitorQuestionsPerMinute: 600, widgetQuestionsPerMinute: 6_000, dailyQuestions: 1_000_000 },
  });
  const owner = new AdminClient(server.app);
  const setup = await owner.post('/setup', { username: 'owner', password: 'owner password 1' });
  if (setup.statusCode !== 201) throw new Error(`setup failed: ${setup.statusCode} ${setup.body}`);
  const member = await signedInAs(owner, server.app, 'member');
  return { server, widget, owner, member };
}
