import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { LanguageInput } from '../languages';
import { can, useSession } from '../session';
import { Alert, Field, formatDate, inputValue, ReadOnlyNotice, readTextFile } from '../ui';
import { SlugSettings } from './settings-slug';

type Usage = components['schemas']['UsageSummary'];
type NotificationSettings = components['schemas']['NotificationSettings'];
type Preview = { subject: string; text: string };
type Notice = { kind: 'error' | 'success'; text: string } | null;

/** The most addresses one reminders call takes (the API's limit). */
const REMINDER_BATCH = 1000;

const LANGUAGE_NAMES: Record<string, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  nl: 'Nederlands',
};

/** Addresses pasted or read from a roster: anything shaped like an address, each once. */
function addressesIn(text: string): string[] {
  return [...new Set(text.match(/[^\s,;"'<>]+@[^\s,;"'<>]+\.[^\s,;"'<>]+/g) ?? [])];
}

/**
 * Settings → Notifications: the default, sender, reply-to, language and expiry reminders (owners
 * change them; others read them), a preview of the message as an earner gets it, and the expiry
 * reminders, sent to addresses given here because the service keeps none.
 */
function NotificationsSection() {
  const session = useSession();
  const owner = can(session?.user, 'own');
  const issuer = can(session?.user, 'issue');
  const [settings, setSettings] = useState<NotificationSettings | null>(null);
  const [notice, setNotice] = useState<Notice>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [kind, setKind] = useState<'award' | 'reminder'>('award');
  const [due, setDue] = useState<number | null>(null);
  const [roster, setRoster] = useState('');
  const [sent, setSent] = useState<Notice>(null);

  const loadDue = () => api.GET('/api/v1/notifications/reminders').then(({ data }) => setDue(data?.due ?? null));
  useEffect(() => {
    api.GET('/api/v1/notifications/settings').then(({ data }) => setSettings(data ?? null));
    loadDue();
  }, []);

  async function showPreview(chosen: 'award' | 'reminder') {
    setKind(chosen);
    const { data, error } = await api.GET('/api/v1/notifications/preview', { params: { query: { kind: chosen } } });
    if (error) setNotice({ kind: 'error', text: problem(error) });
    setPreview(data ?? null);
  }

  async function save(event: Event) {
    event.preventDefault();
    if (!settings) return;
    const { data, error } = await api.PATCH('/api/v1/notifications/settings', {
      body: {
        notifyByDefault: settings.notifyByDefault,
        senderName: settings.senderName?.trim() || null,
        replyTo: settings.replyTo?.trim() || null,
        language: settings.language,
        expiryReminders: settings.expiryReminders,
        expiryReminderDays: settings.expiryReminderDays,
        reminderNote: settings.reminderNote?.trim() || null,
        reminderLink: settings.reminderLink?.trim() || null,
      },
    });
    if (error) {
      setNotice({ kind: 'error', text: problem(error) });
      return;
    }
    setSettings(data);
    setNotice({ kind: 'success', text: 'Notification settings saved.' });
    loadDue();
    if (preview) showPreview(kind);
  }

  async function remind(event: Event) {
    event.preventDefault();
    const recipientEmails = addressesIn(roster);
    if (recipientEmails.length === 0) {
      setSent({ kind: 'error', text: 'No email address found: paste one address per line, or a roster.' });
      return;
    }
    const total = { queued: 0, suppressed: 0, nothingDue: 0, emailOff: false };
    // The API takes up to REMINDER_BATCH addresses a call; a larger roster goes in several.
    for (let start = 0; start < recipientEmails.length; start += REMINDER_BATCH) {
      const { data, error } = await api.POST('/api/v1/notifications/reminders', {
        body: { recipientEmails: recipientEmails.slice(start, start + REMINDER_BATCH) },
      });
      if (error) {
        setSent({ kind: 'error', text: problem(error) });
        return;
      }
      total.queued += data.queued;
      total.suppressed += data.suppressed;
      total.nothingDue += data.nothingDue;
      total.emailOff ||= data.emailOff;
    }
    setRoster('');
    loadDue();
    setSent({
      kind: 'success',
      text: total.emailOff
        ? 'Email is not set up on this service, so nothing was sent.'
        : `${total.queued} reminder${total.queued === 1 ? '' : 's'} sent; ${total.suppressed} not sent (unsubscribed); ${total.nothingDue} address${total.nothingDue === 1 ? '' : 'es'} had nothing due.`,
    });
  }

  async function readRoster(event: Event) {
    const file = (event.currentTarget as HTMLInputElement).files?.[0];
    if (file) setRoster(await readTextFile(file));
  }

  if (!settings) return null;
  const change = (patch: Partial<NotificationSettings>) => setSettings({ ...settings, ...patch });
  return (
    <>
      <form class="panel" onSubmit={save} aria-labelledby="notifications-title">
        <h2 id="notifications-title">Notifications</h2>
        <p>The email an earner gets with a new badge, and the reminder before it expires.</p>
        {!settings.enabled && (
          <Alert kind="info">Email is not set up on this service (SMTP_URL): nothing is sent until it is.</Alert>
        )}
        {!owner && <ReadOnlyNotice what="notification settings" />}
        {notice && <Alert kind={notice.kind}>{notice.text}</Alert>}
        <fieldset disabled={!owner}>
          <legend>Settings</legend>
          <label class="choice">
            <input
              type="checkbox"
              checked={settings.notifyByDefault}
              onChange={(e) => change({ notifyByDefault: (e.currentTarget as HTMLInputElement).checked })}
            />
            Email earners by default (issuing can still say otherwise)
          </label>
          <Field label="Sender name" id="notify-sender" hint="Shown as the From name; your issuer name when empty.">
            <input
              id="notify-sender"
              aria-describedby="notify-sender-hint"
              maxLength={100}
              value={settings.senderName ?? ''}
              onInput={(e) => change({ senderName: inputValue(e) })}
            />
          </Field>
          <Field label="Reply-to address" id="notify-reply" hint="Where replies go; your contact email when empty.">
            <input
              id="notify-reply"
              type="email"
              aria-describedby="notify-reply-hint"
              value={settings.replyTo ?? ''}
              onInput={(e) => change({ replyTo: inputValue(e) })}
            />
          </Field>
          <Field
            label="Language"
            id="notify-language"
            hint="Used when a credential was not issued in a language of its own."
          >
            <select
              id="notify-language"
              aria-describedby="notify-language-hint"
              value={settings.language}
              onChange={(e) => change({ language: inputValue(e) as NotificationSettings['language'] })}
            >
              {settings.languages.map((language) => (
                <option key={language} value={language}>
                  {LANGUAGE_NAMES[language] ?? language}
                </option>
              ))}
            </select>
          </Field>
          <label class="choice">
            <input
              type="checkbox"
              checked={settings.expiryReminders}
              onChange={(e) => change({ expiryReminders: (e.currentTarget as HTMLInputElement).checked })}
            />
            Send expiry reminders
          </label>
          <Field
            label="Days before expiry"
            id="notify-days"
            hint="A credential is due its reminder from this many days before it expires (1 to 365)."
          >
            <input
              id="notify-days"
              type="number"
              min={1}
              max={365}
              required
              aria-describedby="notify-days-hint"
              value={settings.expiryReminderDays}
              onInput={(e) => change({ expiryReminderDays: Number(inputValue(e)) })}
            />
          </Field>
          <Field
            label="Renewal or re-enrolment link"
            id="notify-renew-link"
            hint="Optional, https only: the reminder's button opens it (your booking page, say)."
          >
            <input
              id="notify-renew-link"
              type="url"
              placeholder="https://"
              maxLength={2048}
              aria-describedby="notify-renew-link-hint"
              value={settings.reminderLink ?? ''}
              onInput={(e) => change({ reminderLink: inputValue(e) })}
            />
          </Field>
          <Field
            label="Your own text in the reminder"
            id="notify-note"
            hint="Optional, up to 1,000 characters, shown as you write it under the expiry date."
          >
            <textarea
              id="notify-note"
              rows={3}
              maxLength={1000}
              aria-describedby="notify-note-hint"
              value={settings.reminderNote ?? ''}
              onInput={(e) => change({ reminderNote: inputValue(e) })}
            />
          </Field>
        </fieldset>
        <div class="actions">
          {owner && <button type="submit">Save notification settings</button>}
          <button type="button" class="secondary" onClick={() => showPreview('award')}>
            Preview the message
          </button>
          <button type="button" class="secondary" onClick={() => showPreview('reminder')}>
            Preview the reminder
          </button>
        </div>
        {preview && (
          <section aria-labelledby="notify-preview-title" class="preview">
            <h3 id="notify-preview-title">{kind === 'award' ? 'Message preview' : 'Reminder preview'}</h3>
            <p>
              <strong>Subject:</strong> {preview.subject}
            </p>
            <pre class="paste">{preview.text}</pre>
            <p class="hint">
              The HTML version has the same words, your logo and colour, and the badge image (a sample badge until you
              create one). The links point to an example credential.
            </p>
          </section>
        )}
      </form>
      {settings.expiryReminders && issuer && (
        <form class="panel" onSubmit={remind} aria-labelledby="reminders-title">
          <h2 id="reminders-title">Send expiry reminders</h2>
          <p>
            {due === null ? '' : `${due} credential${due === 1 ? ' is' : 's are'} due a reminder now. `}
            Accolade never stores earners' addresses, so give them here: paste them or choose your roster. Each
            credential due gets one reminder, once.
          </p>
          {sent && <Alert kind={sent.kind}>{sent.text}</Alert>}
          <Field label="Roster file (CSV)" id="reminders-file">
            <input id="reminders-file" type="file" accept=".csv,text/csv,text/plain" onChange={readRoster} />
          </Field>
          <Field label="Earner email addresses" id="reminders-emails" hint="One per line, or the roster's text.">
            <textarea
              id="reminders-emails"
              rows={5}
              aria-describedby="reminders-emails-hint"
              value={roster}
              onInput={(e) => setRoster(inputValue(e))}
            />
          </Field>
          <button type="submit">Send reminders</button>
        </form>
      )}
    </>
  );
}

