import { useEffect, useState } from 'preact/hooks';
import { api, problem } from '../api';
import { Alert, Field, inputValue } from '../ui';

/**
 * The organisation's web address (issue 46 §1): the slug can change while no credential exists and
 * no endorsement has been given, never after, and the page says why.
 */
export function SlugSettings({ owner }: { owner: boolean }) {
  const [slug, setSlug] = useState('');
  const [saved, setSaved] = useState('');
  const [issued, setIssued] = useState<number | null>(null);
  const [endorsed, setEndorsed] = useState<number | null>(null);
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);

  useEffect(() => {
    api.GET('/api/v1/issuer/me').then(({ data }) => {
      setSlug(data?.slug ?? '');
      setSaved(data?.slug ?? '');
    });
    api
      .GET('/api/v1/credentials', { params: { query: { limit: 1 } } })
      .then(({ data }) => setIssued(data?.total ?? null));
    api.GET('/api/v1/endorsements/given').then(({ data }) => setEndorsed(data?.length ?? null));
  }, []);

  async function save(event: Event) {
    event.preventDefault();
    const { data, error } = await api.PATCH('/api/v1/issuer/me', { body: { slug } });
    if (error) setMessage({ kind: 'error', text: problem(error) });
    else {
      setSaved(data.slug);
      setMessage({ kind: 'success', text: 'Saved: the new web address is in use.' });
    }
  }

  const locked = issued === null || issued > 0 || endorsed === null || endorsed > 0;
  const base = location.origin;
  return (
    <form class="panel" onSubmit={save} aria-labelledby="slug-title">
      <h2 id="slug-title">Web address</h2>
      {message && <Alert kind={message.kind}>{message.text}</Alert>}
      <p>
        Your credentials live at <code>{`${base}/v1/issuers/${saved}/`}</code>.
      </p>
      {issued !== null && issued > 0 ? (
        <p>
          It can no longer change: {issued === 1 ? 'a credential has' : 'credentials have'} been issued, and every
          credential's address, its signed documents and your did:web carry it. Links already shared would break.
        </p>
      ) : endorsed !== null && endorsed > 0 ? (
        <p>
          It can no longer change: you have endorsed another organisation's badge, and that signed endorsement carries
          your address and did:web. It would break.
        </p>
      ) : (
        <p>
          It can change until the first credential is issued or endorsement given, and never after: shared links would
          break.
        </p>
      )}
      <fieldset disabled={!owner || locked}>
        <Field label="Slug" id="profile-slug">
          <input
            id="profile-slug"
            required
            maxLength={64}
            pattern="[a-z0-9]+(-[a-z0-9]+)*"
            value={slug}
            onInput={(e) => setSlug(inputValue(e))}
          />
        </Field>
        <button type="submit">Save the web address</button>
      </fieldset>
    </form>
  );
}
