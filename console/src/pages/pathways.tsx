import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { Alert, Field, inputValue } from '../ui';

type Pathway = components['schemas']['Pathway'];
type PathwayWithStages = components['schemas']['PathwayWithStages'];
type Progress = components['schemas']['PathwayProgress'];
type Definition = components['schemas']['Definition'];

function PathwayDetail({ pathway, names }: { pathway: Pathway; names: Map<string, string> }) {
  const [detail, setDetail] = useState<PathwayWithStages | null>(null);
  const [email, setEmail] = useState('');
  const [progress, setProgress] = useState<Progress | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api
      .GET('/api/v1/pathways/{id}', { params: { path: { id: pathway.id } } })
      .then(({ data }) => setDetail(data ?? null));
  }, [pathway.id]);

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
    }
  }

  return (
    <section class="panel" aria-labelledby={`pathway-${pathway.id}`}>
      <h2 id={`pathway-${pathway.id}`}>{pathway.name}</h2>
      {pathway.description && <p>{pathway.description}</p>}
      {detail && (
        <ol>
          {[...detail.stages]
            .sort((a, b) => a.stepOrder - b.stepOrder)
            .map((stage) => (
              <li key={stage.id}>
                {names.get(stage.definitionId) ?? stage.definitionId}
                {stage.required ? '' : ' (optional)'}
              </li>
            ))}
        </ol>
      )}
      <form class="inline-form" onSubmit={check}>
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
        <p role="status">
          {progress.earnedStages} of {progress.totalStages} stages earned
          {progress.complete ? ': pathway complete.' : '.'}
        </p>
      )}
    </section>
  );
}

export function PathwaysPage() {
  const [pathways, setPathways] = useState<Pathway[] | null>(null);
  const [names, setNames] = useState(new Map<string, string>());
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.GET('/api/v1/pathways').then(({ data, error: failure }) => {
      if (failure) setError(problem(failure));
      else setPathways(data);
    });
    api.GET('/api/v1/definitions').then(({ data }) => {
      setNames(new Map((data ?? []).map((definition: Definition) => [definition.id, definition.name])));
    });
  }, []);
  return (
    <>
      <h1>Pathways</h1>
      {error && <Alert>{error}</Alert>}
      {pathways?.length === 0 && <p>No pathways yet. Create them through the API (POST /api/v1/pathways).</p>}
      {pathways?.map((pathway) => (
        <PathwayDetail key={pathway.id} pathway={pathway} names={names} />
      ))}
    </>
  );
}
