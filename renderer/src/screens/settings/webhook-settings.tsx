import { type FormEvent, useState } from 'react';
import {
  type AdminWebhook,
  type CreatedWebhook,
  WEBHOOK_EVENTS,
  webhookUrlProblem,
} from '../../../../common/contract/webhooks.ts';
import { addWebhook, deleteWebhook, listWebhookDeliveries, listWebhooks } from '../../api/webhooks.ts';
import { ConfirmDelete } from '../../components/confirm-delete.tsx';
import { Badge, CopyButton, DataTable, ErrorNote, errorText, useLoad } from '../../components/ui.tsx';
import { formatDate } from '../../format.ts';

const EVENT_HELP: Record<(typeof WEBHOOK_EVENTS)[number], string> = {
  'job.succeeded': 'an item was indexed and is searchable',
  'job.failed': 'an item could not be indexed after its last attempt',
  'handoff.created': 'a visitor left a question for the shop in the widget (its id, widget and question; the contact details stay in the Inbox)',
};

function LastDelivery({ webhook }: { webhook: AdminWebhook }) {
  const last = webhook.lastDelivery;
  if (!last) return <>none yet</>;
  return (
    <>
      {last.error ?? `HTTP ${last.httpStatus}`}
      <div className="hint">{formatDate(last.at)}</div>
    </>
  );
}

/** The delivery log of one webhook: each attempt, newest first. */
function DeliveryLog({ webhook }: { webhook: AdminWebhook }) {
  const log = useLoad((signal) => listWebhookDeliveries(webhook.id, signal), [webhook.id]);
  return (
    <div data-testid="webhook-log">
      <h3>Deliveries to {webhook.url}</h3>
      <ErrorNote error={log.error} />
      {log.data && log.data.data.length === 0 ? <p className="hint">No delivery yet.</p> : null}
      <DataTable caption={`Deliveries to ${webhook.url}`} columns={['Time', 'Events', 'Attempt', 'Result', 'Duration']}>
        {(log.data?.data ?? []).map((entry) => (
          <tr key={`${entry.deliveryId}-${entry.attempt}`}>
            <td className="date">{formatDate(entry.at)}</td>
            <td>
              {entry.events.join(', ')} ({entry.eventCount})
            </td>
            <td>{entry.attempt}</td>
            <td>
              <Badge value={entry.error ? 'failed' : 'succeeded'} label={entry.error ?? `HTTP ${entry.httpStatus}`} />
            </td>
            <td>{entry.durationMs} ms</td>
          </tr>
        ))}
      </DataTable>
      <div className="actions">
        <button type="button" className="secondary" onClick={log.reload}>
          Refresh
        </button>
      </div>
    </div>
  );
}

/**
 * Webhooks, for the Owner and Admins: LocalIQ POSTs signed events to an address of their choosing
 * (docs/webhooks.md). The signing secret is shown once, right after creation.
 */
export function WebhooksPanel() {
  const hooks = useLoad((signal) => listWebhooks(signal), []);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [removing, setRemoving] = useState<AdminWebhook | null>(null);
  const [showing, setShowing] = useState<AdminWebhook | null>(null);

  const add = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formEl = event.currentTarget;
    const form = new FormData(formEl);
    const url = String(form.get('url') ?? '').trim();
    const events = WEBHOOK_EVENTS.filter((name) => form.get(name) === 'on');
    const problem = webhookUrlProblem(url);
    if (problem) return setError(`The address ${problem}.`);
    if (events.length === 0) return setError('Choose at least one event.');
    try {
      setCreated(await addWebhook({ url, events }));
      formEl.reset();
      setError(null);
      hooks.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <section className="panel" aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      <p className="hint">
        LocalIQ POSTs events to these addresses, signed with each webhook&apos;s secret (header <code>x-localiq-signature</code>). An
        address on this network (a help desk, a chat server) is allowed.
      </p>
      <ErrorNote error={hooks.error ?? error} />
      {created ? (
        <div data-testid="webhook-secret">
          <p className="warning" role="alert">
            Webhook created. Copy its signing secret now: it is shown only this once. The receiver checks each delivery with it.
          </p>
          <div className="key-value">
            <code aria-label="Signing secret of the new webhook">{created.secret}</code>
            <CopyButton text={created.secret} label="Copy secret" />
          </div>
          <div className="actions">
            <button type="button" className="primary" onClick={() => setCreated(null)}>
              I have stored the secret
            </button>
          </div>
        </div>
      ) : null}
      <DataTable caption="Webhooks" columns={['Address', 'Events', 'State', 'Last delivery', 'Actions']}>
        {(hooks.data?.data ?? []).map((webhook) => (
          <tr key={webhook.id}>
            <td>
              <code>{webhook.url}</code>
            </td>
            <td>{webhook.events.join(' ')}</td>
            <td>
              <Badge value={webhook.state === 'active' ? 'active' : 'failed'} label={webhook.state} />
            </td>
            <td>
              <LastDelivery webhook={webhook} />
            </td>
            <td>
              <div className="row-actions">
                <button type="button" className="secondary" onClick={() => setShowing(webhook)} aria-label={`Deliveries to ${webhook.url}`}>
                  Log
                </button>
                <button type="button" className="danger" onClick={() => setRemoving(webhook)} aria-label={`Delete webhook ${webhook.url}`}>
                  Delete
                </button>
              </div>
            </td>
          </tr>
        ))}
      </DataTable>
      {hooks.data && hooks.data.data.length === 0 ? <p className="hint">No webhooks yet.</p> : null}
      {showing ? <DeliveryLog webhook={showing} /> : null}
      <form className="form" onSubmit={(e) => void add(e)} aria-labelledby="add-webhook-heading">
        <h3 id="add-webhook-heading">Add a webhook</h3>
        <div className="field">
          <label htmlFor="webhook-url">Address (http or https)</label>
          <input id="webhook-url" name="url" type="url" required placeholder="https://helpdesk.example/hooks/localiq" autoComplete="off" />
        </div>
        <fieldset>
          <legend>Events</legend>
          {WEBHOOK_EVENTS.map((name) => (
            <label className="check" key={name}>
              <input type="checkbox" name={name} defaultChecked={name !== 'job.succeeded'} /> <code>{name}</code>: {EVENT_HELP[name]}
            </label>
          ))}
        </fieldset>
        <button type="submit" className="primary">
          Add webhook
        </button>
      </form>
      <ConfirmDelete
        target={removing}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        message={(webhook) => <p>No more events are sent to {webhook.url}; deliveries still pending are dropped.</p>}
        remove={async (webhook) => {
          await deleteWebhook(webhook.id);
          if (showing?.id === webhook.id) setShowing(null);
          hooks.reload();
        }}
        onClose={() => setRemoving(null)}
      />
    </section>
  );
}
