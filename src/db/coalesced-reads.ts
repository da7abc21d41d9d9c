interface Waiter<K, V> {
  key: K;
  resolve(value: V | undefined): void;
  reject(err: unknown): void;
}

/**
 * Reads of one key at a time, run together under load. While `maxInFlight` reads are out, a key
 * waits for the next read, which takes every key waiting by then (at most `maxKeys`); idle, a key is
 * read at once, alone. A read starts only after each of its keys was asked for, so it sees every
 * commit made before the ask (a revocation shows at once): what is saved is round trips and
 * statements, never freshness. A failed read fails each of its keys.
 */
export function coalescedReads<K, V>(
  read: (keys: K[]) => Promise<ReadonlyMap<K, V>>,
  options: { maxInFlight: number; maxKeys: number },
): (key: K) => Promise<V | undefined> {
  const waiting: Waiter<K, V>[] = [];
  let inFlight = 0;

  async function run(): Promise<void> {
    const batch = waiting.splice(0, options.maxKeys);
    inFlight++;
    try {
      const found = await read([...new Set(batch.map((waiter) => waiter.key))]);
      for (const waiter of batch) waiter.resolve(found.get(waiter.key));
    } catch (err) {
      for (const waiter of batch) waiter.reject(err);
    } finally {
      inFlight--;
      startReads();
    }
  }

  function startReads(): void {
    while (waiting.length > 0 && inFlight < options.maxInFlight) void run();
  }

  return (key) =>
    new Promise<V | undefined>((resolve, reject) => {
      waiting.push({ key, resolve, reject });
      startReads();
    });
}
