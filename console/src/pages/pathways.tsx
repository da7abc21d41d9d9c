import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { useApiRead, useSubmission } from '../hooks';
import { can, useSession } from '../session';
import { Alert, Field, inputValue } from '../ui';

type Pathway = components['schemas']['Pathway'];
type PathwayWithStages = components['schemas']['PathwayWithStages'];
type Progress = components['schemas']['PathwayProgress'];
type Definition = components['schemas']['Definition'];
type IssuedClr = components['schemas']['IssuedClr'];

/**
 * For an earner who completed the pathway: issues their CLR 2.0 (the signed credentials of the
 * stages, in pathway order) and links to it. Asked again, the API answers the CLR already issued.
 */
function IssueClr({ pathway, email }: { pathway: Pathway; email: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [issued, setIssued] = useState<IssuedClr | null>(null);

  async function issue() {
    setBusy(true);
    setError(null);
    const { data, error: failure } = await api.POST('/api/v1/pathways/{id}/clr', {
      params: { path: { id: pathway.id } },
      body: { recipientEmail: email },
    });
    setBusy(false);
    if (failure) setError(problem(failure));
    else setIssued(data);
  }

  return (
    <div>
      <button type="button" onClick={issue} disabled={busy}>
        Issue CLR
      </button>
      {error && <Alert>{error}</Alert>}
      {issued && (
        <Alert kind="success">
          CLR issued, holding the earner’s credentials of the stages.{' '}
          <a href={issued.credentialUrl} target="_blank" rel="noopener">
            Open the CLR (JSON-LD)
          </a>
        </Alert>
      )}
    </div>
  );
}

/** Adds a definition as the next stage; the step order is prefilled with the one after the last. */
function AddStage({
  pathway,
  definitions,
  nextStep,
  onAdded,
}: {
  pathway: Pathway;
  definitions: Definition[];
  nextStep: number;
  onAdded: () => void;
}) {
  const [definitionId, setDefinitionId] = useState('');
  const [step, setStep] = useState('');
  const [required, setRequired] = useState(true);
  const { busy, error, notice, submit } = useSubmission();
  const id = `stage-${pathway.id}`;

  async function add(event: Event) {
    event.preventDefault();
    const chosen = definitionId || definitions[0]?.id || '';
    const name = definitions.find((definition) => definition.id === chosen)?.name ?? chosen;
    const added = await submit(
      () =>
        api.POST('/api/v1/pathways/{id}/stages', {
          params: { path: { id: pathway.id } },
          body: { definitionId: chosen, stepOrder: Number(step || nextStep), required },
        }),
      `Added “${name}” as a stage.`,
    );
    if (added) {
      setStep('');
      onAdded();
    }
  }

  if (definitions.length === 0) return <p>Create a definition first; each stage is one definition.</p>;
  return (
    <form class="inline-form" onSubmit={add} aria-label={`Add a stage to ${pathway.name}`}>
      <Field label="Definition" id={`${id}-definition`}>
        <select id={`${id}-definition`} value={definitionId} onChange={(e) => setDefinitionId(inputValue(e))}>
          {definitions.map((definition) => (
            <option key={definition.id} value={definition.id}>
              {definition.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Step" id={`${id}-step`}>
        <input
          id={`${id}-step`}
          type="number"
          min={1}
          max={10000}
          placeholder={String(nextStep)}
          value={step}
          onInput={(e) => setStep(inputValue(e))}
        />
      </Field>
      <label class="choice">
        <input
          type="checkbox"
          checked={required}
          onChange={(e) => setRequired((e.currentTarget as HTMLInputElement).checked)}
        />
        Required
      </label>
      <button type="submit" disabled={busy}>
        Add stage
      </button>
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
    </form>
  );
}

function PathwayDetail({
  pathway,
  definitions,
  editable,
}: {
  pathway: Pathway;
  definitions: Definition[];
  editable: boolean;
}) {
  const names = new Map(definitions.map((definition) => [definition.id, definition.name]));
  const { data: detail, reload } = useApiRead<PathwayWithStages>(
    () => api.GET('/api/v1/pathways/{id}', { params: { path: { id: pathway.id } } }),
    [pathway.id],
  );
  const [email, setEmail] = useState('');
  const [progress, setProgress] = useState<Progress | null>(null);
  const [checked, setChecked] = useState('');
  const [error, setError] = useState<string | null>(null);
  const stages = [...(detail?.stages ?? [])].sort((a, b) => a.stepOrder - b.stepOrder);
  const unused = definitions.filter((definition) => !stages.some((stage) => stage.definitionId === definition.id));

  async function check(event: Event) {
    event.preventDefault();
    const { data, error: failure } = await api.POST('/api/v1/pathways/{id}/progress', {
      params: { path: { id: pathway.id } },
      body: { recipientEmail: email },
    });
    if (failure) setError(problem(failure));
    else {
      setError(null);
      setProgress(data);
      setChecked(email);
    }
  }

  return (
    <section class="panel" aria-labelledby={`pathway-${pathway.id}`}>
      <h2 id={`pathway-${pathway.id}`}>{pathway.name}</h2>
      {pathway.description && <p>{pathway.description}</p>}
      {detail && stages.length === 0 && <p>No stages yet.</p>}
      {stages.length > 0 && (
        <ol aria-label={`Stages of ${pathway.name}`}>
          {stages.map((stage) => (
            <li key={stage.id}>
              {names.get(stage.definitionId) ?? stage.definitionId}
              {stage.required ? '' : ' (optional)'}
            </li>
          ))}
        </ol>
      )}
      {editable && detail && (
        <AddStage
          key={unused.map((definition) => definition.id).join()}
          pathway={pathway}
          definitions={unused}
          nextStep={(stages.at(-1)?.stepOrder ?? 0) + 1}
          onAdded={reload}
        />
      )}
      <form class="inline-form" onSubmit={check} aria-label={`Progress on ${pathway.name}`}>
        <Field label="Earner email" id={`progress-${pathway.id}`}>
          <input
            id={`progress-${pathway.id}`}
            type="email"
            required
            value={email}
            onInput={(e) => setEmail(inputValue(e))}
          />
        </Field>
        <button type="submit">Show progress</button>
      </form>
      {error && <Alert>{error}</Alert>}
      {progress && (
        <div role="status">
          <p>
            {progress.earnedStages} of {progress.totalStages} stages earned
            {progress.complete ? ': pathway complete.' : '.'}
          </p>
          <ul class="links">
            {progress.stages.map((stage) => (
              <li key={stage.stageId}>
                {names.get(stage.definitionId) ?? stage.definitionId}: {stage.earned ? 'earned' : 'not yet'}
                {stage.required ? '' : ' (optional)'}
              </li>
            ))}
          </ul>
          {progress.complete && editable && <IssueClr key={checked} pathway={pathway} email={checked} />}
        </div>
      )}
    </section>
  );
}

function CreatePathway({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const { busy, error, notice, submit } = useSubmission();

  async function create(event: Event) {
    event.preventDefault();
    const created = await submit(
      () => api.POST('/api/v1/pathways', { body: { name, description } }),
      `Created the pathway “${name}”. Add its stages below.`,
    );
    if (created) {
      setName('');
      setDescription('');
      onCreated();
    }
  }

  return (
    <form class="panel" onSubmit={create} aria-labelledby="create-pathway">
      <h2 id="create-pathway">Create a pathway</h2>
      <Field label="Name" id="pathway-name">
        <input id="pathway-name" required maxLength={200} value={name} onInput={(e) => setName(inputValue(e))} />
      </Field>
      <Field label="Description" id="pathway-description">
        <textarea
          id="pathway-description"
          required
          maxLength={5000}
          value={description}
          onInput={(e) => setDescription(inputValue(e))}
        />
      </Field>
      <button type="submit" disabled={busy}>
        Create pathway
      </button>
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
    </form>
  );
}

export function PathwaysPage() {
  const session = useSession();
  const editable = can(session?.user, 'issue');
  const { data: pathways, error, reload } = useApiRead(() => api.GET('/api/v1/pathways'), []);
  const [definitions, setDefinitions] = useState<Definition[]>([]);
  useEffect(() => {
    api.GET('/api/v1/definitions').then(({ data }) => setDefinitions(data ?? []));
  }, []);
  return (
    <>
      <h1>Pathways</h1>
      <p>A pathway is a set of definitions an earner collects in stages. Check any earner's progress by email.</p>
      {error && <Alert>{error}</Alert>}
      {editable && <CreatePathway onCreated={reload} />}
      {pathways?.length === 0 && <p>No pathways yet.</p>}
      {pathways?.map((pathway) => (
        <PathwayDetail key={pathway.id} pathway={pathway} definitions={definitions} editable={editable} />
      ))}
    </>
  );
}
