import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import type { components } from '../../../client/index';
import { api, problem, uploadImage } from '../api';
import { can, useSession } from '../session';
import { Alert, Field, inputValue } from '../ui';

type Design = components['schemas']['DefinitionCertificate'];
type Body = Omit<Design, 'definitionId' | 'source' | 'version' | 'updatedAt'>;
type Signatory = Body['signatories'][number];

const PLACEHOLDERS = ['earnerName', 'badgeName', 'issuerName', 'issuedOn', 'expiresOn', 'credentialId'];
const MAX_SIGNATORIES = 3;
/** How long the designer waits after the last change before it asks for a new preview. */
const PREVIEW_DELAY_MS = 700;
const BORDERS: Record<Body['borderStyle'], string> = {
  classic: 'Classic (a thick and a thin line)',
  double: 'Double line',
  modern: 'Modern (a band at the left)',
  none: 'No border',
};
const SIZES: Record<Body['size'], string> = {
  auto: 'By the issuer’s country (Letter or A4)',
  A4: 'A4',
  Letter: 'US Letter',
};
const SOURCE_TEXT: Record<Design['source'], string> = {
  definition: 'This badge has a design of its own.',
  issuer: 'This badge uses the issuer’s default design (Settings → Certificates).',
  default: 'This badge uses the built-in design: neither it nor the issuer has one yet.',
};

/** The fields a PUT takes, from what a GET answered. */
function bodyOf(design: Body): Body {
  const { enabled, title, wording, signatories, backgroundImageId, borderStyle, orientation, size } = design;
  return {
    enabled,
    title,
    wording,
    signatories,
    backgroundImageId,
    borderStyle,
    orientation,
    size,
    color: design.color,
    logoImageId: design.logoImageId,
  };
}

/** A PNG file uploaded through the sanitising image path; its id is what a design names. */
async function uploadPng(file: File): Promise<string> {
  if (file.type !== 'image/png') throw { message: 'Choose a PNG file: a certificate cannot print an SVG.' };
  const uploaded = await uploadImage(file, 'image/png');
  if (!uploaded.id) throw uploaded.error;
  return uploaded.id;
}

function ImageInput({
  id,
  label,
  value,
  disabled,
  onChange,
  onError,
}: {
  id: string;
  label: string;
  value: string | null;
  disabled: boolean;
  onChange: (id: string | null) => void;
  onError: (message: string) => void;
}) {
  return (
    <div class="certificate-image">
      <Field
        label={label}
        id={id}
        hint={value ? 'An image is set. Choose another file to replace it.' : 'PNG, up to 256 KiB.'}
      >
        <input
          id={id}
          type="file"
          accept="image/png"
          disabled={disabled}
          aria-describedby={`${id}-hint`}
          onChange={async (event) => {
            const file = (event.currentTarget as HTMLInputElement).files?.[0];
            if (!file) return;
            try {
              onChange(await uploadPng(file));
            } catch (failure) {
              onError(problem(failure, 'The image could not be uploaded.'));
            }
          }}
        />
      </Field>
      {value && (
        <button type="button" class="secondary" disabled={disabled} onClick={() => onChange(null)}>
          Remove {label.toLowerCase()}
        </button>
      )}
    </div>
  );
}

