import { useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { useApiRead } from '../hooks';
import { LanguageInput, languageLabel } from '../languages';
import { can, useSession } from '../session';
import { Alert, ConfirmDialog, Field, formatDate, inputValue } from '../ui';
import { validityText } from './definitions';

type Definition = components['schemas']['Definition'];
type Translation = components['schemas']['DefinitionTranslation'];
type Certificate = components['schemas']['DefinitionCertificate'];

/** The text fields a translation holds, with what the definition (or its certificate) says in its own language. */
const TEXTS = [
  { key: 'name', label: 'Name', lines: 1, max: 200, required: true },
  { key: 'description', label: 'Description', lines: 3, max: 5000, required: true },
  { key: 'criteriaNarrative', label: 'Criteria', lines: 3, max: 10_000, required: false },
  { key: 'certificateTitle', label: 'Certificate title', lines: 1, max: 120, required: false },
  { key: 'certificateWording', label: 'Certificate wording', lines: 3, max: 600, required: false },
] as const;
type TextKey = (typeof TEXTS)[number]['key'];
type Texts = Record<TextKey, string>;

const EMPTY: Texts = { name: '', description: '', criteriaNarrative: '', certificateTitle: '', certificateWording: '' };

function textsOf(translation: Translation): Texts {
  return {
    name: translation.name,
    description: translation.description,
    criteriaNarrative: translation.criteriaNarrative ?? '',
    certificateTitle: translation.certificateTitle ?? '',
    certificateWording: translation.certificateWording ?? '',
  };
}

/**
 * One translation's form (issue 45 §1): each field beside the definition's own text in its own
 * language, which also describes the field for a screen reader. `editing` is the language of the
 * translation being changed, or null for a new one, whose tag is typed here.
 */
function TranslationForm({
  definition,
  certificate,
  editing,
  onSaved,
  onCancel,
}: {
  definition: Definition;
  certificate: Certificate | null;
  editing: Translation | null;
  onSaved: (language: string) => void;
  onCancel: () => void;
}) {
  const [language, setLanguage] = useState(editing?.language ?? '');
  const [texts, setTexts] = useState<Texts>(editing ? textsOf(editing) : EMPTY);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const own: Record<TextKey, string | null | undefined> = {
    name: definition.name,
    description: definition.description,
    criteriaNarrative: definition.criteriaNarrative,
    certificateTitle: certificate?.title,
    certificateWording: certificate?.wording,
  };
  const ownLanguage = languageLabel(definition.language);

  async function save(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const optional = (value: string) => (value.trim() === '' ? null : value.trim());
    const { data, error: failure } = await api.PUT('/api/v1/definitions/{id}/translations/{lang}', {
      params: { path: { id: definition.id, lang: language.trim() } },
      body: {
        name: texts.name.trim(),
        description: texts.description.trim(),
        criteriaNarrative: optional(texts.criteriaNarrative),
        certificateTitle: optional(texts.certificateTitle),
        certificateWording: optional(texts.certificateWording),
      },
    });
    setBusy(false);
    if (failure) setError(problem(failure));
    else onSaved(data.language);
  }

  const title = editing ? `Edit the ${languageLabel(editing.language)} translation` : 'Add a translation';
  return (
    <form onSubmit={save} aria-labelledby="translation-form-title">
      <h3 id="translation-form-title">{title}</h3>
      {error && <Alert>{error}</Alert>}
      {!editing && (
        <Field
          label="Language tag"
          id="translation-language"
          hint={`A BCP 47 tag such as fr, de-CH or zh-Hant-TW; not ${definition.language}, the definition's own language.`}
        >
          <LanguageInput
            id="translation-language"
            hintId="translation-language-hint"
            required
            value={language}
            onInput={setLanguage}
          />
        </Field>
      )}
      {TEXTS.map((field) => {
        const id = `translation-${field.key}`;
        const original = own[field.key];
        const props = {
          id,
          required: field.required,
          maxLength: field.max,
          'aria-describedby': `${id}-own`,
          // The translation's language, for screen readers and spell checking, once it is a tag.
          lang: /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(language.trim()) ? language.trim() : undefined,
          value: texts[field.key],
          onInput: (e: Event) => setTexts({ ...texts, [field.key]: inputValue(e) }),
        };
        return (
          <div class="translate-pair" key={field.key}>
            <div class="own-text" id={`${id}-own`}>
              <span class="hint">
                {field.label} in {ownLanguage}
                {field.required ? '' : ', shown where this is left empty'}:
              </span>
              {original ? (
                <p class="wrap" lang={definition.language}>
                  {original}
                </p>
              ) : (
                <p>
                  <em>none</em>
                </p>
              )}
            </div>
            <Field label={`${field.label} (translation)`} id={id}>
              {field.lines > 1 ? <textarea rows={field.lines} {...props} /> : <input {...props} />}
            </Field>
          </div>
        );
      })}
      <p class="hint">
        The certificate wording may hold the placeholders of the certificate's own, such as {'{earnerName}'} and{' '}
        {'{badgeName}'}.
      </p>
      <div class="actions">
        <button type="submit" disabled={busy}>
          Save translation
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The definition's translations: the list, each to edit or delete, and a form to add one. */
function TranslationsSection({ definition, mayEdit }: { definition: Definition; mayEdit: boolean }) {
  const list = useApiRead(
    () => api.GET('/api/v1/definitions/{id}/translations', { params: { path: { id: definition.id } } }),
    [definition.id],
  );
  const certificate = useApiRead(
    () => api.GET('/api/v1/definitions/{id}/certificate', { params: { path: { id: definition.id } } }),
    [definition.id],
  );
  const [editing, setEditing] = useState<Translation | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Translation | null>(null);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState<string | null>(null);

  async function remove(translation: Translation) {
    setDeleting(null);
    setNotice('');
    const { error: failure } = await api.DELETE('/api/v1/definitions/{id}/translations/{lang}', {
      params: { path: { id: definition.id, lang: translation.language } },
    });
    if (failure) setError(problem(failure));
    else {
      setError(null);
      setNotice(`Deleted the ${languageLabel(translation.language)} translation.`);
      list.reload();
    }
  }

  const items = list.data;
  return (
    <section class="panel" aria-labelledby="translations-title">
      <h2 id="translations-title">Translations</h2>
      <p>
        The definition is written in {languageLabel(definition.language)}. A credential issued in a language listed here
        carries that language's text; a field a translation leaves empty shows the {definition.language} text.
      </p>
      {(error ?? list.error) && <Alert>{error ?? list.error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      {items === null ? (
        <p>Loading…</p>
      ) : items.length === 0 ? (
        <p>No translations yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="cards">
            <caption class="visually-hidden">Translations of {definition.name}</caption>
            <thead>
              <tr>
                <th scope="col">Language</th>
                <th scope="col">Name</th>
                <th scope="col">Updated</th>
                {mayEdit && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {items.map((translation) => (
                <tr key={translation.language}>
                  <th scope="row">{languageLabel(translation.language)}</th>
                  <td data-label="Name" lang={translation.language} class="wrap">
                    {translation.name}
                  </td>
                  <td data-label="Updated">{formatDate(translation.updatedAt)}</td>
                  {mayEdit && (
                    <td class="actions">
                      <button
                        type="button"
                        class="secondary"
                        onClick={() => {
                          setNotice('');
                          setEditing(translation);
                        }}
                      >
                        Edit<span class="visually-hidden"> the {languageLabel(translation.language)} translation</span>
                      </button>
                      <button type="button" class="danger" onClick={() => setDeleting(translation)}>
                        Delete
                        <span class="visually-hidden"> the {languageLabel(translation.language)} translation</span>
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {mayEdit && editing === null && (
        <div class="actions">
          <button
            type="button"
            onClick={() => {
              setNotice('');
              setEditing('new');
            }}
          >
            Add a translation
          </button>
        </div>
      )}
      {mayEdit && editing !== null && (
        <TranslationForm
          key={editing === 'new' ? 'new' : editing.language}
          definition={definition}
          certificate={certificate.data}
          editing={editing === 'new' ? null : editing}
          onSaved={(language) => {
            setEditing(null);
            setNotice(`Saved the ${languageLabel(language)} translation.`);
            list.reload();
          }}
          onCancel={() => setEditing(null)}
        />
      )}
      {deleting && (
        <ConfirmDialog
          id="confirm-delete-translation"
          title={`Delete the ${languageLabel(deleting.language)} translation of “${definition.name}”?`}
          confirmLabel="Delete translation"
          onConfirm={() => remove(deleting)}
          onCancel={() => setDeleting(null)}
        >
          <p>
            Credentials asked for in {languageLabel(deleting.language)} show the {definition.language} text from then
            on. Credentials issued before keep the text they were issued with.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** A definition's page: what it says about itself, its versions, its translations and its certificate. */
export function DefinitionPage() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const session = useSession();
  const mayEdit = can(session?.user, 'issue');
  const { data: definition, error } = useApiRead(
    () => api.GET('/api/v1/definitions/{id}', { params: { path: { id } } }),
    [id],
  );
  const given = (value: string | number | null | undefined) => (value == null || value === '' ? '—' : String(value));

  return (
    <>
      <p>
        <a href="/console/definitions">Definitions</a>
      </p>
      <h1 class="wrap">{definition?.name ?? 'Definition'}</h1>
      {error && <Alert>{error}</Alert>}
      {definition === null ? (
        !error && <p>Loading…</p>
      ) : (
        <>
          <dl class="facts wrap">
            <dt>Language</dt>
            <dd>{languageLabel(definition.language)}</dd>
            <dt>Version</dt>
            <dd>
              {definition.version ? `${definition.version} (yours); ` : ''}
              {`number ${definition.versionNumber} on this service`}
            </dd>
            <dt>Achievement type</dt>
            <dd>{given(definition.achievementType)}</dd>
            <dt>Credits available</dt>
            <dd>{given(definition.creditsAvailable)}</dd>
            <dt>Field of study</dt>
            <dd>{given(definition.fieldOfStudy)}</dd>
            <dt>Specialization</dt>
            <dd>{given(definition.specialization)}</dd>
            <dt>Course code</dt>
            <dd>{given(definition.humanCode)}</dd>
            <dt>Validity</dt>
            <dd>{validityText(definition)}</dd>
            <dt>Status</dt>
            <dd>{definition.status ?? 'active'}</dd>
            <dt>Updated</dt>
            <dd>{formatDate(definition.updatedAt)}</dd>
          </dl>
          <p class="hint">
            The version number goes up when the name, description, criteria, image or a translation changes after a
            credential was issued: earlier credentials keep showing the text they were issued with.
          </p>
          <p>
            <a href={`/console/definitions/${definition.id}/certificate`}>Certificate of {definition.name}</a>
          </p>
          <TranslationsSection definition={definition} mayEdit={mayEdit} />
        </>
      )}
    </>
  );
}
