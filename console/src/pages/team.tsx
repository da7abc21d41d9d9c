import { useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { useApiRead } from '../hooks';
import { useSession } from '../session';
import { Alert, Field, formatDate, inputValue } from '../ui';

type Member = components['schemas']['TeamMember'];
type Role = Member['role'];
const ROLES: Role[] = ['owner', 'issuer', 'viewer'];

export function TeamPage() {
  const session = useSession();
  const { data: page, error, setError, reload: load } = useApiRead(() => api.GET('/api/v1/users'), []);
  const members = page?.items ?? [];
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('issuer');
  const [invite, setInvite] = useState<{ url: string; expiresAt: string } | null>(null);

  async function add(event: Event) {
    event.preventDefault();
    setError(null);
    const { data, error: failure } = await api.POST('/api/v1/users', { body: { email, role } });
    if (failure) setError(problem(failure));
    else {
      setInvite({ url: data.inviteUrl, expiresAt: data.inviteExpiresAt });
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
    setError(null);
    const { error: failure } = await api.DELETE('/api/v1/users/{id}', { params: { path: { id: member.id } } });
    if (failure) setError(problem(failure));
    load();
  }

  return (
    <>
      <h1>Team</h1>
      {error && <Alert>{error}</Alert>}
      {invite && (
        <div class="panel secret" role="status">
          <h2>Send this invitation link</h2>
          <p>It is shown once and works until {formatDate(invite.expiresAt)} (UTC).</p>
          <code class="key">{invite.url}</code>
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
        <table>
          <caption>{members.length} members</caption>
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
                <td>
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
                <td>{member.status}</td>
                <td>{formatDate(member.lastSignInAt)}</td>
                <td>
                  {member.id !== session?.user.id && (
                    <button type="button" class="danger" onClick={() => remove(member)}>
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