/** The PDF the API draws for the design as it stands, in a frame, refreshed a moment after each change. */
function Preview({ body, definitionId }: { body: Body; definitionId?: string }) {
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const current = useRef<string | null>(null);
  const key = JSON.stringify(body);
  useEffect(() => {
    let cancelled = false;
    const timer = setTimeout(async () => {
      setBusy(true);
      const { data, error: failure } = await api.POST('/api/v1/certificates/preview', {
        body: { ...body, enabled: true, ...(definitionId ? { definitionId } : {}) },
        parseAs: 'blob',
      });
      if (cancelled) return;
      setBusy(false);
      if (failure || !(data instanceof Blob)) {
        setError(problem(failure, 'The preview could not be drawn.'));
        return;
      }
      setError(null);
      const next = URL.createObjectURL(new Blob([data], { type: 'application/pdf' }));
      if (current.current) URL.revokeObjectURL(current.current);
      current.current = next;
      setUrl(next);
    }, PREVIEW_DELAY_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
    // The body is compared by its JSON: a new object with the same fields draws nothing new.
  }, [key, definitionId]);
  useEffect(
    () => () => {
      if (current.current) URL.revokeObjectURL(current.current);
    },
    [],
  );
  return (
    <section class="panel certificate-preview" aria-labelledby="certificate-preview-title" aria-busy={busy}>
      <h2 id="certificate-preview-title">Preview</h2>
      <p class="hint">Drawn by the service with a sample earner, as the PDF will print.</p>
      {error && <Alert>{error}</Alert>}
      {url ? (
        <>
          <iframe class={`certificate-frame ${body.orientation}`} src={url} title="Certificate preview (PDF)" />
          <p>
            <a href={url} download="certificate-preview.pdf">
              Download the preview
            </a>
          </p>
        </>
      ) : (
        !error && <p>Drawing the preview…</p>
      )}
    </section>
  );
}

function SignatoryFields({
  index,
  signatory,
  disabled,
  onChange,
  onRemove,
  onError,
}: {
  index: number;
  signatory: Signatory;
  disabled: boolean;
  onChange: (next: Signatory) => void;
  onRemove: () => void;
  onError: (message: string) => void;
}) {
  const n = index + 1;
  return (
    <fieldset class="signatory">
      <legend>Signatory {n}</legend>
      <Field label={`Name of signatory ${n}`} id={`sig-name-${n}`}>
        <input
          id={`sig-name-${n}`}
          required
          maxLength={120}
          disabled={disabled}
          value={signatory.name}
          onInput={(e) => onChange({ ...signatory, name: inputValue(e) })}
        />
      </Field>
      <Field label={`Role of signatory ${n}`} id={`sig-role-${n}`}>
        <input
          id={`sig-role-${n}`}
          maxLength={120}
          disabled={disabled}
          value={signatory.role}
          onInput={(e) => onChange({ ...signatory, role: inputValue(e) })}
        />
      </Field>
      <ImageInput
        id={`sig-image-${n}`}
        label={`Signature of signatory ${n}`}
        value={signatory.signatureImageId}
        disabled={disabled}
        onChange={(signatureImageId) => onChange({ ...signatory, signatureImageId })}
        onError={onError}
      />
      <button type="button" class="secondary" disabled={disabled} onClick={onRemove}>
        Remove signatory {n}
      </button>
    </fieldset>
  );
}

/**
 * The certificate designer (issue 44 "Design"): every field of a design, saved with PUT, and a live
 * preview of the real PDF. `definitionId` set: a definition's own design; else the issuer's default.
 */
function CertificateDesigner({
  definitionId,
  initial,
  source,
  onSave,
  onReset,
  children,
}: {
  definitionId?: string;
  initial: Body;
  source?: Design['source'];
  onSave: (body: Body) => Promise<{ error?: unknown }>;
  onReset?: () => Promise<{ error?: unknown }>;
  /** More fields of the same form (the issuer's country, in Settings). */
  children?: ComponentChildren;
}) {
  const session = useSession();
  const mayEdit = can(session?.user, 'issue');
  const [body, setBody] = useState<Body>(initial);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  const set = (change: Partial<Body>) => setBody((previous) => ({ ...previous, ...change }));
  const locked = !mayEdit || busy;

  async function run(action: () => Promise<{ error?: unknown }>, done: string) {
    setBusy(true);
    setError(null);
    setNotice('');
    const { error: failure } = await action();
    setBusy(false);
    if (failure) setError(problem(failure));
    else setNotice(done);
  }

  const signatories = body.signatories;
  const setSignatory = (i: number, next: Signatory) =>
    set({ signatories: signatories.map((s, j) => (j === i ? next : s)) });

  return (
    <div class="certificate-designer">
      <form
        class="panel"
        aria-labelledby="certificate-form-title"
        onSubmit={(event) => {
          event.preventDefault();
          run(() => onSave(body), 'Saved the certificate design. Existing credentials show it at their next download.');
        }}
      >
        <h2 id="certificate-form-title">Design</h2>
        {source && <p>{SOURCE_TEXT[source]}</p>}
        {error && <Alert>{error}</Alert>}
        {notice && <Alert kind="success">{notice}</Alert>}
        <label class="choice">
          <input
            type="checkbox"
            checked={body.enabled}
            disabled={locked}
            onChange={(e) => set({ enabled: (e.currentTarget as HTMLInputElement).checked })}
          />
          {definitionId
            ? 'Make certificates for this badge'
            : 'Make certificates for badges without a design of their own'}
        </label>
        <Field label="Title" id="cert-title">
          <input
            id="cert-title"
            required
            maxLength={120}
            disabled={locked}
            value={body.title}
            onInput={(e) => set({ title: inputValue(e) })}
          />
        </Field>
        <Field
          label="Wording"
          id="cert-wording"
          hint={`Printed under the earner's name. Placeholders: ${PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}.`}
        >
          <textarea
            id="cert-wording"
            required
            rows={3}
            maxLength={600}
            disabled={locked}
            aria-describedby="cert-wording-hint"
            value={body.wording}
            onInput={(e) => set({ wording: inputValue(e) })}
          />
        </Field>
        <fieldset>
          <legend>Signatories (up to {MAX_SIGNATORIES})</legend>
          {signatories.length === 0 && <p>No signatories.</p>}
          {signatories.map((signatory, i) => (
            <SignatoryFields
              key={i}
              index={i}
              signatory={signatory}
              disabled={locked}
              onChange={(next) => setSignatory(i, next)}
              onRemove={() => set({ signatories: signatories.filter((_, j) => j !== i) })}
              onError={setError}
            />
          ))}
          {signatories.length < MAX_SIGNATORIES && (
            <button
              type="button"
              class="secondary"
              disabled={locked}
              onClick={() => set({ signatories: [...signatories, { name: '', role: '', signatureImageId: null }] })}
            >
              Add signatory
            </button>
          )}
        </fieldset>
        <fieldset>
          <legend>Page</legend>
          <Field label="Border" id="cert-border">
            <select
              id="cert-border"
              disabled={locked}
              value={body.borderStyle}
              onChange={(e) => set({ borderStyle: inputValue(e) as Body['borderStyle'] })}
            >
              {Object.entries(BORDERS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </Field>
          <ImageInput
            id="cert-background"
            label="Background image"
            value={body.backgroundImageId}
            disabled={locked}
            onChange={(backgroundImageId) => set({ backgroundImageId })}
            onError={setError}
          />
          <Field label="Orientation" id="cert-orientation">
            <select
              id="cert-orientation"
              disabled={locked}
              value={body.orientation}
              onChange={(e) => set({ orientation: inputValue(e) === 'portrait' ? 'portrait' : 'landscape' })}
            >
              <option value="landscape">Landscape</option>
              <option value="portrait">Portrait</option>
            </select>
          </Field>
          <Field label="Paper size" id="cert-size">
            <select
              id="cert-size"
              disabled={locked}
              value={body.size}
              onChange={(e) => set({ size: inputValue(e) as Body['size'] })}
            >
              {Object.entries(SIZES).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </Field>
        </fieldset>
        <fieldset>
          <legend>Logo and colour</legend>
          <label class="choice">
            <input
              type="checkbox"
              checked={body.color === null}
              disabled={locked}
              onChange={(e) => set({ color: (e.currentTarget as HTMLInputElement).checked ? null : '#1f3a5f' })}
            />
            Use the issuer’s brand colour
          </label>
          {body.color !== null && (
            <Field label="Colour" id="cert-color">
              <input
                id="cert-color"
                type="color"
                disabled={locked}
                value={body.color}
                onInput={(e) => set({ color: inputValue(e) })}
              />
            </Field>
          )}
          <ImageInput
            id="cert-logo"
            label="Logo"
            value={body.logoImageId}
            disabled={locked}
            onChange={(logoImageId) => set({ logoImageId })}
            onError={setError}
          />
          {body.logoImageId === null && (
            <p class="hint">Without one, the issuer’s logo is printed (when it is a PNG).</p>
          )}
        </fieldset>
        {children}
        {mayEdit && (
          <div class="actions">
            <button type="submit" disabled={busy}>
              Save certificate design
            </button>
            {onReset && source === 'definition' && (
              <button
                type="button"
                class="secondary"
                disabled={busy}
                onClick={() => run(onReset, 'This badge uses the issuer’s default design again.')}
              >
                Use the issuer’s default
              </button>
            )}
          </div>
        )}
      </form>
      <Preview body={body} {...(definitionId ? { definitionId } : {})} />
    </div>
  );
}

/** Definitions → a badge's "Certificate" tab: /console/definitions/:id/certificate. */
export function DefinitionCertificatePage() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const [design, setDesign] = useState<Design | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);

  useEffect(() => {
    (async () => {
      const [definition, found] = await Promise.all([
        api.GET('/api/v1/definitions/{id}', { params: { path: { id } } }),
        api.GET('/api/v1/definitions/{id}/certificate', { params: { path: { id } } }),
      ]);
      if (definition.error || found.error) setError(problem(definition.error ?? found.error));
      else {
        setName(definition.data.name);
        setDesign(found.data);
      }
    })();
  }, [id, round]);

  return (
    <>
      <p>
        <a href="/console/definitions">Definitions</a>
      </p>
      <h1>Certificate{name ? `: ${name}` : ''}</h1>
      {error && <Alert>{error}</Alert>}
      {design ? (
        <CertificateDesigner
          key={round}
          definitionId={id}
          initial={bodyOf(design)}
          source={design.source}
          onSave={async (body) => {
            const result = await api.PUT('/api/v1/definitions/{id}/certificate', { params: { path: { id } }, body });
            if (result.data) setDesign(result.data);
            return result;
          }}
          onReset={async () => {
            const result = await api.DELETE('/api/v1/definitions/{id}/certificate', { params: { path: { id } } });
            if (!result.error) setRound((r) => r + 1);
            return result;
          }}
        />
      ) : (
        !error && <p>Loading…</p>
      )}
    </>
  );
}

/** Settings → Certificates: the issuer's default design, for every badge without one of its own. */
export function CertificateSettingsPage() {
  const session = useSession();
  const [settings, setSettings] = useState<components['schemas']['CertificateSettings'] | null>(null);
  const [country, setCountry] = useState('');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    (async () => {
      const { data, error: failure } = await api.GET('/api/v1/certificates/settings');
      if (failure) setError(problem(failure));
      else {
        setSettings(data);
        setCountry(data.country ?? '');
      }
    })();
  }, []);
  return (
    <>
      <p>
        <a href="/console/settings">Settings</a>
      </p>
      <h1>Certificates</h1>
      <p>The default certificate of every badge without a design of its own.</p>
      {error && <Alert>{error}</Alert>}
      {settings ? (
        <CertificateDesigner
          initial={bodyOf(settings)}
          onSave={(body) =>
            api.PUT('/api/v1/certificates/settings', {
              body: { ...body, country: country.trim().toUpperCase() || null },
            })
          }
        >
          <Field
            label="Country"
            id="cert-country"
            hint="Two letters (ISO 3166-1), for example GB or US: decides A4 or Letter and how dates are written."
          >
            <input
              id="cert-country"
              maxLength={2}
              autoComplete="country"
              disabled={!can(session?.user, 'issue')}
              aria-describedby="cert-country-hint"
              value={country}
              onInput={(e) => setCountry(inputValue(e))}
            />
          </Field>
        </CertificateDesigner>
      ) : (
        !error && <p>Loading…</p>
      )}
    </>
  );
}
