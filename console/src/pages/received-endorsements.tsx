import { useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api } from '../api';
import { useApiRead, useSubmission } from '../hooks';
import { Alert, ConfirmDialog } from '../ui';

type Received = components['schemas']['ReceivedEndorsement'];
type Decision = 'accept' | 'reject' | 'remove';

const STATUS_LABEL: Record<Received['status'], string> = {
  pending: 'awaiting your decision',
  accepted: 'accepted: in credentials you sign',
  rejected: 'rejected',
  removed: 'removed',
};

/** Each decision: its button, the dialog's question and what it says will happen. */
const DECISIONS: Record<Decision, { label: string; done: string; title: string; effect: string; danger: boolean }> = {
  accept: {
    label: 'Accept',
    done: 'Accepted the endorsement.',
    title: 'Accept this endorsement?',
    effect: 'Credentials of this badge signed from now on carry it, signed by its endorser.',
    danger: false,
  },
  reject: {
    label: 'Reject',
    done: 'Rejected the endorsement.',
    title: 'Reject this endorsement?',
    effect: 'Credentials signed from now on do not carry it. You can accept it later.',
    danger: true,
  },
  remove: {
    label: 'Remove',
    done: 'Removed the endorsement.',
    title: 'Remove this endorsement?',
    effect:
      'It is never carried again and cannot be accepted again; its endorser cannot endorse this badge again unless it revokes this endorsement. This cannot be undone.',
    danger: true,
  },
};

/** The decisions open to an endorsement in its state. */
function decisionsFor(item: Received): Decision[] {
  if (item.status === 'removed') return [];
  const open: Decision[] = [];
  if (item.status !== 'accepted' && item.revokedAt === null) open.push('accept');
  if (item.status !== 'rejected') open.push('reject');
  open.push('remove');
  return open;
}

/**
 * Endorsements other issuers of this service gave this issuer's badges (issue 48 §4): each waits for
 * a decision, and only accepted ones are carried by the credentials it signs. Every decision is
 * confirmed in a dialog that names the endorser and the badge.
 */
export function ReceivedEndorsementsSection({ mayDecide }: { mayDecide: boolean }) {
  const [asked, setAsked] = useState<{ item: Received; decision: Decision } | null>(null);
  const list = useApiRead(() => api.GET('/api/v1/endorsements/received', { params: { query: { limit: 200 } } }), []);
  const { busy, error, notice, submit } = useSubmission();

  async function decide() {
    const chosen = asked;
    setAsked(null);
    if (!chosen) return;
    const path = { id: chosen.item.id };
    const sent = () => {
      if (chosen.decision === 'accept')
        return api.POST('/api/v1/endorsements/received/{id}/accept', { params: { path } });
      if (chosen.decision === 'reject')
        return api.POST('/api/v1/endorsements/received/{id}/reject', { params: { path } });
      return api.POST('/api/v1/endorsements/received/{id}/remove', { params: { path } });
    };
    if (await submit(sent, DECISIONS[chosen.decision].done)) list.reload();
  }

  return (
    <section class="panel" aria-labelledby="received-endorsements-title">
      <h2 id="received-endorsements-title">Endorsements of your badges</h2>
      <p class="hint">
        Other issuers on this service can endorse your badges with their own key. An endorsement waits for your
        decision; only those you accept are carried by the credentials you sign (at most 10 per badge).
      </p>
      {(error ?? list.error) && <Alert>{error ?? list.error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      {list.data === null ? (
        <p>Loading…</p>
      ) : list.data.length === 0 ? (
        <p>No endorsements received yet.</p>
      ) : (
        <ul>
          {list.data.map((item) => (
            <li key={item.id}>
              <strong>{item.endorserName}</strong> endorses <a href={item.badgeClass}>{item.definitionName}</a>:{' '}
              {item.claim} <em>({item.revokedAt ? 'revoked by its endorser' : STATUS_LABEL[item.status]})</em>
              {mayDecide &&
                decisionsFor(item).map((decision) => (
                  <button
                    key={decision}
                    type="button"
                    class={DECISIONS[decision].danger ? 'danger' : undefined}
                    disabled={busy}
                    aria-label={`${DECISIONS[decision].label} the endorsement by ${item.endorserName} of ${item.definitionName}`}
                    onClick={() => setAsked({ item, decision })}
                  >
                    {DECISIONS[decision].label}
                  </button>
                ))}
            </li>
          ))}
        </ul>
      )}
      {asked && (
        <ConfirmDialog
          id="confirm-received-endorsement"
          title={DECISIONS[asked.decision].title}
          confirmLabel={`${DECISIONS[asked.decision].label} endorsement`}
          onConfirm={decide}
          onCancel={() => setAsked(null)}
        >
          <p>
            The endorsement by {asked.item.endorserName} of “{asked.item.definitionName}”.{' '}
            {DECISIONS[asked.decision].effect}
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
