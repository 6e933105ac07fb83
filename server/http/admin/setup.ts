import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { credentialsSchema } from '../../../common/contract/admin.ts';
import type { Services } from '../../services.ts';
import { signIn } from '../edge/admin-sign-in.ts';
import { ApiError } from '../edge/api-error.ts';

function isLoopback(ip: string): boolean {
  return ip === '::1' || ip.startsWith('127.') || ip.startsWith('::ffff:127.');
}

/** `/setup`: whether LocalIQ still needs its Owner, and creating the Owner (from the machine itself). */
export const setupRoutes: FastifyPluginAsyncZod<Pick<Services, 'users' | 'sessions'>> = async (app, { users, sessions }) => {
  app.get('/setup', { config: { admin: 'public' } }, async () => ({ needsOwner: users.needsOwner() }));

  app.post('/setup', { config: { admin: 'public' }, schema: { body: credentialsSchema } }, async (request, reply) => {
    if (!users.needsOwner()) throw new ApiError('conflict', 'The Owner already exists; sign in instead.');
    // Whoever creates the Owner owns this LocalIQ: on a server that listens on the network, that
    // must be someone at the machine itself (or on an SSH tunnel to it), not the first visitor.
    if (!isLoopback(request.ip)) {
      throw new ApiError('forbidden', 'Create the Owner from the machine LocalIQ runs on (http://127.0.0.1), or through an SSH tunnel to it.');
    }
    const owner = await users.createOwner(request.body.username, request.body.password);
    return reply.code(201).send(signIn(request, reply, owner, { users, sessions }));
  });
};
