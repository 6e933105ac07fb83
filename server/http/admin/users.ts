import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { newUserSchema, userParamsSchema, userRoleSchema } from '../../../common/contract/admin.ts';
import type { Services } from '../../services.ts';
import { sessionOf } from '../edge/admin-auth.ts';
import { userView } from '../edge/user-view.ts';

/** `/users`: the dashboard's users; Members look, the Owner and Admins add, change and remove them. */
export const userRoutes: FastifyPluginAsyncZod<Pick<Services, 'users' | 'sessions'>> = async (app, { users, sessions }) => {
  app.get('/users', { config: { admin: 'member' } }, async () => ({ data: users.list().map(userView) }));

  app.post('/users', { config: { admin: 'manager' }, schema: { body: newUserSchema } }, async (request, reply) => {
    const { username, password, role } = request.body;
    const user = await users.create(sessionOf(request).user, username, password, role);
    return reply.code(201).send(userView(user));
  });

  app.patch(
    '/users/:userId',
    { config: { admin: 'manager' }, schema: { params: userParamsSchema, body: userRoleSchema } },
    async (request) => {
      const user = users.setRole(sessionOf(request).user, request.params.userId, request.body.role);
      // A changed role takes effect at once: the user signs in again.
      sessions.destroyForUser(user.id);
      return userView(user);
    },
  );

  app.delete('/users/:userId', { config: { admin: 'manager' }, schema: { params: userParamsSchema } }, async (request, reply) => {
    users.remove(sessionOf(request).user, request.params.userId);
    return reply.code(204).send();
  });
};
