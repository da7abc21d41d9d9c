import { useEffect, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, problem, uploadImage } from '../api';
import { setSession } from '../session';
import { Alert, Field, inputValue } from '../ui';

const MIN_PASSWORD = 12;

/** The slug a name gives, as the server derives one (core/slug.ts). */
function slugOf(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/g, '');
}

/**
 * The first start (issue 46 §1): the link printed by the server leads the first owner through
 * their own organisation (name, web address, contact, website, logo, colour) and their account;
 * the demo issuer only when they ask for sample data.
 */
export function SetupPage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const token = params.token ?? '';
  const [base, setBase] = useState<string | null | undefined>(undefined);
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [slugEdited, setSlugEdited] = useState(false);
  const [email, setEmail] = useState('');
  const [url, setUrl] = useState('');
  const [brandColor, setBrandColor] = useState('#1d4ed8');
  const [logo, setLogo] = useState<File | null>(null);
  const [ownerEmail, setOwnerEmail] = useState('');
  const [password, setPassword] = useState('');
  const [sampleData, setSampleData] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [sample, setSample] = useState<{ slug: string; apiKey: string } | null>(null);

  useEffect(() => {
    api
      .GET('/api/v1/setup/{token}', { params: { path: { token } } })
      .then((result) => setBase(result.data?.publicBaseUrl ?? null));
  }, [token]);

  const shownSlug = slugEdited ? slug : slugOf(name);

  async function submit(event: Event) {
    event.preventDefault();
    setError(null);
    const result = await api.POST('/api/v1/setup/{token}', {
      params: { path: { token } },
      body: {
        organisation: { name, email, url, brandColor, ...(shownSlug ? { slug: shownSlug } : {}) },
        owner: { email: ownerEmail, password },
        sampleData,
      },
    });
    if (!result.data) {
      setError(problem(result.error));
      return;
    }
    setSession({ user: result.data.user, csrfToken: result.data.csrfToken });
    if (logo) {
      const uploaded = await uploadImage(logo, logo.type === 'image/svg+xml' ? 'image/svg+xml' : 'image/png');
      if ('error' in uploaded)
        setError(`Your organisation is set up, but the logo was refused: ${problem(uploaded.error)}`);
      else await api.PATCH('/api/v1/issuer/me', { body: { imageUrl: uploaded.url } });
    }
    if (result.data.sample) setSample(result.data.sample);
    else route('/console/dashboard');
  }

  if (sample) {
    return (
      <main id="main" class="narrow">
        <h1>Your organisation is ready</h1>
        {error && <Alert>{error}</Alert>}
        <p>
          The demo issuer <strong>{sample.slug}</strong> holds the sample data. Its API key, shown only this once:
        </p>
        <p class="secret">
          <code class="key">{sample.apiKey}</code>
        </p>
        <p>
          <a href="/console/dashboard">Go to your console</a>
        </p>
      </main>
    );
  }

  return (
    <main id="main" class="narrow">
      <h1>Set up your organisation</h1>
      {base === undefined && <p>Checking the set-up link…</p>}
      {base === null && (
        <Alert>
          This set-up link is unknown or already used. Restart the server for a new one while no organisation exists, or
          sign in.
        </Alert>
      )}
      {base && (
        <form onSubmit={submit}>
          {error && <Alert>{error}</Alert>}
          <fieldset>
            <legend>Your organisation</legend>
            <Field label="Organisation name" id="setup-name">
              <input id="setup-name" required maxLength={200} value={name} onInput={(e) => setName(inputValue(e))} />
            </Field>
            <Field
              label="Web address (slug)"
              id="setup-slug"
              hint={`Your credentials will live at ${base}/v1/issuers/${shownSlug || '…'}/ and their pages at ${base}/verify/${shownSlug || '…'}/. It can change until the first credential is issued, never after: shared links would break.`}
            >
              <input
                id="setup-slug"
                required
                maxLength={64}
                pattern="[a-z0-9]+(-[a-z0-9]+)*"
                aria-describedby="setup-slug-hint"
                value={shownSlug}
                onInput={(e) => {
                  setSlugEdited(true);
                  setSlug(inputValue(e));
                }}
              />
            </Field>
            <Field label="Contact email" id="setup-email" hint="On your public issuer profile.">
              <input
                id="setup-email"
                type="email"
                required
                aria-describedby="setup-email-hint"
                value={email}
                onInput={(e) => setEmail(inputValue(e))}
              />
            </Field>
            <Field label="Website" id="setup-url">
              <input
                id="setup-url"
                type="url"
                required
                placeholder="https://"
                value={url}
                onInput={(e) => setUrl(inputValue(e))}
              />
            </Field>
            <Field label="Logo" id="setup-logo" hint="A PNG or SVG; it is checked and cleaned before it is shown.">
              <input
                id="setup-logo"
                type="file"
                accept="image/png,image/svg+xml"
                aria-describedby="setup-logo-hint"
                onChange={(e) => setLogo((e.currentTarget as HTMLInputElement).files?.[0] ?? null)}
              />
            </Field>
            <Field label="Brand colour" id="setup-color">
              <input id="setup-color" type="color" value={brandColor} onInput={(e) => setBrandColor(inputValue(e))} />
            </Field>
          </fieldset>
          <fieldset>
            <legend>Your account (the first owner)</legend>
            <Field label="Your email" id="setup-owner-email">
              <input
                id="setup-owner-email"
                type="email"
                autoComplete="username"
                required
                value={ownerEmail}
                onInput={(e) => setOwnerEmail(inputValue(e))}
              />
            </Field>
            <Field label="Password" id="setup-password" hint={`At least ${MIN_PASSWORD} characters.`}>
              <input
                id="setup-password"
                type="password"
                autoComplete="new-password"
                minLength={MIN_PASSWORD}
                maxLength={256}
                required
                aria-describedby="setup-password-hint"
                value={password}
                onInput={(e) => setPassword(inputValue(e))}
              />
            </Field>
          </fieldset>
          <div class="field">
            <label class="choice">
              <input
                id="setup-sample"
                type="checkbox"
                checked={sampleData}
                onChange={(e) => setSampleData((e.currentTarget as HTMLInputElement).checked)}
              />
              Also create a demo issuer with sample data, to try the API (separate from your organisation)
            </label>
          </div>
          <button type="submit">Create my organisation</button>
        </form>
      )}
    </main>
  );
}
