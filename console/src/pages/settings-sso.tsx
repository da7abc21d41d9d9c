import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { useSubmission } from '../hooks';
import { can, useSession } from '../session';
import { Alert, ConfirmDialog, Field, inputValue, ReadOnlyNotice } from '../ui';

type Settings = components['schemas']['SsoSettings'];
type Links = components['schemas']['SsoLinks'];

/**
 * A refused save in words for the owner: the API's refusal of an http (or private) issuer URL is a
 * pattern or a rule, which says nothing to someone copying an address from their provider.
 */
function refusalOf(failure: unknown): string {
  const body = failure as { issues?: { path?: string; message?: string }[] } | undefined;
  const issue = body?.issues?.find((found) => found.path === '/issuerUrl');
  if (issue?.message?.includes('OpenID Connect issuer')) {
    return 'No sign-in provider answered at that address. Check the issuer URL in your provider’s app registration (its /.well-known/openid-configuration must name it), and that the provider is reachable from this service.';
  }
  if (issue) {
    return "The issuer URL was refused: it must be your provider's https:// address on the public internet (http:// and private addresses are taken only on a development set-up). Copy it from your provider's app registration.";
  }
  return problem(failure);
}

/** Sign-in settings: the issuer's own login (OpenID Connect) for its staff. */
export function SignInSettingsPage() {
  const session = useSession();
  return (
    <>
      <h1>Sign-in</h1>
      {can(session?.user, 'own') ? <SsoSettings /> : <ReadOnlyNotice what="how staff sign in" />}
    </>
  );
}

