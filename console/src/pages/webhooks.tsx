import { useCallback, useEffect, useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { useApiRead } from '../hooks';
import { can, useSession } from '../session';
import { Alert, ConfirmDialog, Field, formatDate, inputValue, ReadOnlyNotice } from '../ui';

type Subscription = components['schemas']['WebhookSubscription'];
type Delivery = components['schemas']['WebhookDelivery'];
type WebhookEvent = Subscription['events'][number];

const EVENTS: WebhookEvent[] = [
  'credential.issued',
  'credential.revoked',
  'credential.reissued',
  'credential.expired',
  'credential.expiry_reminder_due',
  'credential.verified',
];

/** The receiver URL and event checkboxes, shared by the add and edit forms. */
function SubscriptionFields({
  id,
  url,
  setUrl,
  events,
  setEvents,
}: {
  id: string;
  url: string;
  setUrl: (url: string) => void;
  events: WebhookEvent[];
  setEvents: (events: WebhookEvent[]) => void;
}) {
  return (
    <>
      <Field label="Receiver URL" id={`${id}-url`}>
        <input id={`${id}-url`} type="url" required value={url} onInput={(e) => setUrl(inputValue(e))} />
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
    </>
  );
}

function Deliveries({ subscription, onChange }: { subscription: Subscription; onChange: () => void }) {
  const [items, setItems] = useState<Delivery[] | null>(null);
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const [editing, setEditing] = useState(false);
  const [removing, setRemoving] = useState(false);
  const [url, setUrl] = useState(subscription.url);
  const [events, setEvents] = useState<WebhookEvent[]>(subscription.events);
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

  async function save(event: Event) {
    event.preventDefault();
    const { error } = await api.PATCH('/api/v1/webhooks/{id}', {
      params: { path: { id: subscription.id } },
      body: { url, events },
    });
    if (error) setMessage({ kind: 'error', text: problem(error) });
    else {
      setMessage({ kind: 'success', text: 'Webhook saved.' });
      setEditing(false);
      onChange();
    }
  }

  async function remove() {
    setRemoving(false);
    const { error } = await api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id: subscription.id } } });
    if (error) setMessage({ kind: 'error', text: problem(error) });
    else onChange();
  }

  const formId = `edit-${subscription.id}`;
  return (
    <section class="panel" aria-label={`Webhook ${subscription.url}`}>
      <h2 class="wrap">{subscription.url}</h2>
      <p>Events: {subscription.events.join(', ')}</p>
      {message && <Alert kind={message.kind}>{message.text}</Alert>}
      {editing ? (
        <form onSubmit={save} aria-label={`Edit webhook ${subscription.url}`}>
          <SubscriptionFields id={formId} url={url} setUrl={setUrl} events={events} setEvents={setEvents} />
          <div class="actions">
            <button type="submit">Save webhook</button>
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setUrl(subscription.url);
                setEvents(subscription.events);
                setEditing(false);
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      ) : (
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
          <button type="button" class="secondary" onClick={() => setEditing(true)}>
            Edit<span class="visually-hidden"> webhook {subscription.url}</span>
          </button>
          <button type="button" class="danger" onClick={() => setRemoving(true)}>
            Remove<span class="visually-hidden"> webhook {subscription.url}</span>
          </button>
        </div>
      )}
      {removing && (
        <ConfirmDialog
          id={`remove-${subscription.id}`}
          title="Remove this webhook?"
          confirmLabel="Remove webhook"
          onConfirm={remove}
          onCancel={() => setRemoving(false)}
        >
          <p class="wrap">
            {subscription.url} gets no more events, and deliveries not yet made are cancelled. To receive events again
            you add it anew, with a new signing secret.
          </p>
        </ConfirmDialog>
      )}
      {items && items.length === 0 && <p>No deliveries yet. Send a test event to see one here.</p>}
      {items && items.length > 0 && (
        <div class="table-wrap">
          <table class="cards">
            <caption>Latest deliveries</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Response code</th>
                <th scope="col">Error</th>
                <th scope="col">Attempts</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {items.map((delivery) => (
                <tr key={delivery.id}>
                  <td data-label="Created">{formatDate(delivery.createdAt)}</td>
                  <td data-label="Event">{delivery.event}</td>
                  <td data-label="Status">{delivery.status}</td>
                  <td data-label="Response code">{delivery.lastStatusCode ?? '—'}</td>
                  <td data-label="Error" class="wrap">
                    {delivery.lastError ?? '—'}
                  </td>
                  <td data-label="Attempts">{delivery.attempts}</td>
                  <td data-label="Actions">
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

function WebhookManager() {
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
        <SubscriptionFields id="webhook" url={url} setUrl={setUrl} events={events} setEvents={setEvents} />
        <button type="submit">Add webhook</button>
      </form>
      {subscriptions.map((subscription) => (
        <Deliveries key={subscription.id} subscription={subscription} onChange={load} />
      ))}
    </>
  );
}

export function WebhooksPage() {
  const session = useSession();
  return (
    <>
      <h1>Webhooks</h1>
      {can(session?.user, 'own') ? <WebhookManager /> : <ReadOnlyNotice what="webhooks" />}
    </>
  );
}
