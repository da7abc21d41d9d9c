import { type Inputs, useCallback, useEffect, useState } from 'preact/hooks';
import { problem } from './api';

/** What the typed client answers: the body, or the Error body. */
type ApiResult<T> = { data?: T; error?: unknown };

/**
 * Something a page reads from the API: read on mount and again when `inputs` change or `reload`
 * is called. A failed read becomes the page's error message; `data` is null until the first answer.
 */
export function useApiRead<T>(read: () => Promise<ApiResult<T>>, inputs: Inputs) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  // `read` is a new closure each render; `inputs` are what it reads, so they decide when it reruns.
  const reload = useCallback(async () => {
    const { data: answer, error: failure } = await read();
    if (failure) setError(problem(failure));
    else setData(answer as T);
  }, inputs);
  useEffect(() => {
    reload();
  }, [reload]);
  return { data, error, setError, reload };
}

/**
 * A form's submission: busy while it runs, then the Error body's message, or a success notice.
 * `submit` answers whether the change was made, so the form can clear its fields.
 */
export function useSubmission() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  async function submit(send: () => Promise<ApiResult<unknown>>, done: string): Promise<boolean> {
    setBusy(true);
    setError(null);
    setNotice('');
    const { error: failure } = await send();
    setBusy(false);
    if (failure) {
      setError(problem(failure));
      return false;
    }
    setNotice(done);
    return true;
  }
  return { busy, error, notice, submit };
}
