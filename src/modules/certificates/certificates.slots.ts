/**
 * At most `size` pieces of work at once; the rest wait their turn in the order they came. A
 * waiting piece has started nothing, so it holds no memory of its own beyond its request.
 */
export function workSlots(size: number) {
  let busy = 0;
  let peak = 0;
  const waiting: (() => void)[] = [];

  async function run<T>(work: () => Promise<T>): Promise<T> {
    if (busy < size) busy++;
    // A finishing piece hands its slot straight to the first waiting one (busy stays as it is).
    else await new Promise<void>((resolve) => waiting.push(resolve));
    peak = Math.max(peak, busy);
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else busy--;
    }
  }

  return {
    run,
    /** Pieces running and waiting now, and the most that ever ran at once. */
    load: () => ({ running: busy, waiting: waiting.length, peak }),
  };
}
