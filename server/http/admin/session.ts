import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { credentialsSchema, passwordChangeSchema } from '../../../common/contract/admin.ts';
import type { DesktopSignIn } from '../../domain/sessions.ts';
import type { Services } from '../../services.ts';
import { signIn } from '../edge/admin-sign-in.ts';
import { ApiError } from '../edge/api-error.ts';
import { clearSessionCookie, sessionOf } from '../edge/admin-auth.ts';
import { SignInThrottle } from '../edge/sign-in-throttle.ts';
import { sessionView } from '../edge/user-view.ts';

export type SessionRoutesOptions = Pick<Services, 'users' | 'sessions'> & { desktop: DesktopSignIn; clock?: () => number };

/**
 * `/session`: signing in and out of the dashboard, changing one's password, and the desktop
 * window's one-time sign-in link (`/session/desktop`).
 */
export const sessionRoutes: FastifyPluginAsyncZod<SessionRoutesOptions> = async (app, { users, sessions, desktop, clock }) => {
  const throttle = new SignInThrottle(undefined, clock);

  app.get('/session', { config: { admin: 'public' } }, async (request) => {
    const session = request.adminSession;
    if (!session) throw new ApiError('not_signed_in', 'Not signed in.');
    return sessionView(session);
  });

  /**
   * Counts a password try before checking it (about 90 ms of scrypt): counted after, every guess
   * sent at the same moment passed the check before any was counted. Counted under the username
   * and under the address, so neither many addresses nor many names get more tries.
   */
  const countTry = (request: FastifyRequest, username: string): string[] => {
    const keys = SignInThrottle.keys(username, request.ip);
    const wait = throttle.retryAfter(keys);
    if (wait > 0) {
      const when = wait < 60 ? `${wait} second${wait === 1 ? '' : 's'}` : `${Math.ceil(wait / 60)} minute${wait > 60 ? 's' : ''}`;
      throw new ApiError('rate_limited', `Too many wrong passwords; try again in ${when}.`, undefined, { 'retry-after': String(wait) });
    }
    throttle.fail(keys);
    return keys;
  };

  app.post('/session', { config: { admin: 'public' }, schema: { body: credentialsSchema } }, async (request, reply) => {
    const keys = countTry(request, request.body.username);
    const user = await users.verify(request.body.username, request.body.password);
    if (!user) throw new ApiError('not_signed_in', 'The username or password is wrong.');
    throttle.succeed(keys);
    return signIn(request, reply, user, { users, sessions });
  });

  app.delete('/session', { config: { admin: 'member' } }, async (request, reply) => {
    sessions.destroy(sessionOf(request).token);
    clearSessionCookie(request, reply);
    return reply.code(204).send();
  });

  app.post('/session/password', { config: { admin: 'member' }, schema: { body: passwordChangeSchema } }, async (request, reply) => {
    const { user } = sessionOf(request);
    // Guessing through the current-password check counts like guessing at sign-in.
    const keys = countTry(request, user.username);
    const changed = await users.changePassword(user, request.body.currentPassword, request.body.newPassword);
    if (!changed) throw new ApiError('forbidden', 'The current password is wrong.');
    throttle.succeed(keys);
    // Every other session of this user ends; this browser gets a fresh one.
    sessions.destroyForUser(user.id);
    request.adminSession = null;
    return signIn(request, reply, user, { users, sessions });
  });

  /**
   * The desktop window's way in: the shell started the server with a one-time token and opens
   * this link. It works once, then only the password does.
   */
  app.get(
    '/session/desktop',
    {
      config: { admin: 'public' },
      schema: { querystring: z.strictObject({ token: z.string().min(1).max(256) }) },
    },
    async (request, reply) => {
      reply.header('referrer-policy', 'no-referrer');
      if (users.needsOwner()) {
        if (!desktop.available) throw new ApiError('not_signed_in', 'This sign-in link is not valid.');
        return reply.redirect('/#/setup', 303);
      }
      const owner = users.owner();
      if (!owner || !desktop.consume(request.query.token)) {
        throw new ApiError('not_signed_in', 'This sign-in link is not valid or was already used; sign in with your password.');
      }
      signIn(request, reply, owner, { users, sessions });
      return reply.redirect('/', 303);
    },
  );
};
