import { parseArgs } from 'node:util';
import { newWebhookSchema, WEBHOOK_EVENTS } from '../../common/contract/webhooks.ts';
import type { Services } from '../services.ts';

export const WEBHOOKS_USAGE = `  webhooks create --url U --events a,b [--json]
                                          POST signed events (${WEBHOOK_EVENTS.join(', ')}) to U; prints the signing secret once
  webhooks list [--json]                  list webhooks with their events and last delivery (never their secrets)
  webhooks delete <id>                    delete a webhook and its pending deliveries`;

const ACTIONS = ['create', 'list', 'delete'];

/** Webhooks from the command line: whoever runs it on this machine owns the data folder. */
export async function webhooksCommand(
  args: string[],
  withServices: <T>(run: (services: Services) => T | Promise<T>) => Promise<T>,
  usageError: (message: string) => Error,
): Promise<number> {
  const [action, ...rest] = args;
  if (!action || !ACTIONS.includes(action)) throw usageError(`webhooks takes ${ACTIONS.join(', ')}.`);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { url: { type: 'string' }, events: { type: 'string' }, json: { type: 'boolean' } },
  });
  const json = values.json ?? false;
  const extra = positionals.slice(action === 'delete' ? 1 : 0);
  if (extra.length > 0) throw usageError(`webhooks ${action} does not take "${extra.join(' ')}".`);
  if (action !== 'create' && (values.url !== undefined || values.events !== undefined)) {
    throw usageError(`webhooks ${action} takes no --url or --events.`);
  }

  switch (action) {
    case 'create': {
      if (values.url === undefined || values.events === undefined) throw usageError('webhooks create needs --url and --events.');
      const events = values.events.split(',').map((event) => event.trim()).filter(Boolean);
      const checked = newWebhookSchema.safeParse({ url: values.url, events });
      if (!checked.success) {
        throw usageError(checked.error.issues.map((issue) => `--${String(issue.path[0])}: ${issue.message}`).join('\n'));
      }
      return withServices(({ webhooks }) => {
        const created = webhooks.create(checked.data, null);
        if (json) process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
        else {
          process.stdout.write(
            [
              `Created webhook ${created.id} for ${created.webhook.events.join(', ')} → ${created.webhook.url}`,
              `Signing secret (shown this once; the receiver checks x-localiq-signature with it):`,
              created.secret,
              '',
            ].join('\n'),
          );
        }
        return 0;
      });
    }
    case 'list':
      return withServices(({ webhooks }) => {
        const list = webhooks.list();
        if (json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
        else if (list.length === 0) process.stdout.write('No webhooks yet: create one with localiq webhooks create or in the dashboard.\n');
        else {
          const lines = list.map((w) =>
            [w.id, w.state, w.events.join(','), w.url, w.lastDelivery ? `${w.lastDelivery.at} ${w.lastDelivery.state} ${w.lastDelivery.httpStatus ?? w.lastDelivery.error ?? ''}` : '—'].join('\t'),
          );
          process.stdout.write(`${['id\tstate\tevents\turl\tlast delivery', ...lines].join('\n')}\n`);
        }
        return 0;
      });
    default: {
      const id = positionals[0];
      if (!id) throw usageError('webhooks delete needs the webhook id (webhooks list shows them).');
      if (values.json) throw usageError('webhooks delete takes no --json.');
      return withServices(({ webhooks }) => {
        if (!webhooks.remove(id)) {
          process.stderr.write(`No webhook with id ${id}.\n`);
          return 1;
        }
        process.stdout.write(`Deleted webhook ${id}.\n`);
        return 0;
      });
    }
  }
}
