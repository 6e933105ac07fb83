/**
 * The benches' ask with the visitor's page (bench/lib/ask-in-context.ts): the context is sent
 * while the server takes it; a server that rejects the field is asked without it from then on,
 * and any other refusal is an error. `fetch` is a fake written here: no server listens.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { ContextAsker } from '../../../../bench/lib/ask-in-context.ts';

const realFetch = globalThis.fetch;

const ANSWER = { question: 'q', answer: 'a', answered: true, method: 'extractive', fallbackReason: null, citations: [], tookMs: 1 };

/** A fake server: answers each body with `reply`, and keeps the bodies it was sent. */
function fakeServer(reply: (body: Record<string, unknown>) => { status: number; body: unknown }): Array<Record<string, unknown>> {
  const sent: Array<Record<string, unknown>> = [];
  globalThis.fetch = (async (_url: string | URL | Request, init?: RequestInit) => {
    const body = JSON.parse(String(init!.body)) as Record<string, unknown>;
    sent.push(body);
    const r = reply(body);
    return new Response(JSON.stringify(r.body), { status: r.status });
  }) as typeof fetch;
  return sent;
}

/** The contract's error for a body that does not pass its schema, as the server writes it. */
function invalidBody(path: string, message: string) {
  return { statusCode: 400, code: 'invalid_body', message: 'The request body is invalid: 1 problem(s), see details.', details: [{ path, message }], requestId: 'req_test' };
}

const target = { url: 'http://127.0.0.1:1', key: 'k' };

describe('ContextAsker', () => {
  // Inside the suite: a hook at the top of the file would also run after the tests of the unit
  // files that share this process (test/README.md).
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  it('sends the context to a server that takes it', async () => {
    const sent = fakeServer(() => ({ status: 200, body: ANSWER }));
    const asker = new ContextAsker(target);
    const { contextSent } = await asker.ask('kb', { question: 'how long is this?', context: { externalId: 'p1' } });
    assert.equal(contextSent, true);
    assert.equal(asker.contextSupported, true);
    assert.deepEqual(sent, [{ question: 'how long is this?', context: { externalId: 'p1' } }]);
  });

  it('asks again without the context when the server rejects the field, and does not send it again', async () => {
    const sent = fakeServer((body) =>
      'context' in body ? { status: 400, body: invalidBody('context', 'is not a field here') } : { status: 200, body: ANSWER },
    );
    const asker = new ContextAsker(target);
    const first = await asker.ask('kb', { question: 'how long is this?', context: { externalId: 'p1' } });
    const second = await asker.ask('kb', { question: 'and this?', context: { externalId: 'p2' } });
    assert.equal(first.contextSent, false);
    assert.equal(second.contextSent, false);
    assert.equal(asker.contextSupported, false);
    assert.deepEqual(sent, [{ question: 'how long is this?', context: { externalId: 'p1' } }, { question: 'how long is this?' }, { question: 'and this?' }]);
  });

  it('throws on any other refusal instead of hiding it', async () => {
    fakeServer(() => ({ status: 400, body: invalidBody('context.externalId', 'is too long') }));
    await assert.rejects(new ContextAsker(target).ask('kb', { question: 'x', context: { externalId: 'p1' } }), /ask answered 400/);
  });

  it('throws when a server that took the context refuses it later', async () => {
    let calls = 0;
    fakeServer(() => (calls++ === 0 ? { status: 200, body: ANSWER } : { status: 400, body: invalidBody('context', 'is not a field here') }));
    const asker = new ContextAsker(target);
    await asker.ask('kb', { question: 'x', context: { externalId: 'p1' } });
    await assert.rejects(asker.ask('kb', { question: 'y', context: { externalId: 'nope' } }), /ask answered 400/);
  });
});
