import { useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api } from '../api';
import { useApiRead, useSubmission } from '../hooks';
import { can, useSession } from '../session';
import { Alert, ConfirmDialog, Field, inputValue } from '../ui';

type Platform = components['schemas']['LtiPlatform'];
type Registration = components['schemas']['LtiRegistration'];
type ToolKey = components['schemas']['LtiToolKey'];

const MANUAL_FIELDS = [
  ['name', 'Name shown here', 'e.g. Campus Moodle'],
  ['platformIssuer', 'Platform issuer (Platform ID)', 'Canvas: https://canvas.instructure.com'],
  ['clientId', 'Client ID', ''],
  ['deploymentId', 'Deployment ID', ''],
  ['authLoginUrl', 'Authentication request URL', 'the platform’s OIDC authorization endpoint'],
  ['tokenUrl', 'Access token URL', ''],
  ['jwksUri', 'Public keyset URL', ''],
  ['tokenAudience', 'Token audience (optional)', 'Brightspace: its OAuth2 audience'],
] as const;
type ManualField = (typeof MANUAL_FIELDS)[number][0];

function CopyField({ id, label, value }: { id: string; label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Field label={label} id={id}>
      <div class="inline-form">
        <input id={id} readOnly value={value} />
        <button
          type="button"
          class="secondary"
          onClick={async () => {
            await navigator.clipboard?.writeText(value).catch(() => undefined);
            setCopied(true);
          }}
        >
          {copied ? 'Copied' : `Copy ${label.toLowerCase()}`}
        </button>
      </div>
    </Field>
  );
}

function RegistrationUrl() {
  const [made, setMade] = useState<Registration | null>(null);
  const { busy, error, submit } = useSubmission();
  return (
    <section class="panel" aria-labelledby="lti-dynamic">
      <h2 id="lti-dynamic">1. Register with one paste (Dynamic Registration)</h2>
      <p>
        Canvas, Moodle, Brightspace and Sakai take a registration URL: paste it where the LMS asks for a tool’s
        registration URL. It works once, for one hour.
      </p>
      <button
        type="button"
        disabled={busy}
        onClick={() =>
          submit(async () => {
            const answer = await api.POST('/api/v1/lti/registrations');
            if (answer.data) setMade(answer.data);
            return answer;
          }, 'Made.')
        }
      >
        Create a registration URL
      </button>
      {error && <Alert>{error}</Alert>}
      {made && (
        <>
          <CopyField id="lti-registration-url" label="Registration URL" value={made.registrationUrl} />
          <p class="hint">Expires {new Date(made.expiresAt).toLocaleString()}.</p>
        </>
      )}
    </section>
  );
}

function ManualSetup({ onAdded }: { onAdded: () => void }) {
  const tool = useApiRead(() => api.GET('/api/v1/lti/tool'), []);
  const [values, setValues] = useState<Record<ManualField, string>>(
    Object.fromEntries(MANUAL_FIELDS.map(([key]) => [key, ''])) as Record<ManualField, string>,
  );
  const { busy, error, notice, submit } = useSubmission();
  const urls = tool.data;
  return (
    <section class="panel" aria-labelledby="lti-manual">
      <h2 id="lti-manual">2. Or configure the LMS by hand</h2>
      <p>For an LMS without Dynamic Registration (Blackboard), give it these values:</p>
      {tool.error && <Alert>{tool.error}</Alert>}
      {urls && (
        <>
          <CopyField id="lti-domain" label="Domain" value={urls.domain} />
          <CopyField id="lti-login" label="Login URL" value={urls.loginUrl} />
          <CopyField id="lti-launch" label="Launch URL" value={urls.launchUrl} />
          <CopyField id="lti-deep-linking" label="Deep linking URL" value={urls.deepLinkingUrl} />
          <CopyField id="lti-jwks" label="Keyset URL" value={urls.jwksUrl} />
          <p>
            Services: <code>{urls.scopes.join(' ')}</code>. Send the user’s name and email.
          </p>
        </>
      )}
      <p>Then enter the values the LMS shows for the tool:</p>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          const { tokenAudience, ...rest } = values;
          const body = { ...rest, ...(tokenAudience ? { tokenAudience } : {}) };
          if (await submit(() => api.POST('/api/v1/lti/platforms', { body }), 'Platform added.')) onAdded();
        }}
      >
        {MANUAL_FIELDS.map(([key, label, hint]) => (
          <Field key={key} label={label} id={`lti-${key}`} {...(hint ? { hint } : {})}>
            <input
              id={`lti-${key}`}
              required={key !== 'tokenAudience'}
              value={values[key]}
              onInput={(e) => setValues({ ...values, [key]: inputValue(e) })}
            />
          </Field>
        ))}
        <button type="submit" disabled={busy}>
          Add platform
        </button>
      </form>
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
    </section>
  );
}

