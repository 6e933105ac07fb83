import { parseArgs } from 'node:util';
import type { Services } from '../services.ts';

export const USERS_USAGE = `  users list [--json]                     list dashboard users and their roles
  users reset-password <username>         set a new password, read from stdin; signs the user out everywhere`;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** Dashboard users from the command line: a way back in when the Owner's password is lost. */
export async function usersCommand(
  args: string[],
  withServices: <T>(run: (services: Services) => T | Promise<T>) => Promise<T>,
  usageError: (message: string) => Error,
): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  switch (action) {
    case 'list':
      return withServices(({ users }) => {
        const list = users.list();
        if (values.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
        else if (list.length === 0) process.stdout.write('No users yet: open the dashboard to create the Owner.\n');
        else for (const u of list) process.stdout.write(`${u.username.padEnd(24)} ${u.role}\n`);
        return 0;
      });
    case 'reset-password': {
      const username = positionals[0];
      if (!username) throw usageError('users reset-password needs a username.');
      if (process.stdin.isTTY) process.stderr.write(`New password for ${username} (then Enter and Ctrl-D): `);
      const password = await readStdin();
      return withServices(async ({ users, sessions }) => {
        const user = await users.resetPassword(username, password);
        const ended = sessions.destroyForUser(user.id);
        process.stdout.write(`Password of ${user.username} changed; ${ended} session(s) signed out.\n`);
        return 0;
      });
    }
    default:
      throw usageError('users takes list or reset-password.');
  }
}
