import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { InvalidCursorError } from '../../../../../server/domain/cursor.ts';
import { Refusal } from '../../../../../server/domain/errors.ts';
import { BackupScheduleError } from '../../../../../server/domain/scheduled-backups.ts';
import { UserError } from '../../../../../server/domain/users.ts';
import { WebsiteSourceError } from '../../../../../server/domain/website-sources.ts';
import { registerErrorHandling } from '../../../../../server/http/edge/error-handler.ts';

/** The body and status a route that throws `error` answers with. */
async function answerTo(error: Error) {
  const app = Fastify();
  registerErrorHandling(app);
  app.get('/refused', async () => {
    throw error;
  });
  const res = await app.inject({ method: 'GET', url: '/refused' });
  await app.close();
  const { code, message, details } = res.json() as { code: string; message: string; details?: Array<{ path: string; message: string }> };
  // The error shape's code, message and details (its statusCode and requestId are the handler's own).
  return { status: res.statusCode, body: { error: { code, message, details } } };
}

describe("the domain's refusals in the error shape: mapped once, at the edge", () => {
  it('a refused input names its field, under the summary the domain gives', async () => {
    const source = await answerTo(new WebsiteSourceError('startUrl', 'must be an http(s) address'));
    assert.equal(source.status, 400);
    assert.deepEqual(source.body.error, {
      code: 'invalid_body',
      message: 'The source was not added.',
      details: [{ path: 'startUrl', message: 'must be an http(s) address' }],
    });
    const schedule = await answerTo(new BackupScheduleError('folder', 'must be an absolute path'));
    assert.equal(schedule.body.error.message, 'The backup schedule was not saved.');
    assert.deepEqual(schedule.body.error.details, [{ path: 'folder', message: 'must be an absolute path' }]);
  });

  it("users' refusals keep their codes: conflict, not found, forbidden, and a weak password as the password's fault", async () => {
    const cases: Array<[UserError, number, string]> = [
      [new UserError('exists', 'The username "ana" is taken.'), 409, 'conflict'],
      [new UserError('owner_exists', 'The Owner already exists; sign in instead.'), 409, 'conflict'],
      [new UserError('not_found', 'No such user.'), 404, 'not_found'],
      [new UserError('forbidden', 'Admins manage Members only.'), 403, 'forbidden'],
    ];
    for (const [error, status, code] of cases) {
      const { status: got, body } = await answerTo(error);
      assert.deepEqual([got, body.error.code, body.error.message, body.error.details], [status, code, error.message, undefined]);
    }
    const weak = await answerTo(new UserError('weak_password', 'A password needs at least 10 characters.'));
    assert.deepEqual([weak.status, weak.body.error.code, weak.body.error.message], [400, 'invalid_body', 'A password needs at least 10 characters.']);
    assert.deepEqual(weak.body.error.details, [{ path: 'password', message: 'A password needs at least 10 characters.' }]);
  });

  it('a cursor this server did not give is the query\'s fault', async () => {
    const { status, body } = await answerTo(new InvalidCursorError());
    assert.equal(status, 400);
    assert.deepEqual(body.error, {
      code: 'invalid_query',
      message: 'The cursor is not one this server returned.',
      details: [{ path: 'cursor', message: 'The cursor is not one this server returned.' }],
    });
  });

  it('any other error stays an internal error that says nothing of itself', async () => {
    const { status, body } = await answerTo(new Error('SQLITE_CORRUPT at /secret/path'));
    assert.equal(status, 500);
    assert.equal(body.error.code, 'internal_error');
    assert.ok(!body.error.message.includes('secret'));
    assert.ok(new WebsiteSourceError('x', 'y') instanceof Refusal);
  });
});
