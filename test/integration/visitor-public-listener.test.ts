/**
 * The public listener (LOCALIQ_PUBLIC_PORT): the visitor side alone, on its own port, and behind
 * a real nginx and a real Caddy configured exactly as docs/visitor-assistant.md shows.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { visitorSessionSchema } from '../../common/contract/widget.ts';
import type { WidgetRecord } from '../../server/domain/widgets.ts';
import type { RunningServer } from '../../server/main.ts';
import { KB, pushBakery, readEvents } from '../helpers/ask-fixtures.ts';
import { PROXIES, type RunningProxy, documentedConfig, proxyInstalled, startDocumentedProxy } from '../helpers/documented-proxies.ts';
import { startPipelineServer } from '../helpers/pipeline-app.ts';
import { suiteSkipWhereMissing } from '../helpers/skip-where-missing.ts';
import { checkErrorShape } from './reliability/helpers/fixture.ts';
import { VISITOR_ROUTES, servedRoutes } from './reliability/helpers/routes.ts';

type Server = RunningServer & { key: string; dataDir: string };

const ORIGIN = 'https://shop.example';

function headersOf(res: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

describe('the public listener (real server, real model)', { timeout: 300_000 }, () => {
  let server: Server;
  let widget: WidgetRecord;
  before(async () => {
    server = await startPipelineServer({ publicListener: { host: '127.0.0.1', port: 0 }, trustedProxies: ['127.0.0.1'] });
    await pushBakery(server);
    widget = server.services.widgets.create({
      name: 'Bakery', knowledgeBaseIds: [KB], allowedOrigins: [ORIGIN],
      limits: { visitorQuestionsPerMinute: 600, widgetQuestionsPerMinute: 6_000, dailyQuestions: 1_000_000 },
    });
  });
  after(() => server.stop());

  it("the README's nginx configuration is the one tested here", () => {
    const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const block = /```nginx\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(block);
    assert.equal(block.replace(/^ {3}/gm, ''), documentedConfig('nginx'));
  });

  it("the README's Caddy line is the handle_path block of the Caddyfile tested here", () => {
    const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const line = /`(handle_path [^`]+)`/.exec(readme)?.[1];
    assert.ok(line, 'the README shows a handle_path line');
    const block = /\thandle_path[\s\S]*?\n\t\}/.exec(documentedConfig('caddy'))?.[0];
    assert.ok(block);
    const words = (text: string) => text.split(/\s+/).filter(Boolean).join(' ');
    assert.equal(words(line), words(block));
  });

  it('listens apart from the main listener', () => {
    assert.ok(server.publicUrl);
    assert.notEqual(server.publicUrl, server.url);
  });

  it("refuses every route of the main app that is not the visitor side, in the error shape", async () => {
    const visitor = new Set(VISITOR_ROUTES.map((r) => `${r.method} ${r.path}`));
    const routes = servedRoutes(server.app.printRoutes({ commonPrefix: false })).filter((r) => !visitor.has(`${r.method} ${r.path}`));
    assert.ok(routes.length > 40, `${routes.length} routes`);
    const paths = [...routes, { method: 'GET', path: '/health' }, { method: 'GET', path: '/docs/json' }, { method: 'GET', path: '/assets/index.js' }];
    for (const route of paths) {
      const url = route.path.replace(/:[A-Za-z]+/g, 'x').replace('*', 'x');
      const body = ['POST', 'PUT', 'PATCH'].includes(route.method) ? '{}' : undefined;
      const res = await fetch(`${server.publicUrl}${url}`, {
        method: route.method,
        headers: { 'x-api-key': server.key, origin: ORIGIN, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body } : {}),
      });
      const text = await res.text();
      assert.equal(res.status, 404, `${route.method} ${url}: ${text.slice(0, 200)}`);
      const shape = checkErrorShape(404, headersOf(res), text);
      assert.ok(shape.ok, shape.ok ? '' : `${route.method} ${url}: ${shape.problem}`);
      assert.equal(JSON.parse(text).code, 'not_found');
    }
  });

  it('serves the visitor side: config, session, a streamed answer, the hosted page and the widget script', async () => {
    const base = `${server.publicUrl}/v1/widget/${widget.id}`;
    assert.equal((await fetch(`${base}/config`, { headers: { origin: ORIGIN } })).status, 200);
    const session = await fetch(`${base}/sessions`, { method: 'POST', headers: { origin: ORIGIN } });
    const { token } = visitorSessionSchema.parse(await session.json());
    const answer = await fetch(`${base}/ask`, {
      method: 'POST',
      headers: { origin: ORIGIN, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'When does the bakery open on Sundays?' }),
    });
    const done = (await readEvents(answer)).find((e) => e.event === 'done')!.data;
    assert.equal(done.answered, true);
    const page = await fetch(`${server.publicUrl}/w/${widget.id}`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /data-mode="page"/);
    const script = await fetch(`${server.publicUrl}/widget.js`);
    const text = await script.text();
    assert.ok(script.status === 200 || (script.status === 404 && /npm run build/.test(text)), `${script.status} ${text.slice(0, 200)}`);
  });

  for (const proxy of PROXIES) {
    describe(`behind ${proxy}, configured as docs/visitor-assistant.md shows`, () => {
      const skip = suiteSkipWhereMissing(proxyInstalled(proxy), `${proxy} is not installed (apt-get install -y ${proxy}); .ci/run installs it`);
      let running: RunningProxy | undefined;
      let base: string;
      let proxyOrigin: string;
      const output = () => running?.output() ?? '';
      before(async () => {
        if (skip) return;
        running = await startDocumentedProxy(proxy, { upstreamPort: Number(new URL(server.publicUrl!).port) });
        ({ base, origin: proxyOrigin } = running);
      });
      after(() => running?.stop());

      it('answers a visitor through the proxy: config, session, a streamed answer', { skip }, async () => {
        const config = await fetch(`${base}/v1/widget/${widget.id}/config`, { headers: { origin: ORIGIN } });
        assert.equal(config.status, 200, await config.clone().text());
        assert.equal(config.headers.get('access-control-allow-origin'), ORIGIN);

        // A forged X-Forwarded-For from the visitor does not pass the proxy: the address is the one it saw.
        const session = await fetch(`${base}/v1/widget/${widget.id}/sessions`, { method: 'POST', headers: { origin: ORIGIN, 'x-forwarded-for': '198.51.100.23' } });
        assert.equal(session.status, 201, output());
        const { token } = visitorSessionSchema.parse(await session.json());
        const sessionId = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).s as string;

        const answer = await fetch(`${base}/v1/widget/${widget.id}/ask`, {
          method: 'POST',
          headers: { origin: ORIGIN, authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.23' },
          body: JSON.stringify({ question: 'When does the bakery open on Sundays?' }),
        });
        assert.equal(answer.status, 200);
        assert.match(answer.headers.get('content-type') ?? '', /^text\/event-stream/);
        const events = await readEvents(answer);
        assert.deepEqual(events.slice(-2).map((e) => e.event), ['citations', 'done']);
        const done = events.at(-1)!.data;
        assert.equal(done.answered, true, done.answer);
        assert.equal(done.citations[0].url, 'https://bakery.example/hours');
        // Stored at its first question, with the address the proxy saw.
        const stored = server.services.visitorConversations.session(sessionId)!;
        assert.equal(stored.ipHash, server.services.visitorSessions.hashAddress('127.0.0.1'));
      });

      it("serves the hosted page under the proxy's path, whose requests carry the proxy's origin", { skip }, async () => {
        const page = await fetch(`${base}/w/${widget.id}`);
        assert.equal(page.status, 200);
        const html = await page.text();
        const src = /<script src="([^"]+)"/.exec(html)![1]!;
        assert.equal(new URL(src, `${base}/w/${widget.id}`).pathname, '/assistant/widget.js', 'the script resolves under the proxy path');
        // The page's own origin is the proxy's: LocalIQ's own for this request (Host passed on).
        const config = await fetch(`${base}/v1/widget/${widget.id}/config`, { headers: { origin: proxyOrigin } });
        assert.equal(config.status, 200, await config.clone().text());
        const other = await fetch(`${base}/v1/widget/${widget.id}/config`, { headers: { origin: 'https://evil.example' } });
        assert.equal(other.status, 403);
      });

      it('passes nothing but the visitor side: other paths are refused by the public listener', { skip }, async () => {
        for (const url of ['/health', '/knowledge-bases', '/admin/api/session', '/docs']) {
          const res = await fetch(`${base}${url}`, { headers: { 'x-api-key': server.key } });
          assert.equal(res.status, 404, url);
          assert.equal((await res.json()).code, 'not_found');
        }
      });
    });
  }
});
