import { useCallback, useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem, uploadImage } from '../api';
import { BadgeDesigner, badgePng } from '../designer';
import { useApiRead } from '../hooks';
import { LanguageInput } from '../languages';
import { can, useSession } from '../session';
import { Alert, ConfirmDialog, Field, inputValue } from '../ui';
import { ACHIEVEMENT_TYPES } from '../vocabularies';
import { VocabularyField } from '../vocabulary-field';
import { AlignmentsSection, EndorsementsSection, GivenEndorsementsSection } from './definition-sections';
import { ReceivedEndorsementsSection } from './received-endorsements';

type Definition = components['schemas']['Definition'];
type ImageSource = 'design' | 'upload' | 'url';
type ValidityUnit = 'months' | 'days';

/** How long a definition's credentials stay valid, as a registrar says it: "24 months", "90 days". */
export function validityText(definition: Definition): string {
  if (definition.validForMonths)
    return `${definition.validForMonths} month${definition.validForMonths === 1 ? '' : 's'}`;
  if (definition.expiresAfterDays)
    return `${definition.expiresAfterDays} day${definition.expiresAfterDays === 1 ? '' : 's'}`;
  return 'No expiry';
}

/** The body's validity: months or days, the other cleared; none when the field is empty. */
function validityBody(amount: string, unit: ValidityUnit, editing: boolean) {
  const n = Number.parseInt(amount, 10);
  if (!Number.isInteger(n) || n < 1) return editing ? { validForMonths: null, expiresAfterDays: null } : {};
  return unit === 'months' ? { validForMonths: n } : { expiresAfterDays: n };
}

/** The OB 3.0 details a definition form edits, as text fields ('' when not given). */
const DETAILS = [
  'language',
  'achievementType',
  'creditsAvailable',
  'fieldOfStudy',
  'specialization',
  'humanCode',
  'version',
] as const;
type Details = Record<(typeof DETAILS)[number], string>;

function detailsOf(definition: Definition | null): Details {
  const text = (value: string | number | null | undefined) => (value == null ? '' : String(value));
  return {
    language: text(definition?.language),
    achievementType: text(definition?.achievementType),
    creditsAvailable: text(definition?.creditsAvailable),
    fieldOfStudy: text(definition?.fieldOfStudy),
    specialization: text(definition?.specialization),
    humanCode: text(definition?.humanCode),
    version: text(definition?.version),
  };
}

/**
 * The details as the body takes them: on a new definition the ones given; on an edit the ones
 * changed, an emptied one as null (the language cannot be emptied: the API needs one).
 */
function detailsBody(details: Details, editing: Definition | null) {
  const before = detailsOf(editing);
  const body: Record<string, string | number | null> = {};
  for (const key of DETAILS) {
    const value = details[key].trim();
    if (editing ? value === before[key] : value === '') continue;
    if (key === 'language') {
      if (value) body.language = value;
    } else if (key === 'creditsAvailable') body.creditsAvailable = value === '' ? null : Number(value);
    else body[key] = value === '' ? null : value;
  }
  return body;
}

