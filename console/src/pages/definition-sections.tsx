import { useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api } from '../api';
import { useApiRead, useSubmission } from '../hooks';
import { Alert, ConfirmDialog, Field, inputValue } from '../ui';
import { ALIGNMENT_TARGET_TYPES } from '../vocabularies';
import { VocabularyField } from '../vocabulary-field';

/** Optional text fields are left out of a body when empty: the API refuses an empty string. */
const optional = <K extends string>(key: K, value: string) =>
  (value.trim() ? { [key]: value.trim() } : {}) as Partial<Record<K, string>>;

/**
 * The definition's recorded endorsements (hosted as Open Badges 2.0 Endorsements) and a form to
 * record one. Each is an outside endorser's claim that no one signs: the issuer never signs in the
 * endorser's name, so each is shown as an unsigned claim.
 */
export function EndorsementsSection({ definitionId }: { definitionId: string }) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [claim, setClaim] = useState('');
  const list = useApiRead(
    () => api.GET('/api/v1/definitions/{id}/endorsements', { params: { path: { id: definitionId } } }),
    [definitionId],
  );
  const items = list.data;
  const { busy, error, notice, submit } = useSubmission();

  async function record(event: Event) {
    event.preventDefault();
    const sent = () =>
      api.POST('/api/v1/definitions/{id}/endorsements', {
        params: { path: { id: definitionId } },
        body: { endorserName: name, claim, ...optional('endorserUrl', url) },
      });
    if (!(await submit(sent, `Recorded the endorsement by “${name}”.`))) return;
    setName('');
    setUrl('');
    setClaim('');
    list.reload();
  }

  return (
    <section class="panel" aria-labelledby="endorsements-title">
      <h2 id="endorsements-title">Endorsements</h2>
      <p class="hint">
        Claims of outside endorsers, recorded by you and signed by no one. An issuer on this service endorses with its
        own key instead (API: POST /api/v1/endorsements/given).
      </p>
      {items === null ? (
        <p>Loading…</p>
      ) : items.length === 0 ? (
        <p>No endorsements yet.</p>
      ) : (
        <ul>
          {items.map((item) => (
            <li key={item.id}>
              <strong>{item.endorserName}</strong>
              {item.endorserUrl && <> ({item.endorserUrl})</>}: {item.claim} <em>(unsigned claim)</em>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={record} aria-labelledby="endorsement-form-title">
        <h3 id="endorsement-form-title">Record an endorsement</h3>
        {(error ?? list.error) && <Alert>{error ?? list.error}</Alert>}
        {notice && <Alert kind="success">{notice}</Alert>}
        <Field label="Endorser name" id="endorser-name">
          <input id="endorser-name" required maxLength={200} value={name} onInput={(e) => setName(inputValue(e))} />
        </Field>
        <Field label="Endorser URL" id="endorser-url" hint="Optional; an http or https address.">
          <input
            id="endorser-url"
            type="url"
            aria-describedby="endorser-url-hint"
            value={url}
            onInput={(e) => setUrl(inputValue(e))}
          />
        </Field>
        <Field label="Claim" id="endorsement-claim">
          <textarea
            id="endorsement-claim"
            required
            maxLength={5000}
            rows={3}
            value={claim}
            onInput={(e) => setClaim(inputValue(e))}
          />
        </Field>
        <div class="actions">
          <button type="submit" disabled={busy}>
            Record endorsement
          </button>
        </div>
      </form>
    </section>
  );
}

/** The definition's framework alignments (its BadgeClass `alignment`) and a form to add one. */
export function AlignmentsSection({ definitionId }: { definitionId: string }) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [framework, setFramework] = useState('');
  const [code, setCode] = useState('');
  const [targetType, setTargetType] = useState('');
  /** The type select keeps its own choice; a new key after each add starts it afresh. */
  const [added, setAdded] = useState(0);
  const list = useApiRead(
    () => api.GET('/api/v1/definitions/{id}/alignments', { params: { path: { id: definitionId } } }),
    [definitionId],
  );
  const items = list.data;
  const { busy, error, notice, submit } = useSubmission();

  async function add(event: Event) {
    event.preventDefault();
    const sent = () =>
      api.POST('/api/v1/definitions/{id}/alignments', {
        params: { path: { id: definitionId } },
        body: {
          targetName: name,
          targetUrl: url,
          ...optional('targetFramework', framework),
          ...optional('targetCode', code),
          ...optional('targetType', targetType),
        },
      });
    if (!(await submit(sent, `Added the alignment to “${name}”.`))) return;
    setName('');
    setUrl('');
    setFramework('');
    setCode('');
    setTargetType('');
    setAdded(added + 1);
    list.reload();
  }

  return (
    <section class="panel" aria-labelledby="alignments-title">
      <h2 id="alignments-title">Alignments</h2>
      {items === null ? (
        <p>Loading…</p>
      ) : items.length === 0 ? (
        <p>No alignments yet.</p>
      ) : (
        <ul>
          {items.map((item) => (
            <li key={item.id}>
              <a href={item.targetUrl}>{item.targetName}</a>
              {[item.targetFramework, item.targetCode].filter(Boolean).length > 0 && (
                <> ({[item.targetFramework, item.targetCode].filter(Boolean).join(' ')})</>
              )}
              {item.targetType && <>, type {item.targetType}</>}
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={add} aria-labelledby="alignment-form-title">
        <h3 id="alignment-form-title">Add an alignment</h3>
        {(error ?? list.error) && <Alert>{error ?? list.error}</Alert>}
        {notice && <Alert kind="success">{notice}</Alert>}
        <Field label="Target name" id="alignment-name">
          <input id="alignment-name" required maxLength={300} value={name} onInput={(e) => setName(inputValue(e))} />
        </Field>
        <Field label="Target URL" id="alignment-url">
          <input id="alignment-url" type="url" required value={url} onInput={(e) => setUrl(inputValue(e))} />
        </Field>
        <Field label="Framework" id="alignment-framework">
          <input
            id="alignment-framework"
            maxLength={300}
            value={framework}
            onInput={(e) => setFramework(inputValue(e))}
          />
        </Field>
        <Field label="Code" id="alignment-code">
          <input id="alignment-code" maxLength={100} value={code} onInput={(e) => setCode(inputValue(e))} />
        </Field>
        <VocabularyField
          key={added}
          id="alignment-type"
          label="Target type"
          vocabulary={ALIGNMENT_TARGET_TYPES}
          value={targetType}
          onChange={setTargetType}
          hint="What the target is, in Open Badges 3.0 terms; an ESCO skill: ext:ESCOSkill, with its URI as the target URL."
        />
        <div class="actions">
          <button type="submit" disabled={busy}>
            Add alignment
          </button>
        </div>
      </form>
    </section>
  );
}

type GivenEndorsement = components['schemas']['GivenEndorsement'];

/** What the endorsed issuer decided, as the endorser reads it. */
const GIVEN_STATUS: Record<GivenEndorsement['status'], string> = {
  pending: 'awaiting the badge issuer’s acceptance',
  accepted: 'accepted by the badge issuer',
  rejected: 'rejected by the badge issuer',
  removed: 'removed by the badge issuer',
};

/**
 * Endorsements this issuer gives other issuers' definitions with its own key (a signed
 * EndorsementCredential), named by their BadgeClass URL; each can be revoked after a confirmation.
 */
export function GivenEndorsementsSection() {
  const [badgeClass, setBadgeClass] = useState('');
  const [claim, setClaim] = useState('');
  const [pending, setPending] = useState<GivenEndorsement | null>(null);
  const list = useApiRead(() => api.GET('/api/v1/endorsements/given'), []);
  const { busy, error, notice, submit } = useSubmission();

  async function give(event: Event) {
    event.preventDefault();
    const sent = () => api.POST('/api/v1/endorsements/given', { body: { badgeClass: badgeClass.trim(), claim } });
    if (!(await submit(sent, 'Endorsed the badge, signed with your key.'))) return;
    setBadgeClass('');
    setClaim('');
    list.reload();
  }

  async function revoke() {
    const target = pending;
    setPending(null);
    if (!target) return;
    const sent = () => api.POST('/api/v1/endorsements/given/{id}/revoke', { params: { path: { id: target.id } } });
    if (await submit(sent, 'Revoked the endorsement.')) list.reload();
  }

  return (
    <section class="panel" aria-labelledby="given-endorsements-title">
      <h2 id="given-endorsements-title">Endorsements you give</h2>
      <p class="hint">
        Endorse another issuer’s badge on this service: the endorsement is signed with your key, and once that issuer
        accepts it, its credentials carry it until you revoke it.
      </p>
      {(error ?? list.error) && <Alert>{error ?? list.error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      {list.data === null ? (
        <p>Loading…</p>
      ) : list.data.length === 0 ? (
        <p>No endorsements given yet.</p>
      ) : (
        <ul>
          {list.data.map((item) => (
            <li key={item.id}>
              <a href={item.badgeClass}>{item.badgeClass}</a>: {item.claim}{' '}
              {item.revokedAt ? (
                <em>(revoked)</em>
              ) : (
                <>
                  <em>({GIVEN_STATUS[item.status]})</em>{' '}
                  <button type="button" class="danger" onClick={() => setPending(item)}>
                    Revoke endorsement
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      {pending && (
        <ConfirmDialog
          id="confirm-revoke-endorsement"
          title="Revoke this endorsement?"
          confirmLabel="Revoke endorsement"
          onConfirm={revoke}
          onCancel={() => setPending(null)}
        >
          <p>
            Your endorsement of {pending.badgeClass} is marked revoked in your status list at once, and credentials
            signed from now on no longer list it. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
      <form onSubmit={give} aria-labelledby="give-endorsement-title">
        <h3 id="give-endorsement-title">Endorse a badge</h3>
        <Field label="Badge URL" id="given-badge-class" hint="The BadgeClass URL of another issuer’s badge here.">
          <input
            id="given-badge-class"
            type="url"
            required
            maxLength={2048}
            value={badgeClass}
            onInput={(e) => setBadgeClass(inputValue(e))}
          />
        </Field>
        <Field label="Endorsement" id="given-claim">
          <textarea id="given-claim" required maxLength={1000} value={claim} onInput={(e) => setClaim(inputValue(e))} />
        </Field>
        <div class="actions">
          <button type="submit" disabled={busy}>
            Endorse badge
          </button>
        </div>
      </form>
    </section>
  );
}