interface Profile {
  name: string;
  url: string;
  email: string;
  description: string;
  imageUrl: string;
  brandColor: string;
  language: string;
  linkedinOrganizationId: string;
}

const FIELDS: { key: keyof Profile; label: string; type: 'text' | 'url' | 'email' }[] = [
  { key: 'name', label: 'Issuer name', type: 'text' },
  { key: 'url', label: 'Website', type: 'url' },
  { key: 'email', label: 'Contact email', type: 'email' },
  { key: 'description', label: 'Description', type: 'text' },
  { key: 'imageUrl', label: 'Logo URL', type: 'url' },
];

export function SettingsPage() {
  const session = useSession();
  const owner = can(session?.user, 'own');
  const [profile, setProfile] = useState<Profile>({
    name: '',
    url: '',
    email: '',
    description: '',
    imageUrl: '',
    brandColor: '#1d4ed8',
    language: '',
    linkedinOrganizationId: '',
  });
  const [usage, setUsage] = useState<Usage | null>(null);
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);

  useEffect(() => {
    api.GET('/api/v1/issuer/me').then(({ data }) => {
      if (!data) return;
      setProfile((current) => {
        const next = { ...current };
        for (const key of [
          ...FIELDS.map((field) => field.key),
          'brandColor' as const,
          'language' as const,
          'linkedinOrganizationId' as const,
        ]) {
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
        language: profile.language.trim(),
        linkedinOrganizationId: profile.linkedinOrganizationId.trim() || null,
      },
    });
    setMessage(result.error ? { kind: 'error', text: problem(result.error) } : { kind: 'success', text: 'Saved.' });
  }

  return (
    <>
      <h1>Settings</h1>
      <SlugSettings owner={owner} />
      <form class="panel" onSubmit={save} aria-labelledby="profile-title">
        <h2 id="profile-title">Issuer profile</h2>
        <p>Shown on the Open Badges issuer documents and the verification page.</p>
        {message && <Alert kind={message.kind}>{message.text}</Alert>}
        {!owner && <ReadOnlyNotice what="the issuer profile" />}
        <fieldset disabled={!owner}>
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
          <Field
            label="Default language"
            id="profile-language"
            hint="A BCP 47 tag such as en, fr or de-CH: new definitions are written in it, and your pages use it when neither the earner's browser nor the credential decides."
          >
            <LanguageInput
              id="profile-language"
              hintId="profile-language-hint"
              required
              value={profile.language}
              onInput={(language) => setProfile({ ...profile, language })}
            />
          </Field>
          <Field
            label="LinkedIn organization id"
            id="profile-linkedin"
            hint="Optional. On LinkedIn, open your company page as an admin: the address reads linkedin.com/company/<number>/admin, and the number is the id. With it, “Add to profile” shows the certification under your organization."
          >
            <input
              id="profile-linkedin"
              inputMode="numeric"
              maxLength={20}
              aria-describedby="profile-linkedin-hint"
              value={profile.linkedinOrganizationId}
              onInput={(e) => setProfile({ ...profile, linkedinOrganizationId: inputValue(e) })}
            />
          </Field>
        </fieldset>
        {owner && <button type="submit">Save profile</button>}
      </form>
      <NotificationsSection />
      <section class="panel" aria-labelledby="certificates-title">
        <h2 id="certificates-title">Certificates</h2>
        <p>
          <a href="/console/settings/certificates">Design the default certificate</a> of every badge without one of its
          own.
        </p>
      </section>
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
