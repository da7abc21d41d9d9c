import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../client/index';
import { api } from './api';
import { Field, inputValue } from './ui';

type NotificationSettings = components['schemas']['NotificationSettings'];
type Outcome = components['schemas']['IssuedCredential']['notification'];

/**
 * "Email the earner" for a replacement (a renewal, a reissue, a name correction; issue 46): the
 * service stores no address, so the caller types the earner's, used for that message only and
 * checked by hash against the credential's recipient. Offered only when this service sends email.
 */
export function useEarnerNotice() {
  const [settings, setSettings] = useState<NotificationSettings | null>(null);
  const [notify, setNotify] = useState(false);
  const [email, setEmail] = useState('');
  useEffect(() => {
    api.GET('/api/v1/notifications/settings').then(({ data }) => setSettings(data ?? null));
  }, []);
  const offered = settings?.enabled === true;
  return {
    offered,
    notify: offered && notify,
    setNotify,
    email,
    setEmail,
    /** Whether the dialog may be confirmed: an address is needed once the box is ticked. */
    ready: !(offered && notify) || email.trim() !== '',
    /** What the call's body adds: `notify` and the address, or nothing. */
    body: () => (offered && notify ? { notify: true, recipientEmail: email.trim() } : {}),
    reset: () => {
      setNotify(false);
      setEmail('');
    },
  };
}

export type EarnerNotice = ReturnType<typeof useEarnerNotice>;

/** The checkbox and, once ticked, the earner's address; nothing when this service sends no email. */
export function EarnerNoticeFields({ id, label, notice }: { id: string; label: string; notice: EarnerNotice }) {
  if (!notice.offered) return null;
  return (
    <>
      <div class="field">
        <label class="choice">
          <input
            id={`${id}-notify`}
            type="checkbox"
            checked={notice.notify}
            onChange={(e) => notice.setNotify((e.currentTarget as HTMLInputElement).checked)}
          />
          {label}
        </label>
      </div>
      {notice.notify && (
        <Field
          label="Earner's email"
          id={`${id}-email`}
          hint="Used for this message only, never stored; it must be the address the credential was issued to."
        >
          <input
            id={`${id}-email`}
            type="email"
            required
            aria-describedby={`${id}-email-hint`}
            value={notice.email}
            onInput={(e) => notice.setEmail(inputValue(e))}
          />
        </Field>
      )}
    </>
  );
}

/** What the answer's notification outcome means, after "Renewed"/"Reissued". */
export function noticeOutcome(outcome: Outcome): string {
  if (outcome === 'queued') return ' The earner will be emailed the new credential.';
  if (outcome === 'suppressed') return ' The earner was not emailed: they unsubscribed from your emails.';
  if (outcome === 'off') return ' No email was sent: this service has no email set up.';
  return '';
}