/** The owner's form: provider, client, who gets in, and whether passwords still work. */
export function SsoSettings() {
  // undefined: still reading; null: no provider set up yet.
  const [current, setCurrent] = useState<Settings | null | undefined>(undefined);
  const [readError, setReadError] = useState<string | null>(null);
  const [providerName, setProviderName] = useState('');
  const [issuerUrl, setIssuerUrl] = useState('');
  const [clientId, setClientId] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const [allowedDomain, setAllowedDomain] = useState('');
  const [passwordSignIn, setPasswordSignIn] = useState(true);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [links, setLinks] = useState<Links | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const { busy, error, notice, submit } = useSubmission();

  function show(settings: Settings | null) {
    setCurrent(settings);
    setProviderName(settings?.providerName ?? '');
    setIssuerUrl(settings?.issuerUrl ?? '');
    setClientId(settings?.clientId ?? '');
    setClientSecret('');
    setAllowedDomain(settings?.allowedDomain ?? '');
    setPasswordSignIn(settings?.passwordSignIn ?? true);
  }

  async function load() {
    const { data, error: failure, response } = await api.GET('/api/v1/sso/settings');
    if (data) show(data);
    else if (response.status === 404) show(null);
    else setReadError(problem(failure));
  }

  useEffect(() => {
    load();
    // The redirect URI is registered at the provider before the form can be saved (discovery checks the client).
    api.GET('/api/v1/sso/links').then(({ data }) => setLinks(data ?? null));
  }, []);

  async function save(event: Event) {
    event.preventDefault();
    const body = {
      providerName,
      issuerUrl: issuerUrl.trim(),
      clientId: clientId.trim(),
      ...(clientSecret ? { clientSecret } : {}),
      allowedDomain: allowedDomain.trim() === '' ? null : allowedDomain.trim().replace(/^@/, ''),
      passwordSignIn,
    };
    let saved: Settings | undefined;
    setSaveError(null);
    const done = await submit(async () => {
      const result = await api.PUT('/api/v1/sso/settings', { body });
      saved = result.data;
      if (result.error) setSaveError(refusalOf(result.error));
      return result;
    }, 'Saved. Staff can now sign in with their organisation’s login.');
    if (done && saved) show(saved);
  }

  async function remove() {
    setConfirmRemove(false);
    if (await submit(() => api.DELETE('/api/v1/sso/settings'), 'Removed. Staff sign in with their passwords.')) {
      show(null);
    }
  }

  const insecure = /^http:\/\//i.test(issuerUrl.trim());
  if (readError) return <Alert>{readError}</Alert>;
  if (current === undefined) return <p class="loading">Loading…</p>;
  return (
    <>
      <p>
        Let staff sign in with your organisation’s login (Microsoft Entra ID, Google Workspace, Okta or any OpenID
        Connect provider). Invited staff keep their role; anyone with a verified address of the domain you name gets in
        as a viewer. Nobody else gets in.
      </p>
      {(current ?? links) && (
        <section class="panel" aria-labelledby="sso-links">
          <h2 id="sso-links">{current ? 'At your provider and for your staff' : 'First, at your provider'}</h2>
          <p class="wrap">
            Register this redirect URI {current ? `at ${current.providerName}` : 'in your provider’s app registration'}:{' '}
            <code>{(current ?? links)?.redirectUri}</code>
          </p>
          {current ? (
            <p class="wrap">
              Staff sign in at <a href={current.signInUrl}>{current.signInUrl}</a>
            </p>
          ) : (
            <p>
              Then copy its issuer URL, client ID and client secret into the form below. Saving checks them with the
              provider at once.
            </p>
          )}
        </section>
      )}
      <form class="panel" onSubmit={save} aria-labelledby="sso-form">
        <h2 id="sso-form">{current ? 'Provider' : 'Set up a provider'}</h2>
        <Field label="Provider name" id="sso-name" hint="Shown on the sign-in button: “Sign in with …”.">
          <input
            id="sso-name"
            required
            maxLength={60}
            aria-describedby="sso-name-hint"
            value={providerName}
            onInput={(e) => setProviderName(inputValue(e))}
          />
        </Field>
        <Field label="Issuer URL" id="sso-issuer" hint="From your provider, e.g. https://login.example.com/tenant/v2.0">
          <input
            id="sso-issuer"
            type="url"
            required
            aria-describedby={insecure ? 'sso-issuer-hint sso-issuer-http' : 'sso-issuer-hint'}
            value={issuerUrl}
            onInput={(e) => setIssuerUrl(inputValue(e))}
          />
        </Field>
        {insecure && (
          <p id="sso-issuer-http" class="hint">
            This address starts with http://: staff sign-ins would travel unencrypted, so it is refused outside a
            development set-up. Use your provider's https:// address.
          </p>
        )}
        <Field label="Client ID" id="sso-client">
          <input id="sso-client" required value={clientId} onInput={(e) => setClientId(inputValue(e))} />
        </Field>
        <Field
          label="Client secret"
          id="sso-secret"
          hint={current ? 'Stored sealed and never shown. Leave empty to keep it.' : 'Stored sealed and never shown.'}
        >
          <input
            id="sso-secret"
            type="password"
            autoComplete="off"
            required={!current}
            aria-describedby="sso-secret-hint"
            value={clientSecret}
            onInput={(e) => setClientSecret(inputValue(e))}
          />
        </Field>
        <Field
          label="Email domain let in as viewers (optional)"
          id="sso-domain"
          hint="For example example.edu. Leave empty to let invited staff in only."
        >
          <input
            id="sso-domain"
            aria-describedby="sso-domain-hint"
            value={allowedDomain}
            onInput={(e) => setAllowedDomain(inputValue(e))}
          />
        </Field>
        <label class="choice">
          <input
            type="checkbox"
            checked={passwordSignIn}
            aria-describedby="sso-password-hint"
            onChange={(e) => setPasswordSignIn((e.currentTarget as HTMLInputElement).checked)}
          />
          Staff may also sign in with a password
        </label>
        <small id="sso-password-hint" class="hint">
          Turn this off only after you have signed in with the provider yourself.
        </small>
        <div class="actions">
          <button type="submit" disabled={busy}>
            Save
          </button>
          {current && (
            <button type="button" class="danger" disabled={busy} onClick={() => setConfirmRemove(true)}>
              Remove provider
            </button>
          )}
        </div>
        {error && <Alert>{saveError ?? error}</Alert>}
        {notice && <Alert kind="success">{notice}</Alert>}
      </form>
      {confirmRemove && current && (
        <ConfirmDialog
          id="confirm-remove-sso"
          title={`Remove ${current.providerName}?`}
          confirmLabel="Remove provider"
          onConfirm={remove}
          onCancel={() => setConfirmRemove(false)}
        >
          <p>Staff can no longer sign in with it. Password sign-in works again for everyone who has a password.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