function PlatformRow({ platform, onChange }: { platform: Platform; onChange: () => void }) {
  const [name, setName] = useState(platform.name);
  const [removing, setRemoving] = useState(false);
  const { busy, error, notice, submit } = useSubmission();
  const path = { params: { path: { id: platform.id } } };
  return (
    <tr>
      <th scope="row">
        <form
          class="inline-form"
          onSubmit={async (event) => {
            event.preventDefault();
            if (await submit(() => api.PATCH('/api/v1/lti/platforms/{id}', { ...path, body: { name } }), 'Renamed.'))
              onChange();
          }}
        >
          <input aria-label={`Name of ${platform.name}`} value={name} onInput={(e) => setName(inputValue(e))} />
          <button type="submit" class="secondary" disabled={busy || name === platform.name}>
            Rename
          </button>
        </form>
        {error && <Alert>{error}</Alert>}
        {notice && <Alert kind="success">{notice}</Alert>}
      </th>
      <td data-label="Issuer" class="wrap">
        {platform.platformIssuer}
      </td>
      <td data-label="Client ID" class="wrap">
        {platform.clientId}
      </td>
      <td data-label="Deployments" class="wrap">
        {platform.deploymentIds.join(', ') || '—'}
      </td>
      <td data-label="Actions">
        <button type="button" class="danger" onClick={() => setRemoving(true)}>
          Remove
        </button>
        {removing && (
          <ConfirmDialog
            id={`remove-${platform.id}`}
            title={`Remove ${platform.name}?`}
            confirmLabel="Remove platform"
            onCancel={() => setRemoving(false)}
            onConfirm={async () => {
              setRemoving(false);
              if (await submit(() => api.DELETE('/api/v1/lti/platforms/{id}', path), 'Removed.')) onChange();
            }}
          >
            Launches from {platform.name} will be refused. Credentials already issued stay.
          </ConfirmDialog>
        )}
      </td>
    </tr>
  );
}

function keyState(key: ToolKey): string {
  if (key.signs) return key.holder === 'service' ? 'Signs (the service key)' : 'Signs';
  return key.publishedUntil ? `Retired; published until ${new Date(key.publishedUntil).toLocaleString()}` : 'Retired';
}

/** The tool key that signs for this issuer, and "Rotate key" for an owner (Security Framework 1.0 §6.3). */
function ToolKeys({ owner }: { owner: boolean }) {
  const keys = useApiRead(() => api.GET('/api/v1/lti/tool/keys'), []);
  const [confirming, setConfirming] = useState(false);
  const { busy, error, notice, submit } = useSubmission();
  return (
    <section class="panel" aria-labelledby="lti-keys">
      <h2 id="lti-keys">Tool key</h2>
      <p>
        Accolade signs what it sends your LMS (placed badges, score requests) with this key. The LMS reads it from the
        keyset URL. After a rotation the new key signs at once and the old one stays in the keyset for a week, so
        nothing needs changing in the LMS.
      </p>
      {keys.error && <Alert>{keys.error}</Alert>}
      {keys.data && (
        <div class="table-wrap">
          <table class="cards">
            <caption>Keys in the keyset for this issuer</caption>
            <thead>
              <tr>
                <th scope="col">Key id</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.items.map((key) => (
                <tr key={key.kid}>
                  <th scope="row" class="wrap">
                    <code>{key.kid}</code>
                  </th>
                  <td data-label="State">{keyState(key)}</td>
                  <td data-label="Created">{new Date(key.createdAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {owner && (
        <button type="button" class="secondary" disabled={busy} onClick={() => setConfirming(true)}>
          Rotate key
        </button>
      )}
      {confirming && (
        <ConfirmDialog
          id="rotate-lti-key"
          title="Rotate the tool key?"
          confirmLabel="Rotate key"
          onCancel={() => setConfirming(false)}
          onConfirm={async () => {
            setConfirming(false);
            if (await submit(() => api.POST('/api/v1/lti/tool/keys/rotate'), 'Rotated: the new key signs from now on.'))
              keys.reload();
          }}
        >
          A new key signs from now on. The current one stays in the keyset for a week. You can rotate again after an
          hour.
        </ConfirmDialog>
      )}
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
    </section>
  );
}

/** Console → Connectors → "LMS (LTI 1.3)": install the LTI tool and manage the registered platforms. */
export function LtiPage() {
  const session = useSession();
  const platforms = useApiRead(() => api.GET('/api/v1/lti/platforms'), []);
  const owner = can(session?.user, 'own');
  return (
    <>
      <h1>LMS (LTI 1.3)</h1>
      <p>
        <a href="/console/connectors">All connectors</a>
      </p>
      <p>
        Install Accolade in your LMS as an LTI 1.3 tool: instructors add a badge to a course, and learners earn it when
        they open it or when their score reaches a minimum. docs/connectors.md has the steps for each LMS.
      </p>
      {owner ? (
        <>
          <RegistrationUrl />
          <ManualSetup onAdded={() => platforms.reload()} />
        </>
      ) : (
        <p>Only an owner can register an LMS. Ask an owner of this issuer.</p>
      )}
      <section class="panel" aria-labelledby="lti-platforms">
        <h2 id="lti-platforms">Registered platforms</h2>
        {platforms.error && <Alert>{platforms.error}</Alert>}
        {platforms.data && platforms.data.items.length === 0 && <p>No LMS is registered yet.</p>}
        {platforms.data && platforms.data.items.length > 0 && (
          <div class="table-wrap">
            <table class="cards">
              <caption>Platforms that can launch Accolade</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Issuer</th>
                  <th scope="col">Client ID</th>
                  <th scope="col">Deployments</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {platforms.data.items.map((platform) => (
                  <PlatformRow key={platform.id} platform={platform} onChange={() => platforms.reload()} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <ToolKeys owner={owner} />
    </>
  );
}
