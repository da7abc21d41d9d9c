import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { Alert, DateField, Field, FilterForm, formatDate, inputValue } from '../ui';

type Definition = components['schemas']['Definition'];
type CredentialPage = components['schemas']['CredentialPage'];

type Status = components['schemas']['CredentialSummary']['status'];

interface Search {
  recipientName: string;
  recipientEmail: string;
  completionKey: string;
  definitionId: string;
  status: Status | '';
  issuedFrom: string;
  issuedTo: string;
}

const EMPTY: Search = {
  recipientName: '',
  recipientEmail: '',
  completionKey: '',
  definitionId: '',
  status: '',
  issuedFrom: '',
  issuedTo: '',
};

/** The search body: only the filters given; dates as the whole UTC day. */
function searchBody(search: Search) {
  return {
    limit: 50,
    offset: 0,
    ...(search.recipientName.trim() ? { recipientName: search.recipientName.trim() } : {}),
    ...(search.recipientEmail ? { recipientEmail: search.recipientEmail } : {}),
    ...(search.completionKey ? { completionKey: search.completionKey } : {}),
    ...(search.definitionId ? { definitionId: search.definitionId } : {}),
    ...(search.status ? { status: search.status } : {}),
    ...(search.issuedFrom ? { issuedFrom: `${search.issuedFrom}T00:00:00.000Z` } : {}),
    ...(search.issuedTo ? { issuedTo: `${search.issuedTo}T23:59:59.999Z` } : {}),
  };
}

/** The export takes the list's status, definition and name filters (email and dates are search-only). */
function exportQuery(search: Search): string {
  const query = new URLSearchParams();
  if (search.status) query.set('status', search.status);
  if (search.definitionId) query.set('definitionId', search.definitionId);
  if (search.recipientName.trim()) query.set('recipientName', search.recipientName.trim());
  const text = query.toString();
  return text ? `?${text}` : '';
}

export function CredentialsPage() {
  const [definitions, setDefinitions] = useState<Definition[]>([]);
  const [search, setSearch] = useState<Search>(EMPTY);
  const [page, setPage] = useState<CredentialPage | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function run(criteria: Search) {
    setError(null);
    const result = await api.POST('/api/v1/credentials/search', { body: searchBody(criteria) });
    if (result.data) setPage(result.data);
    else setError(problem(result.error));
  }
  useEffect(() => {
    api.GET('/api/v1/definitions').then(({ data }) => setDefinitions(data ?? []));
    run(EMPTY);
  }, []);

  const set = (key: keyof Search) => (event: Event) => setSearch({ ...search, [key]: inputValue(event) });
  const names = new Map(definitions.map((definition) => [definition.id, definition.name]));

  return (
    <>
      <h1>Credentials</h1>
      <FilterForm label="Search credentials" onFilter={() => run(search)}>
        <Field label="Recipient name" id="search-name" hint="Part of the name, any case.">
          <input
            id="search-name"
            maxLength={200}
            aria-describedby="search-name-hint"
            value={search.recipientName}
            onInput={set('recipientName')}
          />
        </Field>
        <Field label="Recipient email" id="search-email">
          <input id="search-email" type="email" value={search.recipientEmail} onInput={set('recipientEmail')} />
        </Field>
        <Field label="Completion key" id="search-key">
          <input id="search-key" value={search.completionKey} onInput={set('completionKey')} />
        </Field>
        <Field label="Definition" id="search-definition">
          <select id="search-definition" value={search.definitionId} onChange={set('definitionId')}>
            <option value="">Any</option>
            {definitions.map((definition) => (
              <option key={definition.id} value={definition.id}>
                {definition.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Status" id="search-status">
          <select id="search-status" value={search.status} onChange={set('status')}>
            <option value="">Any</option>
            <option value="valid">Valid</option>
            <option value="expired">Expired</option>
            <option value="revoked">Revoked</option>
          </select>
        </Field>
        <DateField label="Issued from" id="search-from" value={search.issuedFrom} onInput={set('issuedFrom')} />
        <DateField label="Issued to" id="search-to" value={search.issuedTo} onInput={set('issuedTo')} />
        <div class="actions">
          <button type="submit">Search</button>
          <a href={`/api/v1/credentials/export.csv${exportQuery(search)}`} download>
            Export CSV
          </a>
        </div>
      </FilterForm>
      {error && <Alert>{error}</Alert>}
      {page && (
        <div class="table-wrap">
          <table>
            <caption>
              {page.total} credential{page.total === 1 ? '' : 's'}
            </caption>
            <thead>
              <tr>
                <th scope="col">Issued</th>
                <th scope="col">Name</th>
                <th scope="col">Definition</th>
                <th scope="col">Completion key</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((credential) => (
                <tr key={credential.id}>
                  <td>
                    <a href={`/console/credentials/${credential.id}`}>{formatDate(credential.issuedOn)}</a>
                  </td>
                  <td>{credential.recipientName ?? '—'}</td>
                  <td>{names.get(credential.definitionId) ?? credential.definitionId}</td>
                  <td>{credential.completionKey}</td>
                  <td>
                    <span class={`status status-${credential.status}`}>{credential.status}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
