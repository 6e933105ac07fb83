import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { credentialsSchema, passwordChangeSchema } from '../../../common/contract/admin.ts';
import type { DesktopSignIn, SessionService } from '../../domain/sessions.ts';
import { UserError, type UserRecord, type UserService } from '../../domain/users.ts';
import { ApiError } from '../edge/api-error.ts';
import { clearSessionCookie, sessionOf, setSessionCookie } from '../edge/admin-auth.ts';
import { SignInThrottle } from '../edge/sign-in-throttle.ts';
import { sessionView } from './views.ts';

export type SessionRoutesOptions = { users: UserService; sessions: SessionService; desktop: DesktopSignIn; clock?: () => number };

export function userErrorToApi(error: unknown): never {
  if (error instanceof UserError) {
    const code = error.reason === 'not_found' ? 'not_found' : error.reason === 'forbidden' ? 'forbidden' : error.reason === 'weak_password' ? 'invalid_body' : 'conflict';
    throw new ApiError(code, error.message, code === 'invalid_body' ? [{ path: 'password', message: error.message }] : undefined);
  }
  throw error;
}

function isLoopback(ip: string): boolean {
  return ip === '::1' || ip.startsWith('127.') || ip.startsWith('::ffff:127.');
}

export const sessionRoutes: FastifyPluginAsyncZod<SessionRoutesOptions> = async (app, { users, sessions, desktop, clock }) => {
  const throttle = new SignInThrottle(undefined, clock);

  /** A new session on every sign-in (the old one, if any, ends): no session fixation. */
  function signIn(request: FastifyRequest, reply: FastifyReply, user: UserRecord) {
    if (request.adminSession) sessions.destroy(request.adminSession.token);
    const created = sessions.create(user.id);
    users.recordSignIn(user.id);
    setSessionCookie(request, reply, created.token, created.expiresAt);
    return sessionView({ user, csrfToken: created.csrfToken, expiresAt: created.expiresAt });
  }

  app.get('/setup', { config: { admin: 'public' } }, async () => ({ needsOwner: users.needsOwner() }));

  app.post('/setup', { config: { admin: 'public' }, schema: { body: credentialsSchema } }, async (request, reply) => {
    if (!users.needsOwner()) throw new ApiError('conflict', 'The Owner already exists; sign in instead.');
    // Whoever creates the Owner owns this LocalIQ: on a server that listens on the network, that
    // must be someone at the machine itself (or on an SSH tunnel to it), not the first visitor.
    if (!isLoopback(request.ip)) {
      throw new ApiError('forbidden', 'Create the Owner from the machine LocalIQ runs on (http://127.0.0.1), or through an SSH tunnel to it.');
    }
    const owner = await users.createOwner(request.body.username, request.body.password).catch(userErrorToApi);
    return reply.code(201).send(signIn(request, reply, owner));
  });

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
    return signIn(request, reply, user);
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
    const changed = await users.changePassword(user, request.body.currentPassword, request.body.newPassword).catch(userErrorToApi);
    if (!changed) throw new ApiError('forbidden', 'The current password is wrong.');
    throttle.succeed(keys);
    // Every other session of this user ends; this browser gets a fresh one.
    sessions.destroyForUser(user.id);
    request.adminSession = null;
    return signIn(request, reply, user);
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
      signIn(request, reply, owner);
      return reply.redirect('/', 303);
    },
  );
};
