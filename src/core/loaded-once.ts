/**
 * `load` run at the first call and its promise shared by every call after it, for a module imported
 * at first use or a connection opened at the first send. A failed load is not kept: the next call
 * runs `load` again instead of failing for good.
 */
export function loadedOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  };
}
