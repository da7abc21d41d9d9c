/** A value loaded at the first call, and the load itself for whoever must close what it opened. */
export interface LoadedOnce<T> {
  (): Promise<T>;
  /** The load under way or done; undefined before the first call and after a failed load. */
  current(): Promise<T> | undefined;
}

/**
 * `load` run at the first call and its promise shared by every call after it, for a module imported
 * at first use or a connection opened at the first send. A failed load is not kept: the next call
 * runs `load` again instead of failing for good.
 */
export function loadedOnce<T>(load: () => Promise<T>): LoadedOnce<T> {
  let loading: Promise<T> | undefined;
  const get = () => {
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  };
  return Object.assign(get, { current: () => loading });
}
