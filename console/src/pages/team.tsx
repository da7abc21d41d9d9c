import { useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { useApiRead } from '../hooks';
import { can, useSession } from '../session';
import { Alert, ConfirmDialog, Field, formatDate, inputValue, ReadOnlyNotice } from '../ui';

type Member = components['schemas']['TeamMember'];
type Role = Member['role'];
const ROLES: Role[] = ['owner', 'issuer', 'viewer'];

export function TeamPage() {
  const session = useSession();
  return (
    <>
      <h1>Team</h1>
      {can(session?.user, 'own') ? <TeamManager selfId={session?.user.id} /> : <ReadOnlyNotice what="the team" />}
    </>
  );
}

function TeamManager({ selfId }: { selfId: string | undefined }) {
  const { data: page, error, setError, reload: load } = useApiRead(() => api.GET('/api/v1/users'), []);
  const members = page?.items ?? [];
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('issuer');
  const [invite, setInvite] = useState<{ url: string; expiresAt: string; emailed: boolean; to: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const [removing, setRemoving] = useState<Member | null>(null);

  async function add(event: Event) {
    event.preventDefault();
    setError(null);
    const { data, error: failure } = await api.POST('/api/v1/users', { body: { email, role } });
    if (failure) setError(problem(failure));
    else {
      setInvite({ url: data.inviteUrl, expiresAt: data.inviteExpiresAt, emailed: data.emailed, to: email });
      setCopied(false);
      setEmail('');
      load();
    }
  }

  async function changeRole(member: Member, next: Role) {
    setError(null);
    const { error: failure } = await api.PATCH('/api/v1/users/{id}', {
      params: { path: { id: member.id } },
      body: { role: next },
    });
    if (failure) setError(problem(failure));
    load();
  }

  async function remove(member: Member) {
    setRemoving(null);
    setError(null);
    const { error: failure } = await api.DELETE('/api/v1/users/{id}', { params: { path: { id: member.id } } });
    if (failure) setError(problem(failure));
    load();
  }

  return (
    <>
      {error && <Alert>{error}</Alert>}
      {removing && (
        <ConfirmDialog
          id="confirm-remove-user"
          title={`Remove ${removing.email}?`}
          confirmLabel="Remove user"
          onConfirm={() => remove(removing)}
          onCancel={() => setRemoving(null)}
        >
          <p>They are signed out at once and can no longer sign in. To let them back, invite them again.</p>
        </ConfirmDialog>
      )}
      {invite && (
        <div class="panel secret" role="status">
          <h2>{invite.emailed ? `Invitation emailed to ${invite.to}` : 'Send this invitation link'}</h2>
          <p>
            {invite.emailed ? 'The link is also here, should the email not arrive. ' : ''}It is shown once and works
            until {formatDate(invite.expiresAt)} (UTC).
          </p>
          <code class="key">{invite.url}</code>
          <button
            type="button"
            class="secondary"
            onClick={async () => {
              await navigator.clipboard?.writeText(invite.url).catch(() => undefined);
              setCopied(true);
            }}
          >
            {copied ? 'Copied' : 'Copy the link'}
          </button>
          <button type="button" class="secondary" onClick={() => setInvite(null)}>
            Done
          </button>
        </div>
      )}
      <form class="panel inline" onSubmit={add} aria-label="Invite a team member">
        <Field label="Email" id="member-email">
          <input id="member-email" type="email" required value={email} onInput={(e) => setEmail(inputValue(e))} />
        </Field>
        <Field label="Role" id="member-role">
          <select id="member-role" value={role} onChange={(e) => setRole(inputValue(e) as Role)}>
            {ROLES.map((item) => (
              <option key={item} value={item}>
                {item}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit">Invite</button>
      </form>
      <div class="table-wrap">
        <table class="cards">
          <caption>{members.length === 1 ? '1 member' : `${members.length} members`}</caption>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col">Last sign-in</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {members.map((member) => (
              <tr key={member.id}>
                <th scope="row" class="wrap">
                  {member.email}
                </th>
                <td data-label="Role">
                  <label class="visually-hidden" for={`role-${member.id}`}>
                    Role of {member.email}
                  </label>
                  <select
                    id={`role-${member.id}`}
                    value={member.role}
                    onChange={(e) => changeRole(member, inputValue(e) as Role)}
                  >
                    {ROLES.map((item) => (
                      <option key={item} value={item}>
                        {item}
                      </option>
                    ))}
                  </select>
                </td>
                <td data-label="Status">{member.status}</td>
                <td data-label="Last sign-in">{formatDate(member.lastSignInAt)}</td>
                <td data-label="Actions">
                  {member.id !== selfId && (
                    <button type="button" class="danger" onClick={() => setRemoving(member)}>
                      Remove<span class="visually-hidden"> {member.email}</span>
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
