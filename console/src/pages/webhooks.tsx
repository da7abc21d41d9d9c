import { useCallback, useEffect, useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { useApiRead } from '../hooks';
import { Alert, Field, formatDate, inputValue } from '../ui';

type Subscription = components['schemas']['WebhookSubscription'];
type Delivery = components['schemas']['WebhookDelivery'];
type WebhookEvent = Subscription['events'][number];

const EVENTS: WebhookEvent[] = [
  'credential.issued',
  'credential.revoked',
  'credential.reissued',
  'credential.expired',
  'credential.verified',
];

function Deliveries({ subscription }: { subscription: Subscription }) {
  const [items, setItems] = useState<Delivery[] | null>(null);
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const load = useCallback(async () => {
    const { data } = await api.GET('/api/v1/webhooks/{id}/deliveries', {
      params: { path: { id: subscription.id }, query: { limit: 20 } },
    });
    setItems(data?.items ?? []);
  }, [subscription.id]);
  useEffect(() => {
    load();
  }, [load]);

  async function queue(request: Promise<{ error?: unknown }>, done: string) {
    const { error } = await request;
    setMessage(error ? { kind: 'error', text: problem(error) } : { kind: 'success', text: done });
    load();
  }

  return (
    <section class="panel" aria-label={`Webhook ${subscription.url}`}>
      <h2 class="wrap">{subscription.url}</h2>
      <p>Events: {subscription.events.join(', ')}</p>
      {message && <Alert kind={message.kind}>{message.text}</Alert>}
      <div class="actions">
        <button
          type="button"
          onClick={() =>
            queue(
              api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id: subscription.id } } }),
              'Test event queued.',
            )
          }
        >
          Send test event
        </button>
        <button type="button" class="secondary" onClick={load}>
          Refresh deliveries
        </button>
      </div>
      {items && items.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>Latest deliveries</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Response code</th>
                <th scope="col">Attempts</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {items.map((delivery) => (
                <tr key={delivery.id}>
                  <td>{formatDate(delivery.createdAt)}</td>
                  <td>{delivery.event}</td>
                  <td>{delivery.status}</td>
                  <td>{delivery.lastStatusCode ?? '—'}</td>
                  <td>{delivery.attempts}</td>
                  <td>
                    <button
                      type="button"
                      class="secondary"
                      onClick={() =>
                        queue(
                          api.POST('/api/v1/webhooks/{id}/deliveries/{deliveryId}/resend', {
                            params: { path: { id: subscription.id, deliveryId: delivery.id } },
                          }),
                          'Delivery queued again.',
                        )
                      }
                    >
                      Re-send<span class="visually-hidden"> delivery {delivery.id}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function WebhooksPage() {
  const { data, error, setError, reload: load } = useApiRead(() => api.GET('/api/v1/webhooks'), []);
  const subscriptions = data ?? [];
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(['credential.issued', 'credential.revoked']);
  const [secret, setSecret] = useState<string | null>(null);

  async function add(event: Event) {
    event.preventDefault();
    setError(null);
    const { data, error: failure } = await api.POST('/api/v1/webhooks', { body: { url, events } });
    if (failure) setError(problem(failure));
    else {
      setSecret(data.secret);
      setUrl('');
      load();
    }
  }

  return (
    <>
      <h1>Webhooks</h1>
      {error && <Alert>{error}</Alert>}
      {secret && (
        <div class="panel secret" role="status">
          <h2>Copy the signing secret now</h2>
          <p>It is shown once; your receiver checks each delivery's signature with it.</p>
          <code class="key">{secret}</code>
          <button type="button" class="secondary" onClick={() => setSecret(null)}>
            Done
          </button>
        </div>
      )}
      <form class="panel" onSubmit={add} aria-labelledby="add-webhook">
        <h2 id="add-webhook">Add a webhook</h2>
        <Field label="Receiver URL" id="webhook-url">
          <input id="webhook-url" type="url" required value={url} onInput={(e) => setUrl(inputValue(e))} />
        </Field>
        <fieldset>
          <legend>Events</legend>
          {EVENTS.map((name) => (
            <label key={name} class="choice">
              <input
                type="checkbox"
                checked={events.includes(name)}
                onChange={(e) =>
                  setEvents(
                    (e.currentTarget as HTMLInputElement).checked
                      ? [...events, name]
                      : events.filter((item) => item !== name),
                  )
                }
              />
              {name}
            </label>
          ))}
        </fieldset>
        <button type="submit">Add webhook</button>
      </form>
      {subscriptions.map((subscription) => (
        <Deliveries key={subscription.id} subscription={subscription} />
      ))}
    </>
  );
}