function DefinitionForm({ editing, onDone }: { editing: Definition | null; onDone: (message: string) => void }) {
  const [name, setName] = useState(editing?.name ?? '');
  const [description, setDescription] = useState(editing?.description ?? '');
  const [criteria, setCriteria] = useState(editing?.criteriaNarrative ?? '');
  const [validity, setValidity] = useState(String(editing?.validForMonths ?? editing?.expiresAfterDays ?? ''));
  const [unit, setUnit] = useState<ValidityUnit>(editing?.expiresAfterDays ? 'days' : 'months');
  const [source, setSource] = useState<ImageSource>(editing?.imageUrl ? 'url' : 'design');
  const [imageUrl, setImageUrl] = useState(editing?.imageUrl ?? '');
  const [format, setFormat] = useState<'svg' | 'png'>('svg');
  const [svg, setSvg] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [details, setDetails] = useState<Details>(detailsOf(editing));
  const detail = (key: keyof Details) => (value: string) => setDetails((current) => ({ ...current, [key]: value }));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const onDesign = useCallback((value: string) => setSvg(value), []);

  async function image(): Promise<string | undefined> {
    if (source === 'url') return imageUrl || undefined;
    if (source === 'upload') {
      if (!file) return undefined;
      const type = file.type === 'image/png' ? 'image/png' : 'image/svg+xml';
      const uploaded = await uploadImage(file, type);
      if (!uploaded.url) throw uploaded.error;
      return uploaded.url;
    }
    const uploaded =
      format === 'png'
        ? await uploadImage(await badgePng(svg), 'image/png')
        : await uploadImage(new Blob([svg], { type: 'image/svg+xml' }), 'image/svg+xml');
    if (!uploaded.url) throw uploaded.error;
    return uploaded.url;
  }

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const url = await image();
      const body = {
        name,
        description,
        ...(criteria ? { criteriaNarrative: criteria } : {}),
        ...(url ? { imageUrl: url } : {}),
        ...validityBody(validity, unit, editing !== null),
        ...detailsBody(details, editing),
      };
      const result = editing
        ? await api.PATCH('/api/v1/definitions/{id}', { params: { path: { id: editing.id } }, body })
        : await api.POST('/api/v1/definitions', { body });
      if (result.error) throw result.error;
      onDone(editing ? `Saved “${name}”.` : `Created “${name}”.`);
    } catch (failure) {
      setError(problem(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="panel" onSubmit={submit} aria-labelledby="definition-form-title">
      <h2 id="definition-form-title">{editing ? `Edit ${editing.name}` : 'New definition'}</h2>
      {error && <Alert>{error}</Alert>}
      <Field label="Name" id="def-name">
        <input id="def-name" required maxLength={200} value={name} onInput={(e) => setName(inputValue(e))} />
      </Field>
      <Field label="Description" id="def-description">
        <textarea
          id="def-description"
          required
          rows={3}
          value={description}
          onInput={(e) => setDescription(inputValue(e))}
        />
      </Field>
      <Field label="Criteria" id="def-criteria">
        <textarea id="def-criteria" rows={3} value={criteria} onInput={(e) => setCriteria(inputValue(e))} />
      </Field>
      <fieldset>
        <legend>Validity</legend>
        <Field label="Valid for" id="def-validity" hint="Leave empty for credentials that never expire.">
          <input
            id="def-validity"
            type="number"
            min={1}
            max={unit === 'months' ? 1200 : 36500}
            inputMode="numeric"
            aria-describedby="def-validity-hint"
            value={validity}
            onInput={(e) => setValidity(inputValue(e))}
          />
        </Field>
        <Field label="Unit" id="def-validity-unit">
          <select
            id="def-validity-unit"
            value={unit}
            onChange={(e) => setUnit(inputValue(e) === 'days' ? 'days' : 'months')}
          >
            <option value="months">months</option>
            <option value="days">days</option>
          </select>
        </Field>
      </fieldset>
      <fieldset>
        <legend>Badge details for other systems</legend>
        <p class="hint">
          Open Badges 3.0 carries these, so employers' and job platforms' software can read what the badge is.
        </p>
        <Field
          label="Language of the text"
          id="def-language"
          hint={
            editing
              ? 'The language the name, description and criteria above are written in (a BCP 47 tag such as en or fr-CH).'
              : 'The language the name, description and criteria above are written in; empty: your issuer’s default language.'
          }
        >
          <LanguageInput
            id="def-language"
            hintId="def-language-hint"
            required={editing !== null}
            value={details.language}
            onInput={detail('language')}
          />
        </Field>
        <VocabularyField
          id="def-achievement-type"
          label="Achievement type"
          vocabulary={ACHIEVEMENT_TYPES}
          value={details.achievementType}
          onChange={detail('achievementType')}
        />
        <Field label="Credits available" id="def-credits" hint="Credit hours, such as 3 or 7.5.">
          <input
            id="def-credits"
            type="number"
            min={0}
            max={100000}
            step="any"
            inputMode="decimal"
            aria-describedby="def-credits-hint"
            value={details.creditsAvailable}
            onInput={(e) => detail('creditsAvailable')(inputValue(e))}
          />
        </Field>
        <Field label="Field of study" id="def-field-of-study" hint="Such as Business, Education or Technology.">
          <input
            id="def-field-of-study"
            maxLength={200}
            aria-describedby="def-field-of-study-hint"
            value={details.fieldOfStudy}
            onInput={(e) => detail('fieldOfStudy')(inputValue(e))}
          />
        </Field>
        <Field label="Specialization" id="def-specialization" hint="Such as Entrepreneurship or Finance.">
          <input
            id="def-specialization"
            maxLength={200}
            aria-describedby="def-specialization-hint"
            value={details.specialization}
            onInput={(e) => detail('specialization')(inputValue(e))}
          />
        </Field>
        <Field label="Course code" id="def-human-code" hint="The code people know it by, such as CS-101.">
          <input
            id="def-human-code"
            maxLength={100}
            aria-describedby="def-human-code-hint"
            value={details.humanCode}
            onInput={(e) => detail('humanCode')(inputValue(e))}
          />
        </Field>
        <Field
          label="Your version"
          id="def-version"
          hint="Your own version string, such as 2026.1. This service also numbers each change made after a credential was issued."
        >
          <input
            id="def-version"
            maxLength={100}
            aria-describedby="def-version-hint"
            value={details.version}
            onInput={(e) => detail('version')(inputValue(e))}
          />
        </Field>
      </fieldset>
      <fieldset>
        <legend>Image</legend>
        {(['design', 'upload', 'url'] as const).map((value) => (
          <label key={value} class="choice">
            <input type="radio" name="image-source" checked={source === value} onChange={() => setSource(value)} />
            {value === 'design' ? 'Design a badge' : value === 'upload' ? 'Upload a file' : 'Image URL'}
          </label>
        ))}
      </fieldset>
      {source === 'design' && (
        <>
          <BadgeDesigner initialTitle={name || 'Badge'} onChange={onDesign} />
          <Field label="Image format" id="def-format">
            <select id="def-format" value={format} onChange={(e) => setFormat(inputValue(e) === 'png' ? 'png' : 'svg')}>
              <option value="svg">SVG</option>
              <option value="png">PNG</option>
            </select>
          </Field>
        </>
      )}
      {source === 'upload' && (
        <Field label="Image file (PNG or SVG, up to 256 KiB)" id="def-file">
          <input
            id="def-file"
            type="file"
            accept="image/png,image/svg+xml"
            onChange={(e) => setFile((e.currentTarget as HTMLInputElement).files?.[0] ?? null)}
          />
        </Field>
      )}
      {source === 'url' && (
        <Field label="Image URL" id="def-image-url">
          <input id="def-image-url" type="url" value={imageUrl} onInput={(e) => setImageUrl(inputValue(e))} />
        </Field>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {editing ? 'Save definition' : 'Save new definition'}
        </button>
        <button type="button" class="secondary" onClick={() => onDone('')}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The definition's own image, or the one the service generates for it (what the badge shows). */
function badgeImage(definition: Definition, issuerSlug: string): string {
  return (
    definition.imageUrl ??
    `/v1/issuers/${encodeURIComponent(issuerSlug)}/badges/${encodeURIComponent(definition.slug)}/image.svg`
  );
}

export function DefinitionsPage() {
  const session = useSession();
  const mayEdit = can(session?.user, 'issue');
  const { data: items, error, setError, reload: load } = useApiRead(() => api.GET('/api/v1/definitions'), []);
  const [notice, setNotice] = useState('');
  const [editing, setEditing] = useState<Definition | 'new' | null>(null);
  const [archiving, setArchiving] = useState<Definition | null>(null);

  async function archive(definition: Definition) {
    setArchiving(null);
    const { error: failure } = await api.PATCH('/api/v1/definitions/{id}', {
      params: { path: { id: definition.id } },
      body: { status: 'archived' },
    });
    if (failure) setError(problem(failure));
    else {
      setNotice(`Archived “${definition.name}”.`);
      load();
    }
  }

  return (
    <>
      <div class="page-head">
        <h1>Definitions</h1>
        {mayEdit && editing === null && (
          <button type="button" onClick={() => setEditing('new')}>
            Create definition
          </button>
        )}
      </div>
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      {editing !== null && (
        <DefinitionForm
          editing={editing === 'new' ? null : editing}
          onDone={(message) => {
            setEditing(null);
            setNotice(message);
            if (message) load();
          }}
        />
      )}
      {editing !== null && editing !== 'new' && (
        <>
          <EndorsementsSection definitionId={editing.id} />
          <AlignmentsSection definitionId={editing.id} />
        </>
      )}
      {items === null ? (
        <p>Loading…</p>
      ) : items.length === 0 ? (
        <p>No definitions yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Credential definitions</caption>
            <thead>
              <tr>
                <th scope="col">Image</th>
                <th scope="col">Name</th>
                <th scope="col">Validity</th>
                <th scope="col">Status</th>
                <th scope="col" class="wide-only">
                  Id
                </th>
                {mayEdit && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {items.map((definition) => (
                <tr key={definition.id}>
                  <td>
                    <img src={badgeImage(definition, session?.user.issuer.slug ?? '')} alt="" width={40} height={40} />
                  </td>
                  <th scope="row">
                    <a href={`/console/definitions/${definition.id}`}>{definition.name}</a>
                  </th>
                  <td>{validityText(definition)}</td>
                  <td>{definition.status ?? 'active'}</td>
                  <td class="wide-only">
                    <code>{definition.id}</code>
                  </td>
                  {mayEdit && (
                    <td class="actions">
                      <button type="button" class="secondary" onClick={() => setEditing(definition)}>
                        Edit<span class="visually-hidden"> {definition.name}</span>
                      </button>
                      <a href={`/console/definitions/${definition.id}/certificate`}>
                        Certificate<span class="visually-hidden"> of {definition.name}</span>
                      </a>
                      {definition.status !== 'archived' && (
                        <button type="button" class="secondary" onClick={() => setArchiving(definition)}>
                          Archive<span class="visually-hidden"> {definition.name}</span>
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {archiving && (
        <ConfirmDialog
          id="confirm-archive-definition"
          title={`Archive definition “${archiving.name}”?`}
          confirmLabel="Archive definition"
          onConfirm={() => archive(archiving)}
          onCancel={() => setArchiving(null)}
        >
          <p>No credential can be issued against it any more. Credentials already issued stay as they are.</p>
        </ConfirmDialog>
      )}
      {editing === null && <ReceivedEndorsementsSection mayDecide={mayEdit} />}
      {mayEdit && editing === null && <GivenEndorsementsSection />}
    </>
  );
}
