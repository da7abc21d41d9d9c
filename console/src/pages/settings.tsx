import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { Alert, Field, formatDate, inputValue } from '../ui';

type Usage = components['schemas']['UsageSummary'];

interface Profile {
  name: string;
  url: string;
  email: string;
  description: string;
  imageUrl: string;
  brandColor: string;
}

const FIELDS: { key: keyof Profile; label: string; type: 'text' | 'url' | 'email' }[] = [
  { key: 'name', label: 'Issuer name', type: 'text' },
  { key: 'url', label: 'Website', type: 'url' },
  { key: 'email', label: 'Contact email', type: 'email' },
  { key: 'description', label: 'Description', type: 'text' },
  { key: 'imageUrl', label: 'Logo URL', type: 'url' },
];

export function SettingsPage() {
  const [profile, setProfile] = useState<Profile>({
    name: '',
    url: '',
    email: '',
    description: '',
    imageUrl: '',
    brandColor: '#1d4ed8',
  });
  const [usage, setUsage] = useState<Usage | null>(null);
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);

  useEffect(() => {
    api.GET('/api/v1/issuer/me').then(({ data }) => {
      if (!data) return;
      setProfile((current) => {
        const next = { ...current };
        for (const key of [...FIELDS.map((field) => field.key), 'brandColor' as const]) {
          const value = data[key];
          if (typeof value === 'string' && value) next[key] = value;
        }
        return next;
      });
    });
    api.GET('/api/v1/usage').then(({ data }) => setUsage(data ?? null));
  }, []);

  async function save(event: Event) {
    event.preventDefault();
    const result = await api.PATCH('/api/v1/issuer/me', {
      body: {
        name: profile.name,
        url: profile.url,
        email: profile.email,
        description: profile.description || null,
        imageUrl: profile.imageUrl || null,
        brandColor: profile.brandColor,
      },
    });
    setMessage(result.error ? { kind: 'error', text: problem(result.error) } : { kind: 'success', text: 'Saved.' });
  }

  return (
    <>
      <h1>Settings</h1>
      <form class="panel" onSubmit={save} aria-labelledby="profile-title">
        <h2 id="profile-title">Issuer profile</h2>
        <p>Shown on the Open Badges issuer documents and the verification page.</p>
        {message && <Alert kind={message.kind}>{message.text}</Alert>}
        {FIELDS.map((field) => {
          const props = {
            id: `profile-${field.key}`,
            value: profile[field.key],
            onInput: (e: Event) => setProfile({ ...profile, [field.key]: inputValue(e) }),
          };
          return (
            <Field key={field.key} label={field.label} id={props.id}>
              {field.type === 'email' ? (
                <input type="email" {...props} />
              ) : field.type === 'url' ? (
                <input type="url" {...props} />
              ) : (
                <input type="text" {...props} />
              )}
            </Field>
          );
        })}
        <Field label="Brand colour" id="profile-brandColor">
          <input
            id="profile-brandColor"
            type="color"
            value={profile.brandColor}
            onInput={(e) => setProfile({ ...profile, brandColor: inputValue(e) })}
          />
        </Field>
        <button type="submit">Save profile</button>
      </form>
      {usage && (
        <section class="panel" aria-labelledby="usage-title">
          <h2 id="usage-title">Usage and plan</h2>
          <dl class="facts">
            <dt>Plan</dt>
            <dd>{usage.planCode}</dd>
            <dt>Period from</dt>
            <dd>{formatDate(usage.periodStart)}</dd>
            <dt>Issued this period</dt>
            <dd>
              {usage.issuanceUsed}
              {usage.issuanceQuota != null ? ` of ${usage.issuanceQuota}` : ' (no quota)'}
            </dd>
            <dt>Premium verification</dt>
            <dd>{usage.premiumVerification ? 'included' : 'not included'}</dd>
          </dl>
          {usage.issuanceQuota != null && (
            <meter
              aria-label="Issuance used"
              min={0}
              max={usage.issuanceQuota}
              value={usage.issuanceUsed}
              high={usage.issuanceQuota * 0.9}
            />
          )}
        </section>
      )}
    </>
  );
}
