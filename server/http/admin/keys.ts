import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type AdminKey, keyParamsSchema, newKeySchema, rotateKeySchema } from '../../../common/contract/admin.ts';
import type { Services } from '../../services.ts';
import { type ApiKeyRecord, type ApiKeyState, displayPrefix, keyState } from '../../domain/api-keys.ts';
import { ApiError } from '../edge/api-error.ts';
import { sessionOf } from '../edge/admin-auth.ts';
import { isoOrNull, isoTime } from '../edge/iso-time.ts';

function keyView(key: ApiKeyRecord & { state: ApiKeyState }): AdminKey {
  return {
    id: key.id,
    prefix: displayPrefix(key.id),
    name: key.name,
    description: key.description,
    scopes: key.scopes,
    knowledgeBaseIds: key.knowledgeBaseIds,
    createdBy: key.createdBy,
    createdAt: isoTime(key.createdAt),
    expiresAt: isoOrNull(key.expiresAt),
    lastUsedAt: isoOrNull(key.lastUsedAt),
    revokedAt: isoOrNull(key.revokedAt),
    rotatedFrom: key.rotatedFrom,
    state: key.state,
  };
}

/** API keys as the dashboard manages them. Values are returned once, at creation or rotation. */
export const keyRoutes: FastifyPluginAsyncZod<Pick<Services, 'keys'>> = async (app, { keys }) => {
  const view = (id: string) => {
    const key = keys.find(id);
    if (!key) throw new ApiError('not_found', `No API key "${id}".`);
    return keyView({ ...key, state: keyState(key, Date.now()) });
  };

  app.get('/keys', { config: { admin: 'member' } }, async () => ({ data: keys.list().map(keyView) }));

  app.post('/keys', { config: { admin: 'manager' }, schema: { body: newKeySchema } }, async (request, reply) => {
    const body = request.body;
    const expiresAt = body.expiresAt === null ? null : Date.parse(body.expiresAt);
    if (expiresAt !== null && expiresAt <= Date.now()) {
      throw new ApiError('invalid_body', 'The expiry must be in the future.', [{ path: 'expiresAt', message: 'must be in the future' }]);
    }
    const created = keys.create({
      name: body.name,
      description: body.description,
      scopes: body.scopes,
      knowledgeBaseIds: body.knowledgeBaseIds,
      expiresAt,
      createdBy: sessionOf(request).user.username,
    });
    return reply.code(201).send({ key: view(created.key.id), value: created.value });
  });

  app.post('/keys/:keyId/revoke', { config: { admin: 'manager' }, schema: { params: keyParamsSchema } }, async (request) => {
    const { keyId } = request.params;
    if (!keys.find(keyId)) throw new ApiError('not_found', `No API key "${keyId}".`);
    keys.revoke(keyId);
    return view(keyId);
  });

  app.post(
    '/keys/:keyId/rotate',
    { config: { admin: 'manager' }, schema: { params: keyParamsSchema, body: rotateKeySchema } },
    async (request, reply) => {
      const { keyId } = request.params;
      if (!keys.find(keyId)) throw new ApiError('not_found', `No API key "${keyId}".`);
      const rotated = keys.rotate(keyId, request.body.graceHours * 3_600_000, sessionOf(request).user.username);
      if (!rotated) throw new ApiError('conflict', 'Only an active key not rotated already can be rotated.');
      return reply.code(201).send({ key: view(rotated.key.id), value: rotated.value, previous: view(keyId) });
    },
  );
};
